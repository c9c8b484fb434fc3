// SPDX-License-Identifier: GPL-2.0
/*
 * top --stats: kvm_stat -d's job, per VM, from KVM's own statistics
 * (live/kvmstats.c: debugfs, and the statistics fds a VMM holds), with
 * rates over each interval. No tracing at all. --once prints one interval's
 * table, --log one line per interval (the rates summed over the VMs, one
 * column per counter; -c CSV, --json one object with every VM), the screen
 * redraws the table each interval. -f REGEX keeps the statistics whose name
 * matches from its start (kvm_stat's -f).
 */
#include <curses.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "alloc.h"
#include "err.h"
#include "jsonw.h"
#include "kvmstats.h"
#include "live.h"
#include "render.h"
#include "ui-local.h"

struct kst {
	const struct ui_top_opts *o;
	struct kvmstats *k;
	struct kstat_reading prev, cur;
	char host[256];
	bool banner;
};

static bool keep(const char *name, void *arg)
{
	const struct ui_top_opts *o = arg;

	/* anchored at the start when compiled (ui_fields_regcomp(): kvm_stat's re.match) */
	return !o->fields_re || regexec(o->fields_re, name, 0, NULL, 0) == 0;
}

/* Waits until t (monotonic s), or a stop; false on a stop. */
static bool wait_until(double t)
{
	while (!live_stop_requested() && ui_now() < t)
		live_sleep(ui_wait_ms(t));
	return !live_stop_requested();
}

static int read_now(struct kst *s)
{
	char e[512];

	kstat_reading_free(&s->prev);
	s->prev = s->cur;
	s->cur = (struct kstat_reading){0};
	if (kvmstats_read(s->k, &s->cur, e, sizeof(e)) < 0)
		return err("%s", e);
	return 0;
}

static struct kstat_view *view_of(struct kst *s, unsigned extra)
{
	return kstat_view_new(kvmstats_schema(s->k), &s->prev, &s->cur,
			      KSTAT_VIEW_TOTAL | KSTAT_VIEW_NONZERO | extra, keep, (void *)s->o);
}

static void title(struct kst *s, const struct kstat_view *v, char *buf, size_t len)
{
	snprintf(buf, len,
		 "kvm-exitstat top --stats: host %s, %zu VMs, interval %.2f s; KVM's own "
		 "statistics (no tracing), descriptors from %s",
		 s->host, s->cur.nvms, v->dt, kvmstats_schema_source(s->k));
}

/* ------------------------------------------------------------------------ */

static int run_once(struct kst *s)
{
	struct kstat_view *v;
	char t[512];

	if (read_now(s) < 0)
		return -1;
	if (!wait_until(ui_now() + s->o->delay) && !s->cur.nvms)
		return 0;
	if (read_now(s) < 0)
		return -1;
	v = view_of(s, 0);
	title(s, v, t, sizeof(t));
	render_kstat_table(stdout, v, t);
	kstat_view_free(v);
	return fflush(stdout) == 0 ? 0 : err_errno("writing the table");
}

/* --log: the columns are the counters the schema has (those -f keeps), summed over VMs. */
static bool log_col(const struct kst *s, const struct kstat_desc *d)
{
	return kstat_is_counter(d) && !kstat_is_hist(d) && keep(d->name, (void *)s->o);
}

static void log_banner(struct kst *s, FILE *f)
{
	const struct kstat_schema *sc = kvmstats_schema(s->k);
	bool csv = s->o->csv;

	fputs(csv ? "time" : "# time    ", f);
	for (size_t i = 0; i < sc->n; i++)
		if (log_col(s, &sc->d[i]))
			fprintf(f, csv ? ",%s" : " %s", sc->d[i].name);
	fputc('\n', f);
}

static const struct kstat_row *total_row(const struct kstat_view *v, const char *name)
{
	const struct kstat_block *b = v->nb ? &v->b[v->nb - 1] : NULL;

	for (size_t i = 0; b && i < b->nrows; i++)
		if (!strcmp(b->rows[i].d->name, name))
			return &b->rows[i];
	return NULL;
}

static void log_text(struct kst *s, FILE *f, const struct kstat_view *v, const char *ts)
{
	const struct kstat_schema *sc = kvmstats_schema(s->k);

	fputs(ts, f);
	for (size_t i = 0; i < sc->n; i++) {
		const struct kstat_row *r;

		if (!log_col(s, &sc->d[i]))
			continue;
		r = total_row(v, sc->d[i].name);
		fprintf(f, s->o->csv ? ",%.1f" : " %.1f", r && !isnan(r->rate) ? r->rate : 0.0);
	}
	fputc('\n', f);
}

