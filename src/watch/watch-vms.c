// SPDX-License-Identifier: GPL-2.0
/*
 * Which VM a vCPU thread belongs to. A VM is its VMM process: the tgid of
 * the thread (/proc/TID/status), named by QEMU's `-name` option when the
 * command line has one (what kvm_stat shows), else by its comm. Each tid is
 * looked up once, after the read that first saw it (at most every 100 ms),
 * never per event; a thread gone by then stays "?" (its exits still count).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "alloc.h"
#include "intern.h"
#include "live.h"
#include "sorted.h"
#include "term.h"
#include "watch.h"

/* The VM name of a process (live/vmname.c), interned; NULL when it is gone. */
static const char *vm_name_of(int32_t pid)
{
	char name[256];

	return live_vm_name(pid, name, sizeof(name)) ? intern(name) : NULL;
}

/*
 * Does the process hold a KVM VM (an fd on "anon_inode:kvm-vm")? A wrapper
 * (timeout(1), a shell) may carry the VMM's -name on its command line, but
 * it has no VM and no vCPU thread.
 */
static bool has_vm(int32_t pid)
{
	char path[64], link[64];
	struct dirent *de;
	bool vm = false;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d)
		return false;
	while (!vm && (de = readdir(d))) {
		char fd[64 + sizeof(de->d_name)];
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(fd, sizeof(fd), "%s/%s", path, de->d_name);
		n = readlink(fd, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = 0;
			vm = !strcmp(link, "anon_inode:kvm-vm");
		}
	}
	closedir(d);
	return vm;
}

int watch_vm_find(const char *name, int32_t **pids, size_t *n)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	*pids = NULL;
	*n = 0;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		const char *vm;
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid == getpid())
			continue;
		vm = vm_name_of((int32_t)pid);
		if (!vm || strcmp(vm, name) || !has_vm((int32_t)pid))
			continue;
		*pids = xrealloc(*pids, (*n + 1) * sizeof(**pids));
		(*pids)[(*n)++] = (int32_t)pid;
	}
	closedir(d);
	return (int)*n;
}

/* ------------------------------------------------------------------------ */

SORTED_DEFINE_FIND(find_thread, struct watch_thread, tid, int32_t)

static size_t find_tid(const struct watch_vms *vs, int32_t tid, bool *found)
{
	return find_thread(vs->t, vs->nt, tid, found);
}

const struct watch_thread *watch_vms_thread(const struct watch_vms *vs, int32_t tid)
{
	bool found;
	size_t i = find_tid(vs, tid, &found);

	return found ? &vs->t[i] : NULL;
}

const struct watch_vm *watch_vms_vm(const struct watch_vms *vs, int32_t pid)
{
	for (size_t i = 0; i < vs->nv; i++)
		if (vs->v[i].pid == pid)
			return &vs->v[i];
	return NULL;
}

static void name_vm(struct watch_vm *v, const char *name)
{
	char label[300], shown[256];

	v->name = name ? name : intern("?");
	/* a process names itself: what a terminal would act on is shown escaped */
	snprintf(label, sizeof(label), "%s[%d]", term_safe(v->name, shown, sizeof(shown)),
		 (int)v->pid);
	v->label = intern(label);
}

/* A wrapper that exec()s the VMM: the name follows (two small /proc reads). */
static void rename_vm(struct watch_vms *vs, int32_t pid)
{
	struct watch_vm *v = (struct watch_vm *)watch_vms_vm(vs, pid);
	const char *name = v && !v->dead ? vm_name_of(pid) : NULL;

	if (name && name != v->name)
		name_vm(v, name);
}

static void add_vm(struct watch_vms *vs, int32_t pid)
{
	struct watch_vm *v;

	if (pid <= 0 || watch_vms_vm(vs, pid))
		return;
	if (vs->nv == vs->cv) {
		vs->cv = vs->cv ? 2 * vs->cv : 8;
		vs->v = xrealloc(vs->v, vs->cv * sizeof(*vs->v));
	}
	v = &vs->v[vs->nv++];
	*v = (struct watch_vm){.pid = pid};
	name_vm(v, vm_name_of(pid));
}

