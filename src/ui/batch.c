// SPDX-License-Identifier: GPL-2.0
/*
 * Output without curses: --once prints one interval's table, --log one line
 * per interval (kvm_stat's logging mode: a banner of names, repeated every
 * 20 lines in text; a CSV header only at the start of the file, so that an
 * appended file stays one table). Times are plain microseconds here, for
 * scripts.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "alloc.h"
#include "intern.h"
#include "jsonw.h"
#include "outfile.h"
#include "pair.h"
#include "term.h"
#include "ui-local.h"

#define BANNER_EVERY 20
/*
 * --once fits 80 columns while reason names have at most LABEL_W characters
 * (KVM_EXIT_X86_RDMSR); a longer name widens the table instead of being cut,
 * as scripts read it, and so does a number wider than its column.
 */
#define LABEL_W 18

/* cause: --anatomy's column, the part most of the row's time went to */
static void batch_row(FILE *f, int lw, const struct ui_row *r, const char *label, bool pct,
		      bool cause)
{
	char avg[24], p99[24], max[24];

	ui_fmt_time(avg, sizeof(avg), r->s.avg, true);
	ui_fmt_time(p99, sizeof(p99), r->s.p99, true);
	ui_fmt_time(max, sizeof(max), r->s.max, true);
	fprintf(f, "%-*s %9llu", lw, label, (unsigned long long)r->s.count);
	if (pct)
		fprintf(f, " %6.2f", r->pct_total);
	else
		fprintf(f, " %6s", "-");
	fprintf(f, " %9.1f %8s %8s %9s %6.2f", r->rate, avg, p99, max, r->pct_time);
	if (cause)
		fprintf(f, " %s", r->cause[0] ? r->cause : "-");
	fputc('\n', f);
}

/*
 * A header line of --once, its parts joined by sep and folded between parts
 * to the width (continuations indented): a VM list or a long host name
 * must not push the line past 80 columns, nor cut a part in two.
 */
static void fold_line(FILE *f, unsigned width, const char *sep, const char *const *part, size_t n)
{
	size_t col = 0, sl = strlen(sep);

	if (!width) /* a caller that set none */
		width = 80;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(part[i]), last = i + 1;

		if (!l)
			continue;
		while (last < n && !*part[last])
			last++;
		/* a part that is not the last leaves a column for the mark of a break after it */
		if (col && col + sl + l + (last < n) > width) {
			fprintf(f, "%.*s\n  ", (int)strcspn(sep, " "), sep);
			col = 2;
		} else if (col) {
			fputs(sep, f);
			col += sl;
		}
		fputs(part[i], f);
		col += l;
	}
	fputc('\n', f);
}

/* The VMs line of --once: "VMs N: ...; events/s ...; ...; tracing ...". */
static void vms_line(FILE *f, const struct ui_view *v, const struct ui_header *h, double dt,
		     bool buckets)
{
	char vms[4096], rate[64], lost[64], ival[64], traced[1024], bk[256];
	const char *part[6] = {vms, rate, lost, ival, traced, bk};

	snprintf(vms, sizeof(vms), "VMs %zu%s: %s", v->nvms, ui_vms_exited(v), v->nvms ? v->vms : "-");
	snprintf(rate, sizeof(rate), "events/s %.0f", v->events_s);
	snprintf(lost, sizeof(lost), "lost %llu", (unsigned long long)v->lost);
	snprintf(ival, sizeof(ival), "interval %.2f s", dt);
	snprintf(traced, sizeof(traced), "tracing %s", h->traced);
	snprintf(bk, sizeof(bk), "%s%s", buckets && h->buckets ? "buckets " : "",
		 buckets && h->buckets ? h->buckets : "");
	fold_line(f, h->width, "; ", part, 6);
}

