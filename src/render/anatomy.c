// SPDX-License-Identifier: GPL-2.0
/*
 * report --anatomy: per reason, where its handling time went (stats/anatomy.c
 * computed every number): each part's mean, share of the reason's time and
 * p99, then the threads that held a vCPU thread's CPU while it was
 * runnable. One printer per format; the PPC one in the 2010 reports' way
 * (a line per row, "key value" pairs, '#' for everything else).
 */
#include <string.h>
#include "jsonw.h"
#include "render-local.h"
#include "term.h"

void render_human_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.1f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", (double)ns / 1e9);
}

const char *render_split_cause(const struct stats_split *s, char *buf, size_t len)
{
	enum stats_part p = stats_split_dominant(s);
	char t[32], e[96];

	if (!s->split)
		return snprintf(buf, len, "unsplit (events lost inside)"), buf;
	render_human_ns(t, sizeof(t), s->ns[p]);
	if (p == STATS_PART_RUNNABLE && s->who[0].comm)
		snprintf(buf, len, "%s runnable behind %s (pid %d)", t,
			 term_safe(s->who[0].comm, e, sizeof(e)), (int)s->who[0].pid);
	else if (p == STATS_PART_VMM)
		snprintf(buf, len, "%s in the VMM", t);
	else if (p == STATS_PART_BLOCKED && s->halts)
		snprintf(buf, len, "%s blocked (halt, slept)", t);
	else if (p == STATS_PART_POLLED)
		snprintf(buf, len, "%s halt polling", t);
	else
		snprintf(buf, len, "%s %s", t, stats_part_name(p));
	return buf;
}

/* A row's name: the reason, with its sub-key when the rows have one (--by-sub). */
static const char *row_label(const struct stats_anatomy_row *r, char *buf, size_t len)
{
	struct stats_row sr = {.key = r->key, .acc = r->acc[STATS_NPARTS]};

	return render_row_name(&sr, buf, len);
}

/* ---- ppc ---- */

static void ppc_row(FILE *f, const struct stats_anatomy_row *r, const char *name)
{
	render_ppc_word(f, name);
	fprintf(f, " split %llu unsplit %llu mean %.4f", (unsigned long long)r->split,
		(unsigned long long)r->unsplit, r->mean);
	for (int p = 0; p < STATS_NPARTS; p++)
		fprintf(f, " %s %.4f %.2f%% p99 %.0f", stats_part_name((enum stats_part)p),
			r->part[p].mean, r->part[p].share, r->part[p].p99);
	if (r->halts)
		fprintf(f, " halts %llu slept %llu", (unsigned long long)r->halts,
			(unsigned long long)r->slept);
	fputc('\n', f);
}

static void ppc(FILE *f, const struct render_meta *m, const struct stats_anatomy_view *v)
{
	char buf[256];

	fputs("# kvm-exitstat anatomy: ", f);
	term_fputs(m->inputs, f);
	fprintf(f, " (%s)%s%s, exits from %s, times in %s\n", m->kind, m->isa ? ", isa " : "",
		m->isa ? m->isa : "", m->source, v->unit);
	fputs("# each exit's handling time split into its causes: per part its mean over the split"
	      " exits, its share of the reason's time and its p99\n",
	      f);
	if (m->lost_known)
		fprintf(f, "# lost events: %llu\n", (unsigned long long)m->lost);
	else
		fputs("# lost events: unknown (the input does not record drop counts)\n", f);
	if (v->all.unsplit)
		fprintf(f, "# %llu exits left unsplit: events lost, or the clock went back, inside them\n",
			(unsigned long long)v->all.unsplit);
	for (size_t i = 0; i < m->nwarnings; i++) {
		fputs("# warning: ", f);
		term_fputs(m->warnings[i], f);
		fputc('\n', f);
	}
	for (size_t i = 0; i < v->nrows; i++)
		ppc_row(f, &v->rows[i], row_label(&v->rows[i], buf, sizeof(buf)));
	ppc_row(f, &v->all, "all");
	for (size_t i = 0; i < v->nwho; i++) {
		char t[32], e[96];

		render_human_ns(t, sizeof(t), v->who[i].ns);
		fprintf(f, "# preemptor %s (pid %d): %s runnable behind it, %.2f%% of all, top in %llu"
			   " exits\n",
			term_safe(v->who[i].comm, e, sizeof(e)), (int)v->who[i].pid, t, v->who[i].share,
			(unsigned long long)v->who[i].n);
	}
}

