// SPDX-License-Identifier: GPL-2.0
/*
 * The context part of one trace line, in the three shapes printers give it:
 *
 *   tracefs   `   exitgen-4102    [001] d..1.  1234.567890: kvm_exit: ...`
 *             (kernel/trace/trace_output.c: "%16s-%-7d ", "(%7d) " with
 *             record-tgid, "[%03d] ", the irq-info flags, "%5lu.%06lu: ")
 *   trace-cmd `inst:   exitgen-4102 [001]  1234.567890123: kvm_exit:   ...`
 *             (report: a buffer-name prefix when the file has instances,
 *             6 or 9 decimals with -t; -l prints `exitgen-4102  1d..1`:
 *             the cpu glued to the latency flags, no brackets; --ts-diff
 *             a `(+35)` column after the time, blank on the first record;
 *             a clock not in ns (x86-tsc, counter) or --raw-ts the integer
 *             "%12d:", glued to the `[001]` when it has 12 digits or more:
 *             trace-read.c time_format() and trace_show_data())
 *   perf      `   exitgen  4102/4102 [001]  1234.567890: kvm:kvm_exit: ...`
 *             (comm and pid/tid separated by blanks, system-qualified names)
 *
 * and, marked loose (a record only when the reader finds it names a KVM
 * tracepoint, so that prose with a "12.5: word:" in it stays prose), what
 * people make of them when they publish a trace:
 *
 *   perf -F   `comm time:`, `[cpu] time:`, `time:` (columns left out)
 *   perf-prof `2022-04-22 17:39:26.535148  <...> 126953 .N.. [078] 96.2: kvm:kvm_exit:`
 *             (a wall-clock date, then the irq flags *before* [cpu])
 *   trimmed   `  220.696238: kvm_exit: ...` or `  kvm_exit: reason HLT` (no time)
 *   cut       `... 83184.290416: kvm_exit` (the name ends the line: no payload),
 *             `q-7 [000] ....   1.000000:` (a mail client wrapped right after
 *             the time: event NULL, the reader joins the next line)
 *
 * A comm may hold blanks, '-' and digits, so the line is read from its one
 * sure anchor, the timestamp "123.456789:" followed by an event name, and
 * the head before it is taken apart from its right end.
 */
#include <string.h>
#include "text-local.h"

#define MAX_TOKENS 16

struct tok {
	const char *s;
	size_t len;
};

/*
 * Character classes, one load each: a line's bytes are classified some
 * hundred times, and the comparisons chained per byte were a tenth of a
 * text line's instructions (callgrind).
 */
enum { C_BLANK = 1, C_DIGIT = 2, C_NAME = 4 };

/* Designated initializers for runs of bytes: [c], [c + 1], ... */
#define R2(c, v)  [(c)] = (v), [(c) + 1] = (v)
#define R6(c, v)  R2(c, v), R2((c) + 2, v), R2((c) + 4, v)
#define R10(c, v) R6(c, v), R2((c) + 6, v), R2((c) + 8, v)
#define R26(c, v) R10(c, v), R10((c) + 10, v), R6((c) + 20, v)

static const uint8_t cls[256] = {
    [' '] = C_BLANK,  ['\t'] = C_BLANK, R10('0', C_DIGIT | C_NAME),
    R26('a', C_NAME), R26('A', C_NAME), ['_'] = C_NAME,
    ['-'] = C_NAME,   ['.'] = C_NAME,
};

static bool is_blank(char c)
{
	return cls[(unsigned char)c] & C_BLANK;
}

static bool is_digit(char c)
{
	return cls[(unsigned char)c] & C_DIGIT;
}

static bool is_name_char(char c)
{
	return cls[(unsigned char)c] & C_NAME;
}

static size_t name_len(const char *s)
{
	size_t n = 0;

	while (n <= TEXT_MAX_NAME && is_name_char(s[n]))
		n++;
	return n > TEXT_MAX_NAME ? 0 : n;
}

/*
 * "1234.567890:" -> ns, exactly (integer arithmetic: seconds and a fraction
 * of up to 9 digits; more digits are cut). Returns the length with the colon,
 * or 0. A timestamp without a fraction (counter clocks, --raw-ts) is taken
 * as is and *is_int set: its unit is not in the text.
 */