/* --once --all-events: kvm_stat --once's table (event, total, %, per second). */
static void batch_events(FILE *f, int lw, const struct ui_view *v, const struct ui_header *h,
			 double dt)
{
	char host[320], isa[96], what[96];
	const char *part[3] = {host, isa, what};

	snprintf(host, sizeof(host), "kvm-exitstat top: host %s", h->host);
	snprintf(isa, sizeof(isa), "ISA %s", v->isa ? v->isa : h->machine);
	snprintf(what, sizeof(what), "events: every kvm:* tracepoint (%zu), counts", v->nevents);
	fold_line(f, h->width, ", ", part, 3);
	vms_line(f, v, h, dt, false);
	fprintf(f, "%-*s %12s %7s %10s\n", lw, "EVENT", "TOTAL", "%TOTAL", "RATE/s");
	for (size_t i = 0; i < v->nrows; i++)
		fprintf(f, "%-*s %12llu %7.2f %10.1f\n", lw, v->rows[i].label,
			(unsigned long long)v->rows[i].s.count, v->rows[i].pct_total, v->rows[i].rate);
	fprintf(f, "%-*s %12llu %7.2f %10.1f\n", lw, "Total", (unsigned long long)v->total.s.count,
		v->total.pct_total, v->total.rate);
	fflush(f);
}

void ui_batch_table(FILE *f, const struct ui_view *v, const struct ui_header *h, double dt)
{
	char host[320], isa[96];
	const char *part[4] = {host, isa,
			       v->src == WATCH_EXITS ? "exits: kvm_exit -> kvm_entry"
					      : "exits: userspace (KVM_EXIT_*)",
			       v->src != WATCH_EXITS && v->exit_silent ? "kvm_exit is silent on this host" : ""};
	int lw = LABEL_W;

	for (size_t i = 0; i < v->nrows; i++)
		if ((int)strlen(v->rows[i].label) > lw)
			lw = (int)strlen(v->rows[i].label);
	if (v->src == WATCH_EVENTS) {
		batch_events(f, lw, v, h, dt);
		return;
	}
	snprintf(host, sizeof(host), "kvm-exitstat top: host %s", h->host);
	snprintf(isa, sizeof(isa), "ISA %s", v->src == WATCH_EXITS && v->isa ? v->isa : h->machine);
	fold_line(f, h->width, ", ", part, 4);
	vms_line(f, v, h, dt, true);
	fprintf(f, "%-*s %9s %6s %9s %8s %8s %9s %6s%s\n", lw, "REASON", "TOTAL", "%TOTAL",
		"RATE/s", "AVG(us)", "P99(us)", "MAX(us)", "%TIME", v->has_cause ? " CAUSE" : "");
	for (size_t i = 0; i < v->nrows; i++)
		batch_row(f, lw, &v->rows[i], v->rows[i].label, true, v->has_cause);
	batch_row(f, lw, &v->total, "Total", true, v->has_cause);
	if (v->has_guest)
		batch_row(f, lw, &v->guest, KES_TIMEINGUEST, false, v->has_cause);
	fflush(f);
}

/* ------------------------------------------------------------------------ */
/* --log */

struct ui_log {
	FILE *f;
	const char *path; /* NULL: stdout */
	bool csv, json, skip_zero, times;
	bool events; /* --all-events: columns are the kvm:* events */
	const regex_t *re; /* -f, compiled once by cli/; NULL: every reason */
	enum ui_source source;
	int src;
	const char **cols; /* interned reason names */
	bool *seen;	   /* text: a column shows once its reason has had an exit */
	size_t ncols;
	unsigned lines; /* since the last banner */
	bool banner_due;
	uint64_t lost_prev;
	bool buckets; /* columns: the buckets seen so far (a new one: a new header) */
	size_t ccols;
};

static int open_file(struct ui_log *lg, char *errbuf, size_t errlen)
{
	struct stat sb;

	if (!lg->path) {
		lg->f = stdout;
		lg->banner_due = true;
		return 0;
	}
	/* never through a planted symlink, never into another user's file (outfile.h) */
	struct outfile *of = outfile_open(lg->path, OUTFILE_APPEND, errbuf, errlen);

	if (!of)
		return -1;
	lg->f = outfile_stdio(of, "a", errbuf, errlen);
	outfile_free(of);
	if (!lg->f)
		return -1;
	/* A CSV file gets its header only when it starts; text repeats its banner. */
	lg->banner_due = !lg->csv || (fstat(fileno(lg->f), &sb) == 0 && sb.st_size == 0);
	return 0;
}