static void add_thread(struct watch_vms *vs, int32_t tid)
{
	char comm[64];
	bool found;
	size_t i = find_tid(vs, tid, &found);
	struct watch_thread *t;

	if (found || tid <= 0)
		return;
	if (vs->nt == vs->ct) {
		vs->ct = vs->ct ? 2 * vs->ct : 32;
		vs->t = xrealloc(vs->t, vs->ct * sizeof(*vs->t));
	}
	memmove(&vs->t[i + 1], &vs->t[i], (vs->nt - i) * sizeof(*vs->t));
	vs->nt++;
	t = &vs->t[i];
	*t = (struct watch_thread){.tid = tid, .tgid = live_tgid_of(tid)};
	if (live_comm_of(tid, comm, sizeof(comm))) {
		char shown[256];

		t->comm = intern(term_safe(comm, shown, sizeof(shown)));
	}
	add_vm(vs, t->tgid);
	rename_vm(vs, t->tgid);
}

/* A VMM and the threads it has now. */
static void seed_one(struct watch_vms *vs, int32_t pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	add_vm(vs, pid);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			add_thread(vs, (int32_t)atoi(de->d_name));
	closedir(d);
}

/*
 * A wrapper (a shell, timeout(1)) is no VM: a process that will exec a VMM
 * or create its VM later is looked at again at each poll.
 */
static void seed_or_wait(struct watch_vms *vs, int32_t pid)
{
	if (has_vm(pid)) {
		seed_one(vs, pid);
		return;
	}
	vs->pending = xrealloc(vs->pending, (vs->npending + 1) * sizeof(*vs->pending));
	vs->pending[vs->npending++] = pid;
}

/* The traced processes and the children they have (traced with them, live.h). */
void watch_vms_seed(struct watch_vms *vs, const int32_t *pids, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int32_t *kids;
		size_t nk = live_descendants(pids[i], &kids);

		seed_or_wait(vs, pids[i]);
		for (size_t k = 0; k < nk; k++)
			seed_or_wait(vs, kids[k]);
		free(kids);
	}
}

/* Pending processes that hold a VM now become VMs; gone ones are dropped. */
static void check_pending(struct watch_vms *vs)
{
	size_t k = 0;

	for (size_t i = 0; i < vs->npending; i++) {
		int32_t pid = vs->pending[i];

		if (has_vm(pid))
			seed_one(vs, pid);
		else if (live_pid_alive(pid))
			vs->pending[k++] = pid;
	}
	vs->npending = k;
}

static void learn_one(const struct stats_key *k, const struct stats_acc *a, void *arg)
{
	struct watch_vms *vs = arg;
	bool found;

	(void)a;
	find_tid(vs, k->tid, &found);
	if (!found)
		add_thread(vs, k->tid);
}

void watch_vms_learn(struct watch_vms *vs, const struct stats_table *t)
{
	if (vs->npending)
		check_pending(vs);
	stats_table_foreach(t, learn_one, vs);
}

/* A thread id: kill() finds it while it exists (live_pid_alive() asks about its whole process). */
static bool thread_gone(int32_t tid)
{
	return kill(tid, 0) < 0 && errno == ESRCH;
}

void watch_vms_reap(struct watch_vms *vs, void (*fn)(void *arg, int32_t tid), void *arg)
{
	for (size_t i = 0; i < vs->nt; i++) {
		struct watch_thread *t = &vs->t[i];

		/* Twice: a last event may have been read after the first look. */
		if (t->dead >= 2 || (!t->dead && !thread_gone(t->tid)))
			continue;
		t->dead++;
		fn(arg, t->tid);
	}
	/* A VM whose parent has not reaped it yet has exited: kill(pid, 0) says it is there. */
	for (size_t i = 0; i < vs->nv; i++)
		if (!vs->v[i].dead && !(vs->v[i].dead = !live_pid_alive(vs->v[i].pid)))
			rename_vm(vs, vs->v[i].pid);
}

void watch_vms_free(struct watch_vms *vs)
{
	free(vs->t);
	free(vs->v);
	free(vs->pending);
	*vs = (struct watch_vms){0};
}
