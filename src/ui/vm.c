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
#include "common.h"
#include "ui-local.h"

/* The first line of a small /proc file, without its newline. */
static int read_line(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int32_t tgid_of(int32_t tid)
{
	char path[64], buf[2048];
	const char *p;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strstr(buf, "\nTgid:");
	return p ? (int32_t)strtol(p + 6, NULL, 10) : -1;
}

void ui_vm_parse_qemu_name(const char *arg, char *out, size_t len)
{
	/* QEMU: -name [guest=]NAME[,process=P][,debug-threads=on]; ",," is a comma. */
	char cur[256];
	size_t n = 0;
	bool named = false;

	if (!len)
		return;
	out[0] = 0;
	for (const char *p = arg;; p++) {
		if (*p == ',' && p[1] == ',') {
			if (n + 1 < sizeof(cur))
				cur[n++] = ',';
			p++;
			continue;
		}
		if (*p && *p != ',') {
			if (n + 1 < sizeof(cur))
				cur[n++] = *p;
			continue;
		}
		cur[n] = 0;
		/* A plain NAME wins over guest=NAME, as in QEMU. */
		if (!strchr(cur, '=') && n) {
			snprintf(out, len, "%s", cur);
			return;
		}
		if (!named && !strncmp(cur, "guest=", 6)) {
			snprintf(out, len, "%s", cur + 6);
			named = true;
		}
		n = 0;
		if (!*p)
			return;
	}
}

/* The value after -name in /proc/PID/cmdline, or false. */
static bool qemu_name(int32_t pid, char *out, size_t len)
{
	char path[64], buf[8192];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	for (const char *a = buf; a < buf + n; a += strlen(a) + 1) {
		const char *next = a + strlen(a) + 1;

		if ((!strcmp(a, "-name") || !strcmp(a, "--name")) && next < buf + n) {
			ui_vm_parse_qemu_name(next, out, len);
			return out[0] != 0;
		}
	}
	return false;
}

const char *ui_vm_name(int32_t pid)
{
	char path[64], name[256];

	if (qemu_name(pid, name, sizeof(name)))
		return intern(name);
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	return read_line(path, name, sizeof(name)) == 0 ? intern(name) : NULL;
}

int ui_vm_find(const char *name, int32_t **pids, size_t *n)
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
		vm = ui_vm_name((int32_t)pid);
		if (!vm || strcmp(vm, name))
			continue;
		*pids = xrealloc(*pids, (*n + 1) * sizeof(**pids));
		(*pids)[(*n)++] = (int32_t)pid;
	}
	closedir(d);
	return (int)*n;
}

/* ------------------------------------------------------------------------ */

static size_t find_tid(const struct ui_vms *vs, int32_t tid, bool *found)
{
	size_t lo = 0, hi = vs->nt;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (vs->t[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < vs->nt && vs->t[lo].tid == tid;
	return lo;
}

const struct ui_thread *ui_vms_thread(const struct ui_vms *vs, int32_t tid)
{
	bool found;
	size_t i = find_tid(vs, tid, &found);

	return found ? &vs->t[i] : NULL;
}

const struct ui_vm *ui_vms_vm(const struct ui_vms *vs, int32_t pid)
{
	for (size_t i = 0; i < vs->nv; i++)
		if (vs->v[i].pid == pid)
			return &vs->v[i];
	return NULL;
}

static void add_vm(struct ui_vms *vs, int32_t pid)
{
	char label[300];
	struct ui_vm *v;

	if (pid <= 0 || ui_vms_vm(vs, pid))
		return;
	if (vs->nv == vs->cv) {
		vs->cv = vs->cv ? 2 * vs->cv : 8;
		vs->v = xrealloc(vs->v, vs->cv * sizeof(*vs->v));
	}
	v = &vs->v[vs->nv++];
	*v = (struct ui_vm){.pid = pid, .name = ui_vm_name(pid)};
	if (!v->name)
		v->name = intern("?");
	snprintf(label, sizeof(label), "%s[%d]", v->name, (int)pid);
	v->label = intern(label);
}

static void add_thread(struct ui_vms *vs, int32_t tid)
{
	char path[64], comm[64];
	bool found;
	size_t i = find_tid(vs, tid, &found);
	struct ui_thread *t;

	if (found || tid <= 0)
		return;
	if (vs->nt == vs->ct) {
		vs->ct = vs->ct ? 2 * vs->ct : 32;
		vs->t = xrealloc(vs->t, vs->ct * sizeof(*vs->t));
	}
	memmove(&vs->t[i + 1], &vs->t[i], (vs->nt - i) * sizeof(*vs->t));
	vs->nt++;
	t = &vs->t[i];
	*t = (struct ui_thread){.tid = tid, .tgid = tgid_of(tid)};
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	if (read_line(path, comm, sizeof(comm)) == 0)
		t->comm = intern(comm);
	add_vm(vs, t->tgid);
}

void ui_vms_seed(struct ui_vms *vs, const int32_t *pids, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char path[64];
		struct dirent *de;
		DIR *d;

		add_vm(vs, pids[i]);
		snprintf(path, sizeof(path), "/proc/%d/task", (int)pids[i]);
		d = opendir(path);
		if (!d)
			continue;
		while ((de = readdir(d)))
			if (de->d_name[0] != '.')
				add_thread(vs, (int32_t)atoi(de->d_name));
		closedir(d);
	}
}

static void learn_one(const struct stats_key *k, const struct stats_acc *a, void *arg)
{
	struct ui_vms *vs = arg;
	bool found;

	(void)a;
	find_tid(vs, k->tid, &found);
	if (!found)
		add_thread(vs, k->tid);
}

void ui_vms_learn(struct ui_vms *vs, const struct stats_table *t)
{
	stats_table_foreach(t, learn_one, vs);
}

static bool gone(int32_t pid)
{
	return kill(pid, 0) < 0 && errno == ESRCH;
}

void ui_vms_reap(struct ui_vms *vs, void (*fn)(void *arg, int32_t tid), void *arg)
{
	for (size_t i = 0; i < vs->nt; i++) {
		struct ui_thread *t = &vs->t[i];

		/* Twice: a last event may have been read after the first look. */
		if (t->dead >= 2 || (!t->dead && !gone(t->tid)))
			continue;
		t->dead++;
		fn(arg, t->tid);
	}
	for (size_t i = 0; i < vs->nv; i++)
		if (!vs->v[i].dead && gone(vs->v[i].pid))
			vs->v[i].dead = true;
}

void ui_vms_free(struct ui_vms *vs)
{
	free(vs->t);
	free(vs->v);
	*vs = (struct ui_vms){0};
}
