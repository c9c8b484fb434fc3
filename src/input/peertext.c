// SPDX-License-Identifier: GPL-2.0
/*
 * Other tools' exit reports, as people paste them to compare: read as saved
 * reports (summary rows), so that report shows them and diff sets them
 * against a recording.
 *
 *  - perf kvm stat report / live (tools/perf/builtin-kvm.c, print_result()):
 *      "%*s %10llu %8.2f%% %8.2f%% %9.2fus %9.2fus %9.2fus ( +-%7.2f%% )"
 *    name, samples, samples%, time%, min, max, avg, relative stddev of the
 *    mean; live prints a table per interval (each its own counts: summed).
 *    perf before v3.12 printed no Min/Max: counts only.
 *  - kvm_stat -1 (tools/kvm/kvm_stat, batch()): "%-42s%10d%10d" per
 *    event, "kvm_exit(REASON) total delta": counts.
 *  - kvm_stat -l [-c] (log()): a banner of event names, then a line of
 *    deltas per interval (a date first since 2020, CSV with -c): summed.
 *  - bcc's kvmexit.py: "PID TID KVM_EXIT_REASON COUNT" (and a COMM column,
 *    AVG_TIME or EXIT_TIME_AVG in variants): counts, per thread.
 *
 * Times are read where the tool prints min, max and average (perf); an
 * average alone (bcc variants) cannot make a row (no min, no max): its
 * count is read and a warning says so. Names are the tables' where the
 * built-in exit types know them (by name or alias, "EXIT_REASON_" and "EC_"
 * prefixes dropped), else as printed.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "err.h"
#include "exit-table.h"
#include "intern.h"
#include "peertext.h"

#define LINE_MAX_LEN 4096

struct parse {
	const struct exit_types *types;
	struct stats_table *into;
	struct peertext_info *info;
	char *e;
	size_t elen;
	unsigned line;
};

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* The name as the exit tables spell it, when one of them knows it (interned). */
static const char *canonical(const struct exit_types *types, const char *name)
{
	static const char *const prefixes[] = {"", "EXIT_REASON_", "EC_", "SVM_EXIT_"};
	char buf[128];

	for (size_t p = 0; types && p < sizeof(prefixes) / sizeof(prefixes[0]); p++) {
		size_t n = strlen(prefixes[p]);

		if (strncmp(name, prefixes[p], n))
			continue;
		for (size_t i = 0; i < types->n; i++) {
			uint64_t key;

			snprintf(buf, sizeof(buf), "%s", name + n);
			if (exit_table_key_alias(&types->tables[i], buf, &key) == 0)
				return exit_table_name(&types->tables[i], key);
			/* arm64: perf prints "DABT_LOW" and bcc "EC_DABT_LOW" for TRAP_DABT_LOW */
			snprintf(buf, sizeof(buf), "TRAP_%s", name + n);
			if (exit_table_key_alias(&types->tables[i], buf, &key) == 0)
				return exit_table_name(&types->tables[i], key);
		}
	}
	return intern(name);
}

static void add(struct parse *p, const char *name, int32_t tid, const struct stats_acc *a)
{
	struct stats_key k = {.name = canonical(p->types, name), .tid = tid, .vcpu = -1};

	stats_acc_merge(stats_table_get(p->into, &k), a);
	p->info->rows++;
}

/* An exit seen and counted, with no time: what kvm_stat and bcc give. */
static void add_count(struct parse *p, const char *name, int32_t tid, uint64_t n)
{
	struct stats_acc a = {0};

	if (!n)
		return;
	stats_acc_set_summary(&a, 0, 0, 0, 0, NAN);
	a.untimed = n;
	add(p, name, tid, &a);
}

/* ---- perf kvm stat ----------------------------------------------------- */

static bool perf_header(const char *l)
{
	return strstr(l, "Samples%") && strstr(l, "Time%") && strstr(l, "Samples");
}

/*
 * One row. perf's stddev is of the mean (util/stat.c stddev_stats():
 * sqrt(variance / n), the variance over n - 1): m2 = (rel * avg)^2 * n * (n - 1).
 */
/*
 * The name is what comes before the count (right-aligned in 40 columns, and
 * it may hold spaces: LoongArch's "Mem Read"): the count is the first word
 * that is a number followed by two percentages. *rest: where the count starts.
 */
