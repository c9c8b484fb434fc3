// SPDX-License-Identifier: GPL-2.0
/*
 * record's thread map (procmap.h), learned while recording: the threads of
 * the raw pages' events, each looked up in /proc the first time it is seen
 * (a few reads per thread, not per event): its process, the process's VM
 * name and vCPU fds, and the vCPU the thread runs. What /proc no longer
 * shows at the end (short runs: the pages are read after the VMM exited)
 * comes from the kernel (saved_tgids, saved_cmdlines) and the command's own
 * -name. Thread names are kept as first seen too: the kernel's saved_cmdlines
 * holds a few hundred, and a busy host recycles them before the file is
 * written (report --vcpu then had neither the vCPU nor the "vcpuN" name of a
 * short run's thread).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "live.h"
#include "procmap.h"
#include "ring.h"

/* A vCPU is known once its thread is seen blocked in KVM_RUN: looked at once a tick, for 10 s. */
#define VCPU_TRIES 100

struct vcpu_try {
	int32_t tid;
	unsigned tries, tick;
};

struct thread_comm {
	int32_t tid;
	char comm[16]; /* TASK_COMM_LEN */
};

struct vm_vcpus {
	int32_t pid;
	int32_t *ids; /* its kvm-vcpu fds' ids */
	size_t n;
};

struct procmap_learner {
	struct procmap *pm;
	int long_size;
	int32_t last_tid;
	unsigned tick;
	struct vcpu_try *tries; /* threads whose vCPU is not known yet */
	size_t ntries;
	struct vm_vcpus *vms;
	size_t nvms;
	struct thread_comm *comms; /* as /proc showed them, in first-seen order */
	size_t ncomms;
};

struct procmap_learner *procmap_learn_new(int long_size)
{
	struct procmap_learner *l = xcalloc(1, sizeof(*l));

	l->pm = procmap_new();
	l->long_size = long_size;
	return l;
}

void procmap_learn_free(struct procmap_learner *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nvms; i++)
		free(l->vms[i].ids);
	free(l->vms);
	free(l->comms);
	free(l->tries);
	procmap_free(l->pm);
	free(l);
}

void procmap_learn_tick(struct procmap_learner *l)
{
	l->tick++;
}

/* A VMM's name, looked up once per process, while it still runs. */
static void learn_name(struct procmap *pm, int32_t pid)
{
	char name[256];

	if (pid > 0 && !procmap_name(pm, pid) && live_vm_name(pid, name, sizeof(name)))
		procmap_set_name(pm, pid, name);
}

/* A thread's name while /proc still shows it; once (a linear look: once per new thread). */
static void learn_comm(struct procmap_learner *l, int32_t tid)
{
	struct thread_comm t = {tid, ""};

	for (size_t i = 0; i < l->ncomms; i++)
		if (l->comms[i].tid == tid)
			return;
	if (!live_comm_of(tid, t.comm, sizeof(t.comm)))
		return;
	l->comms = xrealloc(l->comms, (l->ncomms + 1) * sizeof(*l->comms));
	l->comms[l->ncomms++] = t;
}

/* The vCPUs a process has (its kvm-vcpu fds), again with each new thread: for elimination(). */
static void learn_vcpu_ids(struct procmap_learner *l, int32_t pid)
{
	struct vm_vcpus *v = NULL;
	int32_t *ids;
	size_t n;

	if (pid <= 0 || !(n = live_vcpu_ids(pid, &ids)))
		return;
	for (size_t i = 0; i < l->nvms && !v; i++)
		if (l->vms[i].pid == pid)
			v = &l->vms[i];
	if (!v) {
		l->vms = xrealloc(l->vms, (l->nvms + 1) * sizeof(*l->vms));
		v = &l->vms[l->nvms++];
		*v = (struct vm_vcpus){.pid = pid};
	}
	free(v->ids);
	v->ids = ids;
	v->n = n;
}

/* A process that runs now: its name, its vCPUs and its threads' names. */
void procmap_learn_process(struct procmap_learner *l, int32_t pid)
{
	int32_t *tids;
	size_t n = live_threads(pid, &tids);

	learn_name(l->pm, pid);
	learn_vcpu_ids(l, pid);
	for (size_t i = 0; i < n; i++)
		learn_comm(l, tids[i]);
	free(tids);
}

