/* SPDX-License-Identifier: GPL-2.0 */
/*
 * input/tracedat*.c, datread.c: trace.dat files (trace-cmd's format, v6 or
 * v7, compressed or not), their raw records handed out for decode/.
 */
#ifndef KES_TRACEDAT_H
#define KES_TRACEDAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_handle;

/*
 * One raw record, in timestamp order. missed: events the kernel lost on this
 * CPU just before this one (0 none, -1 some, count unknown). Return non-zero to stop.
 */
typedef int (*tracedat_record_fn)(void *arg, const void *data, int size, uint64_t ts, int cpu,
				long long missed);

/* trace.dat (trace-cmd's format, v6 or v7, compressed or not), read with libtracecmd. */
struct tracedat;
/*
 * Reads the trace.dat open on fd (which stays the caller's; give it a
 * input_stable_fd()). NULL on failure with a one-line reason in errbuf.
 */
struct tracedat *tracedat_open_fd(int fd, char *errbuf, size_t errlen);
/* The same by path (tests); the reason then names the path. */
struct tracedat *tracedat_open(const char *path, char *errbuf, size_t errlen);
struct tep_handle *tracedat_tep(struct tracedat *td);

/* One CPUSTAT option: the kernel's per_cpu/cpuN/stats when the recording ended. */
struct tracedat_cpustat {
	int cpu; /* -1: the text names none */
	uint64_t entries, overrun, dropped;
	uint64_t read; /* "read events": what the recorder took out of the buffer */
	bool has_read; /* kernels before 3.10 print no "read events" */
};

/* What a trace.dat's header says about its content (owned by the tracedat). */
struct tracedat_info {
	size_t page_size;		      /* 0: unknown */
	const struct tracedat_cpustat *stats; /* CPUSTAT options (nstats 0: none read) */
	size_t nstats;
	bool instances;		  /* buffer instances: the stats are not the top buffer's alone */
	unsigned unknown_options; /* option ids trace-cmd does not know (skipped) */
	unsigned first_unknown;
	/* record's thread map (procmap.h: its text, maybe NUL-terminated), or NULL */
	const char *procmap;
	size_t procmap_len;
	const char *clock; /* the trace clock it was recorded with ("local", "x86-tsc"), or NULL */
	bool clock_ticks;  /* a counter clock, no TSC2NSEC: timestamps are ticks of unknown unit */
	const char *host;  /* the host it was recorded on (its UNAME option), or NULL */
};
void tracedat_get_info(const struct tracedat *td, struct tracedat_info *info);

/*
 * Opens the trace.dat on fd with libtracecmd in a child process first (see
 * tracedat-probe.c), reading every record too when iterate: 0 when that
 * worked, -1 with errbuf set when the child failed, died, or did not finish
 * within TRACEDAT_PROBE_SECONDS plus a second for every
 * TRACEDAT_PROBE_BYTES_PER_S of data: bytes, the ring-buffer pages the
 * file holds once decompressed (0: the file's size; a zstd file of 49 MB
 * holds 690 MB, which libtracecmd reads in 33-41 s: refused at 29 s when
 * the compressed size counted). flags are tracecmd_open()'s.
 */
#define TRACEDAT_PROBE_SECONDS 5
#define TRACEDAT_PROBE_BYTES_PER_S (2u << 20)
int tracedat_probe(int fd, int flags, bool iterate, uint64_t bytes, char *errbuf, size_t errlen);
/*
 * For a command that reads its inputs once and exits (report, diff): the
 * next open the probe guards with an open only (the fast path's) is done by
 * a child that, once it worked, carries on as the command, while this
 * process waits and passes on the child's exit status and the signals sent
 * to it (tracedat-probe.c). libtracecmd then opens the file once, not
 * twice. Once a process: later opens probe as before. Call it before any
 * thread starts.
 */
void tracedat_probe_carry_on(void);
/*
 * Every record, in time order, through libtracecmd (the fast path's oracle,
 * and the reader of what it does not read). 0, or -1 with errbuf set (a
 * record that runs past its page: a corrupt file).
 */
int tracedat_iterate(struct tracedat *td, tracedat_record_fn fn, void *arg, char *errbuf,
		     size_t errlen);
struct ring_lane;
/*
 * The fast path: a lane of pages per CPU (ring.h), for the feed (feed.h) to
 * walk, decode and merge, which gives the records tracedat_iterate() gives,
 * in its order. 1 with *lanes and *n set (owned by td, valid until the next
 * call, which starts them over, or tracedat_close()); 0 when the fast path
 * does not read this file or is off (tracedat_set_fast()): use
 * tracedat_iterate(); -1 with errbuf set.
 */
int tracedat_lanes(struct tracedat *td, struct ring_lane ***lanes, size_t *n, char *errbuf,
		   size_t errlen);
/*
 * A sample of the lanes tracedat_lanes() last handed out, read apart from
 * their walk: lane's page at k/(n-1) of its pages (k < n). 1 with *page
 * (owned by td, valid until the next call) and *len set; 0 when there is no
 * such page to read cheaply (no such lane, compressed data, libtracecmd's
 * path); -1 a read error.
 */
int tracedat_sample_page(struct tracedat *td, size_t lane, unsigned k, unsigned n,
			 const void **page, size_t *len);
void tracedat_close(struct tracedat *td);
/*
 * Lost events stored in a trace.dat's CPUSTAT options (overrun + dropped,
 * all CPUs), v6 or v7 (trace-cmd record's own files). Returns -1 when the
 * file has no such information (or keeps it in a compressed section) or is
 * malformed.
 */
int tracedat_lost_events(const char *path, uint64_t *lost);

/*
 * Uncompressed and zstd files are read through tracedat_lanes() unless the
 * fast path is turned off here or by KES_NO_FASTPATH=1 in the environment
 * (the default comes from there); the records and their order are the same.
 * Returns whether the fast path is now on (false for files it cannot read).
 */
bool tracedat_set_fast(struct tracedat *td, bool on);
bool tracedat_is_fast(const struct tracedat *td);

#endif
