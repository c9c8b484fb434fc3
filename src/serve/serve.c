// SPDX-License-Identifier: GPL-2.0
/*
 * serve_run(): the collector's loop. It waits in the collector (at most
 * 100 ms at a time, the only place SIGINT/SIGTERM/SIGHUP are delivered, see
 * live_signals_install); at each interval it folds the new samples into
 * the store and retires gone VMs (and writes the textfile); when a scrape
 * has asked for a page, it folds and renders one for it. Rendering and file
 * writes happen here, never in the HTTP threads, and we never wait for them.
 *
 * serve -i FILE has no collector: the recordings are loaded into the store
 * once (serve-file.c), the textfile written once, and the HTTP server
 * answers with pages of that store until a signal.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "err.h"
#include "flight.h"
#include "kvmstats.h"
#include "live.h"
#include "outfile.h"
#include "serve-local.h"

#define TICK_MS	      100
#define TEXTFILE_NAME "kvm_exitstat.prom"

struct serve {
	const struct serve_opts *o;
	struct serve_live *live;
	struct serve_store *store;
	struct serve_http *http;
	struct serve_webconfig *wc;
	uint64_t answered; /* HTTP requests a page was made for */
	struct serve_live_counts file; /* serve -i: the inputs' counts */
	char path[4096];
	struct kvmstats *ks;	  /* KVM's own statistics, or NULL */
	struct kstat_reading kr;  /* their last reading */
	struct flight *fl;	  /* serve --flight, or NULL */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int wait_ms(double deadline)
{
	double left = (deadline - now_s()) * 1000;

	if (left <= 0)
		return 0;
	return left < TICK_MS ? (int)left + 1 : TICK_MS;
}

static void add_row(const struct serve_row *r, void *arg)
{
	serve_store_add(arg, r);
}

static bool vm_gone(void *arg, int32_t pid)
{
	return serve_live_vm_gone(arg, pid);
}

static int write_textfile(struct serve *s, const char *buf, size_t len)
{
	char e[512] = "";
	struct outfile *of = outfile_open(s->path, OUTFILE_REPLACE, e, sizeof(e));
	FILE *f = of ? outfile_stdio(of, "w", e, sizeof(e)) : NULL;
	int ret = 0;

	/*
	 * 0644 whatever the umask: node_exporter runs as its own user (Debian:
	 * prometheus) and must read it; umask 027 gave node_textfile_scrape_error.
	 */
	if (f && !outfile_is_stream(of) && fchmod(outfile_fd(of), 0644) < 0) {
		ret = err_errno("cannot make '%s' readable", s->path);
	} else if (!f) {
		ret = err("%s", e);
	} else {
		size_t n = fwrite(buf, 1, len, f);

		if (fclose(f) != 0 || n != len)
			ret = err_errno("cannot write '%s'", s->path);
		else if (outfile_commit(of, e, sizeof(e)) < 0)
			ret = err("%s", e);
	}
	outfile_free(of);
	return ret;
}

/* One format of the page, and its gzip when asked. 0 or -1 after err(). */
static int make_page(struct serve *s, const struct serve_meta *m, bool om, bool gz,
		     struct serve_page *p)
{
	*p = (struct serve_page){0};
	if (serve_expose(s->store, m, om, &p->buf, &p->len) < 0)
		return err("cannot render the metrics: out of memory");
	if (gz && serve_gzip(p->buf, p->len, &p->gz, &p->gzlen) < 0)
		p->gz = NULL; /* served plain */
	return 0;
}

/* Renders the store for the textfile and/or the HTTP server. 0 or -1 after err(). */
static int render(struct serve *s, bool http, bool file)
{
	struct serve_meta m = {.version = s->o->version,
			       .buckets = s->o->buckets ? s->o->buckets_name : NULL,
			       .per_vcpu = s->o->per_vcpu,
			       .anatomy = s->o->anatomy};
	uint64_t answers = s->http ? serve_http_pending(s->http) : 0;
	bool gz = http && serve_http_wants_gzip(s->http);
	struct serve_page text, om = {0};
	int ret = 0;

	struct kstat_view *kv = s->ks ? kstat_view_new(kvmstats_schema(s->ks), NULL, &s->kr,
						       s->o->per_vcpu ? KSTAT_VIEW_VCPUS : 0,
						       NULL, NULL)
				      : NULL;

	m.kstats = kv;
	m.untraced = !s->store;
	if (s->fl) {
		m.flight = true;
		m.flight_saves = flight_saves(s->fl);
		m.flight_triggers = flight_triggers(s->fl);
	}
	m.in_kernel = s->o->in_kernel;
	if (s->live) {
		const char *why;

		serve_live_counts(s->live, &m.live);
		m.sees_kvm = serve_live_sees_kvm(s->live, &why);
	} else if (s->o->ninputs) {
		m.live = s->file;
		m.sees_kvm = true; /* the inputs had KVM events, or loading them failed */
	} else {
		m.sees_kvm = s->ks != NULL; /* KVM's own statistics are all we export */
	}
	serve_process_read(&m.proc);
	if (s->http) {
		m.http = true;
		serve_http_served(s->http, &m.scrapes_text, &m.scrapes_om);
		serve_http_dropped(s->http, m.dropped);
	}
	if (make_page(s, &m, false, gz, &text) < 0) {
		kstat_view_free(kv);
		return -1;
	}
	if (file)
		ret = write_textfile(s, text.buf, text.len);
	if (!http) {
		free(text.buf);
		free(text.gz);
		kstat_view_free(kv);
		return ret;
	}
	if (serve_http_wants_openmetrics(s->http) && make_page(s, &m, true, gz, &om) < 0)
		om = (struct serve_page){0};
	kstat_view_free(kv);
	serve_http_publish(s->http, answers, &text, &om);
	s->answered = answers;
	return ret;
}

