// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-exitstat record: the live collector (source/tracefs.c) feeding the
 * trace.dat v6 writer (source/datwrite.c).
 *
 * A traced command is forked first and held on a pipe until the pid filter
 * names it and tracing is on, so its first exits are not missed and no other
 * process's events get in. The recording stops when the command exits, the
 * attached processes are all gone, -d elapses, or on SIGINT/SIGTERM/SIGHUP;
 * every CPU's partial pages are flushed before the instance is removed.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "common.h"
#include "cli.h"
#include "collect.h"
#include "decode.h"
#include "exittypes.h"

#define TICK_MS 100

static const char usage_text[] =
    "usage: kvm-exitstat record [options] [--] COMMAND [ARGS...]\n"
    "       kvm-exitstat record [options] -p PID[,PID...] | -a\n"
    "\n"
    "Record the KVM exit events of a command, of running processes or of every VM\n"
    "on the host into a trace.dat (trace-cmd's v6 format), until the command exits,\n"
    "-d elapses or Ctrl-C. Needs root. Uses a private tracefs instance.\n"
    "\n"
    "  -o, --output FILE     trace.dat to write (default kvm-exitstat.dat)\n"
    "  -p, --pid PID[,PID]   attach to running processes (all their threads)\n"
    "  -a, --all             every process on the host (no pid filter)\n"
    "  -d, --duration SECS   stop after SECS seconds\n"
    "  -b, --buffer KB       per-CPU ring buffer size (default 4096)\n"
    "      --exit-types FILE extra exit_types data file (more events to enable)\n"
    "  -q, --quiet           no summary line\n"
    "  -h, --help            this text\n";

struct record_opts {
	const char *output;
	int32_t *pids;
	size_t npids;
	bool all, quiet;
	double duration; /* seconds; 0: none */
	unsigned buffer_kb;
	const char *types[16];
	size_t ntypes;
	char **cmd; /* NULL-terminated, or NULL */
};

/* What the page callback keeps: the writer and per-CPU counts for the summary. */
struct record_state {
	struct datwrite *w;
	int write_errno; /* the output could not be written (ENOSPC...) */
	int long_size;
	uint64_t *events; /* per CPU */
	uint64_t missed;
	int ncpus;
};

enum { OPT_TYPES = 256 };

static int parse_args(int argc, char **argv, struct record_opts *o)
{
	static const struct option longs[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"pid", required_argument, NULL, 'p'},
	    {"all", no_argument, NULL, 'a'},
	    {"duration", required_argument, NULL, 'd'},
	    {"buffer", required_argument, NULL, 'b'},
	    {"exit-types", required_argument, NULL, OPT_TYPES},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {0},
	};
	char *end;
	int c;

	optind = 1;
	/* '+': the first non-option starts the command, its options stay its own */
	while ((c = getopt_long(argc, argv, "+o:p:ad:b:qh", longs, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'p':
			free(o->pids);
			if (cli_parse_pids(optarg, &o->pids, &o->npids) < 0)
				return -1;
			break;
		case 'a':
			o->all = true;
			break;
		case 'd':
			o->duration = strtod(optarg, &end);
			if (end == optarg || *end || !(o->duration > 0))
				return err("bad duration '%s': want seconds > 0", optarg);
			break;
		case 'b': {
			unsigned long kb = strtoul(optarg, &end, 10);

			if (end == optarg || *end || kb < 4 || kb > 4 * 1024 * 1024)
				return err("bad buffer size '%s': want KB per CPU, 4 to 4194304",
					   optarg);
			o->buffer_kb = (unsigned)kb;
			break;
		}
		case OPT_TYPES:
			if (cli_add_types_file(o->types, &o->ntypes, ARRAY_SIZE(o->types), optarg) < 0)
				return -1;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		default:
			fputs(usage_text, stderr);
			return -1;
		}
	}
	if (optind < argc)
		o->cmd = argv + optind;
	if (!o->cmd && !o->npids && !o->all)
		return err("nothing to record: give a command, -p PID or -a (see 'record --help')");
	if (!!o->cmd + !!o->npids + o->all > 1)
		return err("give only one of a command, -p PID and -a");
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Which events: what decode/ knows how to read (every exit_types table's
 * exit/entry events and the detail events); those this kernel lacks are skipped. */

struct names {
	char **list;
	size_t n;
};

static void add_name(const char *sys, const char *ev, void *arg)
{
	struct names *nm = arg;
	char buf[256];

	snprintf(buf, sizeof(buf), "%s:%s", sys, ev);
	nm->list = xrealloc(nm->list, (nm->n + 1) * sizeof(*nm->list));
	nm->list[nm->n++] = xstrdup(buf);
}

static char **event_list(const struct exit_types *types, size_t *n)
{
	struct names nm = {NULL, 0};

	decode_foreach_event(types, add_name, &nm);
	*n = nm.n;
	return nm.list;
}

/* ------------------------------------------------------------------------ */
/* The traced command */

/* Forks COMMAND held on a pipe; release_child() lets it exec. */
static pid_t spawn_held(char **cmd, int *gate)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		char go;

		collect_signals_child();
		close(fds[1]);
		/* EOF without a byte: the recorder gave up, do not run untraced */
		if (read(fds[0], &go, 1) != 1)
			_exit(127);
		close(fds[0]);
		execvp(cmd[0], cmd);
		err("cannot run '%s': %s", cmd[0], strerror(errno));
		_exit(127);
	}
	close(fds[0]);
	*gate = fds[1];
	return pid;
}

