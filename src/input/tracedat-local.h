/* SPDX-License-Identifier: GPL-2.0 */
/* Private to src/input: the trace.dat fast path behind tracedat_lanes(). */
#ifndef KES_TRACEDAT_LOCAL_H
#define KES_TRACEDAT_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "tracedat.h"

/* What a trace.dat's header says, checked (datread.c). */

struct datfile_cpu {
	uint64_t offset, size; /* in the file; size 0: no data */
	int id;		       /* the CPU (v7 leaves out CPUs without data) */
};

struct datfile_layout {
	uint64_t file_size;
	size_t page_size;
	int version;
	int long_size; /* of the commit field in header_page, as libtracecmd uses it */
	int ncpus;
	struct datfile_cpu *cpus; /* malloc'd, by increasing id (the top buffer's) */
	/*
	 * The fast path reads it: uncompressed, this host's byte order,
	 * options that leave timestamps alone (no DATE, OFFSET, TSC2NSEC,
	 * TIME_SHIFT), no buffer instances, no latency data.
	 */
	bool fast;
	/*
	 * As fast, but the CPU data is in zstd chunks (trace-cmd convert
	 * --compression zstd): tracedat-zstd.c reads it. zlib chunks stay with
	 * libtracecmd (Debian's trace-cmd writes none to test against).
	 */
	bool zstd;
	bool instances;			/* buffer instances (trace-cmd record -B) */
	struct tracedat_cpustat *stats; /* CPUSTAT options, in file order (malloc'd) */
	size_t nstats;
	unsigned unknown_options; /* option ids trace-cmd 3.1.6 does not know (it skips them) */
	unsigned first_unknown;
	char *procmap; /* record's thread map option (procmap.h), malloc'd, or NULL */
	size_t procmap_len;
	char clock[32]; /* the TRACECLOCK option's selected clock ("local", "x86-tsc"), or "" */
	bool tsc2nsec;	/* a TSC2NSEC option: libtracecmd turns the clock's counts into ns */
	char host[65];	/* the UNAME option's node name (the recording host), or "" */
};

/*
 * Reads and checks the header of a trace.dat (v6 or v7, see datread.c for
 * what is checked). Every offset and size is checked against the file size.
 * Returns 0 (l filled; l->fast says whether the fast path reads it);
 * DATFILE_OTHER for a header this reader does not follow (another byte
 * order, a compressed options section): libtracecmd alone decides;
 * DATFILE_BAD when the file is to be refused, with a one-line reason in
 * errbuf (CPU data past the end of the file, which libtracecmd 3.1.6 crashes
 * on; a page size header_page contradicts; overlapping CPU data; an option
 * that moves timestamps but is not laid out as trace-cmd writes it).
 * l->page_size is set whenever the initial header could be read.
 */
enum { DATFILE_OTHER = -1, DATFILE_BAD = -2 };
int datfile_layout(int fd, struct datfile_layout *l, char *errbuf, size_t errlen);
void datfile_layout_free(struct datfile_layout *l);
/*
 * Are l's timestamps ns? Yes for the clocks libtracecmd prints in seconds
 * (local, global, uptime, perf, mono*, tai, tsc2nsec; and boot), with a
 * TSC2NSEC conversion, or when the file names no clock; no for counters
 * (x86-tsc, counter, ...), whose unit the file does not say.
 */
bool datfile_clock_in_ns(const struct datfile_layout *l);


struct ring_lane;
struct tracedat_fast;

/*
 * A fast-path reader of fd, whose header datfile_layout() read into l (with
 * l->fast set). The fd stays the caller's. Returns NULL with errbuf set when
 * a CPU's first page is corrupt: libtracecmd reads those when it opens a
 * file, and trusts them.
 */
struct tracedat_fast *tracedat_fast_new(int fd, const struct datfile_layout *l, char *errbuf,
					size_t errlen);
/*
 * datfile_layout() and tracedat_fast_new() in one, for tests and fuzzing: NULL
 * for both "not for the fast path" and "broken".
 */
struct tracedat_fast *tracedat_fast_open(int fd);
void tracedat_fast_close(struct tracedat_fast *f);
/*
 * Its CPUs' pages, a lane per CPU with data (the feed walks and merges
 * them): their number, *lanes set. Owned by f, valid until the next call or
 * tracedat_fast_close(); each call starts the lanes over.
 */
size_t tracedat_fast_lanes(struct tracedat_fast *f, struct ring_lane ***lanes);
/*
 * Lane i's page at k/(n-1) of its pages (k < n; the first for n = 1), read
 * into buf (a page size) apart from the lane's own walk: 1 with *len set, 0
 * no such lane, -1 a read error.
 */
int tracedat_fast_sample(const struct tracedat_fast *f, size_t i, unsigned k, unsigned n,
			 void *buf, size_t *len);

/* ---- tracedat-zstd.c: zstd-compressed CPU data, chunk by chunk ---- */

struct tracedat_zstd;
/*
 * A reader of l's CPU data (l->zstd set), whose every chunk header it checks
 * first against the file and the limits (sizes page multiples, at most
 * 64 MiB / CPUs, inside the file): NULL with errbuf set when one is wrong.
 * long_size: the page header's commit size libtracecmd reads pages with.
 */
struct tracedat_zstd *tracedat_zstd_new(int fd, const struct datfile_layout *l, int long_size,
					char *errbuf, size_t errlen);
/*
 * As tracedat_fast_lanes(): a lane per CPU that decompresses its chunks one
 * at a time. 0, or -1 with errbuf set (no zstd context, an unreadable count).
 */
int tracedat_zstd_lanes(struct tracedat_zstd *z, struct ring_lane ***lanes, size_t *n,
			char *errbuf, size_t errlen);
void tracedat_zstd_close(struct tracedat_zstd *z);
/* The bytes of its CPUs' pages, decompressed (the chunks' headers' sum). */
uint64_t tracedat_zstd_data_bytes(const struct tracedat_zstd *z);
/*
 * A compressed section's content at off (u32 compressed size, u32 size,
 * one zstd frame: trace-cmd's tracecmd_uncompress_block()), at most max
 * bytes: 0 with *out (malloc'd) and *len, or -1.
 */
int tracedat_zstd_block(int fd, uint64_t off, uint64_t file_size, size_t max, unsigned char **out,
			size_t *len);

/*
 * tracedat_probe_carry_on()'s open (tracedat-probe.c). begin: 1 in the child
 * that is to open the file and carry on; 0 when this open is not one to
 * carry on (probe it as before); -1 with errbuf set when the child failed or
 * died before it said its open worked (the parent's refusal, as the
 * probe's). Once the child says so (end), the parent never returns: it
 * exits as the child will. fail: the child's open failed (it exits 1).
 */
int tracedat_guard_begin(int fd, uint64_t bytes, char *errbuf, size_t errlen);
_Noreturn void tracedat_guard_fail(void);
void tracedat_guard_end(void);

#endif
