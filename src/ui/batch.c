// SPDX-License-Identifier: GPL-2.0
/*
 * Output without curses: --once prints one interval's table, --log one line
 * per interval (kvm_stat's logging mode: a banner of names, repeated every
 * 20 lines in text; a CSV header only at the start of the file, so that an
 * appended file stays one table). Times are plain microseconds here, for
 * scripts.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include "common.h"
#include "pair.h"
#include "ui-local.h"

#define BANNER_EVERY 20

static void batch_row(FILE *f, int lw, const struct ui_row *r, const char *label, bool pct)
{
	char avg[24], p99[24], max[24];

	ui_fmt_time(avg, sizeof(avg), r->avg, true);
	ui_fmt_time(p99, sizeof(p99), r->p99, true);
	ui_fmt_time(max, sizeof(max), r->max, true);
	fprintf(f, "%-*s %12llu", lw, label, (unsigned long long)r->total);
	if (pct)
		fprintf(f, " %7.2f", r->pct_total);
	else
		fprintf(f, " %7s", "-");
	fprintf(f, " %10.1f %10s %10s %10s %7.2f\n", r->rate, avg, p99, max, r->pct_time);
}

void ui_batch_table(FILE *f, const struct ui_view *v, const struct ui_header *h, double dt)
{
	int lw = 16;

	for (size_t i = 0; i < v->nrows; i++)
		if ((int)strlen(v->rows[i].label) > lw)
			lw = (int)strlen(v->rows[i].label);
	fprintf(f, "kvm-exitstat top: host %s, ISA %s, %s\n", h->host,
		v->src == UI_EXITS && v->isa ? v->isa : h->machine,
		v->src == UI_EXITS ? "exits: kvm_exit -> kvm_entry"
		: v->exit_silent ? "exits: userspace (KVM_EXIT_*), kvm_exit is silent on this host"
				 : "exits: userspace (KVM_EXIT_*)");
	fprintf(f, "VMs %zu: %s; events/s %.0f; lost %llu; interval %.2f s; tracing %s%s%s\n",
		v->nvms, v->nvms ? v->vms : "-", v->events_s, (unsigned long long)v->lost, dt,
		h->traced, h->buckets ? "; buckets " : "", h->buckets ? h->buckets : "");
	fprintf(f, "%-*s %12s %7s %10s %10s %10s %10s %7s\n", lw, "REASON", "TOTAL", "%TOTAL",
		"RATE/s", "AVG(us)", "P99(us)", "MAX(us)", "%TIME");
	for (size_t i = 0; i < v->nrows; i++)
		batch_row(f, lw, &v->rows[i], v->rows[i].label, true);
	batch_row(f, lw, &v->total, "Total", true);
	if (v->has_guest)
		batch_row(f, lw, &v->guest, PAIR_TIMEINGUEST, false);
	fflush(f);
}

/* ------------------------------------------------------------------------ */
/* --log */

struct ui_log {
	FILE *f;
	const char *path; /* NULL: stdout */
	bool csv, skip_zero, times;
	regex_t re;
	bool has_re;
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
	lg->f = fopen(lg->path, "a");
	if (!lg->f) {
		snprintf(errbuf, errlen, "cannot open '%s': %s", lg->path, strerror(errno));
		return -1;
	}
	/* A CSV file gets its header only when it starts; text repeats its banner. */
	lg->banner_due = !lg->csv || (fstat(fileno(lg->f), &sb) == 0 && sb.st_size == 0);
	return 0;
}

struct ui_log *ui_log_new(const struct ui_top_opts *o, char *errbuf, size_t errlen)
{
	struct ui_log *lg = xcalloc(1, sizeof(*lg));

	lg->path = o->log_file;
	lg->csv = o->csv;
	lg->skip_zero = o->skip_zero;
	lg->times = o->times;
	lg->source = o->source;
	lg->buckets = o->buckets != NULL;
	lg->src = -1;
	if (o->fields && regcomp(&lg->re, o->fields, REG_EXTENDED | REG_NOSUB) == 0)
		lg->has_re = true;
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
	if (lg->has_re)
		regfree(&lg->re);
	free(lg->cols);
	free(lg->seen);
	free(lg);
}

/* The columns: every reason of the source's table that -f lets through. */
static bool decide(struct ui_log *lg, const struct ui_live *l, const struct exit_types *types)
{
	uint64_t exits, uexits;
	const struct exit_table *t;

	ui_live_counts(l, &exits, &uexits);
	if (lg->source == UI_SOURCE_EXITS || (lg->source == UI_SOURCE_AUTO && exits))
		lg->src = UI_EXITS;
	else if (lg->source == UI_SOURCE_USERSPACE || uexits)
		lg->src = UI_UEXITS;
	else
		return false; /* nothing happened yet: no line until something does */
	if (lg->buckets)
		return true;
	t = exit_types_find(types, lg->src == UI_UEXITS ? "userspace" : l->isa ? l->isa : "");
	if (!t) {
		lg->src = -1;
		return false;
	}
	lg->cols = xcalloc(t->nnames + 1, sizeof(*lg->cols));
	lg->seen = xcalloc(t->nnames + 1, sizeof(*lg->seen));
	for (size_t i = 0; i < t->nnames; i++)
		if (!lg->has_re || regexec(&lg->re, t->names[i].name, 0, NULL, 0) == 0)
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
	return lg->csv || lg->seen[i];
}

static void add_bucket(const struct stats_key *k, const struct stats_acc *a, void *arg)
{
	struct ui_log *lg = arg;

	if (k->name == intern(PAIR_TIMEINGUEST) || !(a->count + a->untimed))
		return;
	if (lg->has_re && regexec(&lg->re, k->name, 0, NULL, 0))
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
		lg->banner_due = true;
	}
}

static int col_width(const char *name)
{
	int n = (int)strlen(name);

	return n > 9 ? n : 9;
}

static void banner(struct ui_log *lg)
{
	fputs(lg->csv ? "timestamp" : "time               ", lg->f);
	for (size_t i = 0; i < lg->ncols; i++) {
		if (!shown(lg, i))
			continue;
		if (lg->csv)
			fprintf(lg->f, ",%s", lg->cols[i]);
		else
			fprintf(lg->f, " %*s", col_width(lg->cols[i]), lg->cols[i]);
		if (lg->times) {
			char t[128];

			snprintf(t, sizeof(t), "%s:avg_us", lg->cols[i]);
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

int ui_log_interval(struct ui_log *lg, const struct ui_live *l, const struct exit_types *types)
{
	const char *tig = intern(PAIR_TIMEINGUEST);
	struct stats_table *r;
	uint64_t total = 0, lost = l->lost - (l->lost >= lg->lost_prev ? lg->lost_prev : l->lost);
	char ts[32];
	time_t now = time(NULL);

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
	if (lg->banner_due || (!lg->csv && lg->lines >= BANNER_EVERY))
		banner(lg);
	strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M:%S", localtime(&now));
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
		if (lg->times) {
			double avg = a && a->count ? stats_acc_avg(a) / 1000.0 : 0;

			if (lg->csv)
				fprintf(lg->f, ",%.2f", avg);
			else
				fprintf(lg->f, " %*.2f", col_width(lg->cols[i]) + 7, avg);
		}
	}
	fprintf(lg->f, lg->csv ? ",%llu,%llu\n" : " %9llu %9llu\n", (unsigned long long)total,
		(unsigned long long)lost);
	lg->lines++;
	stats_table_free(r);
	return fflush(lg->f) == 0 && !ferror(lg->f) ? 0 : -1;
}
