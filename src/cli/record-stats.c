// SPDX-License-Identifier: GPL-2.0
/*
 * record --stats: a snapshot of KVM's own statistics instead of a trace, two
 * readings (at the start and at the end) of every VM of a command, of -p
 * processes or of the host, written as one JSON file that report and diff
 * read (kvm-exitstat-record(1) has its schema). No tracing.
 *
 * A VM made by the command after the first reading starts from zero (KVM's
 * counters start at zero with the VM). Each VM is held from when it is
 * first seen (checked every 100 ms): KVM keeps a VM whose debugfs file or
 * statistics fd is open, so the last reading, after the command has
 * exited, still has its final values.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include "alloc.h"
#include "cli-local.h"
#include "err.h"
#include "kvmstats.h"
#include "live.h"
#include "render.h"

#define TICK_MS 100

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static pid_t spawn(char **cmd)
{
	pid_t pid = fork();

	if (pid == 0) {
		live_signals_child();
		execvp(cmd[0], cmd);
		err_errno("cannot run '%s'", cmd[0]);
		_exit(127);
	}
	return pid;
}

/* The command and every process under it now: the VMM may be a grandchild. */
static void follow(struct kvmstats *k, pid_t child)
{
	int32_t *kids = NULL;
	size_t n = live_descendants(child, &kids);

	kids = xrealloc(kids, (n + 1) * sizeof(*kids));
	kids[n++] = child;
	kvmstats_set_pids(k, kids, n);
	free(kids);
}

static int snapshot_to(FILE *f, const void *arg)
{
	render_kstat_snapshot(f, arg);
	return 0;
}

static int write_file(const char *path, const struct render_kstat_snap *m)
{
	return cli_write_file(path, snapshot_to, m);
}

struct span {
	pid_t child;
	int status;
	bool done;
};

static bool finished(const struct cli_record_stats *o, struct span *s, double deadline)
{
	if (live_stop_requested() || (deadline > 0 && now() >= deadline))
		return true;
	live_child_event();
	if (s->child > 0 && waitpid(s->child, &s->status, WNOHANG) == s->child) {
		s->done = true;
		return true;
	}
	for (size_t i = 0; !s->child && o->npids && i < o->npids; i++)
		if (live_pid_alive(o->pids[i]))
			return false;
	return !s->child && o->npids > 0;
}

static void summary(const char *path, const struct kstat_reading *r)
{
	err_info("kvm-exitstat: KVM statistics of %zu VM%s, two readings %.2f s apart, in %s\n",
		 r[1].nvms, r[1].nvms == 1 ? "" : "s", r[1].t - r[0].t, path);
}

static int status_of(const struct span *s)
{
	if (!s->done)
		return 0;
	if (WIFEXITED(s->status))
		return WEXITSTATUS(s->status);
	return WIFSIGNALED(s->status) ? 128 + WTERMSIG(s->status) : 0;
}

int cli_record_stats(const struct cli_record_stats *o)
{
	struct kvmstats_opts ko = {.pids = o->pids, .npids = o->npids, .pin = true};
	struct kstat_reading r[2] = {{0}};
	struct span s = {0};
	struct utsname un;
	struct kvmstats *k;
	char e[512], host[256] = "?";
	double deadline = 0;
	int ret = -1;

	if (live_signals_install() < 0)
		return err_errno("cannot install signal handlers"), 1;
	k = kvmstats_new(&ko, e, sizeof(e));
	if (!k)
		return err("%s", e), 1;
	if (o->cmd)
		kvmstats_set_pids(k, (int32_t[]){0}, 0); /* none until the command is there */
	if (kvmstats_read(k, &r[0], e, sizeof(e)) < 0) {
		err("%s", e);
		goto out;
	}
	if (o->cmd && (s.child = spawn(o->cmd)) < 0) {
		err_errno("cannot fork");
		goto out;
	}
	deadline = o->duration > 0 ? now() + o->duration : 0;
	while (!finished(o, &s, deadline)) {
		if (s.child > 0)
			follow(k, s.child);
		kvmstats_scan(k);
		live_sleep(TICK_MS);
	}
	if (s.child > 0 && !s.done) {
		kill(s.child, live_stop_signal() ? live_stop_signal() : SIGTERM);
		if (waitpid(s.child, &s.status, 0) == s.child)
			s.done = true;
	}
	if (kvmstats_read(k, &r[1], e, sizeof(e)) < 0) {
		err("%s", e);
		goto out;
	}
	gethostname(host, sizeof(host) - 1);
	if (uname(&un) < 0)
		snprintf(un.release, sizeof(un.release), "?");
	struct render_kstat_snap m = {.schema = kvmstats_schema(k),
				      .schema_src = kvmstats_schema_source(k),
				      .readings = r,
				      .nreadings = 2,
				      .host = host,
				      .kernel = un.release};

	/* an empty snapshot where VMs ran says why, whatever -q */
	if (kvmstats_unread(k))
		err_info("kvm-exitstat: warning: %zu VM%s not in the snapshot: this kernel has no "
			 "debugfs, and %s VMM held no statistics fd (KVM_GET_STATS_FD) to read\n",
			 kvmstats_unread(k), kvmstats_unread(k) == 1 ? "" : "s",
			 kvmstats_unread(k) == 1 ? "its" : "their");
	if (kvmstats_partial(k))
		err_info("kvm-exitstat: warning: %zu VM%s without %s vCPUs' statistics: this kernel has "
			 "no debugfs, and %s VMM exited before all of them were found\n",
			 kvmstats_partial(k), kvmstats_partial(k) == 1 ? "" : "s",
			 kvmstats_partial(k) == 1 ? "its" : "their",
			 kvmstats_partial(k) == 1 ? "its" : "their");
	if (write_file(o->output, &m) == 0) {
		if (!o->quiet)
			summary(o->output, r);
		ret = status_of(&s);
	}
out:
	kstat_reading_free(&r[0]);
	kstat_reading_free(&r[1]);
	kvmstats_free(k);
	return ret < 0 ? 1 : ret;
}
