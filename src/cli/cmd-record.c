// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-exitstat record: the live collector (live/tracefs.c) feeding the
 * trace.dat v6 writer (output/datwrite.c).
 *
 * A traced command is forked first and held on a pipe until the pid filter
 * names it and tracing is on, so its first exits are not missed and no other
 * process's events get in. The recording stops when the command exits, the
 * attached processes are all gone, -d elapses, or on SIGINT/SIGTERM/SIGHUP;
 * every CPU's partial pages are flushed before the instance is removed.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "alloc.h"
#include "cli-local.h"
#include "decode.h"
#include "err.h"
#include "exit-types.h"
#include "khist.h"
#include "live.h"
#include "output.h"
#include "procmap.h"
#include "ring.h"

#define TICK_MS 100

struct record_opts {
	const char *output;
	struct cli_pids pids;
	bool all, quiet;
	bool anatomy;	 /* --anatomy: the scheduler's and interrupts' events too */
	bool detach;	 /* at -d, leave the command running */
	double duration; /* seconds; 0: none */
	unsigned buffer_kb;
	struct cli_types types;
	char **cmd; /* NULL-terminated, or NULL */
	const char **add, **drop; /* -e EVENT, -e '!EVENT' */
	size_t nadd, ndrop;
	bool stats;	  /* --stats: a snapshot of KVM's statistics (record-stats.c) */
	bool output_set;  /* -o given */
	/* --flight: the flight recorder (record-flight.c); -o is its directory */
	bool flight;
	double flight_s, flight_after;
	unsigned flight_kb, flight_keep;
	uint64_t slow_ns;
	double rate;
	const char *khist_out; /* --in-kernel FILE */
};

/* What the page callback keeps: the writer and per-CPU counts for the summary. */
struct record_state {
	struct dat_writer *w;
	int write_errno; /* the output could not be written (ENOSPC...) */
	int long_size;
	uint64_t *events; /* per CPU */
	uint64_t missed;
	int ncpus;
	/* the threads seen in the pages: their processes, vCPUs, VM names (the file's map) */
	struct procmap_learner *pm;
	struct khist *kh; /* --in-kernel FILE */
	const char *kfields[2];
	size_t nkfields;
};

enum {
	O_OUTPUT = 1,
	O_DURATION,
	O_EVENT,
	O_BUFFER,
	O_FLIGHT,
	O_FLIGHT_AFTER,
	O_FLIGHT_KEEP,
	O_SLOWER,
	O_RATE,
};