struct ui_log *ui_log_new(const struct ui_top_opts *o, char *errbuf, size_t errlen)
{
	struct ui_log *lg = xcalloc(1, sizeof(*lg));

	lg->path = o->log_file;
	lg->csv = o->csv;
	lg->json = o->json;
	lg->skip_zero = o->skip_zero;
	lg->times = o->times;
	lg->events = o->all_events;
	lg->source = o->source;
	lg->buckets = o->buckets != NULL && !o->all_events;
	lg->src = -1;
	lg->re = o->fields_re;
	if (open_file(lg, errbuf, errlen) < 0) {
		ui_log_free(lg);
		return NULL;
	}
	return lg;
}

int ui_log_reopen(struct ui_log *lg, char *errbuf, size_t errlen)
{
	if (!lg->path)
		return 0;
	if (lg->f)
		fclose(lg->f);
	lg->f = NULL;
	lg->lines = 0;
	return open_file(lg, errbuf, errlen);
}

void ui_log_free(struct ui_log *lg)
{
	if (!lg)
		return;
	if (lg->f && lg->f != stdout)
		fclose(lg->f);
	free(lg->cols);
	free(lg->seen);
	free(lg);
}

/* --all-events: the columns are the counted kvm:* events that -f lets through. */
static bool decide_events(struct ui_log *lg, const struct watch *l)
{
	lg->src = WATCH_EVENTS;
	lg->cols = xcalloc(l->nevnames + 1, sizeof(*lg->cols));
	lg->seen = xcalloc(l->nevnames + 1, sizeof(*lg->seen));
	for (size_t i = 0; i < l->nevnames; i++)
		if (!lg->re || regexec(lg->re, l->evnames[i], 0, NULL, 0) == 0)
			lg->cols[lg->ncols++] = l->evnames[i];
	return true;
}

/* -f's regex on a reason's name, or on one of its aliases (arm64's "DABT_LOW"). */
static bool name_matches(const regex_t *re, const struct exit_types *types, const char *name)
{
	const char *alias[8];
	size_t n = exit_types_aliases(types, name, alias, 8);

	if (regexec(re, name, 0, NULL, 0) == 0)
		return true;
	for (size_t i = 0; i < n; i++)
		if (regexec(re, alias[i], 0, NULL, 0) == 0)
			return true;
	return false;
}

/* The columns: every reason of the source's table that -f lets through. */
static bool decide(struct ui_log *lg, const struct watch *l, const struct exit_types *types)
{
	uint64_t exits, uexits;
	const struct exit_table *t;

	if (lg->events)
		return decide_events(lg, l);
	watch_counts(l, &exits, &uexits);
	if (lg->source == UI_SOURCE_EXITS || (lg->source == UI_SOURCE_AUTO && exits))
		lg->src = WATCH_EXITS;
	else if (lg->source == UI_SOURCE_USERSPACE || uexits)
		lg->src = WATCH_UEXITS;
	else
		return false; /* nothing happened yet: no line until something does */
	if (lg->buckets)
		return true;
	t = exit_types_find(types, lg->src == WATCH_UEXITS ? "userspace" : l->isa ? l->isa : "");
	if (!t) {
		lg->src = -1;
		return false;
	}
	lg->cols = xcalloc(t->nnames + 1, sizeof(*lg->cols));
	lg->seen = xcalloc(t->nnames + 1, sizeof(*lg->seen));
	for (size_t i = 0; i < t->nnames; i++)
		if (!lg->re || name_matches(lg->re, types, t->names[i].name))
			lg->cols[lg->ncols++] = t->names[i].name;
	return true;
}

struct sum_walk {
	const char *tig;
	uint64_t n;
};

static void sum_one(const struct stats_key *k, const struct stats_acc *a, void *arg)
{
	struct sum_walk *w = arg;

	if (k->name != w->tig)
		w->n += a->count + a->untimed;
}

