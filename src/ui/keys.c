// SPDX-License-Identifier: GPL-2.0
/*
 * Keys -> actions -> reactions. Handlers change the state and say what the
 * loop must do (redraw, rebuild the rows, end the interval, reset, quit);
 * they never draw or read the collector. One table binds keys, one says
 * what they do: the help screen and the man page list the same keys.
 * kvm_stat's keys keep their meaning (b c f g h o p q r s x; any other key
 * refreshes); e is the view kvm_stat starts in (every kvm:* event counted).
 */
#include <ctype.h>
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "ui-local.h"

#define KEY_ESC 27

static const struct {
	int key;
	enum ui_action a;
} bindings[] = {
    {'q', UI_A_QUIT},	     {'Q', UI_A_QUIT},		 {'h', UI_A_HELP},
    {'?', UI_A_HELP},	     {'o', UI_A_SORT_NEXT},	 {'T', UI_A_SORT_TOTAL},
    {'R', UI_A_SORT_RATE},   {'A', UI_A_SORT_AVG},	 {'M', UI_A_SORT_MAX},
    {'P', UI_A_SORT_TIME},   {KEY_UP, UI_A_UP},		 {'k', UI_A_UP},
    {KEY_DOWN, UI_A_DOWN},   {'j', UI_A_DOWN},		 {KEY_PPAGE, UI_A_PGUP},
    {KEY_NPAGE, UI_A_PGDN},  {KEY_HOME, UI_A_HOME},	 {KEY_END, UI_A_END},
    {'x', UI_A_DRILL},	     {'\n', UI_A_DRILL},	 {'\r', UI_A_DRILL},
    {KEY_ENTER, UI_A_DRILL}, {KEY_RIGHT, UI_A_DRILL},	 {KEY_LEFT, UI_A_BACK},
    {KEY_ESC, UI_A_BACK},    {KEY_BACKSPACE, UI_A_BACK}, {'b', UI_A_VMS},
    {'f', UI_A_FILTER_RE},   {'g', UI_A_FILTER_GUEST},	 {'p', UI_A_FILTER_PID},
    {'c', UI_A_CLEAR},	     {'r', UI_A_RESET},		 {'z', UI_A_PAUSE},
    {'Z', UI_A_PAUSE},	     {'0', UI_A_ZERO},		 {'u', UI_A_SOURCE},
    {'s', UI_A_DELAY},	     {KEY_RESIZE, UI_A_NONE},	 {'e', UI_A_EVENTS},
    {'a', UI_A_CAUSE},
};

const struct ui_key_help ui_key_help[] = {
    {"q Q", "quit"},
    {"h ?", "this help (q quits, any other key closes it)"},
    {"T R A M P", "sort by Total, Rate/s, Avg, Max, %Time"},
    {"o", "next sort order"},
    {"Up Down j k", "select a row"},
    {"PgUp PgDn Home End", "a page up or down, the first or the last row"},
    {"x Enter Right", "drill down: the selected reason by vCPU thread and by sub-key"},
    {"", "(PIO port, MMIO gpa, MSR, hypercall nr); in the VM view: that VM only"},
    {"x Left Esc Backspace", "back to the reasons"},
    {"b", "per-VM breakdown (VM = the VMM process, named by QEMU -name or comm)"},
    {"f", "filter reasons by regular expression (empty: no filter)"},
    {"g", "filter by guest name"},
    {"p", "filter by pid: VMM processes or vCPU threads, N[,N...]"},
    {"c", "clear the filters"},
    {"r", "reset the counters"},
    {"z Z", "pause / resume the display (counting goes on)"},
    {"0", "show / hide the reasons with no exit since start"},
    {"u", "source: auto, kvm_exit/kvm_entry, userspace exits (KVM_EXIT_*)"},
    {"e", "all events: every kvm:* tracepoint counted (kvm_stat's view), from the"},
    {"", "first e on (or from the start with --all-events); e again: the exits"},
    {"s", "set the refresh interval"},
    {"a", "show / hide the cause column (--anatomy: where each reason's time went)"},
    {"other keys", "refresh now"},
};
const size_t ui_nkey_help = ARRAY_SIZE(ui_key_help);