static size_t parse_ts(const char *s, uint64_t *ts, bool *is_int)
{
	uint64_t sec = 0, frac = 0;
	size_t i = 0, nf = 0;

	while (is_digit(s[i])) {
		if (i >= 20)
			return 0;
		sec = sec * 10 + (uint64_t)(s[i++] - '0');
	}
	if (i == 0 || i >= 20)
		return 0;
	*is_int = s[i] != '.';
	if (s[i] == '.') {
		size_t start = ++i;
		while (is_digit(s[i]) && i - start < 18) {
			if (nf < 9) {
				frac = frac * 10 + (uint64_t)(s[i] - '0');
				nf++;
			}
			i++;
		}
		if (i == start || is_digit(s[i]))
			return 0;
		for (; nf < 9; nf++)
			frac *= 10;
		if (sec > (UINT64_MAX - frac) / 1000000000ULL)
			return 0;
		sec = sec * 1000000000ULL + frac;
	}
	if (s[i] != ':')
		return 0;
	*ts = sec;
	return i + 1;
}

/* "kvm_exit:" or perf's "kvm:kvm_exit:" at s; fills the names, returns the length or 0. */
static size_t parse_event(const char *s, struct text_line *l)
{
	size_t n1 = name_len(s), n2;

	if (n1 && s[n1] == '\0') {
		/* the name ends the line without its ':': a record cut before its payload */
		l->event = s;
		l->event_len = n1;
		l->cut = true;
		return n1;
	}
	if (!n1 || s[n1] != ':')
		return 0;
	if (!is_name_char(s[n1 + 1])) {
		l->system = NULL;
		l->system_len = 0;
		l->event = s;
		l->event_len = n1;
		return n1 + 1;
	}
	n2 = name_len(s + n1 + 1);
	if (!n2 || s[n1 + 1 + n2] != ':')
		return 0;
	l->system = s;
	l->system_len = n1;
	l->event = s + n1 + 1;
	l->event_len = n2;
	return n1 + n2 + 2;
}

/* Up to MAX_TOKENS blank-separated tokens of s[0, len); the leftmost are dropped past that. */
static int tokenize(const char *s, size_t len, struct tok *t, bool *dropped)
{
	int n = 0;
	size_t i = 0;

	*dropped = false;
	while (i < len) {
		while (i < len && is_blank(s[i]))
			i++;
		if (i == len)
			break;
		size_t start = i;
		while (i < len && !is_blank(s[i]))
			i++;
		if (n == MAX_TOKENS) {
			memmove(t, t + 1, (MAX_TOKENS - 1) * sizeof(*t));
			n--;
			*dropped = true;
		}
		t[n++] = (struct tok){s + start, i - start};
	}
	return n;
}

static bool all_digits(const char *s, size_t len)
{
	if (!len || len > 10)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!is_digit(s[i]))
			return false;
	return true;
}

static int32_t to_i32(const char *s, size_t len)
{
	uint64_t v = 0;

	for (size_t i = 0; i < len; i++)
		v = v * 10 + (uint64_t)(s[i] - '0');
	return v > INT32_MAX ? -1 : (int32_t)v;
}

/* "[001]" */
static bool cpu_token(const struct tok *t, int32_t *cpu)
{
	if (t->len < 3 || t->s[0] != '[' || t->s[t->len - 1] != ']' ||
	    !all_digits(t->s + 1, t->len - 2))
		return false;
	*cpu = to_i32(t->s + 1, t->len - 2);
	return *cpu >= 0;
}

/* irq-info / latency flags such as "d..1." or "dNh2." (the chars trace_print_lat_fmt() prints). */
static bool flag_chars(const char *s, size_t len)
{
	if (!len || len > 8)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!strchr(".dDXBbNnpPLZzHhs0123456789abcdef", s[i]) || !s[i])
			return false;
	return true;
}

/* trace-cmd report -l: "1d..1." = cpu 1 then the flags */
static bool latency_token(const struct tok *t, int32_t *cpu)
{
	size_t n = 0;

	while (n < t->len && is_digit(t->s[n]))
		n++;
	if (!n || n == t->len || !all_digits(t->s, n) || !flag_chars(t->s + n, t->len - n))
		return false;
	*cpu = to_i32(t->s, n);
	return *cpu >= 0;
}