static const struct cli_opt opts[] = {
    CLI_OPT("output", 'o', "FILE", O_OUTPUT, "trace.dat to write (default kvm-exitstat.dat)"),
    CLI_PIDS(struct record_opts, pids, "attach to running processes (all their threads); repeatable"),
    CLI_BOOL("all", 'a', struct record_opts, all, "every process on the host (no pid filter)"),
    CLI_OPT("duration", 'd', "SECS", O_DURATION,
	    "stop after SECS s (a command still running: SIGTERM)"),
    CLI_BOOL("detach", 0, struct record_opts, detach,
	    "with -d: leave the command running, untraced"),
    CLI_OPT("event", 'e', "EVENT", O_EVENT,
	    "also record EVENT: SYSTEM:EVENT (sched:sched_switch) or\n"
	    "SYSTEM:*; '!EVENT' leaves a default one out; repeatable"),
    CLI_OPT("buffer", 'b', "KB", O_BUFFER, "per-CPU ring buffer size (default 4096)"),
    CLI_EXIT_TYPES(struct record_opts, types),
    CLI_BOOL("quiet", 'q', struct record_opts, quiet, "no summary line"),
    CLI_BOOL("anatomy", 0, struct record_opts, anatomy,
	    "also record what report --anatomy splits an exit by: the\n"
	    "traced threads' sched_switch, sched_wakeup(_new),\n"
	    "sched_migrate_task, the interrupt handlers that interrupt\n"
	    "them, kvm_halt_poll_ns (the kernel's pid filter keeps only\n"
	    "those of the traced processes)"),
    CLI_BOOL("stats", 0, struct record_opts, stats,
	    "no trace: KVM's own statistics of the VMs, read at the start\n"
	    "and at the end, into a JSON snapshot (default\n"
	    "kvm-exitstat.stats.json) that report and diff read"),
    CLI_OPT("flight", 0, "SECS|MB", O_FLIGHT,
	    "a flight recorder: the events kept in the ring buffer\n"
	    "(overwrite mode), never read until a trigger; then the last\n"
	    "SECS (or all a buffer of MB per CPU holds) and --flight-after\n"
	    "go to a trace.dat in -o DIR (default .); SIGUSR1 triggers"),
    CLI_OPT("flight-after", 0, "SECS", O_FLIGHT_AFTER,
	    "the window after a trigger that is saved too (default 1)"),
    CLI_OPT("flight-keep", 0, "N", O_FLIGHT_KEEP,
	    "keep at most N saved files in DIR, the oldest removed\n(default 10)"),
    CLI_OPT("slower-than", 0, "USEC", O_SLOWER,
	    "--flight trigger: an exit slower than USEC (exit to entry,\n"
	    "seen by the kernel itself: hist triggers)"),
    CLI_OPT("rate-over", 0, "N", O_RATE,
	    "--flight trigger: a VM making more than N exits per second\n"
	    "(KVM's own counters, read once a second)"),
    CLI_STRING("in-kernel", 0, "FILE", struct record_opts, khist_out,
	    "the kernel also counts and times the recorded exits (hist\n"
	    "triggers, as top --in-kernel) in the same instance; its\n"
	    "hists go to FILE (JSON) at the end, to compare"),
    {.lng = NULL},
};

static void init(void *arg)
{
	((struct record_opts *)arg)->output = "kvm-exitstat.dat";
	((struct record_opts *)arg)->flight_after = -1; /* not given: 1 s */
}

/* -e SYSTEM:EVENT | SYSTEM:* | !SYSTEM:EVENT; whether it exists is live_new()'s to say. */
static int add_event_spec(struct record_opts *o, const char *val)
{
	bool drop = val[0] == '!';
	const char *name = val + drop, *colon = strchr(name, ':');

	if (!colon || colon == name || !colon[1] || strchr(colon + 1, ':'))
		return err("bad event '%s': want SYSTEM:EVENT, SYSTEM:* or !SYSTEM:EVENT", val);
	if (drop) {
		o->drop = xrealloc(o->drop, (o->ndrop + 1) * sizeof(*o->drop));
		o->drop[o->ndrop++] = name;
	} else {
		o->add = xrealloc(o->add, (o->nadd + 1) * sizeof(*o->add));
		o->add[o->nadd++] = name;
	}
	return 0;
}

static int parse(void *arg, int id, const char *val, int value)
{
	struct record_opts *o = arg;
	char *end;

	switch (id) {
	case O_OUTPUT:
		o->output = val;
		o->output_set = true;
		return 0;
	case O_FLIGHT:
		o->flight = true;
		return cli_parse_flight(val, &o->flight_s, &o->flight_kb);
	case O_FLIGHT_AFTER:
		return cli_parse_secs(val, 0, 3600, &o->flight_after, "--flight-after");
	case O_FLIGHT_KEEP: {
		unsigned long n;

		if (cli_parse_ulong(val, 1, 100000, &n, "--flight-keep") < 0)
			return -1;
		o->flight_keep = (unsigned)n;
		return 0;
	}
	case O_SLOWER: {
		unsigned long us;

		if (cli_parse_ulong(val, 1, 3600000000ul, &us, "--slower-than (us)") < 0)
			return -1;
		o->slow_ns = (uint64_t)us * 1000;
		return 0;
	}
	case O_RATE: {
		unsigned long n;

		if (cli_parse_ulong(val, 1, 1000000000ul, &n, "--rate-over") < 0)
			return -1;
		o->rate = (double)n;
		return 0;
	}
	case O_DURATION:
		o->duration = strtod(val, &end);
		if (end == val || *end || !(o->duration > 0))
			return err("bad duration '%s': want seconds > 0", val);
		return 0;
	case O_BUFFER:
		return cli_parse_buffer_kb(val, &o->buffer_kb);
	case O_EVENT:
		return add_event_spec(o, val);
	}
	return -1;
}

