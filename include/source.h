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
#include "exittypes.h"

struct tep_handle;

/*
 * One raw record, in timestamp order. missed: events the kernel lost on this
 * CPU just before this one (0 none, -1 some, count unknown). Return non-zero to stop.
 */
typedef int (*source_record_fn)(void *arg, const void *data, int size, uint64_t ts, int cpu,
				long long missed);
/* One normalized event (text sources). Return non-zero to stop. */
typedef int (*source_event_fn)(void *arg, const struct kes_event *ev);

/* trace.dat (trace-cmd's format, v6 or v7, compressed or not), read with libtracecmd. */
struct tracedat;
/* NULL on failure with a one-line reason in errbuf. */
struct tracedat *tracedat_open(const char *path, char *errbuf, size_t errlen);
struct tep_handle *tracedat_tep(struct tracedat *td);
/* 0, or -1 with errbuf set (a record that runs past its page: a corrupt file). */
/*
 * Opens path with libtracecmd in a child process first (see
 * tracedat-probe.c): 0 when that worked, -1 with errbuf set when the child
 * failed or died. tracedat_open() calls it; flags are tracecmd_open()'s.
 */
#define TRACEDAT_PROBE_SECONDS 60
int tracedat_probe(const char *path, int flags, char *errbuf, size_t errlen);
int tracedat_iterate(struct tracedat *td, source_record_fn fn, void *arg, char *errbuf,
		     size_t errlen);
void tracedat_close(struct tracedat *td);
/*
 * Uncompressed v6 files are read with our own page walker unless it is
 * turned off here or by KES_NO_FASTPATH=1 in the environment (the default
 * comes from there); the records and their order are the same. Returns
 * whether the fast path is now on (false for files it cannot read).
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

struct text_ops {
	source_event_fn event;
	source_lost_fn lost; /* NULL: losses are only counted */
	source_comm_fn comm; /* NULL: names are ignored */
	void *arg;
};

enum text_flavor {
	TEXT_UNKNOWN,
	TEXT_TRACEFS,  /* tracefs trace / trace_pipe */
	TEXT_TRACECMD, /* trace-cmd report (with or without -l, -t, -N) */
	TEXT_PERF,     /* perf script */
};

struct text_counts {
	uint64_t nlines;	 /* lines read (named so: term.h defines `lines`) */
	uint64_t events;	 /* lines that parsed as trace events, any event */
	uint64_t kvm;		 /* KVM events handed to ops->event */
	uint64_t undecoded;	 /* KVM exit/entry/detail lines whose payload did not parse */
	uint64_t other_instance; /* events of a second trace-cmd buffer: skipped */
	uint64_t skipped;	 /* lines that are neither events, headers nor loss markers */
	uint64_t lost;		 /* events the input says were lost (known counts) */
	bool lost_unknown;	 /* a loss of unknown size was reported */
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
/* The same over a buffer in memory (tests, fuzzing). */
int text_read_mem(const char *buf, size_t len, const struct exit_types *types,
		  const struct text_ops *ops, struct text_counts *c, char *errbuf, size_t errlen);

#endif