/* "comm-pid" (ftrace): the pid after the last '-'. */
static bool ftrace_pid(const struct tok *t, int32_t *pid, size_t *comm_len)
{
	const char *dash = NULL;

	for (size_t i = 0; i < t->len; i++)
		if (t->s[i] == '-')
			dash = t->s + i;
	if (!dash)
		return false;
	size_t n = t->len - (size_t)(dash + 1 - t->s);
	if (!all_digits(dash + 1, n))
		return false;
	*pid = to_i32(dash + 1, n);
	*comm_len = (size_t)(dash - t->s);
	return *pid >= 0;
}

/* "4102" or "4101/4102" (perf): the thread is the last number. */
static bool perf_pid(const struct tok *t, int32_t *tid)
{
	const char *slash = memchr(t->s, '/', t->len);

	if (slash) {
		size_t a = (size_t)(slash - t->s), b = t->len - a - 1;
		if (!all_digits(t->s, a) || !all_digits(slash + 1, b))
			return false;
		*tid = to_i32(slash + 1, b);
	} else {
		if (!all_digits(t->s, t->len))
			return false;
		*tid = to_i32(t->s, t->len);
	}
	return *tid >= 0;
}

/* Index of the first token of a "(  4101)" / "(-------)" tgid column ending at tokens[j], or -1. */
static int tgid_start(const struct tok *t, int j)
{
	if (j < 0 || t[j].s[t[j].len - 1] != ')')
		return -1;
	for (int i = j; i >= 0 && i >= j - 1; i--)
		if (t[i].s[0] == '(')
			return i;
	return -1;
}

static void set_comm(struct text_line *l, const char *from, const char *to)
{
	l->comm = to > from ? from : NULL;
	l->comm_len = to > from ? (size_t)(to - from) : 0;
	if (l->comm_len > TEXT_MAX_NAME) {
		l->comm += l->comm_len - TEXT_MAX_NAME;
		l->comm_len = TEXT_MAX_NAME;
	}
}

/* tokens[0..j] end with the ftrace "comm-pid"; tokens[0] may be trace-cmd's "instance:". */
static int ftrace_head(const struct tok *t, int j, bool dropped, struct text_line *l)
{
	size_t comm_len;
	int first = 0;

	if (j < 0 || !ftrace_pid(&t[j], &l->tid, &comm_len))
		return -1;
	if (!dropped && j > 0 && t[0].s[t[0].len - 1] == ':' && t[0].len > 1) {
		l->instance = t[0].s;
		l->instance_len = t[0].len - 1 > TEXT_MAX_NAME ? TEXT_MAX_NAME : t[0].len - 1;
		first = 1;
	}
	set_comm(l, first <= j ? t[first].s : t[j].s, t[j].s + comm_len);
	return 0;
}

static int perf_head(const struct tok *t, int j, struct text_line *l)
{
	if (j < 0 || !perf_pid(&t[j], &l->tid))
		return -1;
	if (j > 0)
		set_comm(l, t[0].s, t[j - 1].s + t[j - 1].len);
	l->shape = TEXT_SHAPE_PERF;
	return 0;
}

/* Everything before the timestamp. */
static int parse_head(const char *s, size_t len, struct text_line *l)
{
	struct tok t[MAX_TOKENS];
	bool dropped;
	int n = tokenize(s, len, t, &dropped), k;

	l->cpu = -1;
	for (k = n - 1; k >= 0 && k >= n - 2; k--)
		if (cpu_token(&t[k], &l->cpu))
			break;
	if (k >= 0 && k >= n - 2) {
		/* [cpu], then at most the irq-info flags */
		if (k == n - 2 && !flag_chars(t[n - 1].s, t[n - 1].len))
			return -1;
		int j = k - 1, g = tgid_start(t, j);
		if (g >= 0)
			j = g - 1;
		if (l->system)
			return perf_head(t, j, l);
		l->shape = TEXT_SHAPE_FTRACE;
		return ftrace_head(t, j, dropped, l);
	}
	if (l->system) /* perf script without the cpu field */
		return perf_head(t, n - 1, l);
	if (n >= 2 && latency_token(&t[n - 1], &l->cpu)) {
		l->shape = TEXT_SHAPE_LATENCY;
		return ftrace_head(t, n - 2, dropped, l);
	}
	return -1;
}

