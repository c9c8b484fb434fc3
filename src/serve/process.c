// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter's own process, as every Prometheus client library exports it
 * (the process collector of client_golang, client_python, prometheus-cpp):
 * process_cpu_seconds_total, process_resident_memory_bytes,
 * process_virtual_memory_bytes, process_virtual_memory_max_bytes,
 * process_open_fds, process_max_fds, process_start_time_seconds. So the
 * dashboards and alerts a fleet has for its exporters (an exporter that
 * leaks, spins or runs out of fds) see this one too. From /proc/self, read
 * once per page.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "file.h"
#include "serve-local.h"

/* Fields 14..23 of /proc/self/stat, after the ") " that ends comm (which may hold spaces). */
static int read_stat(struct serve_process *p, long tick, long page)
{
	char *s, *f;
	size_t len;
	unsigned long long ut, st, start, vsize;
	long long rss;
	int ret = -1;

	if (file_read_path("/proc/self/stat", &s, &len) < 0)
		return -1;
	f = strrchr(s, ')');
	/* state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
	 * cutime cstime priority nice threads itrealvalue starttime vsize rss */
	if (f && sscanf(f + 2,
			"%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %*d "
			"%*d %llu %llu %lld",
			&ut, &st, &start, &vsize, &rss) == 5) {
		p->cpu_s = (double)(ut + st) / (double)tick;
		p->start_ticks = start;
		p->vsize = vsize;
		p->rss = (uint64_t)(rss > 0 ? rss : 0) * (uint64_t)page;
		ret = 0;
	}
	free(s);
	return ret;
}

/* The boot time (/proc/stat's btime), seconds since the epoch. */
static int boot_time(unsigned long long *btime)
{
	char *s, *b;
	size_t len;
	int ret = -1;

	if (file_read_path("/proc/stat", &s, &len) < 0)
		return -1;
	b = strstr(s, "\nbtime ");
	if (b && sscanf(b, "\nbtime %llu", btime) == 1)
		ret = 0;
	free(s);
	return ret;
}

static uint64_t open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	uint64_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n ? n - 1 : 0; /* not the fd of this opendir */
}

int serve_process_read(struct serve_process *p)
{
	long tick = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	unsigned long long btime;
	struct rlimit rl;

	*p = (struct serve_process){0};
	if (tick <= 0 || page <= 0 || read_stat(p, tick, page) < 0 || boot_time(&btime) < 0)
		return -1;
	p->start_s = (double)btime + (double)p->start_ticks / (double)tick;
	p->open_fds = open_fds();
	/* RLIM_INFINITY as the Go client shows it: the largest uint64, as a float */
	p->max_fds = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? (double)rl.rlim_cur : -1;
	p->vmax = getrlimit(RLIMIT_AS, &rl) == 0 ? (double)rl.rlim_cur : -1;
	p->ok = true;
	return 0;
}