/*
 * CSV keeps every column, so that a file is one table; text shows a reason
 * from its first exit on (a new column brings a new banner), not the forty
 * columns of zeros kvm_stat would print.
 */
static bool shown(const struct ui_log *lg, size_t i)
{
	return lg->csv || lg->json || lg->seen[i];
}

static void add_bucket(const struct stats_key *k, const struct stats_acc *a, void *arg)
{
	struct ui_log *lg = arg;

	if (k->name == intern(KES_TIMEINGUEST) || !(a->count + a->untimed))
		return;
	if (lg->re && regexec(lg->re, k->name, 0, NULL, 0))
		return;
	for (size_t i = 0; i < lg->ncols; i++)
		if (lg->cols[i] == k->name)
			return;
	if (lg->ncols == lg->ccols) {
		lg->ccols = lg->ccols ? 2 * lg->ccols : 16;
		lg->cols = xrealloc(lg->cols, lg->ccols * sizeof(*lg->cols));
		lg->seen = xrealloc(lg->seen, lg->ccols * sizeof(*lg->seen));
	}
	lg->seen[lg->ncols] = true;
	lg->cols[lg->ncols++] = k->name;
	lg->banner_due = true; /* CSV too: its columns change */
}

static void see_new(struct ui_log *lg, const struct stats_table *r)
{
	if (lg->buckets) {
		stats_table_foreach(r, add_bucket, lg);
		return;
	}
	for (size_t i = 0; i < lg->ncols; i++) {
		struct stats_key k = {.name = lg->cols[i], .tid = -1, .vcpu = -1};
		const struct stats_acc *a;

		if (lg->seen[i] || !(a = stats_table_find(r, &k)) || !(a->count + a->untimed))
			continue;
		lg->seen[i] = true;
		/* A text column appears: a new banner. CSV has every column from the start. */
		lg->banner_due |= !lg->csv;
	}
}

static int col_width(const char *name)
{
	char buf[256];
	int n = (int)strlen(term_safe(name, buf, sizeof(buf)));

	return n > 9 ? n : 9;
}

static void banner(struct ui_log *lg)
{
	fputs(lg->csv ? "timestamp" : "time                         ", lg->f);
	for (size_t i = 0; i < lg->ncols; i++) {
		/* exit names come from the recording: escapes escaped */
		char name[256];
		const char *col = term_safe(lg->cols[i], name, sizeof(name));

		if (!shown(lg, i))
			continue;
		if (lg->csv)
			fprintf(lg->f, ",%s", col);
		else
			fprintf(lg->f, " %*s", col_width(lg->cols[i]), col);
		if (lg->times) {
			char t[300];

			snprintf(t, sizeof(t), "%s:avg_us", col);
			if (lg->csv)
				fprintf(lg->f, ",%s", t);
			else
				fprintf(lg->f, " %*s", col_width(lg->cols[i]) + 7, t);
		}
	}
	fprintf(lg->f, lg->csv ? ",total,lost\n" : " %9s %9s\n", "total", "lost");
	lg->banner_due = false;
	lg->lines = 0;
}

/*
 * --log --json: one object per interval, every column (as CSV), so that a
 * script reads each line alone: {"time": ..., "interval_s": ..., "exits":
 * {REASON: N, ...}, "avg_us": {...} with --times, "total": N, "lost": N};
 * with --all-events "events": {EVENT: N, ...} instead of "exits".
 */