/* perf-prof's flags before [cpu]: flag characters, not a number (the tid before them is one). */
static bool flags_token(const struct tok *t)
{
	return t->len >= 3 && flag_chars(t->s, t->len) && !all_digits(t->s, t->len);
}

/* perf-prof's and perf-monitor's wall clock: "2022-04-22" and "17:39:26.535148". */
static bool date_token(const struct tok *t)
{
	const char *s = t->s;

	if (t->len == 10 && s[4] == '-' && s[7] == '-')
		return all_digits(s, 4) && all_digits(s + 5, 2) && all_digits(s + 8, 2);
	if (t->len >= 8 && s[2] == ':' && s[5] == ':' && all_digits(s, 2) &&
	    all_digits(s + 3, 2) && all_digits(s + 6, 2))
		return t->len == 8 || (s[8] == '.' && all_digits(s + 9, t->len - 9));
	return false;
}

/*
 * A head none of the printers' own shapes fits (a loose record): the
 * rightmost [cpu] if any, with a "(tgid)" and perf-prof's flags left of it
 * skipped, then who the thread is from what is left: ftrace's "comm-pid",
 * perf's "comm tid" or "comm pid/tid", else the comm alone (perf -F
 * comm,time: tid -1, comm set), else nothing (tid -1, no comm).
 */
static bool looks_numbered(const struct tok *t)
{
	size_t n = t->len;

	while (n && (is_digit(t->s[n - 1]) || t->s[n - 1] == '/'))
		n--;
	return n < t->len && (n == 0 || t->s[n - 1] == '-');
}

static int loose_head(const char *s, size_t len, struct text_line *l)
{
	struct tok t[MAX_TOKENS];
	bool dropped;
	int n = tokenize(s, len, t, &dropped), lo = 0, j = n - 1, k;
	size_t comm_len;

	while (lo < n && date_token(&t[lo]))
		lo++;
	l->cpu = -1;
	l->tid = -1;
	l->loose = true;
	l->shape = l->system ? TEXT_SHAPE_PERF : TEXT_SHAPE_FTRACE;
	for (k = n - 1; k >= lo && !cpu_token(&t[k], &l->cpu); k--)
		;
	if (k >= lo) {
		j = k - 1;
		int g = tgid_start(t, j);
		if (g >= lo)
			j = g - 1;
		if (j > lo && flags_token(&t[j]))
			j--;
	}
	if (j < lo)
		return 0;
	/* perf never prints comm-pid: a perf line's "kvm-vcpu-0" is a comm */
	if (!l->system && ftrace_pid(&t[j], &l->tid, &comm_len)) {
		set_comm(l, t[lo].s, t[j].s + comm_len);
		return 0;
	}
	if (perf_pid(&t[j], &l->tid)) {
		if (j > lo)
			set_comm(l, t[lo].s, t[j - 1].s + t[j - 1].len);
		return 0;
	}
	l->tid = -1;
	/* a thread id that does not fit the kernel's pid_t is a mangled line, not a comm */
	if (all_digits(t[j].s, t[j].len) || (!l->system && looks_numbered(&t[j])) ||
	    (l->system && looks_numbered(&t[j]) && memchr(t[j].s, '/', t[j].len)))
		return -1;
	set_comm(l, t[lo].s, t[j].s + t[j].len);
	return 0;
}

/* "kvm_exit: reason HLT" with no context and no time (an excerpt trimmed by hand). */
/*
 * "CPU 3: " before a record (published text, as some tools print the buffer
 * a record came from): the CPU, never a time. Its length, or 0; *cpu set.
 */
static size_t cpu_prefix(const char *s, int32_t *cpu)
{
	size_t i = 4;
	int32_t v = 0;

	if (strncmp(s, "CPU ", 4) || !is_digit(s[i]))
		return 0;
	for (; is_digit(s[i]) && v < 100000; i++)
		v = v * 10 + (s[i] - '0');
	if (s[i] != ':' || !is_blank(s[i + 1]))
		return 0;
	*cpu = v;
	return i + 1;
}

