// SPDX-License-Identifier: GPL-2.0
/*
 * report --slowest N: single exits, slowest first (stats/outliers.c chose
 * and ordered them). Each with what finds it in the trace: the timestamp
 * (seconds, as trace-cmd report and the tracefs text print it, with every
 * nanosecond), the thread and vCPU, the reason and the sub-key.
 */
#include <string.h>
#include "exit-types.h"
#include "jsonw.h"
#include "render-local.h"
#include "term.h"

static void ts_text(char *buf, size_t len, uint64_t ts, bool ticks)
{
	if (ticks) /* a counter's value, as the trace prints it: no seconds in it */
		snprintf(buf, len, "%llu", (unsigned long long)ts);
	else
		snprintf(buf, len, "%llu.%09llu", (unsigned long long)(ts / 1000000000u),
			 (unsigned long long)(ts % 1000000000u));
}

/* "port 0x80", or NULL when the exit had no sub-key. */
static const char *sub_text(const struct stats_outlier *x, char *buf, size_t len)
{
	if (!x->has_sub)
		return NULL;
	return exit_types_sub_text(exit_types_builtin_details(), (enum kes_detail)x->sub_kind,
				   x->sub, buf, len);
}

/* The time in the unit, exactly: ns / 1000 has three decimals. */
static void time_text(char *buf, size_t len, uint64_t ns, const struct render_slowest *s)
{
	if (s->unit_ns > 1)
		snprintf(buf, len, "%llu.%03llu", (unsigned long long)(ns / 1000),
			 (unsigned long long)(ns % 1000));
	else
		snprintf(buf, len, "%llu", (unsigned long long)ns);
}

enum { S_NAME, S_TIME, S_TS, S_VCPU, S_TID, S_COMM, S_SUB, S_CAUSE, S_N };

static void table(FILE *f, const struct render_opts *o, const struct render_meta *m,
		  const struct render_slowest *s)
{
	static char time_head[16];
	size_t width = o->width ? o->width : RENDER_WIDTH_DEFAULT;
	struct fit_table *t = fit_new(s->anatomy ? S_N : S_CAUSE);
	char head[160];

	render_table_head(f, m, NULL, s->unit, width);
	snprintf(head, sizeof(head),
		 "The %zu slowest of %llu timed exits (equal times: earlier first, then by thread)",
		 s->n, (unsigned long long)s->seen);
	fit_wrap(f, "", head, width);
	snprintf(time_head, sizeof(time_head), "TIME(%s)", s->unit);
	fit_col(t, S_NAME, "REASON", false);
	fit_col(t, S_TIME, time_head, true);
	fit_col(t, S_TS, "TIMESTAMP", true);
	fit_col(t, S_VCPU, "VCPU", true);
	fit_col(t, S_TID, "TID", true);
	fit_col(t, S_COMM, "THREAD", false);
	fit_col(t, S_SUB, "SUB-KEY", false);
	if (s->anatomy)
		fit_col(t, S_CAUSE, "CAUSE", false);
	for (size_t i = 0; i < s->n; i++) {
		const struct stats_outlier *x = &s->v[i];
		char **row = fit_row(t), b[512], e[512];

		fit_set(row, S_NAME, term_safe(x->name, e, sizeof(e)));
		time_text(b, sizeof(b), x->ns, s);
		fit_set(row, S_TIME, b);
		ts_text(b, sizeof(b), x->ts, m->ticks);
		fit_set(row, S_TS, b);
		snprintf(b, sizeof(b), "%d", (int)x->vcpu);
		fit_set(row, S_VCPU, x->vcpu >= 0 ? b : "-");
		snprintf(b, sizeof(b), "%d", (int)x->tid);
		fit_set(row, S_TID, b);
		fit_set(row, S_COMM, s->comms[i] ? term_safe(s->comms[i], e, sizeof(e)) : "-");
		fit_set(row, S_SUB, sub_text(x, b, sizeof(b)) ? b : "-");
		if (s->anatomy)
			fit_set(row, S_CAUSE,
				x->has_split ? render_split_cause(&x->split, b, sizeof(b)) : "-");
	}
	fit_print(f, t, width);
	fit_free(t);
}

