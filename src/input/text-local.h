/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to the ftrace/perf text reader (text*.c).
 *
 *   text.c        reading, line dispatch, headers, loss markers, sniffing
 *   text-line.c   one line's context: comm, tid, cpu, timestamp, event name
 * The payload is decoded by decode/ (decode_text()), as binary records are.
 */
#ifndef KES_SOURCE_TEXT_LOCAL_H
#define KES_SOURCE_TEXT_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "event.h"
#include "exit-types.h"
#include "text.h"

/* Longest line kept: the rest is dropped (the context and the fields read come first). */
#define TEXT_MAX_LINE 4096
#define TEXT_MAX_NAME 128 /* event, system, instance and comm names */

/*
 * Thread ids the reader gives records that print none: one per comm (perf
 * script -F comm,time), TEXT_TID_SYNTHETIC for records with no context at
 * all. Above any real tid (PID_MAX_LIMIT is 2^22), so they never meet one.
 */
#define TEXT_TID_SYNTHETIC 0x40000000

enum text_shape {
	TEXT_SHAPE_FTRACE,  /* comm-pid [cpu] ...: tracefs and trace-cmd report */
	TEXT_SHAPE_LATENCY, /* comm-pid cpu+flags ...: trace-cmd report -l */
	TEXT_SHAPE_PERF,    /* comm pid[/tid] [cpu] ...: perf script */
};

/* One event line, pointing into the line buffer (which the parser may modify). */
struct text_line {
	enum text_shape shape;
	const char *instance; /* trace-cmd buffer prefix "name:", or NULL */
	size_t instance_len;
	const char *comm; /* NULL when not printed */
	size_t comm_len;
	int32_t tid;	    /* -1 when not printed (then the comm, if any, names the thread) */
	int32_t cpu;	    /* -1 when not printed */
	bool has_ts;	    /* false: no timestamp ("kvm_exit: reason HLT", trimmed by hand) */
	uint64_t ts;	    /* ns; ts_int: the integer as printed, unit unknown */
	bool ts_int;	    /* printed with no fraction: a counter clock or --raw-ts */
	const char *system; /* NULL when not printed (tracefs, trace-cmd) */
	size_t system_len;
	const char *event; /* NULL: the line ends right after the timestamp (mail-wrapped) */
	size_t event_len;
	const char *payload; /* NUL-terminated, leading blanks skipped */
	/*
	 * A shape no printer gives (a head with no comm-pid or tid, no time,
	 * the name cut before its ':'): a record only when its event is a KVM
	 * tracepoint (the reader asks the tables), else prose.
	 */
	bool loose;
	bool cut; /* the event name ends the line, without its ':' and payload */
};

/*
 * 0 and *l filled when s (NUL-terminated, len bytes) has the shape of a trace
 * record (a timestamp and an event name, or an event name and ':' at the
 * start), else -1. Whether a loose one is a record is for the reader to say.
 */
int text_parse_line(const char *s, size_t len, struct text_line *l);

/*
 * The last head (what precedes the timestamp: "  qemu-1234  [003] ") that
 * parsed, and what it gave: a trace's lines repeat a few heads, and the head
 * was a sixth of a line's cost (callgrind). The same bytes give the same
 * fields; it is the reader's, and starts zeroed.
 */
#define TEXT_HEAD_MEMO 96
struct text_head_memo {
	char s[TEXT_HEAD_MEMO];
	size_t len;  /* 0: none yet */
	bool system; /* the line printed its event's system (perf's head) */
	int32_t cpu, tid;
	enum text_shape shape;
	bool has_instance, has_comm;
	size_t instance_at, instance_len, comm_at, comm_len; /* offsets into the head */
	/*
	 * No byte of the head can start a timestamp (a digit at its start or
	 * after a blank or ']'): a line that begins with the same head has its
	 * first anchor where this one had it.
	 */
	bool no_anchor;
};
/* text_parse_line(), with the head asked of m first and kept in it. */
int text_parse_line_memo(const char *s, size_t len, struct text_line *l, struct text_head_memo *m);
/*
 * Cuts the trailing CR and blanks (NUL-terminates at the new end) and finds
 * what to skip in front: mail quote markers ("> ", ">> "), then a kernel log
 * time ("[ 1234.567890] "). Returns the length left after *skip bytes.
 */
size_t text_clean_line(char *s, size_t len, size_t *skip);

#endif
