// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder (include/flight.h). Every trigger takes the same
 * path: the ring buffer is swapped into the instance's snapshot buffer at
 * the trigger (by the kernel itself for a slow exit, by a write of 1 to
 * "snapshot" for the others), the main buffer goes on recording the window
 * after, then tracing stops, the snapshot's pages (per_cpu/cpuN/snapshot_raw,
 * the older ones) and the main buffer's are written as a trace.dat
 * (output/datwrite.c), both buffers are emptied and tracing starts again.
 * So the snapshot buffer is allocated from the start (a write of 1 with
 * tracing off swaps two empty buffers): the recorder holds twice its buffer.
 *
 * The window before is cut to --flight SECONDS where the buffer held more:
 * a snapshot page is kept when the page after it starts within the window.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <tracefs.h>
#include "alloc.h"
#include "err.h"
#include "flight.h"
#include "khist.h"
#include "kstat.h"
#include "kvmstats.h"
#include "live-local.h"
#include "live.h"
#include "output.h"

#define FILE_PREFIX "kvm-exitstat-flight-"

enum state { ARMED, AFTER };

struct flight {
	struct flight_opts o;
	struct live *c;
	struct tracefs_instance *inst;
	struct khist *kh;
	struct kvmstats *ks;
	struct kstat_reading kr; /* the last reading, for the rate trigger */
	double next_rate;
	enum state state;
	double after_until;
	uint64_t cutoff; /* trace clock: pages of the window before start after this */
	char why[32], pending[32];
	uint64_t saves, triggers;
	char path[4096];
	int32_t root; /* a command's process: the rate trigger follows its descendants */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The trace clock's now (the instance's per_cpu/cpu0/stats "now ts: S.US"), in ns; 0 unknown. */
static uint64_t trace_now(struct flight *f)
{
	char *s = live_cpu_stats(f->c, 0), *p = s ? strstr(s, "now ts:") : NULL;
	unsigned long long sec = 0, us = 0;

	if (p && sscanf(p + 7, " %llu.%llu", &sec, &us) != 2)
		sec = us = 0;
	free(s);
	return sec * 1000000000ull + us * 1000ull;
}

/* ------------------------------------------------------------------------ */

struct flight *flight_new(const struct flight_opts *o, char *errbuf, size_t errlen)
{
	struct live_opts co = {.events = o->events,
			       .nevents = o->nevents,
			       .pids = o->pids,
			       .npids = o->npids,
			       .buffer_kb = o->buffer_kb,
			       .record_tgid = true,
			       .tag = o->tag};
	struct flight *f = xcalloc(1, sizeof(*f));
	static const int32_t none[1];

	f->o = *o;
	/* a filter from the start: a command's pid comes later (flight_add_pid) */
	if (o->pids_later)
		co.pids = none, co.npids = 0;
	f->c = live_new(&co, errbuf, errlen);
	if (!f->c)
		goto fail;
	f->inst = live_tracefs_instance(f->c);
	/* the overwrite option is the instances' default; said again: the point of it all */
	if (tracefs_option_enable(f->inst, TRACEFS_OPTION_OVERWRITE) < 0 ||
	    tracefs_instance_file_write(f->inst, "snapshot", "1") < 0) {
		err_buf_errno(errbuf, errlen, "cannot set up the flight recorder's snapshot buffer");
		goto fail;
	}
	if (o->slow_ns) {
		struct khist_opts ko = {.exit_sys = "kvm",
					.exit_ev = "kvm_exit",
					.entry_sys = "kvm",
					.entry_ev = "kvm_entry",
					.fields = {o->fields[0], o->fields[1]},
					.nfields = o->nfields,
					.slow_ns = o->slow_ns};

		if (!khist_supported("kvm", "kvm_exit", errbuf, errlen) ||
		    !(f->kh = khist_new(f->c, &ko, errbuf, errlen)))
			goto fail;
	}
	if (o->rate > 0) {
		struct kvmstats_opts ko = {.pids = o->pids_later ? none : o->pids, .npids = o->npids};

		f->ks = kvmstats_new(&ko, errbuf, errlen);
		if (!f->ks)
			goto fail;
	}
	return f;
fail:
	flight_free(f);
	return NULL;
}