/* ---- table ---- */

enum { T_NAME, T_N, T_PART, T_MEAN, T_SHARE, T_P99, T_NCOLS };

static void table_row(struct fit_table *t, const struct stats_anatomy_row *r, const char *name)
{
	bool first = true;

	for (int p = 0; p < STATS_NPARTS; p++) {
		char **row, b[64];

		/* a part the reason never had: left out here, 0 in csv and json */
		if (!r->part[p].sum_ns && !(p == STATS_PART_HANDLING && !r->sum_ns))
			continue;
		row = fit_row(t);
		fit_set(row, T_NAME, first ? name : "");
		snprintf(b, sizeof(b), "%llu", (unsigned long long)r->split);
		fit_set(row, T_N, first ? b : "");
		fit_set(row, T_PART, stats_part_name((enum stats_part)p));
		snprintf(b, sizeof(b), "%.2f", r->part[p].mean);
		fit_set(row, T_MEAN, b);
		snprintf(b, sizeof(b), "%.2f", r->part[p].share);
		fit_set(row, T_SHARE, b);
		snprintf(b, sizeof(b), "%.1f", r->part[p].p99);
		fit_set(row, T_P99, b);
		first = false;
	}
}

static void table(FILE *f, const struct render_opts *o, const struct render_meta *m,
		  const struct stats_anatomy_view *v)
{
	size_t width = o->width ? o->width : RENDER_WIDTH_DEFAULT;
	struct fit_table *t = fit_new(T_NCOLS);
	static char mean_h[24], p99_h[24];
	char buf[256], line[160];

	render_table_head(f, m, NULL, v->unit, width);
	snprintf(line, sizeof(line),
		 "Anatomy: %llu exits split into their causes, %llu left unsplit (events lost, or "
		 "the clock went back, inside them). Parts a reason never had are left out.",
		 (unsigned long long)v->all.split, (unsigned long long)v->all.unsplit);
	fit_wrap(f, "", line, width);
	for (int p = 0; p < STATS_NPARTS; p++) {
		snprintf(line, sizeof(line), "%s: %s", stats_part_name((enum stats_part)p),
			 stats_part_about((enum stats_part)p));
		fit_wrap(f, "  ", line, width);
	}
	fputc('\n', f);
	snprintf(mean_h, sizeof(mean_h), "MEAN(%s)", v->unit);
	snprintf(p99_h, sizeof(p99_h), "P99(%s)", v->unit);
	fit_col(t, T_NAME, "REASON", false);
	fit_col(t, T_N, "SPLIT", true);
	fit_col(t, T_PART, "PART", false);
	fit_col(t, T_MEAN, mean_h, true);
	fit_col(t, T_SHARE, "SHARE%", true);
	fit_col(t, T_P99, p99_h, true);
	for (size_t i = 0; i < v->nrows; i++)
		table_row(t, &v->rows[i], row_label(&v->rows[i], buf, sizeof(buf)));
	table_row(t, &v->all, "all");
	fit_print(f, t, width);
	fit_free(t);
	if (v->nwho)
		fputs("\nRunnable behind (threads that held a vCPU thread's CPU):\n", f);
	for (size_t i = 0; i < v->nwho; i++) {
		char tm[32], e[96];

		render_human_ns(tm, sizeof(tm), v->who[i].ns);
		fprintf(f, "  %s (pid %d)  %s, %.2f%%\n", term_safe(v->who[i].comm, e, sizeof(e)),
			(int)v->who[i].pid, tm, v->who[i].share);
	}
}

/* ---- csv ---- */

