/* SPDX-License-Identifier: GPL-2.0 */
/*
 * source/: where events come from. Binary sources (trace.dat, live tracefs)
 * hand out raw records for decode/; text sources (ftrace text, perf script)
 * decode as they parse and hand out normalized events.
 */
#ifndef KES_SOURCE_H
#define KES_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "event.h"
#include "exit-types.h"

struct tep_handle;

/*
 * One raw record, in timestamp order. missed: events the kernel lost on this
 * CPU just before this one (0 none, -1 some, count unknown). Return non-zero to stop.
 */
typedef int (*source_record_fn)(void *arg, const void *data, int size, uint64_t ts, int cpu,
				long long missed);
/* One normalized event (text sources). Return non-zero to stop. */
typedef int (*source_event_fn)(void *arg, const struct kes_event *ev);

/*
 * An fd whose bytes nobody can change while it is read, for readers that
 * check a file before they trust it (the checks must hold for what is then
 * read): fd itself (dup'd) when only root or we can write the file and it is
 * on a local file system; else a sealed in-memory copy (memfd). Returns a new
 * fd, or -1 with errbuf set.
 */
int source_stable_fd(int fd, char *errbuf, size_t errlen);

/* trace.dat (trace-cmd's format, v6 or v7, compressed or not), read with libtracecmd. */
struct tracedat;
/*
 * Reads the trace.dat open on fd (which stays the caller's; give it a
 * source_stable_fd()). NULL on failure with a one-line reason in errbuf.
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
int tracedat_iterate(struct tracedat *td, source_record_fn fn, void *arg, char *errbuf,
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
int datfile_lost_events(const char *path, uint64_t *lost);

/*
 * Uncompressed and zstd files are read through tracedat_lanes() unless the
 * fast path is turned off here or by KES_NO_FASTPATH=1 in the environment
 * (the default comes from there); the records and their order are the same.
 * Returns whether the fast path is now on (false for files it cannot read).
 */
bool tracedat_set_fast(struct tracedat *td, bool on);
bool tracedat_is_fast(const struct tracedat *td);

/*
 * ftrace text: the tracefs `trace`/`trace_pipe` files, `trace-cmd report`
 * output, `perf script` output of kvm tracepoints. Events are decoded by
 * name through the exit_types tables.
 * Returns 0, or -1 with errbuf set (unreadable, binary garbage).
 * *nlines_kvm gets how many lines were KVM events.
 */
int text_iterate(const char *path, const struct exit_types *types, source_event_fn fn, void *arg,
		 uint64_t *nlines_kvm, char *errbuf, size_t errlen);
/* Cheap content sniff on the first bytes of a file: does it look like ftrace/perf text? */
int text_sniff(const char *buf, size_t len);

/*
 * A loss marker in a text input, at its place in the stream: `missed` events
 * (-1: an unknown number) were lost on `cpu` (-1: not said). Return non-zero
 * to stop.
 */
typedef int (*source_lost_fn)(void *arg, int cpu, long long missed);
/* A thread's name as the input prints it; called at least once per tid. */
typedef void (*source_comm_fn)(void *arg, int32_t tid, const char *comm);
/*
 * Pairing must not run across this point: tid's exit or entry record was
 * not understood or had no time (an exit of unknown reason or time must not
 * be timed with its neighbours), or, tid -1, the timestamps went back (a
 * second trace pasted after the first) and every thread starts over.
 */
typedef void (*source_break_fn)(void *arg, int32_t tid);

/*
 * What one integer timestamp is (trace-cmd report of a counter clock such as
 * x86-tsc, or --raw-ts): num/den ns. The text does not say; the user does
 * (report --ts-unit).
 */
struct text_ts_unit {
	uint64_t num, den;
};
/*
 * "ns", "us", "ms", "s" (a tick is that long) or a frequency "2100MHz",
 * "2.1GHz", "19.2MHz", "1000000000Hz" (ticks per second, 1 Hz .. 10 GHz).
 * 0, or -1 with errbuf set.
 */