static bool perf_name(const char *l, char *name, size_t len, const char **rest)
{
	const char *s = skip_ws(l), *w = s;
	double a, b;
	unsigned long long n;
	int used;

	while (*w) {
		if (isdigit((unsigned char)*w) && w > s &&
		    sscanf(w, "%llu %lf%% %lf%%%n", &n, &a, &b, &used) == 3) {
			size_t k = (size_t)(w - s);

			while (k && (s[k - 1] == ' ' || s[k - 1] == '\t'))
				k--;
			if (!k || k >= len)
				return false;
			snprintf(name, len, "%.*s", (int)k, s);
			*rest = w;
			return true;
		}
		w += strcspn(w, " \t");
		w = skip_ws(w);
	}
	return false;
}

static int perf_row(struct parse *p, const char *l, bool minmax)
{
	char name[128];
	const char *rest;
	unsigned long long n;
	double sp, tp, mn, mx, avg, rel;
	int got;

	if (!perf_name(l, name, sizeof(name), &rest))
		return 0; /* not a row: prose, "Total Samples", a timestamp */
	if (minmax)
		got = sscanf(rest, "%llu %lf%% %lf%% %lfus %lfus %lfus ( +-%lf%% )", &n, &sp, &tp, &mn,
			     &mx, &avg, &rel);
	else
		got = sscanf(rest, "%llu %lf%% %lf%% %lfus ( +-%lf%% )", &n, &sp, &tp, &avg, &rel);
	if (got != (minmax ? 7 : 5))
		return 0;
	if (!minmax || !n) {
		add_count(p, name, -1, n);
		p->info->times_unknown += n > 0;
		return 1;
	}
	if (!(mn >= 0 && mx >= mn && avg >= mn && avg <= mx && rel >= 0 && mx < 1e12))
		return err_buf(p->e, p->elen, "line %u: '%s': min %.2f, max %.2f, avg %.2f us do not "
					      "add up",
			       p->line, name, mn, mx, avg);
	struct stats_acc a = {0};
	double sd = rel / 100 * avg * 1e3;

	stats_acc_set_summary(&a, n, (uint64_t)llround(mn * 1e3), (uint64_t)llround(mx * 1e3),
			      (uint64_t)llround(avg * 1e3 * (double)n),
			      sd * sd * (double)n * (double)(n - 1));
	add(p, name, -1, &a);
	return 1;
}

/* ---- kvm_stat ------------------------------------------------------------ */

/* "kvm_exit(REASON)": REASON into out; false for other events. */
static bool kvm_exit_reason(const char *key, size_t len, char *out, size_t olen)
{
	if (len < 11 || strncmp(key, "kvm_exit(", 9) || key[len - 1] != ')' || len - 10 >= olen)
		return false;
	snprintf(out, olen, "%.*s", (int)(len - 10), key + 9);
	return true;
}

static int kvm_stat_once(struct parse *p, const char *l)
{
	char key[128], reason[128];
	unsigned long long total, delta;

	if (sscanf(l, "%127s %llu %llu", key, &total, &delta) != 3)
		return 0;
	if (kvm_exit_reason(key, strlen(key), reason, sizeof(reason)))
		add_count(p, reason, -1, total);
	return 1;
}

/* The log's columns: their reasons (NULL for other events), from the banner. */
struct columns {
	char **reason;
	size_t n;
	bool csv, dated;
};

static void columns_free(struct columns *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->reason[i]);
	free(c->reason);
	*c = (struct columns){0};
}

/* An event name as kvm_stat prints it: "kvm_exit", "kvm_exit(HLT)", "kvm_fpu(load)". */
static bool event_name(const char *s, size_t len)
{
	size_t i = 4;

	if (len < 5 || strncmp(s, "kvm_", 4))
		return false;
	while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '_'))
		i++;
	if (i == len)
		return true;
	if (s[i] != '(' || s[len - 1] != ')')
		return false;
	for (i++; i < len - 1; i++)
		if (!isgraph((unsigned char)s[i]) || s[i] == '(' || s[i] == ')')
			return false;
	return true;
}

/* Every word an event name (a trace line's "kvm_exit:" is none), kvm_exit among them. */
static bool banner_words(const char *l, bool csv)
{
	const char *s = csv ? l + 10 : l;
	unsigned n = 0;
	bool exit = false;

	while (*(s = csv ? s : skip_ws(s))) {
		size_t len = strcspn(s, csv ? ",\r\n" : " \t\r\n");

		if (!event_name(s, len))
			return false;
		exit |= !strncmp(s, "kvm_exit", 8);
		n++;
		s += len;
		if (*s == ',')
			s++;
		else if (*s == '\r' || *s == '\n')
			break;
	}
	return exit && n >= 2;
}