int flight_add_pid(struct flight *f, int32_t pid)
{
	f->root = pid;
	return live_add_pids(f->c, &pid, 1);
}

/* The rate trigger's VMs: a command's processes, as they are now. */
static void follow_root(struct flight *f)
{
	int32_t *kids = NULL;
	size_t n;

	if (f->root <= 0)
		return;
	n = live_descendants(f->root, &kids);
	kids = xrealloc(kids, (n + 1) * sizeof(*kids));
	kids[n++] = f->root;
	kvmstats_set_pids(f->ks, kids, n);
	free(kids);
}

int flight_start(struct flight *f)
{
	f->next_rate = now_s() + 1;
	return live_start(f->c);
}

void flight_trigger(struct flight *f, const char *why)
{
	snprintf(f->pending, sizeof(f->pending), "%s", why);
}

uint64_t flight_saves(const struct flight *f)
{
	return f->saves;
}

uint64_t flight_triggers(const struct flight *f)
{
	return f->triggers;
}

/* ------------------------------------------------------------------------ */
/* Triggers */

/* A VM's exits per second over the threshold, from KVM's own counters (once a second). */
static bool rate_over(struct flight *f)
{
	struct kstat_reading r = {0};
	const struct kstat_desc *d;
	bool over = false;
	char e[256];

	if (!f->ks || now_s() < f->next_rate)
		return false;
	f->next_rate = now_s() + 1;
	follow_root(f);
	d = kstat_schema_find(kvmstats_schema(f->ks), "exits");
	if (!d || kvmstats_read(f->ks, &r, e, sizeof(e)) < 0)
		return false;
	for (size_t i = 0; i < r.nvms && f->kr.t > 0; i++) {
		const struct kstat_vm *a = kstat_reading_find(&f->kr, r.vms[i].id);
		uint64_t now = r.vms[i].v[d->off], then = a ? a->v[d->off] : now;

		if (now >= then && (double)(now - then) / (r.t - f->kr.t) > f->o.rate)
			over = true;
	}
	kstat_reading_free(&f->kr);
	f->kr = r;
	return over;
}

static void triggered(struct flight *f, const char *why)
{
	snprintf(f->why, sizeof(f->why), "%s", why);
	f->triggers++;
	f->state = AFTER;
	f->after_until = now_s() + f->o.after_s;
	f->cutoff = 0;
	if (f->o.window_s > 0) {
		uint64_t t = trace_now(f), w = (uint64_t)(f->o.window_s * 1e9);

		f->cutoff = t > w ? t - w : 0;
	}
}

static void check_triggers(struct flight *f)
{
	/* the kernel swapped the buffers at the slow exit itself */
	if (f->kh && khist_snapshot_taken(f->kh)) {
		triggered(f, "slow");
		return;
	}
	const char *why = f->pending[0] ? f->pending : rate_over(f) ? "rate" : NULL;

	if (!why)
		return;
	/* the same swap, asked for now */
	tracefs_instance_file_write(f->inst, "snapshot", "1");
	triggered(f, why);
	f->pending[0] = '\0';
}

/* ------------------------------------------------------------------------ */
/* Saving */

static uint64_t page_ts(const unsigned char *p)
{
	uint64_t ts;

	memcpy(&ts, p, sizeof(ts));
	return ts;
}

