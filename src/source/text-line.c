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
 *             the cpu glued to the latency flags, no brackets)
 *   perf      `   exitgen  4102/4102 [001]  1234.567890: kvm:kvm_exit: ...`
 *             (comm and pid/tid separated by blanks, system-qualified names)
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

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' ||
	       c == '-' || c == '.';
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
 * or 0. A timestamp without a fraction (counter clocks) is taken as is.
 */
static size_t parse_ts(const char *s, uint64_t *ts)
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

/* Candidate anchors tried per line: bounds the work on a hostile line. */
#define MAX_TRIES 4

int text_parse_line(const char *s, size_t len, struct text_line *l)
{
	int tries = 0;

	*l = (struct text_line){.cpu = -1};
	for (size_t i = 1; i < len && tries < MAX_TRIES; i++) {
		size_t n, m;
		uint64_t ts;

		/* a timestamp starts a token and follows the head */
		if (!is_digit(s[i]) || !is_blank(s[i - 1]) || !(n = parse_ts(s + i, &ts)))
			continue;
		const char *p = s + i + n;
		if (!is_blank(*p))
			continue;
		while (is_blank(*p))
			p++;
		tries++;
		if (!(m = parse_event(p, l)) || (p[m] && !is_blank(p[m])))
			continue;
		l->ts = ts;
		l->payload = p + m;
		while (is_blank(*l->payload))
			l->payload++;
		if (parse_head(s, i, l) == 0)
			return 0;
		*l = (struct text_line){.cpu = -1};
	}
	return -1;
}