static bool kvm_stat_banner(const char *l, struct columns *c)
{
	bool csv = !strncmp(l, "timestamp,", 10);
	const char *s = csv ? l + 10 : l;
	char reason[128];
	bool any = false;

	if (!banner_words(l, csv))
		return false;
	columns_free(c);
	c->csv = csv;
	while (*(s = csv ? s : skip_ws(s))) {
		size_t len = strcspn(s, csv ? ",\r\n" : " \t\r\n");

		c->reason = xrealloc(c->reason, (c->n + 1) * sizeof(*c->reason));
		c->reason[c->n++] =
		    kvm_exit_reason(s, len, reason, sizeof(reason)) ? xstrdup(reason) : NULL;
		any |= !strncmp(s, "kvm_exit", 8);
		s += len;
		if (*s == ',')
			s++;
		else if (*s == '\r' || *s == '\n')
			break;
	}
	return any && c->n > 0;
}

static int kvm_stat_log_line(struct parse *p, const char *l, struct columns *c)
{
	const char *s = skip_ws(l);
	char *end;

	/* "2020-03-06 12:00:00" (log lines since Linux 5.7), "2020-03-06 12:00:00," in CSV */
	if (isdigit((unsigned char)s[0]) && s[4] == '-' && strlen(s) >= 19 && s[13] == ':')
		s += 19;
	for (size_t i = 0; i < c->n; i++) {
		s = skip_ws(s);
		if (*s == ',')
			s = skip_ws(s + 1);
		unsigned long long v = strtoull(s, &end, 10);

		if (end == s)
			return i == 0 ? 0 : err_buf(p->e, p->elen, "line %u: %zu values, the banner "
								   "names %zu",
						    p->line, i, c->n);
		if (c->reason[i])
			add_count(p, c->reason[i], -1, v);
		s = end;
	}
	return 1;
}

/* ---- bcc kvmexit --------------------------------------------------------- */

struct bcc {
	bool comm, avg;
};

static bool bcc_header(const char *l, struct bcc *b)
{
	if (!strstr(l, "KVM_EXIT_REASON") || !strstr(l, "COUNT") || !strstr(l, "TID"))
		return false;
	b->comm = strstr(l, "COMM") != NULL;
	b->avg = strstr(l, "AVG") != NULL;
	return true;
}

/* "PID TID [COMM] REASON COUNT [AVG]"; COMM may be b'CPU 3/KVM' (spaces in it). */
static int bcc_row(struct parse *p, const char *l, const struct bcc *b)
{
	char reason[128];
	long pid, tid;
	unsigned long long n;
	const char *s;
	int used;

	if (sscanf(l, " %ld %ld%n", &pid, &tid, &used) != 2 || tid <= 0 || tid > INT32_MAX)
		return 0;
	s = skip_ws(l + used);
	if (b->comm) {
		if (s[0] == 'b' && s[1] == '\'')
			s++;
		if (*s == '\'') {
			const char *q = strchr(s + 1, '\'');

			if (!q)
				return err_buf(p->e, p->elen, "line %u: a thread name not closed",
					       p->line);
			s = q + 1;
		} else {
			s += strcspn(s, " \t");
		}
	}
	if (sscanf(s, " %127s %llu", reason, &n) != 2)
		return err_buf(p->e, p->elen, "line %u: want REASON COUNT after the thread", p->line);
	add_count(p, reason, (int32_t)tid, n);
	p->info->times_unknown += b->avg && n;
	return 1;
}

/* ---- the forms, told apart by their header lines ----------------------------- */

static enum peertext_form form_of(const char *l)
{
	struct columns c = {0};
	struct bcc b;
	enum peertext_form f = PEERTEXT_NONE;

	if (perf_header(l))
		f = PEERTEXT_PERF_KVM_STAT;
	else if (bcc_header(l, &b))
		f = PEERTEXT_BCC_KVMEXIT;
	else if (kvm_stat_banner(l, &c))
		f = PEERTEXT_KVM_STAT_LOG;
	columns_free(&c);
	return f;
}

/* kvm_stat -1: "kvm_exit(REASON)   N   N" lines, two of them at least. */
static bool kvm_stat_once_text(const char *buf, size_t len)
{
	unsigned n = 0;

	for (const char *s = buf, *end = buf + len; s < end && n < 2;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		char key[128], reason[128];
		unsigned long long a, b;
		char line[256];
		size_t l = (size_t)((nl ? nl : end) - s);

		snprintf(line, sizeof(line), "%.*s", (int)(l < 255 ? l : 255), s);
		if (sscanf(line, "%127s %llu %llu", key, &a, &b) == 3 &&
		    kvm_exit_reason(key, strlen(key), reason, sizeof(reason)))
			n++;
		s = nl ? nl + 1 : end;
	}
	return n >= 2;
}