/* One CPU's snapshot pages (the window before), those within the window, to w. */
static int snapshot_cpu(struct flight *f, struct dat_writer *w, int cpu)
{
	size_t ps = live_page_size(f->c), n = 0;
	unsigned char *pages = NULL;
	struct tracefs_cpu *t;
	char rel[64];
	int fd, got, ret = 0;

	snprintf(rel, sizeof(rel), "per_cpu/cpu%d/snapshot_raw", cpu);
	fd = tracefs_instance_file_open(f->inst, rel, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return 0; /* an offline CPU */
	t = tracefs_cpu_alloc_fd(fd, (int)ps, true);
	for (;;) {
		pages = xrealloc(pages, (n + 1) * ps);
		memset(pages + n * ps, 0, ps);
		if (!t || (got = tracefs_cpu_flush(t, pages + n * ps)) <= 0)
			break;
		n++;
	}
	for (size_t i = 0; i < n && !ret; i++)
		if (i + 1 == n || !f->cutoff || page_ts(pages + (i + 1) * ps) >= f->cutoff)
			ret = dat_writer_page(w, cpu, pages + i * ps, ps);
	if (t)
		tracefs_cpu_free_fd(t);
	close(fd);
	free(pages);
	return ret;
}

static int after_page(void *arg, int cpu, const void *page, size_t len)
{
	return dat_writer_page(arg, cpu, page, len);
}

/* Only our files, oldest first by name (the name starts with the time). */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void keep_newest(struct flight *f)
{
	DIR *d = opendir(f->o.dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;

	if (!d)
		return;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, FILE_PREFIX, strlen(FILE_PREFIX))) {
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = xstrdup(de->d_name);
		}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (i + f->o.keep < n) {
			char p[4096];

			snprintf(p, sizeof(p), "%s/%s", f->o.dir, names[i]);
			unlink(p);
		}
		free(names[i]);
	}
	free(names);
}

static void name_file(struct flight *f)
{
	char when[32];
	time_t t = time(NULL);
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	strftime(when, sizeof(when), "%Y%m%d-%H%M%S", localtime(&t));
	snprintf(f->path, sizeof(f->path), "%s/" FILE_PREFIX "%s.%03ld-%s.dat", f->o.dir, when,
		 ts.tv_nsec / 1000000, f->why);
}

static int save(struct flight *f, char *errbuf, size_t errlen)
{
	struct live_meta m = {0};
	struct dat_writer *w;
	int ret = -1;

	name_file(f);
	w = dat_writer_new(f->path, live_ncpus(f->c), live_page_size(f->c), errbuf, errlen);
	if (!w)
		goto out;
	for (int cpu = 0; cpu < live_ncpus(f->c); cpu++)
		if (snapshot_cpu(f, w, cpu) < 0)
			goto io;
	/* the window after: the full pages there are now (bounded: the buffer once) */
	if (live_read(f->c, 0, after_page, w) < 0)
		goto io;
	if (live_meta_gather(f->c, &m, errbuf, errlen) < 0)
		goto out;
	if (dat_writer_finish(w, &m.m, errbuf, errlen) < 0)
		goto out;
	ret = 0;
	f->saves++;
	keep_newest(f);
	goto out;
io:
	err_buf_errno(errbuf, errlen, "cannot write '%s'", f->path);
out:
	dat_writer_free(w);
	live_meta_free(&m);
	/* emptied and armed again, whatever happened to the file */
	tracefs_instance_file_write(f->inst, "snapshot", "2");
	if (f->kh)
		khist_rearm(f->kh);
	f->state = ARMED;
	return ret;
}

int flight_tick(struct flight *f, const char **saved, char *errbuf, size_t errlen)
{
	*saved = NULL;
	if (f->state == ARMED)
		check_triggers(f);
	if (f->state != AFTER || now_s() < f->after_until)
		return 0;
	if (save(f, errbuf, errlen) < 0)
		return -1;
	*saved = f->path;
	return 0;
}

int flight_flush(struct flight *f, const char **saved, char *errbuf, size_t errlen)
{
	*saved = NULL;
	if (f->state == ARMED)
		check_triggers(f);
	if (f->state != AFTER)
		return 0;
	if (save(f, errbuf, errlen) < 0)
		return -1;
	*saved = f->path;
	return 0;
}

void flight_free(struct flight *f)
{
	if (!f)
		return;
	khist_free(f->kh);
	live_free(f->c);
	kvmstats_free(f->ks);
	kstat_reading_free(&f->kr);
	free(f);
}