static void release_child(int gate)
{
	if (write(gate, "g", 1) != 1) {
		/* the child then sees EOF and exits 127: reported as its status */
	}
	close(gate);
}

static bool any_alive(const int32_t *pids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (collect_pid_alive(pids[i]))
			return true;
	return false;
}

/* ------------------------------------------------------------------------ */
/* Recording */

static int on_page(void *arg, int cpu, const void *page, size_t len)
{
	struct record_state *st = arg;
	struct ringpage_info info;

	if (ringpage_count(page, len, st->long_size, &info) == 0) {
		st->events[cpu] += info.events;
		st->missed += info.missed;
	}
	if (datwrite_page(st->w, cpu, page, len) < 0) {
		st->write_errno = errno;
		return -1;
	}
	return 0;
}

/* A failed collect_read/flush: a full disk is not a tracefs problem, say which. */
static int read_error(const struct record_opts *o, const struct record_state *st)
{
	if (st->write_errno)
		return err("cannot write '%s': %s", o->output, strerror(st->write_errno));
	return err("reading the trace buffers: %s", strerror(errno));
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct run {
	pid_t child;
	int child_status;
	bool child_done;
};

static bool should_stop(const struct record_opts *o, struct run *r, double deadline)
{
	if (collect_stop_requested())
		return true;
	/* SIGCHLD only interrupts the wait; waitpid says whether it was ours */
	collect_child_event();
	if (r->child > 0 && !r->child_done &&
	    waitpid(r->child, &r->child_status, WNOHANG) == r->child) {
		r->child_done = true;
		return true;
	}
	if (o->npids && !any_alive(o->pids, o->npids))
		return true;
	return deadline > 0 && now() >= deadline;
}

static int record_loop(struct collect *c, const struct record_opts *o, struct record_state *st,
		       struct run *r)
{
	double deadline = o->duration > 0 ? now() + o->duration : 0;

	while (!should_stop(o, r, deadline)) {
		int timeout = TICK_MS;

		if (deadline > 0 && (deadline - now()) * 1000 < timeout)
			timeout = (int)((deadline - now()) * 1000) + 1;
		if (collect_read(c, timeout, on_page, st) < 0)
			return read_error(o, st);
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The file */

struct meta_store {
	struct datwrite_meta m;
	struct datwrite_format *forms;
	char **stats;
	int ncpus;
	char *cmdlines, *clock, *hpage, *hevent;
};

/* Everything the header needs, read before the instance goes away. */
static int gather_meta(struct collect *c, struct meta_store *s)
{
	size_t n, hp_len, he_len;
	const char *const *ev = collect_events(c, &n);

	s->ncpus = collect_ncpus(c);
	s->stats = xcalloc((size_t)s->ncpus, sizeof(*s->stats));
	for (int i = 0; i < s->ncpus; i++)
		s->stats[i] = collect_cpu_stats(c, i);
	s->forms = xcalloc(n + 1, sizeof(*s->forms));
	/* Through the collector's directory fd: tracefs may be unmounted by now. */
	for (size_t i = 0; i < n; i++) {
		char *sys = xstrdup(ev[i]), *name = strchr(sys, ':'), rel[256];

		*name++ = 0;
		snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, name);
		s->forms[i].text = collect_file_read(c, rel, &s->forms[i].len);
		s->forms[i].system = sys;
		if (!s->forms[i].text)
			return err("cannot read the format of %s: %s", ev[i], strerror(errno));
	}
	s->cmdlines = collect_file_read(c, "saved_cmdlines", NULL);
	/* The instance's clock stamped our events, whatever the top level uses now. */
	s->clock = collect_instance_file_read(c, "trace_clock", NULL);
	s->hpage = collect_file_read(c, "events/header_page", &hp_len);
	s->hevent = collect_file_read(c, "events/header_event", &he_len);
	if (!s->hpage || !s->hevent)
		return err("cannot read tracefs events/header_page: %s", strerror(errno));
	s->m = (struct datwrite_meta){.header_page = s->hpage,
				      .header_page_len = hp_len,
				      .header_event = s->hevent,
				      .header_event_len = he_len,
				      .formats = s->forms,
				      .nformats = n,
				      .cmdlines = s->cmdlines,
				      .cpustats = s->stats,
				      .trace_clock = s->clock,
				      .uname = true};
	return 0;
}

static void free_meta(struct meta_store *s)
{
	for (size_t i = 0; s->forms && i < s->m.nformats; i++) {
		free((char *)s->forms[i].system);
		free((char *)s->forms[i].text);
	}
	for (int i = 0; s->stats && i < s->ncpus; i++)
		free(s->stats[i]);
	free(s->forms);
	free(s->stats);
	free(s->cmdlines);
	free(s->clock);
	free(s->hpage);
	free(s->hevent);
}

static const char *human_size(double b, char *buf, size_t len)
{
	static const char *const units[] = {"bytes", "KB", "MB", "GB", "TB"};
	size_t u = 0;

	while (b >= 1000 && u + 1 < ARRAY_SIZE(units)) {
		b /= 1000;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", b, units[u]);
	return buf;
}

static void summary(const struct record_opts *o, const struct record_state *st, uint64_t lost,
		    const struct run *r)
{
	char cpus[512] = "", status[96] = "", size[32];
	uint64_t total = 0;
	size_t len = 0;
	struct stat sb;

	for (int i = 0; i < st->ncpus && len < sizeof(cpus) - 32; i++) {
		total += st->events[i];
		len += (size_t)snprintf(cpus + len, sizeof(cpus) - len, "%scpu%d %llu",
					i ? ", " : "", i, (unsigned long long)st->events[i]);
	}
	if (r->child_done && WIFEXITED(r->child_status))
		snprintf(status, sizeof(status), "; command exited with status %d",
			 WEXITSTATUS(r->child_status));
	else if (r->child_done && WIFSIGNALED(r->child_status))
		snprintf(status, sizeof(status), "; command killed by signal %d",
			 WTERMSIG(r->child_status));
	if (stat(o->output, &sb) < 0)
		sb.st_size = 0;
	info("kvm-exitstat: recorded %llu events (%s), %llu lost, %s in %s%s\n",
	     (unsigned long long)total, cpus, (unsigned long long)lost,
	     human_size((double)sb.st_size, size, sizeof(size)), o->output, status);
}

/* Ends the command if it is still running after a stop signal, waits a little. */
static void reap_child(struct run *r)
{
	int sig = collect_stop_signal();

	if (r->child <= 0 || r->child_done)
		return;
	if (sig)
		kill(r->child, sig);
	for (int i = 0; i < 50; i++) {
		if (waitpid(r->child, &r->child_status, WNOHANG) == r->child) {
			r->child_done = true;
			return;
		}
		usleep(100000);
	}
}

/* ------------------------------------------------------------------------ */

static int start(struct record_opts *o, struct collect **cp, struct record_state *st, struct run *r)
{
	struct exit_types types;
	struct collect_opts co = {.buffer_kb = o->buffer_kb};
	char e[512], **events;
	size_t nev;
	static const int32_t none[1];
	int gate = -1;

	if (cli_load_exit_types(&types, o->types, o->ntypes) < 0)
		return -1;
	events = event_list(&types, &nev);
	exit_types_free(&types);
	co.events = (const char *const *)events;
	co.nevents = nev;
	co.pids = o->all ? NULL : o->npids ? o->pids : none;
	co.npids = o->npids;
	if (collect_signals_install() < 0)
		return err("cannot install signal handlers: %s", strerror(errno));
	*cp = collect_new(&co, e, sizeof(e));
	for (size_t i = 0; i < nev; i++)
		free(events[i]);
	free(events);
	if (!*cp)
		return err("%s", e);
	st->ncpus = collect_ncpus(*cp);
	st->events = xcalloc((size_t)st->ncpus, sizeof(*st->events));
	st->w = datwrite_new(o->output, st->ncpus, collect_page_size(*cp), e, sizeof(e));
	if (!st->w)
		return err("%s", e);
	if (o->cmd) {
		r->child = spawn_held(o->cmd, &gate);
		if (r->child < 0)
			return err("cannot fork: %s", strerror(errno));
		if (collect_add_pids(*cp, &r->child, 1) < 0) {
			close(gate);
			return err("cannot filter on pid %d: %s", (int)r->child, strerror(errno));
		}
	}
	if (collect_start(*cp) < 0) {
		if (gate >= 0)
			close(gate);
		return err("cannot start tracing: %s", strerror(errno));
	}
	if (gate >= 0)
		release_child(gate);
	return 0;
}

static int finish(struct collect *c, const struct record_opts *o, struct record_state *st,
		  struct run *r)
{
	struct meta_store ms = {0};
	uint64_t lost = 0;
	char e[512];
	int ret = 0;

	collect_stop(c);
	if (collect_flush(c, on_page, st) < 0)
		ret = read_error(o, st);
	if (!ret && gather_meta(c, &ms) < 0)
		ret = -1;
	collect_lost(c, &lost);
	collect_free(c);
	if (!ret && datwrite_finish(st->w, &ms.m, e, sizeof(e)) < 0)
		ret = err("%s", e);
	free_meta(&ms);
	reap_child(r);
	if (!ret && !o->quiet)
		summary(o, st, lost, r);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o = {.output = "kvm-exitstat.dat"};
	struct record_state st = {.long_size = (int)sizeof(long)};
	struct run r = {.child = -1};
	struct collect *c = NULL;
	int ret = 1;

	if (parse_args(argc, argv, &o) < 0) {
		free(o.pids);
		return 2;
	}
	if (start(&o, &c, &st, &r) == 0 && record_loop(c, &o, &st, &r) == 0) {
		ret = finish(c, &o, &st, &r) < 0 ? 1 : 0;
		c = NULL; /* finish() removed the instance */
	}
	collect_free(c);
	if (r.child > 0 && !r.child_done) {
		kill(r.child, SIGTERM);
		waitpid(r.child, NULL, 0);
	}
	datwrite_free(st.w);
	free(st.events);
	free(o.pids);
	return ret;
}
