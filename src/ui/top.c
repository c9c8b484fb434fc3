// SPDX-License-Identifier: GPL-2.0
/*
 * ui_top_run(): sets up the live pipeline and runs one of the three
 * outputs. The refresh tick is the same for all: read what is left in the
 * buffers, learn the new vCPU threads' VMs, count the open exits of the
 * threads that are gone (a VMM's last exit never gets its entry), end the
 * interval. The tracefs instance is removed on every way out but a crash
 * (the next run reaps it).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include "common.h"
#include "collect.h"
#include "ui-local.h"

#define TICK_MS 100

double ui_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int ui_wait_ms(double deadline)
{
	double left = (deadline - ui_now()) * 1000;

	if (left <= 0)
		return 0;
	return left < TICK_MS ? (int)left + 1 : TICK_MS;
}

bool ui_top_targets_gone(const struct ui_top *t)
{
	if (!t->o->npids)
		return false;
	for (size_t i = 0; i < t->o->npids; i++)
		if (collect_pid_alive(t->o->pids[i]))
			return false;
	return true;
}

/*
 * Reads and aggregates, then looks up the threads that are new since the
 * last call (once each): a VM that starts and ends within one interval is
 * still named. Never per event.
 */
int ui_top_poll(struct ui_top *t, int timeout_ms)
{
	if (ui_live_poll(t->live, timeout_ms) < 0)
		return -1;
	for (int s = 0; s < UI_NSRC; s++)
		ui_vms_learn(&t->vms, t->live->cur[s]);
	return 0;
}

static void thread_gone(void *arg, int32_t tid)
{
	ui_live_thread_gone(arg, tid);
}

int ui_top_tick(struct ui_top *t)
{
	double now;

	/* Whatever the threads wrote before we look at which are gone. */
	if (ui_top_poll(t, 0) < 0)
		return -1;
	now = ui_now();
	ui_vms_reap(&t->vms, thread_gone, t->live);
	ui_live_tick(t->live, now - t->t_last);
	t->t_last = now;
	t->hdr.targets_gone = ui_top_targets_gone(t);
	return 0;
}

/* ------------------------------------------------------------------------ */

static int run_once(struct ui_top *t)
{
	double end = t->t_last + t->o->delay;
	struct ui_state st = {
	    .sort = UI_SORT_TOTAL, .source = t->o->source, .buckets = t->o->buckets != NULL};
	struct ui_view v;
	char e[256];

	if (t->o->fields && ui_filter_set_re(&st.f, t->o->fields, e, sizeof(e)) < 0)
		return err("%s", e);
	/* One interval; it ends early when every traced process is gone. */
	while (!collect_stop_requested() && ui_now() < end && !ui_top_targets_gone(t))
		if (ui_top_poll(t, ui_wait_ms(end)) < 0)
			return err("reading the trace buffers: %s", strerror(errno));
	if (ui_top_tick(t) < 0)
		return err("reading the trace buffers: %s", strerror(errno));
	ui_model_build(&v, t->live, &t->vms, &st, t->o->types);
	ui_batch_table(stdout, &v, &t->hdr, t->live->last_dt);
	ui_view_free(&v);
	ui_filter_free(&st.f);
	return 0;
}

static volatile sig_atomic_t hup;

static void on_hup(int sig)
{
	(void)sig;
	hup = 1;
}

static int run_log(struct ui_top *t)
{
	char e[512];
	struct ui_log *lg = ui_log_new(t->o, e, sizeof(e));
	double next = t->t_last + t->o->delay;
	int ret = 0;

	if (!lg)
		return err("%s", e);
	if (t->o->log_file) {
		/* The collector's handler would stop us: here SIGHUP means logrotate. */
		struct sigaction sa = {.sa_handler = on_hup};

		sigemptyset(&sa.sa_mask);
		sigaction(SIGHUP, &sa, NULL);
	}
	while (!collect_stop_requested() && !ret) {
		if (ui_top_poll(t, ui_wait_ms(next)) < 0) {
			ret = err("reading the trace buffers: %s", strerror(errno));
			break;
		}
		if (hup) {
			hup = 0;
			if (ui_log_reopen(lg, e, sizeof(e)) < 0)
				ret = err("%s", e);
		}
		if (ui_now() < next)
			continue;
		if (ui_top_tick(t) < 0 || ui_log_interval(lg, t->live, t->o->types) < 0) {
			/* `top --log | head`: the reader has all it wanted; end quietly. */
			if (errno == EPIPE)
				break;
			ret = err("writing the log: %s", strerror(errno));
		}
		next += t->o->delay;
		if (next < ui_now())
			next = ui_now() + t->o->delay;
		if (t->hdr.targets_gone)
			break; /* the line above was the last interval */
	}
	ui_log_free(lg);
	return ret;
}

/* ------------------------------------------------------------------------ */

static void describe_targets(const struct ui_top_opts *o, char *buf, size_t len)
{
	size_t n = 0;

	if (!o->pids) {
		snprintf(buf, len, "all processes");
		return;
	}
	if (o->guest)
		n += (size_t)snprintf(buf, len, "guest %s, ", o->guest);
	for (size_t i = 0; i < o->npids && n + 16 < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%d", i ? "," : "pid ", (int)o->pids[i]);
}

int ui_top_run(const struct ui_top_opts *o)
{
	struct ui_live_opts lo = {.pids = o->pids,
				  .npids = o->npids,
				  .buffer_kb = o->buffer_kb,
				  .types = o->types,
				  .buckets = o->buckets};
	struct ui_top t = {.o = o};
	char e[512], host[256] = "?", traced[256];
	struct utsname un;
	int ret;

	gethostname(host, sizeof(host) - 1);
	if (uname(&un) < 0)
		snprintf(un.machine, sizeof(un.machine), "?");
	describe_targets(o, traced, sizeof(traced));
	t.hdr = (struct ui_header){.host = host,
				   .machine = un.machine,
				   .traced = traced,
				   .buckets = o->buckets ? o->buckets_name : NULL};
	if (collect_signals_install() < 0)
		return err("cannot install signal handlers: %s", strerror(errno)), 1;
	t.live = ui_live_new(&lo, e, sizeof(e));
	if (!t.live)
		return err("%s", e), 1;
	if (ui_live_start(t.live) < 0) {
		ui_live_free(t.live);
		return err("cannot start tracing: %s", strerror(errno)), 1;
	}
	ui_vms_seed(&t.vms, o->pids, o->npids);
	t.t_last = ui_now();
	switch (o->out) {
	case UI_OUT_ONCE:
		ret = run_once(&t);
		break;
	case UI_OUT_LOG:
		ret = run_log(&t);
		break;
	default:
		ret = ui_screen_run(&t);
		break;
	}
	ui_live_free(t.live);
	ui_vms_free(&t.vms);
	return ret < 0 ? 1 : 0;
}