static void csv_row(FILE *f, const struct stats_anatomy_row *r, const char *name, const char *unit)
{
	for (int p = 0; p < STATS_NPARTS; p++) {
		csv_quote(f, name);
		fprintf(f, ",%llu,%llu,%s,%.6f,%.4f,%.6f,%llu,%s\n", (unsigned long long)r->split,
			(unsigned long long)r->unsplit, stats_part_name((enum stats_part)p),
			r->part[p].mean, r->part[p].share, r->part[p].p99,
			(unsigned long long)r->part[p].sum_ns, unit);
	}
}

static void csv(FILE *f, const struct stats_anatomy_view *v)
{
	char buf[256];

	fputs("name,split,unsplit,part,mean,share,p99,sum_ns,unit\n", f);
	for (size_t i = 0; i < v->nrows; i++)
		csv_row(f, &v->rows[i], row_label(&v->rows[i], buf, sizeof(buf)), v->unit);
	csv_row(f, &v->all, "all", v->unit);
}

/* ---- json ---- */

/* key: NULL in the rows' array, "all" for the whole run. */
static void json_row(struct jsonw *w, const char *key, const struct stats_anatomy_row *r,
		     const char *name)
{
	jsonw_obj_open(w, key);
	jsonw_str(w, "name", name);
	jsonw_u64(w, "split", r->split);
	jsonw_u64(w, "unsplit", r->unsplit);
	jsonw_u64(w, "halts", r->halts);
	jsonw_u64(w, "slept", r->slept);
	jsonw_f64(w, "mean", r->mean);
	jsonw_u64(w, "sum_ns", r->sum_ns);
	jsonw_str(w, "dominant", stats_part_name(r->dominant));
	jsonw_obj_open(w, "parts");
	for (int p = 0; p < STATS_NPARTS; p++) {
		jsonw_obj_open_flat(w, stats_part_name((enum stats_part)p));
		jsonw_f64(w, "mean", r->part[p].mean);
		jsonw_f64(w, "share", r->part[p].share);
		jsonw_f64(w, "p99", r->part[p].p99);
		jsonw_u64(w, "sum_ns", r->part[p].sum_ns);
		jsonw_obj_close(w);
	}
	jsonw_obj_close(w);
	jsonw_obj_close(w);
}

static void json(FILE *f, const struct render_meta *m, const struct stats_anatomy_view *v)
{
	struct jsonw w;
	char buf[256];

	jsonw_start(&w, f, true);
	jsonw_obj_open(&w, NULL);
	jsonw_str(&w, "schema", "kvm-exitstat-anatomy/1");
	jsonw_str(&w, "inputs", m->inputs);
	jsonw_str(&w, "input_kind", m->kind);
	jsonw_str(&w, "isa", m->isa);
	jsonw_str(&w, "source", m->source);
	jsonw_str(&w, "unit", v->unit);
	if (m->lost_known)
		jsonw_u64(&w, "lost", m->lost);
	else
		jsonw_null(&w, "lost");
	jsonw_arr_open(&w, "rows");
	for (size_t i = 0; i < v->nrows; i++)
		json_row(&w, NULL, &v->rows[i], row_label(&v->rows[i], buf, sizeof(buf)));
	jsonw_arr_close(&w);
	json_row(&w, "all", &v->all, "all");
	jsonw_arr_open(&w, "preemptors");
	for (size_t i = 0; i < v->nwho; i++) {
		jsonw_obj_open_flat(&w, NULL);
		jsonw_str(&w, "comm", v->who[i].comm);
		jsonw_i64(&w, "pid", v->who[i].pid);
		jsonw_u64(&w, "ns", v->who[i].ns);
		jsonw_u64(&w, "top_in", v->who[i].n);
		jsonw_f64(&w, "share", v->who[i].share);
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	jsonw_obj_close(&w);
	jsonw_end(&w);
}

void render_anatomy(FILE *f, const struct render_opts *o, const struct render_meta *m,
		    const struct stats_anatomy_view *v)
{
	switch (o->fmt) {
	case RENDER_CSV:
		csv(f, v);
		break;
	case RENDER_JSON:
		json(f, m, v);
		break;
	case RENDER_TABLE:
		table(f, o, m, v);
		break;
	default:
		ppc(f, m, v);
		break;
	}
}