enum ui_action ui_keys_action(int ch)
{
	for (size_t i = 0; i < ARRAY_SIZE(bindings); i++)
		if (bindings[i].key == ch)
			return bindings[i].a;
	return UI_A_REFRESH;
}

/* ------------------------------------------------------------------------ */
/* Prompts: a line edited in the loop, so that no call blocks outside the
 * collector's wait (where SIGINT/SIGTERM are delivered). */

static unsigned prompt_done(struct ui_state *st)
{
	char *in = st->input;
	char *end;
	double d;

	switch (st->prompt) {
	case 'f':
		ui_filter_set_re(&st->f, in, st->msg, sizeof(st->msg));
		break;
	case 'g':
		snprintf(st->f.guest, sizeof(st->f.guest), "%s", in);
		break;
	case 'p':
		ui_filter_set_pids(&st->f, in, st->msg, sizeof(st->msg));
		break;
	case 's':
		if (!*in)
			break;
		d = strtod(in, &end);
		if (end == in || *end || !(d >= 0.1 && d <= 3600))
			snprintf(st->msg, sizeof(st->msg), "'%s': want seconds, 0.1 to 3600", in);
		else
			st->delay = d;
		st->prompt = 0;
		return UI_R_TICK | UI_R_REDRAW;
	}
	st->prompt = 0;
	st->sel = st->top = 0;
	return UI_R_REBUILD | UI_R_REDRAW;
}

static unsigned prompt_key(struct ui_state *st, int ch)
{
	if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
		return prompt_done(st);
	if (ch == KEY_ESC) {
		st->prompt = 0;
		return UI_R_REDRAW;
	}
	if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && st->ninput)
		st->input[--st->ninput] = 0;
	else if (ch >= 32 && ch < 127 && st->ninput + 1 < sizeof(st->input))
		st->input[st->ninput++] = (char)ch, st->input[st->ninput] = 0;
	return UI_R_REDRAW;
}

static unsigned open_prompt(struct ui_state *st, int key)
{
	st->prompt = key;
	st->input[0] = 0;
	st->ninput = 0;
	return UI_R_REDRAW;
}

/* ------------------------------------------------------------------------ */

static size_t nsel(const struct ui_state *st, const struct ui_view *v)
{
	return st->mode == UI_MODE_DRILL ? v->nrows + v->nsubs : v->nrows;
}

static unsigned move_sel(struct ui_state *st, const struct ui_view *v, long delta)
{
	size_t n = nsel(st, v);
	long s = (long)st->sel + delta;

	if (!n)
		return 0;
	if (s < 0)
		s = 0;
	if (s >= (long)n)
		s = (long)n - 1;
	st->sel = (size_t)s;
	return UI_R_REDRAW;
}

static unsigned drill(struct ui_state *st, const struct ui_view *v)
{
	char msg[32];

	if (st->mode == UI_MODE_DRILL) {
		st->mode = UI_MODE_REASONS;
	} else if (st->mode == UI_MODE_VMS) {
		/* a VM row's key names its VMM in the tid (model.c's fold) */
		if (st->sel >= v->nrows || v->rows[st->sel].s.key.tid <= 0)
			return 0;
		snprintf(msg, sizeof(msg), "%d", (int)v->rows[st->sel].s.key.tid);
		ui_filter_set_pids(&st->f, msg, st->msg, sizeof(st->msg));
		snprintf(st->msg, sizeof(st->msg), "showing %s only; c clears the filter",
			 v->rows[st->sel].label);
		st->mode = UI_MODE_REASONS;
	} else {
		if (st->sel >= v->nrows)
			return 0;
		st->drill = v->rows[st->sel].s.key.name;
		st->mode = UI_MODE_DRILL;
	}
	st->sel = st->top = 0;
	return UI_R_REBUILD | UI_R_REDRAW;
}

static unsigned sort_by(struct ui_state *st, enum ui_sort s)
{
	st->sort = s;
	return UI_R_REBUILD | UI_R_REDRAW;
}