static int bare_record(const char *s, struct text_line *l)
{
	const char *p = s;
	size_t m;
	int32_t cpu = -1;

	while (is_blank(*p))
		p++;
	p += cpu_prefix(p, &cpu);
	while (is_blank(*p))
		p++;
	*l = (struct text_line){.cpu = cpu, .tid = -1, .loose = true};
	if (is_digit(*p) || !(m = parse_event(p, l)) || l->cut || (p[m] && !is_blank(p[m]))) {
		*l = (struct text_line){.cpu = -1};
		return -1;
	}
	l->payload = p + m;
	while (is_blank(*l->payload))
		l->payload++;
	return 0;
}

/* trace-cmd report --ts-diff's "(+35)" after the time: its length, or 0. */
static size_t ts_diff_len(const char *s)
{
	size_t i = 2;

	if (s[0] != '(' || s[1] != '+')
		return 0;
	while (is_digit(s[i]) && i < 24)
		i++;
	return i > 2 && s[i] == ')' && (!s[i + 1] || is_blank(s[i + 1])) ? i + 1 : 0;
}

/* Candidate anchors tried per line: bounds the work on a hostile line. */
#define MAX_TRIES 4

/* The line s[0, len) cut right after a timestamp at s + i: a record when a [cpu] precedes it. */
static int cut_after_ts(const char *s, size_t i, uint64_t ts, struct text_line *l)
{
	if (parse_head(s, i, l) < 0 && loose_head(s, i, l) < 0)
		l->cpu = -1;
	if (l->cpu < 0) {
		*l = (struct text_line){.cpu = -1};
		return -1;
	}
	l->has_ts = true;
	l->ts = ts;
	l->event = NULL;
	l->event_len = 0;
	l->payload = s + i + strlen(s + i);
	return 0;
}

/* Could a timestamp start at s[i] (parse_anchors()'s first test)? */
static bool anchor_at(const char *s, size_t i)
{
	return is_digit(s[i]) && (!i || is_blank(s[i - 1]) || s[i - 1] == ']');
}

static bool anchor_in(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (anchor_at(s, i))
			return true;
	return false;
}

/*
 * parse_head(), answered from m when the head is the one m holds; m may be
 * NULL. same: the caller found s to start with m's head already.
 */
static int head_memo(const char *s, size_t len, struct text_line *l, struct text_head_memo *m,
		     bool same)
{
	if (m && len && m->len == len && m->system == (l->system != NULL) &&
	    (same || !memcmp(m->s, s, len))) {
		l->cpu = m->cpu;
		l->tid = m->tid;
		l->shape = m->shape;
		l->instance = m->has_instance ? s + m->instance_at : NULL;
		l->instance_len = m->instance_len;
		l->comm = m->has_comm ? s + m->comm_at : NULL;
		l->comm_len = m->comm_len;
		return 0;
	}
	if (parse_head(s, len, l) < 0)
		return -1;
	if (!m || !len || len > sizeof(m->s))
		return 0;
	*m = (struct text_head_memo){.len = len,
				     .system = l->system != NULL,
				     .cpu = l->cpu,
				     .tid = l->tid,
				     .shape = l->shape,
				     .has_instance = l->instance != NULL,
				     .instance_at = l->instance ? (size_t)(l->instance - s) : 0,
				     .instance_len = l->instance_len,
				     .has_comm = l->comm != NULL,
				     .comm_at = l->comm ? (size_t)(l->comm - s) : 0,
				     .comm_len = l->comm_len};
	memcpy(m->s, s, len);
	m->no_anchor = !anchor_in(s, len);
	return 0;
}

/*
 * Tries the timestamp anchors left to right: pass 0 takes only the printers'
 * own shapes, pass 1 the first loose one (as it did before loose records
 * existed, a line whose first anchor is prose and a later one a record is
 * read at the later one).
 */
static int parse_anchors(const char *s, size_t len, bool loose, struct text_line *l,
			 struct text_head_memo *memo)
{
	int tries = 0;
	size_t i = 0;
	bool same = false; /* s starts with memo's head */

