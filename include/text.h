/* SPDX-License-Identifier: GPL-2.0 */
/*
 * input/text*.c, ts-unit.c: text inputs (ftrace text, trace-cmd report,
 * perf script), decoded as they are parsed into normalized events.
 */
#ifndef KES_TEXT_H
#define KES_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "event.h"
#include "exit-types.h"

/* One normalized event (text sources). Return non-zero to stop. */
typedef int (*text_event_fn)(void *arg, const struct kes_event *ev);

/*
 * ftrace text: the tracefs `trace`/`trace_pipe` files, `trace-cmd report`
 * output, `perf script` output of kvm tracepoints. Events are decoded by
 * name through the exit_types tables.
 * Returns 0, or -1 with errbuf set (unreadable, binary garbage).
 * *nlines_kvm gets how many lines were KVM events.
 */
int text_iterate(const char *path, const struct exit_types *types, text_event_fn fn, void *arg,
		 uint64_t *nlines_kvm, char *errbuf, size_t errlen);
/* Cheap content sniff on the first bytes of a file: does it look like ftrace/perf text? */
int text_sniff(const char *buf, size_t len);

/*
 * A loss marker in a text input, at its place in the stream: `missed` events
 * (-1: an unknown number) were lost on `cpu` (-1: not said). Return non-zero
 * to stop.
 */
typedef int (*text_lost_fn)(void *arg, int cpu, long long missed);
/* A thread's name as the input prints it; called at least once per tid. */
typedef void (*text_comm_fn)(void *arg, int32_t tid, const char *comm);
/*
 * Pairing must not run across this point: tid's exit or entry record was
 * not understood or had no time (an exit of unknown reason or time must not
 * be timed with its neighbours), or, tid -1, the timestamps went back (a
 * second trace pasted after the first) and every thread starts over.
 */
typedef void (*text_break_fn)(void *arg, int32_t tid);

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
	text_event_fn event;
	text_lost_fn lost;  /* NULL: losses are only counted */
	text_comm_fn comm;  /* NULL: names are ignored */
	text_break_fn brk;  /* NULL: not told */
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