static unsigned act(struct ui_state *st, const struct ui_view *v, enum ui_action a, int page)
{
	switch (a) {
	case UI_A_QUIT:
		return UI_R_QUIT;
	case UI_A_HELP:
		st->help = true;
		return UI_R_REDRAW;
	case UI_A_SORT_NEXT:
		return sort_by(st, (st->sort + 1) % UI_NSORT);
	case UI_A_SORT_TOTAL:
	case UI_A_SORT_RATE:
	case UI_A_SORT_AVG:
	case UI_A_SORT_MAX:
	case UI_A_SORT_TIME:
		return sort_by(st, (enum ui_sort)(UI_SORT_TOTAL + (a - UI_A_SORT_TOTAL)));
	case UI_A_UP:
		return move_sel(st, v, -1);
	case UI_A_DOWN:
		return move_sel(st, v, 1);
	case UI_A_PGUP:
		return move_sel(st, v, -page);
	case UI_A_PGDN:
		return move_sel(st, v, page);
	case UI_A_HOME:
		return move_sel(st, v, -(long)nsel(st, v));
	case UI_A_END:
		return move_sel(st, v, (long)nsel(st, v));
	case UI_A_DRILL:
		return drill(st, v);
	case UI_A_BACK:
		if (st->mode == UI_MODE_REASONS)
			return 0;
		st->mode = UI_MODE_REASONS;
		st->sel = st->top = 0;
		return UI_R_REBUILD | UI_R_REDRAW;
	case UI_A_VMS:
		st->mode = st->mode == UI_MODE_VMS ? UI_MODE_REASONS : UI_MODE_VMS;
		st->sel = st->top = 0;
		return UI_R_REBUILD | UI_R_REDRAW;
	case UI_A_FILTER_RE:
		return open_prompt(st, 'f');
	case UI_A_FILTER_GUEST:
		return open_prompt(st, 'g');
	case UI_A_FILTER_PID:
		return open_prompt(st, 'p');
	case UI_A_DELAY:
		return open_prompt(st, 's');
	case UI_A_CLEAR:
		ui_filter_set_re(&st->f, "", st->msg, sizeof(st->msg));
		ui_filter_set_pids(&st->f, "", st->msg, sizeof(st->msg));
		st->f.guest[0] = 0;
		return UI_R_REBUILD | UI_R_REDRAW;
	case UI_A_RESET:
		return UI_R_RESET | UI_R_REBUILD | UI_R_REDRAW;
	case UI_A_PAUSE:
		st->paused = !st->paused;
		/* Resuming ends the interval at once: the rates cover the pause. */
		return st->paused ? UI_R_REDRAW : UI_R_TICK | UI_R_REDRAW;
	case UI_A_ZERO:
		st->show_zero = !st->show_zero;
		return UI_R_REBUILD | UI_R_REDRAW;
	case UI_A_CAUSE:
		st->cause = !st->cause;
		if (st->cause && !v->has_cause)
			snprintf(st->msg, sizeof(st->msg),
				 "no causes: start top with --anatomy (the reasons view)");
		return UI_R_REBUILD | UI_R_REDRAW;
	case UI_A_EVENTS:
		st->events = !st->events;
		if (st->mode == UI_MODE_DRILL)
			st->mode = UI_MODE_REASONS; /* the drilled name is of the other view */
		st->sel = st->top = 0;
		return (st->events ? UI_R_EVENTS : 0) | UI_R_REBUILD | UI_R_REDRAW;
	case UI_A_SOURCE:
		st->source = (enum ui_source)((st->source + 1) % 3);
		st->sel = st->top = 0;
		return UI_R_REBUILD | UI_R_REDRAW;
	case UI_A_REFRESH:
		return UI_R_TICK | UI_R_REDRAW;
	case UI_A_NONE:
		break;
	}
	return UI_R_REDRAW;
}

unsigned ui_keys_handle(struct ui_state *st, const struct ui_view *v, int ch, int page_rows)
{
	if (st->prompt)
		return prompt_key(st, ch);
	st->msg[0] = 0;
	if (st->help) {
		st->help = false;
		return ui_keys_action(ch) == UI_A_QUIT ? UI_R_QUIT : UI_R_REDRAW;
	}
	return act(st, v, ui_keys_action(ch), page_rows > 1 ? page_rows - 1 : 1);
}