int text_ts_unit_parse(const char *s, struct text_ts_unit *u, char *errbuf, size_t errlen);
/* ticks in ns, exactly (rounded down), without overflowing on the way. */
uint64_t text_ts_unit_ns(const struct text_ts_unit *u, uint64_t ticks);

struct text_ops {
	source_event_fn event;
	source_lost_fn lost;  /* NULL: losses are only counted */
	source_comm_fn comm;  /* NULL: names are ignored */
	source_break_fn brk;  /* NULL: not told */
	/* integer timestamps are converted with it to ns; NULL: kept as printed (ticks) */
	const struct text_ts_unit *ts_unit;
	bool anatomy; /* read the sched and irq events too (KES_SCHED, decode_anatomy()) */
	void *arg;
};

enum text_flavor {
	TEXT_UNKNOWN,
	TEXT_TRACEFS,  /* tracefs trace / trace_pipe */
	TEXT_TRACECMD, /* trace-cmd report (with or without -l, -t, -N) */
	TEXT_PERF,     /* perf script */
};

#define TEXT_WHY_LEN 160

struct text_counts {
	uint64_t nlines;	 /* lines read (named so: term.h defines `lines`) */
	uint64_t events;	 /* records (wrapped lines rejoined) of any event */
	uint64_t kvm;		 /* KVM events handed to ops->event */
	uint64_t undecoded;	 /* KVM exit/entry/detail lines whose payload did not parse */
	uint64_t other_instance; /* events of a second trace-cmd buffer: skipped */
	uint64_t skipped;	 /* lines that are neither events, headers nor loss markers */
	/*
	 * Lines that look like KVM events but cannot be used: a KVM event whose
	 * payload did not parse (undecoded), a KVM record cut before its
	 * payload, a line naming a kvm event that is not an event line (a pid
	 * past 2^31, a mangled head), a line too long to read. first_bad_line:
	 * the first of them (1-based; a wrapped record's first line).
	 */
	uint64_t not_understood;
	uint64_t first_bad_line;
	char why[TEXT_WHY_LEN]; /* what was wrong with the first */
	uint64_t joined;	    /* lines a mail client wrapped, joined to the record above */
	uint64_t restarts;	    /* times the timestamps went back: segments - 1 */
	uint64_t first_restart_line;
	/*
	 * KVM records whose time has a fraction (seconds) and whose time is an
	 * integer (a counter clock or --raw-ts: its unit is not in the text),
	 * the first of those (1-based).
	 */
	uint64_t ts_frac, ts_int;
	uint64_t first_ts_int_line;
	uint64_t long_lines;	    /* records longer than TEXT_MAX_LINE, read up to there */
	uint64_t first_long_line;
	uint64_t lost;	   /* events the input says were lost (known counts) */
	bool lost_unknown; /* a loss of unknown size was reported */
	/*
	 * The format reports losses in-band (tracefs: entries-written header
	 * and LOST lines; trace-cmd report: EVENTS DROPPED lines), so lost is
	 * meaningful. perf script shows them only with --show-lost-events.
	 */
	bool lost_reported;
	enum text_flavor flavor;
};

/*
 * text_iterate() with losses, thread names and counts. c may be NULL.
 * Returns 0 (also when a callback stopped it), or -1 with errbuf set.
 */
int text_read(const char *path, const struct exit_types *types, const struct text_ops *ops,
	      struct text_counts *c, char *errbuf, size_t errlen);
/* The same from an open fd (read from its start with pread; it stays the caller's). */
int text_read_fd(int fd, const struct exit_types *types, const struct text_ops *ops,
		 struct text_counts *c, char *errbuf, size_t errlen);
/* The same over a buffer in memory (tests, fuzzing). */
int text_read_mem(const char *buf, size_t len, const struct exit_types *types,
		  const struct text_ops *ops, struct text_counts *c, char *errbuf, size_t errlen);

#endif