/* --anatomy's columns: whether it was split, each part in ns, the halts, who preempted it. */
static void csv_anatomy_head(FILE *f)
{
	fputs(",split", f);
	for (int p = 0; p < STATS_NPARTS; p++)
		fprintf(f, ",%s_ns", stats_part_name((enum stats_part)p));
	fputs(",halts,slept,dominant,who,who_pid,who_ns,cause", f);
}

static void csv_anatomy(FILE *f, const struct stats_outlier *x)
{
	const struct stats_split *s = &x->split;
	char b[256];

	fprintf(f, ",%d", s->split);
	for (int p = 0; p < STATS_NPARTS; p++)
		fprintf(f, ",%llu", (unsigned long long)s->ns[p]);
	fprintf(f, ",%u,%u,%s,", s->halts, s->slept,
		s->split ? stats_part_name(stats_split_dominant(s)) : "");
	csv_quote(f, s->who[0].comm ? s->who[0].comm : "");
	fprintf(f, ",%d,%llu,", s->who[0].comm ? (int)s->who[0].pid : 0,
		(unsigned long long)s->who[0].ns);
	csv_quote(f, x->has_split ? render_split_cause(s, b, sizeof(b)) : "");
}

static void json_anatomy(struct jsonw *w, const struct stats_outlier *x)
{
	const struct stats_split *s = &x->split;
	char b[256];

	jsonw_obj_open_flat(w, "anatomy");
	jsonw_bool(w, "split", s->split);
	for (int p = 0; p < STATS_NPARTS && s->split; p++)
		jsonw_u64(w, stats_part_name((enum stats_part)p), s->ns[p]);
	jsonw_u64(w, "halts", s->halts);
	jsonw_u64(w, "slept", s->slept);
	jsonw_str(w, "dominant", s->split ? stats_part_name(stats_split_dominant(s)) : NULL);
	jsonw_arr_open_flat(w, "who");
	for (int i = 0; i < STATS_SPLIT_WHO && s->who[i].comm; i++) {
		jsonw_obj_open_flat(w, NULL);
		jsonw_str(w, "comm", s->who[i].comm);
		jsonw_i64(w, "pid", s->who[i].pid);
		jsonw_u64(w, "ns", s->who[i].ns);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_str(w, "cause", render_split_cause(s, b, sizeof(b)));
	jsonw_obj_close(w);
}

static void csv(FILE *f, const struct render_meta *m, const struct render_slowest *s)
{
	fputs("rank,ts_ns,ts,tid,vcpu,comm,name,sub,sub_kind,ns,time,unit", f);
	if (s->anatomy)
		csv_anatomy_head(f);
	fputc('\n', f);
	for (size_t i = 0; i < s->n; i++) {
		const struct stats_outlier *x = &s->v[i];
		char ts[32], tm[32], sub[64];
		const char *kind = x->has_sub ? exit_types_sub_label(exit_types_builtin_details(),
								     (enum kes_detail)x->sub_kind)
					      : NULL;

		ts_text(ts, sizeof(ts), x->ts, m->ticks);
		time_text(tm, sizeof(tm), x->ns, s);
		fprintf(f, "%zu,%llu,%s,%d,%d,", i + 1, (unsigned long long)x->ts, ts, (int)x->tid,
			(int)x->vcpu);
		csv_quote(f, s->comms[i] ? s->comms[i] : "");
		fputc(',', f);
		csv_quote(f, x->name);
		snprintf(sub, sizeof(sub), "0x%llx", (unsigned long long)x->sub);
		fprintf(f, ",%s,%s,%llu,%s,%s", x->has_sub ? sub : "", kind ? kind : "",
			(unsigned long long)x->ns, tm, s->unit);
		if (s->anatomy)
			csv_anatomy(f, x);
		fputc('\n', f);
	}
}

static void json(FILE *f, const struct render_meta *m, const struct render_slowest *s)
{
	struct jsonw w;

	jsonw_start(&w, f, true);
	jsonw_obj_open(&w, NULL);
	jsonw_str(&w, "schema", "kvm-exitstat-slowest/1");
	jsonw_str(&w, "inputs", m->inputs);
	jsonw_str(&w, "input_kind", m->kind);
	jsonw_str(&w, "isa", m->isa);
	jsonw_str(&w, "source", m->source);
	jsonw_str(&w, "buckets", m->buckets);
	jsonw_str(&w, "unit", s->unit);
	jsonw_u64(&w, "timed", s->seen);
	jsonw_arr_open(&w, "slowest");
	for (size_t i = 0; i < s->n; i++) {
		const struct stats_outlier *x = &s->v[i];
		char sub[64];

		jsonw_obj_open_flat(&w, NULL);
		jsonw_u64(&w, "rank", i + 1);
		jsonw_u64(&w, "ts_ns", x->ts);
		jsonw_i64(&w, "tid", x->tid);
		if (x->vcpu >= 0)
			jsonw_i64(&w, "vcpu", x->vcpu);
		else
			jsonw_null(&w, "vcpu");
		jsonw_str(&w, "comm", s->comms[i]);
		jsonw_str(&w, "name", x->name);
		snprintf(sub, sizeof(sub), "0x%llx", (unsigned long long)x->sub);
		jsonw_str(&w, "sub", x->has_sub ? sub : NULL);
		jsonw_str(&w, "sub_kind",
			  x->has_sub ? exit_types_sub_label(exit_types_builtin_details(),
							    (enum kes_detail)x->sub_kind)
				     : NULL);
		jsonw_u64(&w, "ns", x->ns);
		jsonw_f64(&w, "time", (double)x->ns / s->unit_ns);
		if (s->anatomy && x->has_split)
			json_anatomy(&w, x);
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	jsonw_obj_close(&w);
	jsonw_end(&w);
}

/*
 * --anatomy in the PPC format: a line per exit, its cause first, as a person
 * says it ("npf 17.9 ms: 17.6 ms runnable behind kworker/1:2 (pid 93)"), then
 * what finds it in the trace.
 */
static void cause_lines(FILE *f, const struct render_meta *m, const struct render_slowest *s)
{
	fputs("# kvm-exitstat slowest exits and their causes: ", f);
	term_fputs(m->inputs, f);
	fprintf(f, " (%s), exits from %s\n", m->kind, m->source);
	for (size_t i = 0; i < s->n; i++) {
		const struct stats_outlier *x = &s->v[i];
		char t[32], ts[32], c[256], e[512], b[64];

		render_human_ns(t, sizeof(t), x->ns);
		ts_text(ts, sizeof(ts), x->ts, m->ticks);
		fprintf(f, "%s %s: %s [ts %s tid %d vcpu %d%s%s]\n", term_safe(x->name, e, sizeof(e)),
			t, x->has_split ? render_split_cause(&x->split, c, sizeof(c)) : "not split", ts,
			(int)x->tid, (int)x->vcpu, x->has_sub ? " " : "",
			sub_text(x, b, sizeof(b)) ? b : "");
	}
}

void render_slowest(FILE *f, const struct render_opts *o, const struct render_meta *m,
		    const struct render_slowest *s)
{
	if (o->fmt == RENDER_PPC && s->anatomy) {
		cause_lines(f, m, s);
		return;
	}
	switch (o->fmt) {
	case RENDER_CSV:
		csv(f, m, s);
		break;
	case RENDER_JSON:
		json(f, m, s);
		break;
	default: /* the PPC format has no rows of single exits: the table */
		table(f, o, m, s);
		break;
	}
}