/*
 * The interval's samples into the store; gone VMs retired. KVM's statistics
 * read anew (a VM's values are its counts since it started: nothing to add
 * up); a reading that fails keeps the last one and is said on stderr.
 */
static int fold(struct serve *s)
{
	char e[512];

	if (s->live) {
		if (serve_live_tick(s->live, add_row, s->store) < 0)
			return err_errno("reading the trace buffers");
		serve_store_retire(s->store, now_s(), s->o->keep_gone, vm_gone, s->live);
	}
	if (s->ks) {
		struct kstat_reading r = {0};

		if (kvmstats_read(s->ks, &r, e, sizeof(e)) < 0) {
			err_info("kvm-exitstat: %s\n", e);
			return 0;
		}
		kstat_reading_free(&s->kr);
		s->kr = r;
	}
	return 0;
}

/* The flight recorder's turn: its requests (SIGUSR1, POST /flight), its triggers, a save. */
static void fly(struct serve *s)
{
	const char *saved;
	char e[512];

	if (!s->fl)
		return;
	if (live_usr1_taken())
		flight_trigger(s->fl, "signal");
	if (s->http && serve_http_flights(s->http))
		flight_trigger(s->fl, "http");
	if (flight_tick(s->fl, &saved, e, sizeof(e)) < 0)
		err_info("kvm-exitstat: flight recorder: %s\n", e);
	else if (saved)
		err_info("kvm-exitstat: flight recorder: saved %s\n", saved);
}

/* Waits in the collector, or (no tracing) with the same signal policy. */
static int wait_for(struct serve *s, int ms)
{
	if (s->live)
		return serve_live_poll(s->live, ms);
	/* a scrape's page made at once, not at the next tick */
	if (s->http)
		live_sleep_on(serve_http_wake_fd(s->http), ms);
	else
		live_sleep(ms);
	return 0;
}

static int loop(struct serve *s)
{
	double next = now_s() + s->o->interval;

	while (!live_stop_requested()) {
		if (wait_for(s, wait_ms(next)) < 0)
			return err_errno("reading the trace buffers");
		if (s->http) {
			serve_http_woken(s->http);
			serve_http_tick(s->http);
		}
		fly(s);
		/* A scrape waits for a page made from what was read until now. */
		if (s->http && serve_http_pending(s->http) > s->answered &&
		    (fold(s) < 0 || render(s, true, false) < 0))
			return -1;
		if (now_s() < next)
			continue;
		if (fold(s) < 0)
			return -1;
		/* A textfile that cannot be written is reported at each try, not fatal. */
		if (s->o->textfile)
			render(s, false, true);
		next += s->o->interval;
		if (next < now_s())
			next = now_s() + s->o->interval;
	}
	/* The last counts, for a textfile that outlives us. */
	if (s->o->textfile && (fold(s) < 0 || render(s, false, true) < 0))
		return -1;
	return 0;
}

/* serve -i: the recordings' pages until a signal; the textfile was written by setup. */
static int loop_file(struct serve *s)
{
	while (s->http && !live_stop_requested()) {
		live_sleep_on(serve_http_wake_fd(s->http), TICK_MS);
		serve_http_woken(s->http);
		if (serve_http_pending(s->http) > s->answered && render(s, true, false) < 0)
			return -1;
	}
	return 0;
}

/* Tracing: the exits streamed, or counted and timed in the kernel (--in-kernel). */
static int start_collector(struct serve *s)
{
	char e[512];

	s->live = serve_live_new(s->o, e, sizeof(e));
	if (!s->live)
		return err("%s", e);
	if (serve_live_start(s->live) < 0)
		return err_errno("cannot start tracing");
	s->store = serve_store_new(s->o->max_rows, s->o->per_vcpu);
	if (s->o->in_kernel)
		serve_store_set_bounds(s->store, serve_le_log2_ns);
	return 0;
}

