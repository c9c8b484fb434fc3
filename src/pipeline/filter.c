// SPDX-License-Identifier: GPL-2.0
/*
 * --pid, -g and --vcpu over one input's events (load.c asks, through the
 * feed's keep hook, only when one is set). Decided per thread, once: a
 * thread's process and vCPU come from the input's thread map (record's),
 * else from its name; and --vcpu refuses what it cannot place rather than
 * count it under some vCPU or leave it out unsaid (filter_check_vcpu()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include "alloc.h"
#include "err.h"
#include "intern.h"
#include "pipeline-local.h"
#include "procmap.h"
#include "term.h"

/* What the filters need to know of a thread, found once per thread (see thread_of()). */
struct filter_thread {
	int32_t tid;
	int32_t vcpu; /* its events' vcpu_id, else thread_vcpu(); -1: not known */
	bool wanted;  /* by --pid and -g (its process) */
};

bool filter_on(const struct input_opts *o)
{
	return o->vcpu >= 0 || o->npids || o->vm_name;
}

static const char *thread_name(const struct filter *f, int32_t tid)
{
	if (f->tep)
		return tep_is_pid_registered(f->tep, tid) ? tep_data_comm_from_pid(f->tep, tid)
							  : NULL;
	return input_comm(f->r, tid);
}

/* --pid (a process id, or a thread id) and -g NAME, by the thread's process. */
static bool thread_wanted(const struct filter *f, int32_t tid)
{
	const struct input_opts *o = f->o;
	int32_t tgid = procmap_tgid(f->pm, tid);

	if (o->vm_name && (tgid < 0 || procmap_name(f->pm, tgid) != o->vm_name))
		return false;
	if (!o->npids)
		return true;
	for (size_t i = 0; i < o->npids; i++)
		if (o->pids[i] == tid || (tgid > 0 && o->pids[i] == tgid))
			return true;
	return false;
}

/*
 * A thread's vCPU when its events carry none: the one record saw it run
 * (the vCPU fd of its KVM_RUN: KVM_CREATE_VCPU's id, as vcpu_id is), else
 * what its name says (QEMU's "CPU N/KVM" gives QEMU's CPU index, the same
 * id unless the topology skips APIC ids).
 */
static int32_t thread_vcpu(const struct filter *f, int32_t tid)
{
	int32_t v = procmap_vcpu(f->pm, tid);

	return v >= 0 ? v : procmap_vcpu_of_comm(thread_name(f, tid));
}

static struct filter_thread *thread_of(struct filter *f, int32_t tid)
{
	size_t lo = 0, hi = f->nt;

	if (f->nt && f->t[f->last].tid == tid)
		return &f->t[f->last];
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (f->t[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == f->nt || f->t[lo].tid != tid) {
		f->t = xrealloc(f->t, (f->nt + 1) * sizeof(*f->t));
		memmove(&f->t[lo + 1], &f->t[lo], (f->nt - lo) * sizeof(*f->t));
		f->nt++;
		f->t[lo] = (struct filter_thread){tid, thread_vcpu(f, tid), thread_wanted(f, tid)};
		if (f->pm && !f->t[lo].wanted && procmap_tgid(f->pm, tid) < 0)
			f->unplaced++;
	}
	f->last = lo;
	return &f->t[lo];
}

/*
 * --vcpu N: a thread's vCPU is its events' vcpu_id when they carry one (the
 * kvm_exit path), else thread_vcpu()'s (kvm_userspace_exit has no vcpu_id:
 * record's map, QEMU's "CPU N/KVM", exitgen's "exitgen-vcpuN"). Exits of a thread
 * whose vCPU is not known are counted: the load then refuses (see
 * filter_check_vcpu()) rather than show them as vCPU N's or leave them out unsaid.
 */
static bool vcpu_wanted(struct filter *f, struct filter_thread *t, const struct kes_event *ev)
{
	bool exit = ev->kind == KES_EXIT || ev->kind == KES_UEXIT;

	if (ev->vcpu >= 0)
		t->vcpu = ev->vcpu;
	if (t->vcpu < 0) {
		if (exit && !f->vcpu_unknown++) {
			const char *name = thread_name(f, t->tid);

			f->unknown_tid = t->tid;
			f->unknown_name = name ? intern(name) : NULL;
		}
		return false;
	}
	if (exit && t->vcpu < 4096)
		f->vcpus_seen[t->vcpu / 64] |= 1ull << (t->vcpu % 64);
	return t->vcpu == f->o->vcpu;
}

bool filter_keep(struct filter *f, const struct kes_event *ev)
{
	struct filter_thread *t = thread_of(f, ev->tid);

	if (!t->wanted)
		return false;
	return f->o->vcpu < 0 || vcpu_wanted(f, t, ev);
}

int filter_check_vcpu(const struct filter *f, const char *path, bool no_map, char *e, size_t elen)
{
	const struct input_opts *o = f->o;
	char list[256] = "";
	size_t n = 0;

	char shown[256]; /* a process names its threads: escaped for the terminal */
	const char *name =
	    f->unknown_name ? term_safe(f->unknown_name, shown, sizeof(shown)) : NULL;

	if (f->vcpu_unknown)
		return err_buf(
		    e, elen,
		    "'%s': --vcpu: the vCPU of %llu exit%s is not known (thread %d: no "
		    "vcpu_id in its events, no vCPU in the file's thread map, and its name "
		    "%s%s%s says none, as QEMU's \"CPU N/KVM\" would)",
		    path, (unsigned long long)f->vcpu_unknown, f->vcpu_unknown == 1 ? "" : "s",
		    (int)f->unknown_tid, name ? "'" : "", name ? name : "(not recorded)",
		    name ? "'" : "");
	if (o->vcpu < 4096 && (f->vcpus_seen[o->vcpu / 64] >> (o->vcpu % 64)) & 1)
		return 0;
	for (int v = 0; v < 4096; v++)
		if (f->vcpus_seen[v / 64] & (1ull << (v % 64)) && n + 12 < sizeof(list))
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%d", n ? ", " : "", v);
	/* -p/-g left nothing at all: a list of no vCPUs would hide why */
	if (!n && (o->npids || o->vm_name))
		return err_buf(
		    e, elen, "'%s': no exits of vCPU %d: -p/-g selected no exits at all%s", path,
		    (int)o->vcpu,
		    no_map ? " (it has no thread->process map: -p matched thread ids only)" : "");
	return err_buf(e, elen, "'%s': no exits of vCPU %d%s%s%s", path, (int)o->vcpu,
		       !n			? ""
		       : o->npids || o->vm_name ? " (the selected processes' vCPUs: "
						: " (its vCPUs: ",
		       list, n ? ")" : "");
}

void filter_free(struct filter *f)
{
	free(f->t);
	f->t = NULL;
	f->nt = f->last = 0;
}