/* The operands are the command to trace, its own options included. */
static int operands(void *arg, int argc, char **argv)
{
	struct record_opts *o = arg;

	if (argc > 0)
		o->cmd = argv;
	if (!o->cmd && !o->pids.n && !o->all)
		return err("nothing to record: give a command, -p PID or -a (see 'record --help')");
	if (!!o->cmd + !!o->pids.n + o->all > 1)
		return err("give only one of a command, -p PID and -a");
	if (o->detach && (!o->cmd || !(o->duration > 0)))
		return err("--detach goes with -d and a command");
	if (o->stats && (o->detach || o->nadd || o->ndrop || o->buffer_kb || o->types.n))
		return err("--stats reads KVM's statistics: --detach, -e, -b and --exit-types "
			   "are about traces");
	if (o->stats && !o->output_set)
		o->output = "kvm-exitstat.stats.json";
	if (o->stats && o->flight)
		return err("give --stats or --flight, not both");
	if (!o->flight && (o->slow_ns || o->rate > 0 || o->flight_keep || o->flight_after >= 0))
		return err("--slower-than, --rate-over, --flight-keep and --flight-after go with --flight");
	if (o->flight && (o->detach || o->nadd || o->ndrop))
		return err("--flight records the exit events: --detach and -e do not apply");
	if (o->flight && !o->output_set)
		o->output = ".";
	if (o->khist_out && (o->stats || o->flight))
		return err("--in-kernel FILE goes with a recording, not --stats or --flight");
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The traced command */

pid_t cli_spawn_held(char **cmd, int *gate)
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

		live_signals_child();
		close(fds[1]);
		/* EOF without a byte: the recorder gave up, do not run untraced */
		if (read(fds[0], &go, 1) != 1)
			_exit(127);
		close(fds[0]);
		execvp(cmd[0], cmd);
		err_errno("cannot run '%s'", cmd[0]);
		_exit(127);
	}
	close(fds[0]);
	*gate = fds[1];
	return pid;
}

void cli_release_child(int gate)
{
	if (write(gate, "g", 1) != 1) {
		/* the child then sees EOF and exits 127: reported as its status */
	}
	close(gate);
}

static bool any_alive(const int32_t *pids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (live_pid_alive(pids[i]))
			return true;
	return false;
}

/* ------------------------------------------------------------------------ */
/* Recording */

static int on_page(void *arg, int cpu, const void *page, size_t len)
{
	struct record_state *st = arg;
	struct ring_info info;

	if (procmap_learn_page(st->pm, page, len, &info) == 0) {
		st->events[cpu] += info.events;
		st->missed += info.missed;
	}
	if (dat_writer_page(st->w, cpu, page, len) < 0) {
		st->write_errno = errno;
		return -1;
	}
	return 0;
}

/* A failed live_read/flush: a full disk is not a tracefs problem, say which. */
static int read_error(const struct record_opts *o, const struct record_state *st)
{
	if (st->write_errno) {
		errno = st->write_errno;
		return err_errno("cannot write '%s'", o->output);
	}
	return err_errno("reading the trace buffers");
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
	bool timed_out; /* -d elapsed */
	bool detached;	/* --detach: the command was left running */
};

static bool should_stop(const struct record_opts *o, struct run *r, double deadline)
{
	if (live_stop_requested())
		return true;
	/* SIGCHLD only interrupts the wait; waitpid says whether it was ours */
	live_child_event();
	if (r->child > 0 && !r->child_done &&
	    waitpid(r->child, &r->child_status, WNOHANG) == r->child) {
		r->child_done = true;
		return true;
	}
	if (o->pids.n && !any_alive(o->pids.v, o->pids.n))
		return true;
	r->timed_out = deadline > 0 && now() >= deadline;
	return r->timed_out;
}