static int start_flight(struct serve *s)
{
	char e[512];

	if (live_usr1_install() < 0)
		return err_errno("cannot install signal handlers");
	s->fl = flight_new(s->o->flight, e, sizeof(e));
	if (!s->fl)
		return err("flight recorder: %s", e);
	if (flight_start(s->fl) < 0)
		return err_errno("flight recorder: cannot start tracing");
	err_info("kvm-exitstat: flight recorder running: SIGUSR1 or POST /flight saves its "
		 "window in %s\n",
		 s->o->flight->dir);
	return 0;
}

static int start_http(struct serve *s)
{
	char e[512];

	if (s->o->web_config && !(s->wc = serve_webconfig_load(s->o->web_config, e, sizeof(e))))
		return err("%s", e);
	s->http = serve_http_start(s->o->listen, s->wc, e, sizeof(e));
	if (!s->http)
		return err("%s", e);
	err_info("kvm-exitstat: serving %s://%s/metrics (port %u)%s\n",
		 s->wc && s->wc->cert_pem ? "https" : "http", s->o->listen, serve_http_port(s->http),
		 s->wc && s->wc->nusers ? ", basic authentication" : "");
	if (s->wc && s->wc->nusers && !s->wc->cert_pem)
		err_info("kvm-exitstat: warning: basic authentication without TLS: passwords "
			 "cross the network in clear\n");
	return 0;
}

/*
 * KVM's own statistics: exported whatever else is. Without tracing they are
 * all there is, so a KVM host where they cannot be read is an error; with
 * tracing, or on a host without KVM (a fleet's exporter keeps serving there,
 * cli/cmd-serve.c has said why), a line on stderr.
 */
static int setup_kstats(struct serve *s)
{
	struct kvmstats_opts ko = {.pids = s->o->pids, .npids = s->o->npids};
	char e[512];

	s->ks = kvmstats_new(&ko, e, sizeof(e));
	if (s->ks)
		return 0;
	if (!s->o->trace && !s->o->in_kernel && live_kvm_host())
		return err("%s", e);
	err_info("kvm-exitstat: KVM's own statistics are not exported: %s\n", e);
	return 0;
}

/* What is exported: a recording's metrics (-i), or KVM's statistics and what is traced. */
static int start_sources(struct serve *s)
{
	if (s->o->ninputs) {
		s->store = serve_store_new(s->o->max_rows, s->o->per_vcpu);
		return serve_file_load(s->o, add_row, s->store, &s->file);
	}
	if (setup_kstats(s) < 0)
		return -1;
	if ((s->o->trace || s->o->in_kernel) && start_collector(s) < 0)
		return -1;
	if (s->o->flight && start_flight(s) < 0)
		return -1;
	return fold(s);
}

static int setup(struct serve *s)
{
	if (s->o->textfile && snprintf(s->path, sizeof(s->path), "%s/%s", s->o->textfile,
				       TEXTFILE_NAME) >= (int)sizeof(s->path))
		return err("textfile directory name too long");
	/* The directory checked before tracing starts (each write checks it again). */
	if (s->o->textfile) {
		char e[512];
		struct outfile *of = outfile_open(s->path, OUTFILE_REPLACE, e, sizeof(e));

		if (!of)
			return err("%s", e);
		outfile_free(of);
	}
	if (live_signals_install() < 0)
		return err_errno("cannot install signal handlers");
	if (start_sources(s) < 0)
		return -1;
	/* After the signal mask is set: the server thread inherits it and never takes them. */
	if (s->o->listen && start_http(s) < 0)
		return -1;
	if (s->fl && s->http)
		serve_http_enable_flight(s->http);
	if (s->live && s->http)
		serve_live_set_wake(s->live, serve_http_wake_fd(s->http));
	if (s->o->textfile && !s->o->ninputs)
		err_info("kvm-exitstat: writing %s every %g s\n", s->path, s->o->interval);
	/* A first page at once; a textfile that cannot be written ends us here. */
	return render(s, s->http != NULL, s->o->textfile != NULL);
}

int serve_run(const struct serve_opts *o)
{
	struct serve s = {.o = o};
	int ret = setup(&s) < 0 ? -1 : o->ninputs ? loop_file(&s) : loop(&s);

	/* The server first: its thread reads pages, not the store. Then the instance. */
	serve_http_stop(s.http);
	serve_webconfig_free(s.wc);
	serve_live_free(s.live);
	flight_free(s.fl);
	serve_store_free(s.store);
	kstat_reading_free(&s.kr);
	kvmstats_free(s.ks);
	return ret < 0 ? 1 : 0;
}
