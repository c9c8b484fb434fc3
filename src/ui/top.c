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
#include "err.h"
#include "live.h"
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

/* With -p: every traced process has exited. */
static bool targets_gone(const struct ui_top *t)
{
	if (!t->o->npids)
		return false;
	for (size_t i = 0; i < t->o->npids; i++)
		if (live_pid_alive(t->o->pids[i]))
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
	if (watch_poll(t->live, timeout_ms) < 0)
		return -1;
	for (int s = 0; s < WATCH_NTABLES; s++)
		watch_vms_learn(&t->vms, t->live->cur[s]);
	/* --slower-than without a screen: each such exit as it comes (one poll: <= 100 ms) */
	if (t->o->out != UI_OUT_SCREEN && ui_slow_print(stderr, t) < 0)
		return -1;
	return 0;
}

static void thread_gone(void *arg, int32_t tid)
{
	watch_thread_gone(arg, tid);
}

int ui_top_tick(struct ui_top *t)
{
	/*
	 * Looked at before the last read: a process seen gone has written its
	 * last exit, which this read then takes. Looked at after, an exit made
	 * between the read and the look was never counted (CI: 1 of 13,668).
	 */
	bool gone = targets_gone(t);
	double now;

	/* Whatever the threads wrote before we look at which are gone. */
	if (ui_top_poll(t, 0) < 0)
		return -1;
	now = ui_now();
	watch_vms_reap(&t->vms, thread_gone, t->live);
	watch_tick(t->live, now - t->t_last);
	t->t_last = now;
	t->hdr.targets_gone = gone;
	return 0;
}

/* ------------------------------------------------------------------------ */

static int run_once(struct ui_top *t)
{
	double end = t->t_last + t->o->delay;
	struct ui_state st = {.sort = UI_SORT_TOTAL,
			      .source = t->o->source,
			      .events = t->o->all_events,
			      .buckets = t->o->buckets != NULL};
	struct ui_view v;

	if (t->o->fields_re)
		ui_filter_use_re(&st.f, t->o->fields_re, t->o->fields);
	/* One interval; it ends early when every traced process is gone. */
	while (!live_stop_requested() && ui_now() < end && !targets_gone(t))
		if (ui_top_poll(t, ui_wait_ms(end)) < 0)
			return err_errno("reading the trace buffers");
	if (ui_top_tick(t) < 0)
		return err_errno("reading the trace buffers");
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
	while (!live_stop_requested() && !ret) {
		if (ui_top_poll(t, ui_wait_ms(next)) < 0) {
			ret = err_errno("reading the trace buffers");
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
			ret = err_errno("writing the log");
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
	struct watch_opts lo = {.pids = o->pids,
				  .npids = o->npids,
				  .buffer_kb = o->buffer_kb,
				  .types = o->types,
				  .buckets = o->buckets,
				  .slower_ns = o->slower_ns,
				  .all_events = o->all_events,
				  .anatomy = o->anatomy,
				  /* the screen's drill-down; --once and --log show reasons only */
				  .subkeys = o->out == UI_OUT_SCREEN,
				  .by_guest = o->by_guest};
	struct ui_top t = {.o = o};
	char e[512], host[256] = "?", traced[256];
	struct utsname un;
	int ret;

	/* --in-kernel where the kernel cannot: said in one line, and every exit streamed */
	if (o->in_kernel && !watch_in_kernel_ok(e, sizeof(e)))
		err_info("kvm-exitstat: --in-kernel: %s; streaming every exit instead\n", e);
	else
		lo.in_kernel = o->in_kernel;
	if (lo.in_kernel)
		lo.subkeys = false;
	gethostname(host, sizeof(host) - 1);
	if (uname(&un) < 0)
		snprintf(un.machine, sizeof(un.machine), "?");
	describe_targets(o, traced, sizeof(traced));
	t.hdr = (struct ui_header){.host = host,
				   .machine = un.machine,
				   .traced = traced,
				   .buckets = o->buckets ? o->buckets_name : NULL,
				   .width = o->width};
	if (live_signals_install() < 0)
		return err_errno("cannot install signal handlers"), 1;
	t.live = watch_new(&lo, e, sizeof(e));
	if (!t.live)
		return err("%s", e), 1;
	if (watch_start(t.live) < 0) {
		watch_free(t.live);
		return err_errno("cannot start tracing"), 1;
	}
	watch_vms_seed(&t.vms, o->pids, o->npids);
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
	watch_free(t.live);
	watch_vms_free(&t.vms);
	return ret < 0 ? 1 : 0;
}
