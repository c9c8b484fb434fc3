/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util/knobs.c: the environment's knobs for tests and benchmarks (KES_*),
 * read once, by cli/ (cli_knobs_read()), and set here before any command
 * runs; the library asks knobs_get() and never the environment. A program
 * that links the library without cli/ (unit tests, fuzzers) gets the
 * defaults, or what it sets.
 */
#ifndef KES_KNOBS_H
#define KES_KNOBS_H

#include <stdbool.h>

struct knobs {
	bool one_thread;	/* KES_THREADS=1: the feed and pairing on one thread */
	/*
	 * KES_PIPE=1: where a trace.dat's lanes do not split in two (threads
	 * that migrate, a view that filters), pair/ on a second thread
	 * (feed-pipe.c). Off by default: on this machine kind it cost 1.5x the
	 * wall and 1.7x the CPU of one thread (the bench's mig-4M recording).
	 */
	bool pipe;
	bool no_split;		/* KES_SPLIT=0: a trace.dat's lanes never split in two */
	bool no_fastpath;	/* KES_NO_FASTPATH=1: trace.dat through libtracecmd alone */
	unsigned probe_seconds; /* KES_PROBE_SECONDS: the probe's base limit; 0: its default */
	const char *perf;	/* KES_PERF: the perf that reads perf.data; NULL: perf on $PATH */
	unsigned perf_cpu_s;	/* KES_PERF_CPU_S: perf script's CPU limit; 0: its default */
};

/* The knobs in force (all false, 0 or NULL until set). */
const struct knobs *knobs_get(void);
/* Copies k (its perf string is the caller's and must outlive the process's use). */
void knobs_set(const struct knobs *k);

#endif
