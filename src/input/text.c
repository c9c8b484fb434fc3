// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace/perf text input: tracefs `trace` and `trace_pipe`, `trace-cmd
 * report` (plain, -l, -t, -N, with buffer-instance prefixes) and `perf
 * script` of kvm tracepoints, told apart by content, line by line.
 *
 * Lines are read through a fixed buffer: a line longer than TEXT_MAX_LINE is
 * cut (the context and the fields read come first), so memory does not grow
 * with the input. A NUL byte means binary data, not text: an error.
 *
 * What people paste is read too (text-line.c has the shapes): a mail
 * client's wrap is rejoined (a record whose text stops where a value has to
 * follow takes the next line: after ':', after a word of its printed form
 * such as "reason" or "rip"; at most MAX_JOINS lines, never across a blank
 * line), mail quoting ("> ") and dmesg's "[ 12.345678] " are skipped, CRLF
 * too, and timestamps that go back start a new segment (several traces
 * pasted into one file): nothing is timed across it. Every record naming a
 * KVM tracepoint is used, or counted as not understood with the first one's
 * line and why.
 *
 * Losses are reported where the input says so, in stream order:
 *   tracefs    "# entries-in-buffer/entries-written: A/B" (B - A overwritten,
 *              kernel/trace/trace.c print_event_info()), "CPU:N [LOST N EVENTS]"
 *   trace-cmd  "CPU:N [N EVENTS DROPPED]", "CPU:N [EVENTS DROPPED]"
 *   perf       "PERF_RECORD_LOST ... lost N" (perf script --show-lost-events)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "alloc.h"
#include "err.h"
#include "decode.h"
#include "text-local.h"

#define READ_CHUNK (64 * 1024)
#define COMM_SLOTS 1024
#define MAX_JOINS  8   /* physical lines one record may be made of */
#define SYNTH_SLOTS 256 /* comms that name a thread on their own (perf -F comm,time) */

struct reader {
	const struct text_ops *ops;
	struct text_counts c;
	struct decoder *dec;
	struct text_head_memo heads; /* the last head parsed (record_start()) */
	char line[TEXT_MAX_LINE + 1];
	size_t len;
	bool cut; /* the line had more than TEXT_MAX_LINE bytes */
	bool qp;  /* quoted-printable mail text: soft breaks joined, =XX decoded (qp_*) */
	bool stop;
	bool binary;
	bool saw_tracecmd; /* "cpus=N" header */
	bool have_instance;
	char instance[TEXT_MAX_NAME + 1]; /* the buffer whose events are read ("" top level) */
	int32_t comm_tid[COMM_SLOTS];	  /* tids whose name was handed out (direct-mapped) */
	/* the record being read: a line, and the lines a mail client wrapped off it */
	char rec[TEXT_MAX_LINE + 1];
	size_t rec_len;
	uint64_t rec_line; /* its first line */
	unsigned rec_joins;
	bool have_rec, rec_cut;
	struct text_line rec_l; /* rec parsed, pointing into it: stale after a join */
	bool rec_stale;
	bool have_prev;
	uint64_t prev_ts; /* of the last record with a time that takes part in segments */
	char synth[SYNTH_SLOTS][TEXT_MAX_NAME + 1]; /* comms given a thread id of their own */
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static const char *skip_blanks(const char *s)
{
	while (is_blank(*s))
		s++;
	return s;
}

/* Decimal at s: 0 and *v, -1 when there is none or it overflows. */
static int dec_at(const char *s, const char **end, uint64_t *v)
{
	const char *p = s;

	*v = 0;
	while (*p >= '0' && *p <= '9') {
		if (*v > (UINT64_MAX - 9) / 10)
			return -1;
		*v = *v * 10 + (uint64_t)(*p++ - '0');
	}
	if (end)
		*end = p;
	return p == s ? -1 : 0;
}

static void lost(struct reader *r, int cpu, long long missed)
{
	if (missed > 0)
		r->c.lost += (uint64_t)missed;
	else
		r->c.lost_unknown = true;
	if (r->ops->lost && r->ops->lost(r->ops->arg, cpu, missed))
		r->stop = true;
}

/* "CPU:N [LOST N EVENTS]" or "[LOST EVENTS]" (tracefs), "[N EVENTS DROPPED]" or "[EVENTS DROPPED]"
 */
static bool loss_line(struct reader *r, const char *s)
{
	const char *p = strstr(s, "CPU:"), *q;
	uint64_t cpu, n;

	if (!p || dec_at(p + 4, &q, &cpu) < 0 || strncmp(q, " [", 2) != 0)
		return false;
	q += 2;
	if (strncmp(q, "LOST ", 5) == 0)
		q += 5;
	if (strncmp(q, "EVENTS", 6) == 0) {
		lost(r, cpu > INT32_MAX ? -1 : (int)cpu, -1);
		return true;
	}
	if (dec_at(q, &q, &n) < 0 || strncmp(q, " EVENTS", 7) != 0)
		return false;
	lost(r, cpu > INT32_MAX ? -1 : (int)cpu, n > INT64_MAX ? -1 : (long long)n);
	return true;
}

/* perf script --show-lost-events: "... PERF_RECORD_LOST ... lost 123" */
static bool perf_loss_line(struct reader *r, const char *s)
{
	const char *p = strstr(s, "PERF_RECORD_LOST"), *q;
	uint64_t n;

	if (!p || !(q = strstr(p, "lost ")) || dec_at(q + 5, NULL, &n) < 0)
		return false;
	lost(r, -1, n == 0 || n > INT64_MAX ? -1 : (long long)n);
	return true;
}

/* A header, comment or loss line (read by the functions above): never part of a wrapped record. */
static bool marker_line(const char *s)
{
	return s[0] == '#' || !strncmp(s, "cpus=", 5) || !strncmp(s, "version = ", 10) ||
	       (strstr(s, "CPU:") && strstr(s, " EVENTS")) || strstr(s, "PERF_RECORD_LOST");
}

/* Comment and header lines of the three printers. */
static bool header_line(struct reader *r, const char *s)
{
	const char *p;
	uint64_t in, written;

	if (s[0] == '#') {
		p = strstr(s, "entries-in-buffer/entries-written:");
		if (p && dec_at(skip_blanks(p + 34), &p, &in) == 0 && *p == '/' &&
		    dec_at(p + 1, NULL, &written) == 0 && written > in)
			lost(r, -1, written - in > INT64_MAX ? -1 : (long long)(written - in));
		return true;
	}
	if (strncmp(s, "cpus=", 5) == 0) {
		r->saw_tracecmd = true;
		return true;
	}
	return strncmp(s, "version = ", 10) == 0 ||
	       (strncmp(s, "CPU ", 4) == 0 && strstr(s, " is empty"));
}

static void comm_of(struct reader *r, const struct text_line *l)
{
	char name[TEXT_MAX_NAME + 1];
	int32_t *slot = &r->comm_tid[(uint32_t)l->tid % COMM_SLOTS];

	if (!r->ops->comm || !l->comm || *slot == l->tid)
		return;
	*slot = l->tid;
	memcpy(name, l->comm, l->comm_len);
	name[l->comm_len] = '\0';
	r->ops->comm(r->ops->arg, l->tid, name);
}

/* trace-cmd prefixes each line with its buffer's name when the file has several: read one. */
static bool same_instance(struct reader *r, const struct text_line *l)
{
	size_t n = l->instance ? l->instance_len : 0;

	if (!r->have_instance) {
		if (n)
			memcpy(r->instance, l->instance, n);
		r->instance[n] = '\0';
		r->have_instance = true;
		return true;
	}
	return strlen(r->instance) == n && (!n || memcmp(r->instance, l->instance, n) == 0);
}

static void flavor_of(struct reader *r, const struct text_line *l)
{
	if (r->c.flavor != TEXT_UNKNOWN)
		return;
	if (l->shape == TEXT_SHAPE_PERF)
		r->c.flavor = TEXT_PERF;
	else if (r->saw_tracecmd || l->shape == TEXT_SHAPE_LATENCY || l->instance)
		r->c.flavor = TEXT_TRACECMD;
	else
		r->c.flavor = TEXT_TRACEFS;
	r->c.lost_reported = r->c.flavor != TEXT_PERF;
	/* only trace-cmd report loads libtraceevent's kvm plugin (perf script does not) */
	decode_text_plugin_names(r->dec, r->c.flavor == TEXT_TRACECMD);
}

static void not_understood(struct reader *r, uint64_t line, const char *why)
{
	if (!r->c.not_understood++) {
		r->c.first_bad_line = line;
		snprintf(r->c.why, sizeof(r->c.why), "%s", why);
	}
}

/* Pairing must not run across this point (tid -1: on any thread). */
static void pair_break(struct reader *r, int32_t tid)
{
	if (r->ops->brk)
		r->ops->brk(r->ops->arg, tid);
}

/*
 * A thread id for a line that prints none: one per comm (perf script -F
 * comm,time), else one for the whole input ("[cpu] time:", "time:" and lines
 * without a prefix); past SYNTH_SLOTS comms they share that one.
 */
static int32_t synthetic_tid(struct reader *r, const struct text_line *l)
{
	uint32_t h = 2166136261u;

	if (!l->comm)
		return TEXT_TID_SYNTHETIC;
	for (size_t i = 0; i < l->comm_len; i++)
		h = (h ^ (uint8_t)l->comm[i]) * 16777619u;
	for (size_t n = 0, i = h % SYNTH_SLOTS; n < SYNTH_SLOTS; n++, i = (i + 1) % SYNTH_SLOTS) {
		char *c = r->synth[i];
		if (!c[0]) {
			memcpy(c, l->comm, l->comm_len);
			c[l->comm_len] = '\0';
		}
		if (strlen(c) == l->comm_len && memcmp(c, l->comm, l->comm_len) == 0)
			return TEXT_TID_SYNTHETIC + 1 + (int32_t)i;
	}
	return TEXT_TID_SYNTHETIC;
}

/*
 * Unedited output of every printer is in time order (the kernel's iterator
 * and trace-cmd merge the per-CPU buffers by time, perf script orders its
 * events), so a time smaller than the last one is a second trace pasted
 * after the first: its own segment. KVM records and records with a [cpu]
 * take part, so that a stray "12.5: word:" in prose starts nothing.
 */
static void segment(struct reader *r, const struct text_line *l, bool kvm, uint64_t line)
{
	if (!l->has_ts || (!kvm && l->cpu < 0))
		return;
	if (r->have_prev && l->ts < r->prev_ts) {
		if (!r->c.restarts++)
			r->c.first_restart_line = line;
		pair_break(r, -1);
	}
	r->have_prev = true;
	r->prev_ts = l->ts;
}

/* A kvm event's name in a line: "kvm_exit:" (ftrace, trace-cmd) or "kvm:..." (perf). */
static bool looks_kvm(const char *s)
{
	for (const char *p = strstr(s, "kvm"); p; p = strstr(p + 1, "kvm")) {
		size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_:");

		if (n > 3 && p[n - 1] == ':' && (p == s || is_blank(p[-1])))
			return true;
	}
	return false;
}

static bool is_pairing(int role)
{
	return role == KES_EXIT || role == KES_ENTRY || role == KES_UEXIT || role == KES_UENTRY;
}

static struct kes_text_rec rec_of(const struct text_line *l, int32_t tid, uint64_t ts)
{
	return (struct kes_text_rec){.ts = ts,
				     .cpu = l->cpu,
				     .tid = tid,
				     .system = l->system,
				     .system_len = l->system_len,
				     .event = l->event,
				     .event_len = l->event_len,
				     .payload = l->payload};
}

/* A record without a time: an exit is counted untimed, nothing is timed across it. */
static void untimed_record(struct reader *r, int role, const struct kes_event *ev)
{
	if (is_pairing(role))
		pair_break(r, ev->tid);
	if (role == KES_EXIT || role == KES_UEXIT || role == KES_DETAIL) {
		r->c.kvm++;
		if (r->ops->event && r->ops->event(r->ops->arg, ev))
			r->stop = true;
	}
	if (role == KES_EXIT || role == KES_UEXIT)
		pair_break(r, ev->tid); /* and nothing is timed from it */
}

static void event_line(struct reader *r, struct text_line *l, uint64_t line, bool cut)
{
	struct kes_event ev;
	char why[TEXT_WHY_LEN];
	int rc, role;

	/* "B:" in front of a line is trace-cmd's buffer name only in trace-cmd's output */
	if (!r->saw_tracecmd)
		l->instance = NULL;
	if (l->has_ts && l->ts_int && r->ops->ts_unit)
		l->ts = text_ts_unit_ns(r->ops->ts_unit, l->ts);
	int32_t tid = l->tid >= 0 ? l->tid : synthetic_tid(r, l);
	struct kes_text_rec rec = rec_of(l, tid, l->has_ts ? l->ts : r->prev_ts);
	role = l->event ? decode_text_role(r->dec, &rec) : DECODE_TEXT_NOT_KVM;
	if (l->cut && role == DECODE_TEXT_NOT_KVM && l->tid >= 0 && l->cpu >= 0) {
		/* a printer's head, then a name cut short ("... 1.5: k"): it may have been an exit */
		segment(r, l, false, line);
		not_understood(r, line, "its event name is cut short (no ':' after it)");
		return;
	}
	if (!l->event || (l->loose && role == DECODE_TEXT_NOT_KVM)) {
		/* cut after its time and never joined, or prose: its time still counts */
		segment(r, l, false, line);
		r->c.skipped++;
		/* what was dropped of a long line, or never came after the time, may be an exit */
		if (cut && !l->event)
			not_understood(r, line, "longer than the 4096 bytes a line may have");
		else if (!l->event)
			not_understood(r, line, "the line ends after its time: its event is missing");
		return;
	}
	r->c.events++;
	flavor_of(r, l);
	if (!same_instance(r, l)) {
		r->c.other_instance++;
		return;
	}
	segment(r, l, role != DECODE_TEXT_NOT_KVM, line);
	if (role != DECODE_TEXT_NOT_KVM && l->has_ts && !l->ts_int)
		r->c.ts_frac++;
	else if (role != DECODE_TEXT_NOT_KVM && l->has_ts && !r->c.ts_int++)
		r->c.first_ts_int_line = line;
	if (l->cut) {
		snprintf(why, sizeof(why), "%.*s cut before its payload", (int)l->event_len, l->event);
		not_understood(r, line, why);
		if (is_pairing(role))
			pair_break(r, tid);
		return;
	}
	if (l->tid >= 0)
		comm_of(r, l);
	else if (l->comm && r->ops->comm)
		comm_of(r, &(struct text_line){.comm = l->comm, .comm_len = l->comm_len, .tid = tid});
	rc = decode_text(r->dec, &rec, &ev);
	if (rc < 0) {
		r->c.undecoded++;
		snprintf(why, sizeof(why), "%.*s: %s", (int)l->event_len, l->event,
			 decode_text_why(r->dec));
		not_understood(r, line, why);
		if (is_pairing(role))
			pair_break(r, tid); /* an exit of unknown reason must not be timed */
	} else if (rc > 0 && !l->has_ts) {
		untimed_record(r, role, &ev);
	} else if (rc > 0) {
		r->c.kvm++;
		if (r->ops->event && r->ops->event(r->ops->arg, &ev))
			r->stop = true;
	}
}

/* The record read so far, parsed (again, after a line was joined to it). */
static struct text_line *rec_parsed(struct reader *r)
{
	if (r->rec_stale && text_parse_line(r->rec, r->rec_len, &r->rec_l) < 0)
		return NULL; /* cannot happen: the record started as a parsed line */
	r->rec_stale = false;
	return &r->rec_l;
}

/* The record read so far, handed on. */
static void flush(struct reader *r)
{
	struct text_line *l;

	if (!r->have_rec)
		return;
	r->have_rec = false;
	if (!(l = rec_parsed(r))) {
		r->c.skipped++;
		return;
	}
	if (r->rec_cut && l->event && !r->c.long_lines++)
		r->c.first_long_line = r->rec_line; /* read up to the cut: said, not dropped */
	event_line(r, l, r->rec_line, r->rec_cut);
}

/*
 * Does the record stop where a value has to follow (a mail client wrapped
 * it there)? After a ':' (the time, the event name, arm64's "TRAP:" or
 * "PC:"), or after a word of its event's printed forms that a value follows
 * ("reason", "rip": decode_text_label()).
 */
static bool rec_open(struct reader *r, const struct text_line *l)
{
	const char *end = r->rec + r->rec_len, *w = end;

	if (r->rec_joins >= MAX_JOINS || r->rec_cut || !r->rec_len)
		return false;
	if (end[-1] == ':' || !l->event)
		return true;
	while (w > r->rec && !is_blank(w[-1]))
		w--;
	if (w < l->payload)
		return false; /* the word is the event name or the head */
	struct kes_text_rec rec = rec_of(l, 0, 0);
	return decode_text_label(r->dec, &rec, w, (size_t)(end - w));
}

/* Is s the start of a record (a loose shape only when it names a KVM tracepoint)? */
static bool record_start(struct reader *r, const char *s, size_t len, struct text_line *l)
{
	if (text_parse_line_memo(s, len, l, &r->heads) < 0)
		return false;
	/* a printer's head and a name cut short ("q-7 [000] ... 1.5: k") is a damaged record */
	if (!l->loose || !l->event || (l->cut && l->tid >= 0 && l->cpu >= 0))
		return true;
	struct kes_text_rec rec = rec_of(l, 0, 0);
	return decode_text_role(r->dec, &rec) != DECODE_TEXT_NOT_KVM;
}

/* Appends s to the record (one blank between): false when it does not fit. */
static bool join(struct reader *r, const char *s, size_t len)
{
	s = skip_blanks(s);
	len = strlen(s);
	if (r->rec_len + 1 + len > TEXT_MAX_LINE)
		return false;
	r->rec[r->rec_len++] = ' ';
	memcpy(r->rec + r->rec_len, s, len + 1);
	r->rec_len += len;
	r->rec_joins++;
	r->rec_stale = true;
	r->c.joined++;
	return true;
}

/* p, a pointer into from[], to the same place in to[] (NULL stays NULL). */
static const char *moved(const char *p, const char *from, char *to)
{
	return p ? to + (p - from) : NULL;
}

/* s (parsed as l) becomes the record read so far. */
static void take(struct reader *r, const char *s, size_t len, const struct text_line *l, bool cut)
{
	memmove(r->rec, s, len + 1);
	r->rec_l = *l;
	r->rec_l.instance = moved(l->instance, s, r->rec);
	r->rec_l.comm = moved(l->comm, s, r->rec);
	r->rec_l.system = moved(l->system, s, r->rec);
	r->rec_l.event = moved(l->event, s, r->rec);
	r->rec_l.payload = moved(l->payload, s, r->rec);
	r->rec_stale = false;
	r->rec_len = len;
	r->rec_line = r->c.nlines;
	r->rec_joins = 0;
	r->rec_cut = cut;
	r->have_rec = true;
}

/*
 * Archived mail in quoted-printable (RFC 2045): a line ends in '=' where the
 * encoder broke it (a "soft" break, lines of at most 76 characters), and '='
 * itself is "=3D". Such a text is taken for one from its first line of 60 to
 * 76 characters ending in '=': from there on soft breaks join and =XX
 * escapes are decoded. (A trace line that ends in '=' is rarer still.)
 */
static bool qp_soft_break(struct reader *r)
{
	size_t n = r->len;

	if (n && r->line[n - 1] == '\r')
		n--;
	if (!n || r->line[n - 1] != '=' || r->cut)
		return false;
	if (!r->qp && (n < 60 || n > 77))
		return false;
	r->qp = true;
	r->len = n - 1;
	return true;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* =XX -> the byte, in place (quoted-printable mail only). */
static void qp_decode(struct reader *r)
{
	size_t w = 0;

	for (size_t i = 0; i < r->len; i++) {
		int hi, lo;

		if (r->line[i] == '=' && i + 2 < r->len && (hi = hexval(r->line[i + 1])) >= 0 &&
		    (lo = hexval(r->line[i + 2])) >= 0 && (hi || lo)) {
			r->line[w++] = (char)(hi << 4 | lo);
			i += 2;
		} else {
			r->line[w++] = r->line[i];
		}
	}
	r->len = w;
}

static void one_line(struct reader *r)
{
	struct text_line l, *open;
	size_t skip, len;
	char *s;
	bool cut = r->cut;

	r->c.nlines++;
	if (r->qp)
		qp_decode(r);
	len = text_clean_line(r->line, r->len, &skip);
	s = r->line + skip;
	r->len = 0;
	r->cut = false;
	if (!len) {
		flush(r); /* a blank line ends a record */
		if (cut) /* blank only in its first 4096 bytes */
			not_understood(r, r->c.nlines, "longer than the 4096 bytes a line may have");
		return;
	}
	bool start = record_start(r, s, len, &l);
	/*
	 * A line that starts a record of its own joins only a record cut right
	 * after its time, and only when it has no time of its own (it is that
	 * record's event: " kvm_exit: reason ...").
	 */
	/* marker_line() (strstr()s of the whole line) last: most lines start a record */
	if (r->have_rec && !cut && (open = rec_parsed(r)) &&
	    (!start || (!open->event && !l.has_ts)) && !marker_line(s) && rec_open(r, open) &&
	    join(r, s, len))
		return;
	flush(r);
	if (start) {
		take(r, s, len, &l, cut);
	} else if (!header_line(r, s) && !loss_line(r, s) && !perf_loss_line(r, s)) {
		r->c.skipped++;
		/* what was dropped of a long line may have been the event */
		if (cut)
			not_understood(r, r->c.nlines, "longer than the 4096 bytes a line may have");
		else if (looks_kvm(s))
			not_understood(r, r->c.nlines, "names a KVM event but is no trace record");
	}
}

/* Splits a chunk into lines; a line's bytes past TEXT_MAX_LINE are dropped. */
static void feed(struct reader *r, const char *buf, size_t n)
{
	if (memchr(buf, '\0', n)) {
		r->binary = true;
		return;
	}
	while (n && !r->stop) {
		const char *nl = memchr(buf, '\n', n);
		size_t take = nl ? (size_t)(nl - buf) : n;
		size_t room = TEXT_MAX_LINE - r->len;

		memcpy(r->line + r->len, buf, take < room ? take : room);
		r->len += take < room ? take : room;
		r->cut |= take > room;
		if (!nl)
			return;
		if (qp_soft_break(r)) { /* the line goes on after the newline */
			r->c.nlines++;
			buf = nl + 1;
			n -= take + 1;
			continue;
		}
		one_line(r);
		buf = nl + 1;
		n -= take + 1;
	}
}

static void finish(struct reader *r)
{
	if (r->len && !r->stop && !r->binary)
		one_line(r);
	if (!r->stop && !r->binary)
		flush(r);
}

static int result(struct reader *r, struct text_counts *c, char *errbuf, size_t errlen)
{
	int ret = 0;

	if (r->binary) {
		snprintf(errbuf, errlen, "binary data after line %llu: not ftrace or perf text",
			 (unsigned long long)r->c.nlines);
		ret = -1;
	} else if (!r->c.kvm && r->c.not_understood) {
		snprintf(errbuf, errlen,
			 "no KVM event could be read, %llu line%s not understood: the first, "
			 "line %llu: %s",
			 (unsigned long long)r->c.not_understood, r->c.not_understood == 1 ? "" : "s",
			 (unsigned long long)r->c.first_bad_line, r->c.why);
		ret = -1;
	} else if (!r->c.events) {
		snprintf(errbuf, errlen,
			 "no trace event lines (expected tracefs trace, trace-cmd report "
			 "or perf script output)");
		ret = -1;
	}
	if (c)
		*c = r->c;
	decode_free(r->dec);
	free(r);
	return ret;
}

static struct reader *reader_new(const struct exit_types *types, const struct text_ops *ops)
{
	struct reader *r = xcalloc(1, sizeof(*r));

	r->ops = ops;
	r->dec = decode_new_text(types);
	if (ops->anatomy)
		decode_anatomy(r->dec);
	for (size_t i = 0; i < COMM_SLOTS; i++)
		r->comm_tid[i] = -1;
	return r;
}

int text_read_mem(const char *buf, size_t len, const struct exit_types *types,
		  const struct text_ops *ops, struct text_counts *c, char *errbuf, size_t errlen)
{
	struct reader *r = reader_new(types, ops);

	feed(r, buf, len);
	finish(r);
	return result(r, c, errbuf, errlen);
}

int text_read_fd(int fd, const struct exit_types *types, const struct text_ops *ops,
		 struct text_counts *c, char *errbuf, size_t errlen)
{
	struct reader *r = reader_new(types, ops);
	char *chunk = xmalloc(READ_CHUNK);
	off_t at = 0;
	ssize_t n;

	while (!r->stop && !r->binary && (n = pread(fd, chunk, READ_CHUNK, at)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err_buf_errno(errbuf, errlen, "read error");
			free(chunk);
			result(r, NULL, NULL, 0);
			return -1;
		}
		at += n;
		feed(r, chunk, (size_t)n);
	}
	free(chunk);
	finish(r);
	return result(r, c, errbuf, errlen);
}

int text_read(const char *path, const struct exit_types *types, const struct text_ops *ops,
	      struct text_counts *c, char *errbuf, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0) {
		err_buf_errno(errbuf, errlen, "cannot open");
		return -1;
	}
	ret = text_read_fd(fd, types, ops, c, errbuf, errlen);
	close(fd);
	return ret;
}

int text_iterate(const char *path, const struct exit_types *types, text_event_fn fn, void *arg,
		 uint64_t *nlines_kvm, char *errbuf, size_t errlen)
{
	struct text_ops ops = {.event = fn, .arg = arg};
	struct text_counts c;
	int ret = text_read(path, types, &ops, &c, errbuf, errlen);

	if (nlines_kvm)
		*nlines_kvm = ret == 0 ? c.kvm : 0;
	return ret;
}

/* A loose record's name, without the tables: the sniff's guess at a KVM tracepoint. */
static bool kvm_name(const struct text_line *l)
{
	if (l->system)
		return l->system_len >= 3 && memcmp(l->system, "kvm", 3) == 0;
	return l->event && l->event_len > 4 && memcmp(l->event, "kvm_", 4) == 0;
}

/*
 * The first bytes of a file (input_detect() passes 64 KiB): text when a
 * complete line parses as a trace record (a loose one when it names what
 * looks like a KVM tracepoint: the reader then asks the tables). The last
 * line may be cut, so it counts only when the buffer holds no newline at all.
 */
int text_sniff(const char *buf, size_t len)
{
	char line[TEXT_MAX_LINE + 1];
	struct text_line l;
	bool any_nl = false;

	if (!buf || memchr(buf, '\0', len))
		return 0;
	while (len) {
		const char *nl = memchr(buf, '\n', len);
		size_t n = nl ? (size_t)(nl - buf) : len;
		size_t k = n < TEXT_MAX_LINE ? n : TEXT_MAX_LINE, skip;

		if (!nl && any_nl)
			break; /* maybe cut short by the caller's buffer */
		memcpy(line, buf, k);
		k = text_clean_line(line, k, &skip);
		if (text_parse_line(line + skip, k, &l) == 0 && (!l.loose || !l.event || kvm_name(&l)))
			return 1;
		if (!nl)
			break;
		any_nl = true;
		buf = nl + 1;
		len -= n + 1;
	}
	return 0;
}