enum peertext_form peertext_sniff(const char *buf, size_t len)
{
	char line[LINE_MAX_LEN];

	for (const char *s = buf, *end = buf + len; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t l = (size_t)((nl ? nl : end) - s);
		enum peertext_form f;

		snprintf(line, sizeof(line), "%.*s", (int)(l < sizeof(line) - 1 ? l : sizeof(line) - 1),
			 s);
		if ((f = form_of(line)) != PEERTEXT_NONE)
			return f;
		s = nl ? nl + 1 : end;
	}
	return kvm_stat_once_text(buf, len) ? PEERTEXT_KVM_STAT_ONCE : PEERTEXT_NONE;
}

const char *peertext_form_name(enum peertext_form f)
{
	switch (f) {
	case PEERTEXT_PERF_KVM_STAT:
		return "perf kvm stat report";
	case PEERTEXT_KVM_STAT_ONCE:
		return "kvm_stat -1 output";
	case PEERTEXT_KVM_STAT_LOG:
		return "kvm_stat -l log";
	case PEERTEXT_BCC_KVMEXIT:
		return "bcc kvmexit output";
	default:
		return "other tool's report";
	}
}

/* perf kvm stat's other tables (--event=mmio, ioport) key by address: not exits. */
static int perf_table(struct parse *p, const char *l, bool *minmax)
{
	if (!strstr(l, "VM-EXIT"))
		return err_buf(p->e, p->elen,
			       "line %u: a perf kvm stat table of '%.*s': its rows are addresses "
			       "or ports, not exit reasons (--event=vmexit's are read)",
			       p->line, (int)strcspn(skip_ws(l), " "), skip_ws(l));
	*minmax = strstr(l, "Min Time") != NULL;
	return 0;
}

static int parse_line(struct parse *p, const char *l, enum peertext_form *f, bool *minmax,
		      struct columns *c, struct bcc *b)
{
	enum peertext_form h = form_of(l);

	if (h == PEERTEXT_PERF_KVM_STAT && *f == PEERTEXT_PERF_KVM_STAT)
		return perf_table(p, l, minmax);
	if (h == PEERTEXT_BCC_KVMEXIT && *f == PEERTEXT_BCC_KVMEXIT)
		return bcc_header(l, b) ? 0 : -1;
	if (h == PEERTEXT_KVM_STAT_LOG && *f == PEERTEXT_KVM_STAT_LOG)
		return kvm_stat_banner(l, c) ? 0 : -1;
	switch (*f) {
	case PEERTEXT_PERF_KVM_STAT:
		return perf_row(p, l, *minmax) < 0 ? -1 : 0;
	case PEERTEXT_KVM_STAT_ONCE:
		return kvm_stat_once(p, l) < 0 ? -1 : 0;
	case PEERTEXT_KVM_STAT_LOG:
		return c->n && kvm_stat_log_line(p, l, c) < 0 ? -1 : 0;
	case PEERTEXT_BCC_KVMEXIT:
		return bcc_row(p, l, b) < 0 ? -1 : 0;
	default:
		return 0;
	}
}

int peertext_parse(const char *text, size_t len, const struct exit_types *types,
		   struct stats_table *into, struct peertext_info *info, char *errbuf, size_t errlen)
{
	struct peertext_info dummy;
	struct parse p = {types, into, info ? info : &dummy, errbuf, errlen, 0};
	enum peertext_form f = peertext_sniff(text, len);
	struct columns c = {0};
	struct bcc b = {0};
	bool minmax = true, started = f == PEERTEXT_KVM_STAT_ONCE;
	char line[LINE_MAX_LEN];
	int ret = 0;

	*p.info = (struct peertext_info){.form = f};
	if (f == PEERTEXT_NONE)
		return err_buf(errbuf, errlen, "not a perf kvm stat, kvm_stat or bcc kvmexit report");
	for (const char *s = text, *end = text + len; s < end && ret == 0;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t l = (size_t)((nl ? nl : end) - s);

		p.line++;
		snprintf(line, sizeof(line), "%.*s", (int)(l < sizeof(line) - 1 ? l : sizeof(line) - 1),
			 s);
		line[strcspn(line, "\r")] = 0;
		/* rows count only after their table's header (prose before it is not read) */
		started |= form_of(line) == f;
		if (started)
			ret = parse_line(&p, line, &f, &minmax, &c, &b);
		s = nl ? nl + 1 : end;
	}
	columns_free(&c);
	if (ret == 0 && !p.info->rows)
		ret = err_buf(errbuf, errlen, "a %s with no exit in it", peertext_form_name(f));
	return ret;
}
