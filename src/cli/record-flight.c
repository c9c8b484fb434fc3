// SPDX-License-Identifier: GPL-2.0
/*
 * record --flight SECONDS|MB: the flight recorder (live/flight.c) on a
 * command, -p processes or the host, until the command exits, -d elapses or
 * Ctrl-C: nothing is read until a trigger (--slower-than USEC, --rate-over
 * N, SIGUSR1), then the window before it and --flight-after seconds after
 * it go to a trace.dat in -o DIR, at most --flight-keep files kept. One
 * line on stderr per file saved.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "alloc.h"
#include "cli-local.h"
#include "err.h"
#include "flight.h"
#include "live.h"
#include "watch.h"

#define TICK_MS 100

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int cli_parse_flight(const char *s, double *secs, unsigned *kb)
{
	char *end;
	double v = strtod(s, &end);

	*secs = 0;
	*kb = 0;
	if (end == s || !(v > 0))
		return err("bad --flight '%s': want SECONDS (30, 30s) or a buffer size (64MB)", s);
	if (!*end || !strcmp(end, "s")) {
		if (v > 86400)
			return err("bad --flight '%s': at most 86400 seconds", s);
		*secs = v;
		return 0;
	}
	if (!strcmp(end, "MB") || !strcmp(end, "M")) {
		if (v < 1 || v > 4096)
			return err("bad --flight '%s': 1 to 4096 MB per CPU", s);
		*kb = (unsigned)(v * 1024);
		return 0;
	}
	return err("bad --flight '%s': want SECONDS (30, 30s) or a buffer size (64MB)", s);
}

static int events_of(const struct cli_record_flight *o, struct flight_opts *fo, char ***names,
		     size_t *n)
{
	struct exit_types types;

	if (cli_load_exit_types(&types, o->types->files, o->types->n) < 0)
		return -1;
	/* the exit and entry events of every table: what report needs of the saved file */
	*names = exit_types_event_names(&types, 0, n);
	fo->events = (const char *const *)*names;
	fo->nevents = *n;
	if (o->slow_ns)
		fo->nfields = watch_in_kernel_fields(&types, fo->fields);
	exit_types_free(&types);
	if (o->slow_ns && !fo->nfields)
		return err("--slower-than: no exit table names this kernel's kvm:kvm_exit fields");
	return 0;
}

struct run {
	pid_t child;
	int status;
	bool done;
};

static bool finished(const struct cli_record_flight *o, struct run *r, double deadline)
{
	if (live_stop_requested() || (deadline > 0 && now() >= deadline))
		return true;
	live_child_event();
	if (r->child > 0 && waitpid(r->child, &r->status, WNOHANG) == r->child)
		return r->done = true;
	if (r->child > 0 || !o->npids)
		return false;
	for (size_t i = 0; i < o->npids; i++)
		if (live_pid_alive(o->pids[i]))
			return false;
	return true;
}

static void said(const char *path, const struct flight *f)
{
	if (path)
		err_info("kvm-exitstat: flight recorder: saved %s (%llu saved, %llu triggers)\n",
			 path, (unsigned long long)flight_saves(f),
			 (unsigned long long)flight_triggers(f));
}

static int loop(const struct cli_record_flight *o, struct flight *f, struct run *r)
{
	double deadline = o->duration > 0 ? now() + o->duration : 0;
	const char *saved;
	char e[512];

	while (!finished(o, r, deadline)) {
		live_sleep(TICK_MS);
		if (live_usr1_taken())
			flight_trigger(f, "signal");
		if (flight_tick(f, &saved, e, sizeof(e)) < 0)
			err("%s", e); /* the recorder goes on */
		said(saved, f);
	}
	if (live_usr1_taken())
		flight_trigger(f, "signal");
	if (flight_flush(f, &saved, e, sizeof(e)) < 0)
		return err("%s", e);
	said(saved, f);
	return 0;
}

static int status_of(const struct run *r)
{
	if (!r->done)
		return 0;
	if (WIFEXITED(r->status))
		return WEXITSTATUS(r->status);
	return WIFSIGNALED(r->status) ? 128 + WTERMSIG(r->status) : 0;
}

int cli_record_flight(const struct cli_record_flight *o)
{
	struct flight_opts fo = {.pids = o->pids,
				 .npids = o->npids,
				 .pids_later = o->cmd != NULL,
				 .buffer_kb = o->buffer_kb,
				 .window_s = o->window_s,
				 .after_s = o->after_s,
				 .slow_ns = o->slow_ns,
				 .rate = o->rate,
				 .dir = o->dir,
				 .keep = o->keep};
	struct run r = {.child = -1};
	struct flight *f = NULL;
	char e[512], **names = NULL;
	size_t n = 0;
	int ret = -1, gate = -1;

	if (live_signals_install() < 0 || live_usr1_install() < 0)
		return err_errno("cannot install signal handlers"), 1;
	if (events_of(o, &fo, &names, &n) < 0)
		goto out;
	f = flight_new(&fo, e, sizeof(e));
	if (!f) {
		err("%s", e);
		goto out;
	}
	if (o->cmd && ((r.child = cli_spawn_held(o->cmd, &gate)) < 0 || flight_add_pid(f, r.child) < 0)) {
		err_errno("cannot run '%s'", o->cmd[0]);
		goto out;
	}
	if (flight_start(f) < 0) {
		err_errno("cannot start tracing");
		goto out;
	}
	if (gate >= 0) {
		cli_release_child(gate);
		gate = -1;
	}
	if (!o->quiet)
		err_info("kvm-exitstat: flight recorder running (pid %d): SIGUSR1 saves the window\n",
			 (int)getpid());
	if (loop(o, f, &r) == 0)
		ret = 0;
out:
	if (gate >= 0)
		close(gate);
	if (r.child > 0 && !r.done) {
		kill(r.child, live_stop_signal() ? live_stop_signal() : SIGTERM);
		r.done = waitpid(r.child, &r.status, 0) == r.child;
	}
	if (f && !o->quiet)
		err_info("kvm-exitstat: flight recorder: %llu triggers, %llu files saved in %s\n",
			 (unsigned long long)flight_triggers(f),
			 (unsigned long long)flight_saves(f), o->dir);
	flight_free(f);
	exit_types_event_names_free(names, n);
	return ret < 0 ? 1 : status_of(&r);
}