static void log_json(struct kst *s, FILE *f, const struct kstat_view *v, const char *ts)
{
	struct jsonw w;

	jsonw_start(&w, f, false);
	jsonw_obj_open(&w, NULL);
	jsonw_str(&w, "time", ts);
	jsonw_f64(&w, "interval_s", v->dt);
	jsonw_arr_open(&w, "blocks");
	for (size_t i = 0; i < v->nb; i++) {
		const struct kstat_block *b = &v->b[i];

		jsonw_obj_open(&w, NULL);
		jsonw_str(&w, "label", b->label);
		if (b->pid >= 0)
			jsonw_i64(&w, "pid", b->pid);
		jsonw_obj_open(&w, "delta");
		for (size_t j = 0; j < b->nrows; j++)
			jsonw_u64(&w, b->rows[j].d->name, b->rows[j].delta);
		jsonw_obj_close(&w);
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	jsonw_obj_close(&w);
	jsonw_end(&w);
}

static int run_log(struct kst *s)
{
	double next;
	char ts[32];
	int n = 0;

	if (read_now(s) < 0)
		return -1;
	next = ui_now() + s->o->delay;
	while (wait_until(next)) {
		struct kstat_view *v;
		time_t now = time(NULL);

		next += s->o->delay;
		if (read_now(s) < 0)
			return -1;
		strftime(ts, sizeof(ts), "%H:%M:%S", localtime(&now));
		v = view_of(s, 0);
		if (!s->o->json && (s->o->csv ? !n : n % 20 == 0))
			log_banner(s, stdout);
		if (s->o->json)
			log_json(s, stdout, v, ts);
		else
			log_text(s, stdout, v, ts);
		kstat_view_free(v);
		n++;
		if (fflush(stdout) != 0)
			return errno == EPIPE ? 0 : err_errno("writing the log");
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The screen: the --once table, redrawn each interval; q quits. */

static void draw(struct kst *s)
{
	struct kstat_view *v = view_of(s, 0);
	char t[512], *text = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int y = 0;

	title(s, v, t, sizeof(t));
	if (m) {
		render_kstat_table(m, v, t);
		fclose(m);
	}
	erase();
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line && y < LINES - 1;
	     line = strtok_r(NULL, "\n", &save))
		mvaddnstr(y++, 0, line, COLS);
	mvaddstr(LINES - 1, 0, "q: quit");
	refresh();
	free(text);
	kstat_view_free(v);
}

static int run_screen(struct kst *s)
{
	double next;
	char e[256];
	int ret = 0;

	if (read_now(s) < 0)
		return -1;
	if (ui_crt_init(e, sizeof(e)) < 0)
		return err("%s", e);
	draw(s);
	next = ui_now() + s->o->delay;
	while (!live_stop_requested()) {
		int ch;

		live_sleep(ui_wait_ms(next));
		while ((ch = getch()) != ERR)
			if (ch == 'q')
				goto out;
		if (ui_crt_resized())
			draw(s);
		if (ui_now() < next)
			continue;
		next = ui_now() + s->o->delay;
		if (read_now(s) < 0) {
			ret = -1;
			break;
		}
		draw(s);
	}
out:
	ui_crt_done();
	return ret;
}

int ui_kstat_run(const struct ui_top_opts *o)
{
	struct kvmstats_opts ko = {.pids = o->pids, .npids = o->npids};
	struct kst s = {.o = o};
	char e[512];
	int ret;

	if (live_signals_install() < 0)
		return err_errno("cannot install signal handlers"), 1;
	s.k = kvmstats_new(&ko, e, sizeof(e));
	if (!s.k)
		return err("%s", e), 1;
	gethostname(s.host, sizeof(s.host) - 1);
	if (o->fields && !strcmp(o->fields, "help")) { /* -f help: the statistics' names */
		const struct kstat_schema *sc = kvmstats_schema(s.k);

		for (size_t i = 0; i < sc->n; i++)
			printf("%s (%s, %s)\n", sc->d[i].name, kstat_type_name(sc->d[i].type),
			       sc->d[i].vcpu ? "per vCPU" : "per VM");
		kvmstats_free(s.k);
		return 0;
	}
	switch (o->out) {
	case UI_OUT_ONCE:
		ret = run_once(&s);
		break;
	case UI_OUT_LOG:
		ret = run_log(&s);
		break;
	default:
		ret = run_screen(&s);
		break;
	}
	kstat_reading_free(&s.prev);
	kstat_reading_free(&s.cur);
	kvmstats_free(s.k);
	return ret < 0 ? 1 : 0;
}