	*l = (struct text_line){.cpu = -1};
	/*
	 * The line starts with the last head, in which no byte could start a
	 * timestamp: the scan would find its first anchor where that head
	 * ended, so it starts there (trace-cmd repeats a thread's head line
	 * after line).
	 */
	if (memo && memo->len && memo->no_anchor && memo->len < len &&
	    !memcmp(memo->s, s, memo->len)) {
		i = memo->len;
		same = true;
	}
	for (; i < len && tries < MAX_TRIES; i++) {
		size_t n, m;
		uint64_t ts;
		bool ts_int = false;

		/*
		 * a timestamp starts a token and follows the head (which may be
		 * empty), or, trace-cmd's "%12d:" of a long integer, its "[cpu]"
		 */
		if (!anchor_at(s, i) || !(n = parse_ts(s + i, &ts, &ts_int)) ||
		    (i && s[i - 1] == ']' && !ts_int))
			continue;
		/* "CPU 0: kvm_exit: ..." names a CPU, it is no integer timestamp (bare_record()) */
		if (ts_int && i >= 4 && !strncmp(s + i - 4, "CPU ", 4) &&
		    i - 4 == strspn(s, " \t"))
			continue;
		const char *p = s + i + n;
		if (*p && !is_blank(*p))
			continue;
		while (is_blank(*p))
			p++;
		if ((m = ts_diff_len(p)) != 0)
			for (p += m; is_blank(*p); p++)
				;
		tries++;
		if (!*p) {
			if (loose && cut_after_ts(s, i, ts, l) == 0) {
				l->ts_int = ts_int;
				return 0;
			}
			continue;
		}
		if (!(m = parse_event(p, l)) || (p[m] && !is_blank(p[m])) || (l->cut && !loose)) {
			*l = (struct text_line){.cpu = -1};
			continue;
		}
		l->has_ts = true;
		l->ts = ts;
		l->ts_int = ts_int;
		/* trace-cmd pads the name to a column: strspn() skips the run at once */
		l->payload = p + m + strspn(p + m, " \t");
		if (!l->cut && head_memo(s, i, l, memo, same) == 0)
			return 0;
		/* a cut name, a head of no printer: only a KVM tracepoint makes it a record */
		if (loose && loose_head(s, i, l) == 0)
			return 0;
		*l = (struct text_line){.cpu = -1};
	}
	return -1;
}

int text_parse_line_memo(const char *s, size_t len, struct text_line *l, struct text_head_memo *m)
{
	if (parse_anchors(s, len, false, l, m) == 0 || parse_anchors(s, len, true, l, NULL) == 0)
		return 0;
	return bare_record(s, l);
}

int text_parse_line(const char *s, size_t len, struct text_line *l)
{
	return text_parse_line_memo(s, len, l, NULL);
}

/* "[ 1234.567890] " (the kernel log's time, as dmesg prints it), with an optional "<6>" level. */
static size_t dmesg_prefix(const char *s, size_t len)
{
	size_t i = 0, d;

	if (i + 2 < len && s[i] == '<' && is_digit(s[i + 1]) && s[i + 2] == '>')
		i += 3;
	if (i >= len || s[i] != '[')
		return 0;
	for (i++; i < len && is_blank(s[i]); i++)
		;
	for (d = i; i < len && is_digit(s[i]); i++)
		;
	if (i == d || i >= len || s[i] != '.')
		return 0;
	for (d = ++i; i < len && is_digit(s[i]); i++)
		;
	if (i == d || i >= len || s[i] != ']')
		return 0;
	i++;
	return i < len && !is_blank(s[i]) ? 0 : i;
}

size_t text_clean_line(char *s, size_t len, size_t *skip)
{
	size_t i = 0, d;

	while (len && (s[len - 1] == '\r' || is_blank(s[len - 1])))
		len--;
	s[len] = '\0';
	/* mail quoting: "> ", ">> ", "> > " (nothing in a trace record starts with '>') */
	for (d = 0; d < len && is_blank(s[d]); d++)
		;
	if (d < len && s[d] == '>') {
		i = d;
		while (i < len && s[i] == '>') {
			i++;
			if (i < len && is_blank(s[i]))
				i++;
		}
	}
	d = dmesg_prefix(s + i, len - i);
	*skip = i + d;
	return len - *skip;
}
