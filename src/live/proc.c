// SPDX-License-Identifier: GPL-2.0
/*
 * Whether a traced process still runs (record -p and top -p end when it does
 * not), and the children it already has (they are traced with it).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include "alloc.h"
#include "live.h"
#include "live-local.h"

int live_each_fd(int32_t pid, void (*fn)(void *arg, int fd, const char *target), void *arg)
{
	char dir[64], path[64 + 256], t[128];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		ssize_t n;

		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		n = readlink(path, t, sizeof(t) - 1);
		if (n <= 0)
			continue;
		t[n] = '\0';
		fn(arg, atoi(de->d_name), t);
	}
	closedir(d);
	return 0;
}

/* A thread's state letter from /proc/PID/task/TID/stat: after the last ')'. */
static char task_state(int32_t pid, const char *tid)
{
	char path[320], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", (int)pid, tid);
	f = fopen(path, "re");
	if (!f)
		return 'X';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] ? p[2] : 'X';
}

/*
 * A zombie has exited: only its parent has not reaped it yet (a VMM whose
 * manager hangs), and kill(pid, 0) still succeeds on it. A process whose
 * main thread has exited lives while another of its threads runs.
 */
bool live_pid_alive(int32_t pid)
{
	char path[64];
	struct dirent *de;
	bool live = false;
	int32_t kpid;
	DIR *d;

	/* /proc may be the host's while we are in a PID namespace (pidns.c) */
	if (live_kernel_pid(pid, &kpid) < 0)
		return kill(pid, 0) == 0 || errno == EPERM;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)kpid);
	d = opendir(path);
	if (!d) /* no /proc: ask the kernel the old way */
		return kill(pid, 0) == 0 || errno == EPERM;
	while (!live && (de = readdir(d))) {
		char st = de->d_name[0] == '.' ? 'X' : task_state(kpid, de->d_name);

		live = st != 'Z' && st != 'X' && st != 'x';
	}
	closedir(d);
	return live;
}

size_t live_threads(int32_t kpid, int32_t **tids)
{
	char path[64];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	*tids = NULL;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)kpid);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (end == de->d_name || *end || tid <= 0 || tid > INT32_MAX)
			continue;
		*tids = xrealloc(*tids, (n + 1) * sizeof(**tids));
		(*tids)[n++] = (int32_t)tid;
	}
	closedir(d);
	return n;
}

/* The parent of pid from /proc/PID/stat ("pid (comm) S ppid ..."; comm may hold ')'), or -1. */
static int32_t ppid_of(int32_t pid)
{
	char path[64], buf[512];
	const char *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] && p[2] && p[3] ? (int32_t)strtol(p + 4, NULL, 10) : -1;
}

/* One pass over /proc: every process's parent. */
static size_t all_parents(int32_t **pids, int32_t **ppids)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t n = 0;

	*pids = *ppids = NULL;
	while (d && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0)
			continue;
		*pids = xrealloc(*pids, (n + 1) * sizeof(**pids));
		*ppids = xrealloc(*ppids, (n + 1) * sizeof(**ppids));
		(*pids)[n] = (int32_t)pid;
		(*ppids)[n++] = ppid_of((int32_t)pid);
	}
	if (d)
		closedir(d);
	return n;
}

size_t live_descendants(int32_t pid, int32_t **out)
{
	int32_t *pids, *ppids;
	size_t n = all_parents(&pids, &ppids), nout = 0;

	*out = NULL;
	/* out grows as children are found, and their children are looked for in turn */
	for (size_t k = 0;; k++) {
		int32_t parent = k == 0 ? pid : (k - 1 < nout ? (*out)[k - 1] : -1);

		if (parent < 0)
			break;
		for (size_t i = 0; i < n; i++)
			if (ppids[i] == parent && pids[i] != pid) {
				*out = xrealloc(*out, (nout + 1) * sizeof(**out));
				(*out)[nout++] = pids[i];
			}
	}
	free(pids);
	free(ppids);
	return nout;
}