static struct vcpu_try *try_of(struct procmap_learner *l, int32_t tid)
{
	for (size_t i = 0; i < l->ntries; i++)
		if (l->tries[i].tid == tid)
			return &l->tries[i];
	l->tries = xrealloc(l->tries, (l->ntries + 1) * sizeof(*l->tries));
	l->tries[l->ntries] = (struct vcpu_try){tid, 0, l->tick - 1};
	return &l->tries[l->ntries++];
}

/*
 * Which vCPU a thread runs (for report --vcpu on events without vcpu_id,
 * QEMU's threads without debug-threads names): seen only while the thread
 * is blocked in KVM_RUN (a halted vCPU, often), so tried again at later
 * ticks.
 */
static void learn_vcpu(struct procmap_learner *l, int32_t tid)
{
	struct vcpu_try *t;
	int32_t vcpu;

	if (procmap_vcpu(l->pm, tid) >= 0)
		return;
	t = try_of(l, tid);
	if (t->tries >= VCPU_TRIES || t->tick == l->tick)
		return;
	t->tries++;
	t->tick = l->tick;
	vcpu = live_vcpu_of_thread(tid);
	if (vcpu >= 0)
		procmap_set_vcpu(l->pm, tid, vcpu);
}

/* The threads of a page's events: common_pid, 4 bytes into each record. */
int procmap_learn_page(struct procmap_learner *l, const void *page, size_t len,
		       struct ring_info *info)
{
	struct ring_cur cur;
	struct ring_rec rec;
	int32_t tid;
	int ret;

	memset(info, 0, sizeof(*info));
	if (ring_open(&cur, page, len, l->long_size) < 0)
		return -1;
	ring_info_start(&cur, info);
	l->last_tid = 0; /* each page looks at its threads again (learn_vcpu) */
	while ((ret = ring_next(&cur, &rec)) == 1) {
		info->events++;
		if (rec.size < 8)
			continue;
		memcpy(&tid, (const unsigned char *)rec.data + 4, 4);
		if (tid == l->last_tid || tid <= 0)
			continue;
		l->last_tid = tid;
		if (!procmap_has_thread(l->pm, tid)) {
			int32_t tgid = live_tgid_of(tid);

			learn_comm(l, tid);
			procmap_set_thread(l->pm, tid, tgid);
			learn_name(l->pm, tgid);
			learn_vcpu_ids(l, tgid);
		}
		learn_vcpu(l, tid);
	}
	return ret;
}

