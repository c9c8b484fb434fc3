// SPDX-License-Identifier: GPL-2.0
/*
 * The curses loop. Each turn waits in the collector (at most 100 ms, so keys
 * answer quickly; SIGINT/SIGTERM are delivered only there, see
 * live_signals_install), reads the keys, and at the refresh tick builds
 * the view from the aggregates and draws it. Keys never block: prompts are
 * edited here, one key at a time.
 */
#include <curses.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "err.h"
#include "live.h"
#include "ui-local.h"

/* kvm_stat's first refresh comes after 0.25 s: something shows at once. */
#define FIRST_REFRESH_S 0.25

struct screen {
	struct ui_top *t;
	struct ui_state st;
	struct ui_view v;
	double next;	/* next refresh tick */
	char fail[256]; /* printed once the terminal is back */
};

static int failed(struct screen *s, const char *what)
{
	err_buf_errno(s->fail, sizeof(s->fail), "%s", what);
	return -1;
}

static void rebuild(struct screen *s)
{
	ui_view_free(&s->v);
	ui_model_build(&s->v, s->t->live, &s->t->vms, &s->st, s->t->o->types);
}

/* The first e: every kvm:* event is enabled and counted from now on (top.c: not before). */
static void count_all(struct screen *s)
{
	if (watch_count_all(s->t->live, s->st.msg, sizeof(s->st.msg)) < 0)
		s->st.events = false; /* the message says why */
	else
		snprintf(s->st.msg, sizeof(s->st.msg), "counting every kvm:* event from now on");
}

/* Applies what the keys asked for; returns the reactions still to do. */
static unsigned read_keys(struct screen *s)
{
	unsigned all = 0;
	int ch;

	while ((ch = getch()) != ERR) {
		unsigned r = ui_keys_handle(&s->st, &s->v, ch, ui_table_page_rows());

		if (r & UI_R_QUIT)
			return all | UI_R_QUIT;
		if ((r & UI_R_EVENTS) && !s->t->live->evname)
			count_all(s);
		if (r & UI_R_RESET) {
			watch_reset(s->t->live);
			snprintf(s->st.msg, sizeof(s->st.msg), "counters reset");
		}
		/* The next key may select a row: it must see the rows it selects from. */
		if (r & UI_R_REBUILD)
			rebuild(s);
		all |= r & ~(unsigned)(UI_R_REBUILD | UI_R_RESET | UI_R_EVENTS);
	}
	return all;
}

static int turn(struct screen *s)
{
	unsigned r;
	bool tick;

	if (ui_top_poll(s->t, ui_wait_ms(s->next)) < 0)
		return failed(s, "reading the trace buffers");
	r = ui_crt_resized() ? UI_R_REDRAW : 0;
	r |= read_keys(s);
	if (r & UI_R_QUIT)
		return 1;
	tick = !s->st.paused && ((r & UI_R_TICK) || ui_now() >= s->next);
	if (tick) {
		if (ui_top_tick(s->t) < 0)
			return failed(s, "reading the trace buffers");
		s->next = ui_now() + s->st.delay;
		rebuild(s);
	}
	if (tick || (r & UI_R_REDRAW))
		ui_table_draw(&s->v, &s->st, &s->t->hdr);
	return 0;
}

int ui_screen_run(struct ui_top *t)
{
	struct screen s = {.t = t};
	char e[256];
	int ret = 0;

	s.st = (struct ui_state){.sort = UI_SORT_TOTAL,
				 .source = t->o->source,
				 .events = t->o->all_events,
				 .delay = t->o->delay,
				 .buckets = t->o->buckets != NULL,
				 .cause = t->o->anatomy,
				 .syms = t->o->syms};
	if (t->o->fields_re)
		ui_filter_use_re(&s.st.f, t->o->fields_re, t->o->fields);
	if (ui_crt_init(e, sizeof(e)) < 0) {
		ui_filter_free(&s.st.f);
		return err("%s", e);
	}
	ui_color_init(ui_color_wanted(t->o->no_color));
	s.next = ui_now() + (t->o->delay < FIRST_REFRESH_S ? t->o->delay : FIRST_REFRESH_S);
	rebuild(&s);
	ui_table_draw(&s.v, &s.st, &t->hdr);
	while (!live_stop_requested() && !(ret = turn(&s)))
		;
	/* The terminal first, so that an error message lands on a sane one. */
	ui_crt_done();
	ui_view_free(&s.v);
	ui_filter_free(&s.st.f);
	return ret < 0 ? err("%s", s.fail) : 0;
}