static void json_line(struct ui_log *lg, const struct stats_table *r, const char *ts, double dt,
		      uint64_t total, uint64_t lost)
{
	struct jsonw w;

	jsonw_start(&w, lg->f, false);
	jsonw_obj_open(&w, NULL);
	jsonw_str(&w, "time", ts);
	jsonw_f64(&w, "interval_s", dt);
	for (int pass = 0; pass < (lg->times ? 2 : 1); pass++) {
		jsonw_obj_open(&w, pass ? "avg_us" : lg->events ? "events" : "exits");
		for (size_t i = 0; i < lg->ncols; i++) {
			struct stats_key k = {.name = lg->cols[i], .tid = -1, .vcpu = -1};
			const struct stats_acc *a = stats_table_find(r, &k);

			if (!pass)
				jsonw_u64(&w, lg->cols[i], a ? a->count + a->untimed : 0);
			else
				jsonw_f64(&w, lg->cols[i],
					  a && a->count ? stats_acc_avg(a) / 1000.0 : NAN);
		}
		jsonw_obj_close(&w);
	}
	jsonw_u64(&w, "total", total);
	jsonw_u64(&w, "lost", lost);
	jsonw_obj_close(&w);
	jsonw_end(&w);
}

/*
 * ISO 8601 local time with milliseconds and the UTC offset,
 * "2026-12-01T12:20:26.503+01:00": intervals shorter than a second get
 * times of their own (kvm_stat prints whole seconds).
 */
static void log_time(char *buf, size_t len)
{
	struct timespec now;
	struct tm tm;
	char off[8];
	size_t n;

	clock_gettime(CLOCK_REALTIME, &now);
	localtime_r(&now.tv_sec, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	strftime(off, sizeof(off), "%z", &tm); /* +0100 -> +01:00 */
	snprintf(buf + n, len - n, ".%03ld%.3s:%.2s", now.tv_nsec / 1000000, off, off + 3);
}

/* --times: a reason's average in the interval; none (empty, "-", null) without a timed exit. */
static void put_avg(struct ui_log *lg, const char *name, const struct stats_acc *a)
{
	int w = col_width(name) + 7;

	if (a && a->count && lg->csv)
		fprintf(lg->f, ",%.2f", stats_acc_avg(a) / 1000.0);
	else if (a && a->count)
		fprintf(lg->f, " %*.2f", w, stats_acc_avg(a) / 1000.0);
	else if (lg->csv)
		fputc(',', lg->f);
	else
		fprintf(lg->f, " %*s", w, "-");
}

int ui_log_interval(struct ui_log *lg, const struct watch *l, const struct exit_types *types)
{
	const char *tig = intern(KES_TIMEINGUEST);
	struct stats_table *r;
	uint64_t total = 0, lost = l->lost - (l->lost >= lg->lost_prev ? lg->lost_prev : l->lost);
	char ts[40];

	if (lg->src < 0 && !decide(lg, l, types))
		return 0;
	lg->lost_prev = l->lost;
	r = stats_table_rollup(l->last[lg->src], 0);
	/* total: every reason, shown in a column or not */
	struct sum_walk w = {tig, 0};
	stats_table_foreach(r, sum_one, &w);
	total = w.n;
	if (lg->skip_zero && !total) {
		stats_table_free(r);
		return 0;
	}
	see_new(lg, r);
	log_time(ts, sizeof(ts));
	if (lg->json) {
		json_line(lg, r, ts, l->last_dt, total, lost);
		stats_table_free(r);
		return fflush(lg->f) == 0 && !ferror(lg->f) ? 0 : -1;
	}
	if (lg->banner_due || (!lg->csv && lg->lines >= BANNER_EVERY))
		banner(lg);
	fputs(ts, lg->f);
	for (size_t i = 0; i < lg->ncols; i++) {
		struct stats_key k = {.name = lg->cols[i], .tid = -1, .vcpu = -1};
		const struct stats_acc *a = stats_table_find(r, &k);
		uint64_t n = a ? a->count + a->untimed : 0;

		if (!shown(lg, i))
			continue;
		if (lg->csv)
			fprintf(lg->f, ",%llu", (unsigned long long)n);
		else
			fprintf(lg->f, " %*llu", col_width(lg->cols[i]), (unsigned long long)n);
		if (lg->times)
			put_avg(lg, lg->cols[i], a);
	}
	fprintf(lg->f, lg->csv ? ",%llu,%llu\n" : " %9llu %9llu\n", (unsigned long long)total,
		(unsigned long long)lost);
	lg->lines++;
	stats_table_free(r);
	return fflush(lg->f) == 0 && !ferror(lg->f) ? 0 : -1;
}