/* The comm saved_cmdlines ("PID COMM" lines) gives pid, into out; false when none. */
static bool saved_comm(const char *cmdlines, int32_t pid, char *out, size_t len)
{
	for (const char *p = cmdlines; p && *p;) {
		char *end;
		long id = strtol(p, &end, 10);
		size_t n = strcspn(end, "\n");

		if (id == pid && end != p && *end == ' ' && n > 1) {
			snprintf(out, len, "%.*s", (int)(n - 1), end + 1);
			return true;
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return false;
}

/*
 * A busy vCPU is never seen blocked in KVM_RUN (learn_vcpu()): when all of a
 * process's threads but one have their vCPU, and its vCPU fds leave one id
 * over, that id is the last thread's.
 */
static void elimination(struct procmap *pm, const struct vm_vcpus *v)
{
	int32_t last = -1, free_id = -1;
	size_t unknown = 0, left = 0;

	for (size_t i = 0; i < procmap_nthreads(pm); i++) {
		int32_t tid, tgid;

		procmap_thread_at(pm, i, &tid, &tgid);
		if (tgid == v->pid && procmap_vcpu(pm, tid) < 0) {
			unknown++;
			last = tid;
		}
	}
	for (size_t k = 0; k < v->n; k++) {
		bool used = false;

		for (size_t i = 0; i < procmap_nthreads(pm) && !used; i++) {
			int32_t tid, tgid;

			procmap_thread_at(pm, i, &tid, &tgid);
			used = tgid == v->pid && procmap_vcpu(pm, tid) == v->ids[k];
		}
		if (!used) {
			left++;
			free_id = v->ids[k];
		}
	}
	if (unknown == 1 && left == 1)
		procmap_set_vcpu(pm, last, free_id);
}

/* A "PID COMM" line of saved_cmdlines, for a lookup by pid. */
struct saved_line {
	int32_t pid;
	uint32_t at; /* its place in the text: a pid's first line wins, as in saved_comm() */
	const char *name;
	int len;
};

static int by_pid(const void *a, const void *b)
{
	const struct saved_line *x = a, *y = b;

	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->at > y->at) - (x->at < y->at);
}

static int by_id(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

/* saved_cmdlines's lines, by pid then place: how many. */
static size_t saved_index(const char *text, struct saved_line **out)
{
	struct saved_line *v = NULL;
	size_t n = 0, cap = 0;

	for (const char *p = text; p && *p;) {
		char *end;
		long id = strtol(p, &end, 10);
		size_t len = strcspn(end, "\n");

		if (end != p && *end == ' ' && len > 1 && id > 0 && id <= INT32_MAX) {
			if (n == cap)
				v = xrealloc(v, (cap = cap ? 2 * cap : 256) * sizeof(*v));
			v[n] = (struct saved_line){(int32_t)id, (uint32_t)n, end + 1,
						   (int)(len - 1 < 63 ? len - 1 : 63)};
			n++;
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	if (n)
		qsort(v, n, sizeof(*v), by_pid);
	*out = v;
	return n;
}

/* The first of pid's lines in the index, or NULL. */
static const struct saved_line *saved_find(const struct saved_line *v, size_t n, int32_t pid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].pid == pid ? &v[lo] : NULL;
}

/* The threads the file names: those of its events, their processes, and those /proc named. */
static size_t named_ids(const struct procmap_learner *l, int32_t **out)
{
	size_t nt = procmap_nthreads(l->pm), n = 0, k = 0;
	int32_t *ids = xcalloc(2 * nt + l->ncomms + 1, sizeof(*ids));

	for (size_t i = 0; i < nt; i++) {
		int32_t tid, tgid;

		procmap_thread_at(l->pm, i, &tid, &tgid);
		ids[n++] = tid;
		if (tgid > 0)
			ids[n++] = tgid;
	}
	for (size_t i = 0; i < l->ncomms; i++)
		ids[n++] = l->comms[i].tid;
	if (n)
		qsort(ids, n, sizeof(*ids), by_id);
	for (size_t i = 0; i < n; i++)
		if (!k || ids[i] != ids[k - 1])
			ids[k++] = ids[i];
	*out = ids;
	return k;
}

/*
 * The file's thread names ("TID COMM" lines, the kernel's format) for the
 * threads of the recording: saved_cmdlines's line (NULL: none), else the
 * name /proc gave when the thread was first seen. Not the kernel's other
 * lines: its default of 128 names is rounded up to fill the pages it is
 * given (allocate_cmdlines_buffer() in 6.12's trace_sched_switch.c), 6,552
 * names on this 6.18 host, and every report of the file parsed them all:
 * 18 M instructions (callgrind, 1 M-event report: 9 % of it).
 * malloc'd.
 */
char *procmap_learn_cmdlines(const struct procmap_learner *l, const char *saved_cmdlines)
{
	struct saved_line *v;
	int32_t *ids;
	size_t nv = saved_index(saved_cmdlines, &v), n = named_ids(l, &ids);
	char *out = xmalloc(n * 80 + 1), *at = out;

	for (size_t i = 0; i < n; i++) {
		const struct saved_line *s = saved_find(v, nv, ids[i]);

		if (s) {
			at += sprintf(at, "%d %.*s\n", (int)ids[i], s->len, s->name);
			continue;
		}
		for (size_t j = 0; j < l->ncomms; j++)
			if (l->comms[j].tid == ids[i]) {
				at += sprintf(at, "%d %s\n", (int)ids[i], l->comms[j].comm);
				break;
			}
	}
	*at = 0;
	free(v);
	free(ids);
	return out;
}

char *procmap_learn_finish(struct procmap_learner *l, const char *saved_tgids,
			   const char *saved_cmdlines, int32_t child, char *const *argv,
			   size_t *len)
{
	char name[256];
	int argc = 0;

	procmap_fill_tgids(l->pm, saved_tgids);
	while (argv && argv[argc])
		argc++;
	for (size_t i = 0; i < procmap_nthreads(l->pm); i++) {
		int32_t tid, tgid;

		procmap_thread_at(l->pm, i, &tid, &tgid);
		if (tgid <= 0 || procmap_name(l->pm, tgid))
			continue;
		if ((tgid == child && live_qemu_name(argv, argc, name, sizeof(name))) ||
		    saved_comm(saved_cmdlines, tgid, name, sizeof(name)))
			procmap_set_name(l->pm, tgid, name);
	}
	for (size_t i = 0; i < l->nvms; i++)
		elimination(l->pm, &l->vms[i]);
	return procmap_format(l->pm, len);
}
