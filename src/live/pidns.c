// SPDX-License-Identifier: GPL-2.0
/*
 * PID namespaces. The kernel's tracing works with the initial namespace's
 * pids: set_event_pid takes them, every event's common_pid is one. A
 * recorder inside a PID namespace (unshare -p, a container) sees other
 * numbers for the same processes: filtering on the pid fork() returned
 * filters on some other process, or none, and the recording holds nothing.
 *
 * /proc/PID/status's NSpid line lists a process's pid in every namespace
 * from the one of the /proc mount down to its own. When /proc is the host's
 * (unshare -p without --mount-proc), its first entry is the kernel's pid and
 * its last the one this process uses: pids are translated. When /proc belongs
 * to the namespace (--mount-proc, containers) the kernel's pids cannot be
 * known from inside: tracing is refused with a line that says so.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "alloc.h"
#include "err.h"
#include "live.h"

/* include/linux/proc_ns.h: the inode of the initial PID namespace. */
#define PROC_PID_INIT_INO 0xEFFFFFFCU

enum pidns { PIDNS_INIT, PIDNS_HOST_PROC, PIDNS_OWN_PROC };

static int nspid_of(const char *n, long *v, int max);

/*
 * Is /proc the initial namespace's? Kernel threads live there only: its pid
 * 2 is kthreadd, whose parent is 0. (/proc/1/ns/pid would say it directly,
 * but a namespace may not look at its ancestors' processes' namespaces.)
 */
static bool proc_is_initial(void)
{
	char buf[4096];
	FILE *f = fopen("/proc/2/status", "re");
	size_t n;
	const char *p;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strstr(buf, "\nPPid:");
	return p && strtol(p + 6, NULL, 10) == 0;
}

static enum pidns pidns_state(void)
{
	struct stat self;

	/* no /proc at all: nothing to translate with, and nothing says we need to */
	if (stat("/proc/self/ns/pid", &self) < 0)
		return PIDNS_INIT;
	if (self.st_ino == PROC_PID_INIT_INO)
		return PIDNS_INIT;
	return proc_is_initial() ? PIDNS_HOST_PROC : PIDNS_OWN_PROC;
}

int live_pidns_check(char *errbuf, size_t errlen)
{
	if (pidns_state() != PIDNS_OWN_PROC)
		return 0;
	return err_buf(errbuf, errlen,
			  "running in a PID namespace whose /proc shows only its own processes: "
			  "tracing filters on the kernel's pids, which cannot be known from here; "
			  "run outside the namespace (or with the host's /proc)");
}

/* The NSpid entries of /proc/N/status: n of them into v (first: /proc's namespace). */
static int nspid_of(const char *n, long *v, int max)
{
	char path[300], buf[4096], *p;
	FILE *f;
	int k = 0;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%s/status", n);
	f = fopen(path, "re");
	if (!f)
		return -1;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	p = strstr(buf, "\nNSpid:");
	if (!p)
		return -1;
	for (p += 7; k < max;) {
		char *end;
		long x = strtol(p, &end, 10);

		if (end == p)
			break;
		v[k++] = x;
		p = end;
	}
	return k;
}

static bool same_pidns(const char *n, const struct stat *ours)
{
	char path[300];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%s/ns/pid", n);
	return stat(path, &st) == 0 && st.st_ino == ours->st_ino && st.st_dev == ours->st_dev;
}

/* Scans /proc (the host's) for the process this namespace calls pid. */
static int32_t find_kernel_pid(int32_t pid)
{
	struct stat ours;
	struct dirent *de;
	int32_t found = -1;
	DIR *d;

	if (stat("/proc/self/ns/pid", &ours) < 0 || !(d = opendir("/proc")))
		return -1;
	while (found < 0 && (de = readdir(d))) {
		long v[32];
		int k;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		k = nspid_of(de->d_name, v, 32);
		if (k >= 2 && v[k - 1] == pid && same_pidns(de->d_name, &ours))
			found = (int32_t)v[0];
	}
	closedir(d);
	return found;
}

int live_kernel_pid(int32_t pid, int32_t *kpid)
{
	static struct {
		int32_t pid, kpid;
	} cache[64];
	static unsigned next;
	char name[16];
	long v[32];
	int k;

	*kpid = pid;
	if (pidns_state() == PIDNS_INIT)
		return 0;
	/* a translation stays right while that process still has that pid here */
	for (size_t i = 0; i < ARRAY_SIZE(cache); i++) {
		if (cache[i].pid != pid || !cache[i].kpid)
			continue;
		snprintf(name, sizeof(name), "%d", (int)cache[i].kpid);
		k = nspid_of(name, v, 32);
		if (k >= 2 && v[k - 1] == pid) {
			*kpid = cache[i].kpid;
			return 0;
		}
	}
	*kpid = find_kernel_pid(pid);
	if (*kpid <= 0) {
		errno = ESRCH;
		return -1;
	}
	cache[next % ARRAY_SIZE(cache)].pid = pid;
	cache[next++ % ARRAY_SIZE(cache)].kpid = *kpid;
	return 0;
}

int32_t live_kernel_self(void)
{
	char buf[32];
	ssize_t n;

	if (pidns_state() == PIDNS_INIT)
		return (int32_t)getpid();
	/* /proc/self names us in /proc's namespace: the host's, here */
	n = readlink("/proc/self", buf, sizeof(buf) - 1);
	if (n <= 0)
		return (int32_t)getpid();
	buf[n] = '\0';
	return (int32_t)strtol(buf, NULL, 10);
}

bool live_kernel_pid_exists(int32_t kpid)
{
	char path[64];

	if (pidns_state() == PIDNS_INIT)
		return kill((pid_t)kpid, 0) == 0 || errno != ESRCH;
	snprintf(path, sizeof(path), "/proc/%d", (int)kpid);
	return access(path, F_OK) == 0;
}