static int record_loop(struct live *c, const struct record_opts *o, struct record_state *st,
		       struct run *r)
{
	double deadline = o->duration > 0 ? now() + o->duration : 0;

	while (!should_stop(o, r, deadline)) {
		int timeout = TICK_MS;

		if (deadline > 0 && (deadline - now()) * 1000 < timeout)
			timeout = (int)((deadline - now()) * 1000) + 1;
		procmap_learn_tick(st->pm);
		if (live_read(c, timeout, on_page, st) < 0)
			return read_error(o, st);
		/* the pages of this read written before the next wait */
		if (dat_writer_flush(st->w) < 0) {
			st->write_errno = errno;
			return read_error(o, st);
		}
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The file */

/* Everything the header needs, read before the instance goes away; the thread map. */
struct meta_store {
	struct live_meta lm;
	char *procmap;
};

static void free_meta(struct meta_store *s)
{
	live_meta_free(&s->lm);
	free(s->procmap);
}

/*
 * The file's thread map: the processes of threads that were gone before
 * their pages were read come from the kernel (record-tgid), the names of
 * VMMs gone by then from the command we ran (its -name) or saved_cmdlines.
 * The thread names: saved_cmdlines, and those it lost as /proc gave them.
 */
static void finish_procmap(struct live *c, const struct record_opts *o, struct record_state *st,
			   const struct run *r, struct meta_store *ms)
{
	char *tgids = live_file_read(c, "saved_tgids", NULL);
	int32_t child = -1; /* the events carry the kernel's pids (pidns.c) */

	if (r->child > 0 && live_kernel_pid(r->child, &child) < 0)
		child = -1;
	ms->procmap = procmap_learn_finish(st->pm, tgids, ms->lm.cmdlines, child, o->cmd,
					   &ms->lm.m.procmap_len);
	ms->lm.m.procmap = ms->procmap;
	free(tgids);
	char *names = procmap_learn_cmdlines(st->pm, ms->lm.cmdlines);
	free(ms->lm.cmdlines);
	ms->lm.cmdlines = names;
	ms->lm.m.cmdlines = names;
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
	else if (r->detached)
		snprintf(status, sizeof(status), "; command left running (pid %d)", (int)r->child);
	/* what was written: the output may be a FIFO or a device */
	err_info("kvm-exitstat: recorded %llu events (%s), %llu lost, %s in %s%s\n",
		 (unsigned long long)total, cpus, (unsigned long long)lost,
		 human_size((double)dat_writer_bytes(st->w), size, sizeof(size)), o->output,
		 status);
}

/*
 * Asks the command to end if it is still running: with the stop signal, or
 * SIGTERM when -d elapsed (timeout(1)'s way), unless --detach leaves it be.
 * Sent as soon as tracing is off, before the instance is removed: removing
 * it waits for an RCU grace period, which a vCPU thread looping in the
 * kernel can hold up until it returns (ppc64 PR KVM in the lab: the command
 * ran its 8 s to the end, then the instance went).
 */
static int end_child(const struct record_opts *o, struct run *r)
{
	int sig = live_stop_signal();

	if (r->child <= 0 || r->child_done)
		return 0;
	if (!sig && r->timed_out) {
		if (o->detach) {
			r->detached = true;
			return 0;
		}
		sig = SIGTERM;
	}
	if (sig)
		kill(r->child, sig);
	return sig;
}

/* Waits for the command end_child() signalled; SIGKILL when it is still there 5 s later. */
static void reap_child(struct run *r, int sig)
{
	if (r->child <= 0 || r->child_done || r->detached)
		return;
	for (int i = 0; i < 50; i++) {
		if (waitpid(r->child, &r->child_status, WNOHANG) == r->child) {
			r->child_done = true;
			return;
		}
		usleep(100000);
	}
	/* Asked to end and still there: it has had its chance. */
	if (sig && kill(r->child, SIGKILL) == 0 && waitpid(r->child, &r->child_status, 0) == r->child)
		r->child_done = true;
}

/* ------------------------------------------------------------------------ */

/*
 * --anatomy's events after the KVM ones, in the same private instance under
 * the same pid filter; those this kernel lacks are skipped, as any default.
 */
static void add_anatomy_events(char ***events, size_t *n)
{
	size_t k;
	const char *const *more = decode_anatomy_events(&k);

	*events = xrealloc(*events, (*n + k) * sizeof(**events));
	for (size_t i = 0; i < k; i++)
		(*events)[(*n)++] = xstrdup(more[i]);
}

static int start(struct record_opts *o, struct live **cp, struct record_state *st, struct run *r)
{
	struct exit_types types;
	struct live_opts co = {.buffer_kb = o->buffer_kb, .record_tgid = true};
	char e[512], **events;
	size_t nev;
	static const int32_t none[1];
	int gate = -1;

	if (cli_load_exit_types(&types, o->types.files, o->types.n) < 0)
		return -1;
	/* the one list: every table's exit and entry events and every detail
	 * event; those this kernel lacks are skipped */
	events = exit_types_event_names(&types, EXIT_NEED_ALL, &nev);
	exit_types_free(&types);
	if (o->anatomy)
		add_anatomy_events(&events, &nev);
	co.events = (const char *const *)events;
	co.nevents = nev;
	co.extra = o->add;
	co.nextra = o->nadd;
	co.drop = o->drop;
	co.ndrop = o->ndrop;
	co.pids = o->all ? NULL : o->pids.n ? o->pids.v : none;
	co.npids = o->pids.n;
	if (live_signals_install() < 0)
		return err_errno("cannot install signal handlers");
	*cp = live_new(&co, e, sizeof(e));
	exit_types_event_names_free(events, nev);
	if (!*cp)
		return err("%s", e);
	st->ncpus = live_ncpus(*cp);
	st->pm = procmap_learn_new(st->long_size);
	/* processes that run now are named now: they may be gone when their pages are read */
	for (size_t i = 0; i < o->pids.n; i++) {
		int32_t kpid;

		if (live_kernel_pid(o->pids.v[i], &kpid) == 0)
			procmap_learn_process(st->pm, kpid);
	}
	st->events = xcalloc((size_t)st->ncpus, sizeof(*st->events));
	st->w = dat_writer_new(o->output, st->ncpus, live_page_size(*cp), e, sizeof(e));
	if (!st->w)
		return err("%s", e);
	/* before tracing starts: the hists switch the instance to the global clock */
	if (o->khist_out && !(st->kh = cli_khist_attach(*cp, o->types.files, o->types.n, st->kfields,
							 &st->nkfields)))
		return -1;
	if (o->cmd) {
		r->child = cli_spawn_held(o->cmd, &gate);
		if (r->child < 0)
			return err_errno("cannot fork");
		if (live_add_pids(*cp, &r->child, 1) < 0) {
			close(gate);
			return err_errno("cannot filter on pid %d", (int)r->child);
		}
	}
	if (live_start(*cp) < 0) {
		if (gate >= 0)
			close(gate);
		return err_errno("cannot start tracing");
	}
	if (gate >= 0)
		cli_release_child(gate);
	return 0;
}

static int finish(struct live *c, const struct record_opts *o, struct record_state *st,
		  struct run *r)
{
	struct meta_store ms = {0};
	uint64_t lost = 0;
	char e[512];
	int ret = 0, sig;

	live_stop(c);
	sig = end_child(o, r);
	if (live_flush(c, on_page, st) < 0)
		ret = read_error(o, st);
	if (!ret && live_meta_gather(c, &ms.lm, e, sizeof(e)) < 0)
		ret = err("%s", e);
	if (!ret)
		finish_procmap(c, o, st, r, &ms);
	if (!ret && st->kh && cli_khist_write(st->kh, o->khist_out, st->kfields, st->nkfields) < 0)
		ret = -1;
	khist_free(st->kh);
	st->kh = NULL;
	live_lost(c, &lost);
	live_free(c);
	if (!ret && dat_writer_finish(st->w, &ms.lm.m, e, sizeof(e)) < 0)
		ret = err("%s", e);
	free_meta(&ms);
	reap_child(r, sig);
	if (!ret && !o->quiet)
		summary(o, st, lost, r);
	return ret;
}

/*
 * The traced command's status as a shell gives it, like time(1) and perf
 * stat: N, 128 + N when signal N killed it, 127 when it could not be run
 * (the child's own exit code). 0 for -p/-a and for a command still running.
 */
static int command_status(const struct run *r)
{
	if (r->child <= 0 || !r->child_done)
		return 0;
	if (WIFEXITED(r->child_status))
		return WEXITSTATUS(r->child_status);
	if (WIFSIGNALED(r->child_status))
		return 128 + WTERMSIG(r->child_status);
	return 0;
}

static int run(void *arg)
{
	struct record_opts *o = arg;
	struct record_state st = {.long_size = (int)sizeof(long)};
	struct run r = {.child = -1};
	struct live *c = NULL;
	int ret = 1;

	if (o->stats) {
		struct cli_record_stats rs = {.output = o->output,
					      .pids = o->pids.n ? o->pids.v : NULL,
					      .npids = o->pids.n,
					      .cmd = o->cmd,
					      .duration = o->duration,
					      .quiet = o->quiet};

		return cli_record_stats(&rs);
	}
	if (o->flight) {
		struct cli_record_flight rf = {
		    .dir = o->output,
		    .pids = o->pids.n ? o->pids.v : NULL,
		    .npids = o->pids.n,
		    .cmd = o->cmd,
		    .duration = o->duration,
		    /* SECS: a buffer that holds it at a busy VM's rate; MB: that */
		    .buffer_kb = o->flight_kb ? o->flight_kb : o->buffer_kb ? o->buffer_kb : 16384,
		    .window_s = o->flight_s,
		    .after_s = o->flight_after >= 0 ? o->flight_after : 1,
		    .slow_ns = o->slow_ns,
		    .rate = o->rate,
		    .keep = o->flight_keep ? o->flight_keep : 10,
		    .types = &o->types,
		    .quiet = o->quiet};

		return cli_record_flight(&rf);
	}
	if (start(o, &c, &st, &r) == 0 && record_loop(c, o, &st, &r) == 0) {
		/* The file first: the status is the command's only once it is written. */
		ret = finish(c, o, &st, &r) < 0 ? 1 : command_status(&r);
		c = NULL; /* finish() removed the instance */
	}
	khist_free(st.kh);
	live_free(c);
	if (r.child > 0 && !r.child_done && !r.detached) {
		kill(r.child, SIGTERM);
		waitpid(r.child, NULL, 0);
	}
	dat_writer_free(st.w);
	procmap_learn_free(st.pm);
	free(st.events);
	return ret;
}

/* --stats: debugfs is root's; no tracefs, no tracepoints. --flight traces, as record does. */
static unsigned needs_for(const void *arg)
{
	const struct record_opts *o = arg;

	return o->stats ? CLI_NEEDS_ROOT : cli_cmd_record.needs;
}

static void done(void *arg)
{
	struct record_opts *o = arg;

	free(o->pids.v);
	free(o->add);
	free(o->drop);
}

const struct cli_cmd cli_cmd_record = {
    .name = "record",
    .usage = "[options] [--] COMMAND [ARGS...]\n[options] -p PID[,PID...] | -a",
    .summary = "trace a command's (or running VMs') KVM exits into a trace.dat",
    .about = "Record the KVM exit events of a command, of running processes or of every VM\n"
	     "on the host into a trace.dat (trace-cmd's v6 format), until the command exits,\n"
	     "-d elapses or Ctrl-C. Needs root. Uses a private tracefs instance.",
    .opts = opts,
    .size = sizeof(struct record_opts),
    .init = init,
    .parse = parse,
    .operands = operands,
    .run = run,
    .done = done,
    .needs = CLI_NEEDS_ROOT | CLI_NEEDS_TRACEFS | CLI_NEEDS_KVM | CLI_NEEDS_KVM_HOST,
    .needs_for = needs_for,
    .flags = CLI_CMD_OPERANDS_END,
};
