// SPDX-License-Identifier: GPL-2.0
/* Whether a traced process still runs: record -p and top -p end when it does not. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "collect.h"

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
bool collect_pid_alive(int32_t pid)
{
	char path[64];
	struct dirent *de;
	bool live = false;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d) /* no /proc: ask the kernel the old way */
		return kill(pid, 0) == 0 || errno == EPERM;
	while (!live && (de = readdir(d))) {
		char st = de->d_name[0] == '.' ? 'X' : task_state(pid, de->d_name);

		live = st != 'Z' && st != 'X' && st != 'x';
	}
	closedir(d);
	return live;
}
