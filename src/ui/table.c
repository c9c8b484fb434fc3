// SPDX-License-Identifier: GPL-2.0
/*
 * Draws a built view: header, the table panel, the key line, the help
 * screen. Prints what model.c computed and nothing else. No flicker: the
 * whole screen is erased and drawn into curses' buffer, then one doupdate()
 * sends only what changed.
 */
#include <curses.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "ui-local.h"

#define HEAD_ROWS 4 /* title, facts, status, column header */
#define FOOT_ROWS 1

enum { C_TOTAL, C_PCT, C_RATE, C_AVG, C_P99, C_MAX, C_TIME, NCOLS };

struct col {
	const char *name;
	int width;
};

/*
 * Under 100 columns the narrow set: at 80 the label keeps 18 characters
 * (KVM_EXIT_X86_RDMSR whole) and %TIME stays on screen. Times take 7
 * characters under 10 ms ("9999.99"), 9 above ("16.10ms" .. "9999.99ms").
 */
static const struct col wide[NCOLS] = {
    {"TOTAL", 12},   {"%TOTAL", 7},   {"RATE/s", 10}, {"AVG(us)", 10},
    {"P99(us)", 10}, {"MAX(us)", 10}, {"%TIME", 7},
};
static const struct col narrow[NCOLS] = {
    {"TOTAL", 9},   {"%TOTAL", 6},  {"RATE/s", 8}, {"AVG(us)", 8},
    {"P99(us)", 8}, {"MAX(us)", 9}, {"%TIME", 6},
};
static const struct col *cols = wide;
/* --anatomy's cause column after %TIME, this frame (0: not shown) */
#define CAUSE_W 14
static int cause_w;

static const int sort_col[UI_NSORT] = {C_TOTAL, C_RATE, C_AVG, C_MAX, C_TIME};

/* The columns a view has: events are counted, not timed (TOTAL %TOTAL RATE/s). */
static int ncols_of(const struct ui_view *v)
{
	return v->src == WATCH_EVENTS ? C_AVG : NCOLS;
}

static void put(int y, int x, int attr, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void put(int y, int x, int attr, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (y < 0 || y >= LINES || x >= COLS)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	attron(attr);
	mvaddnstr(y, x, buf, COLS - x);
	attroff(attr);
}

static int label_width(void)
{
	int w = COLS - 1;

	cols = COLS < 100 ? narrow : wide;

	for (int i = 0; i < NCOLS; i++)
		w -= cols[i].width + 1;
	w -= cause_w;
	return w < 12 ? 12 : w > 44 ? 44 : w;
}

static int slow_rows; /* --slower-than's list under the table: its title and lines */

int ui_table_page_rows(void)
{
	int n = LINES - HEAD_ROWS - FOOT_ROWS - 2 - slow_rows; /* total and guest rows */

	return n > 1 ? n : 1;
}

/* ------------------------------------------------------------------------ */
/* Header */

static int cursor_x = -1; /* where the prompt's cursor goes, -1: hidden */

static const char *source_text(const struct ui_view *v)
{
	static char buf[96];

	if (v->src == WATCH_EVENTS) {
		snprintf(buf, sizeof(buf), "events: every kvm:* tracepoint (%zu), counts", v->nevents);
		return buf;
	}
	if (v->src == WATCH_EXITS)
		return "exits: kvm_exit -> kvm_entry";
	if (v->exit_silent)
		return "exits: userspace (KVM_EXIT_*) - kvm_exit is silent on this host";
	return "exits: userspace (KVM_EXIT_*), timed until KVM_RUN again";
}

static void draw_status(const struct ui_view *v, const struct ui_state *st,
			const struct ui_header *h)
{
	static const char *const prompts[128] = {
	    ['f'] = "Regex on reasons (empty: none): ",
	    ['g'] = "Guest name (empty: all): ",
	    ['p'] = "Pids, VMM or vCPU thread, N[,N...] (empty: all): ",
	    ['s'] = "Refresh interval in seconds: ",
	};
	char filt[300] = "";
	size_t n = 0;

	if (st->prompt > 0 && st->prompt < 128 && prompts[st->prompt]) {
		put(2, 0, A_BOLD, "%s%s", prompts[st->prompt], st->input);
		cursor_x = (int)(strlen(prompts[st->prompt]) + strlen(st->input));
		curs_set(1);
		return;
	}
	curs_set(0);
	if (st->msg[0]) {
		put(2, 0, A_BOLD, "%s", st->msg);
		return;
	}
	if (st->f.re)
		n += (size_t)snprintf(filt + n, sizeof(filt) - n, " regex /%s/", st->f.re_text);
	for (size_t i = 0; i < st->f.npids && n < sizeof(filt) - 16; i++)
		n += (size_t)snprintf(filt + n, sizeof(filt) - n, "%s%d", i ? "," : " pid ",
				      (int)st->f.pids[i]);
	if (st->f.guest[0] && n < sizeof(filt))
		snprintf(filt + n, sizeof(filt) - n, " guest %s", st->f.guest);
	put(2, 0, 0, "sort %s%s%s%s%s%s", ui_sort_name(st->sort), filt[0] ? "  filter:" : "", filt,
	    st->paused ? "  [PAUSED]" : "", h->targets_gone ? "  [traced VMs exited]" : "",
	    v->lost ? "  [EVENTS LOST]" : "");
}

static void draw_header(const struct ui_view *v, const struct ui_state *st,
			const struct ui_header *h)
{
	char evs[32];

	put(0, 0, A_BOLD, "kvm-exitstat top - host %s  ISA %s  %s%s%s", h->host,
	    v->src != WATCH_UEXITS && v->isa ? v->isa : h->machine, source_text(v),
	    h->buckets ? "  buckets " : "", h->buckets ? h->buckets : "");
	if (v->events_s >= 1e6)
		snprintf(evs, sizeof(evs), "%.2fM", v->events_s / 1e6);
	else if (v->events_s >= 1e4)
		snprintf(evs, sizeof(evs), "%.1fk", v->events_s / 1e3);
	else
		snprintf(evs, sizeof(evs), "%.0f", v->events_s);
	put(1, 0, 0, "VMs %zu%s %s  events/s %s  lost %llu  every %.1fs  tracing %s", v->nvms,
	    ui_vms_exited(v), v->nvms ? v->vms : "(none yet)", evs,
	    (unsigned long long)v->lost, st->delay, h->traced);
	draw_status(v, st, h);
}

static void draw_col_header(const struct ui_view *v, const struct ui_state *st, const char *first)
{
	int lw = label_width(), x = lw + 1;

	move(3, 0);
	attron(A_REVERSE);
	hline(' ', COLS);
	mvaddnstr(3, 0, v->src == WATCH_EVENTS && !strcmp(first, "REASON") ? "EVENT" : first, lw);
	for (int i = 0; i < ncols_of(v); i++) {
		put(3, x, A_REVERSE, "%*s", cols[i].width, cols[i].name);
		if (i == sort_col[st->sort] && x < COLS)
			mvchgat(3, x, cols[i].width < COLS - x ? cols[i].width : COLS - x,
				A_REVERSE | A_BOLD | A_UNDERLINE, ui_color_sorted(), NULL);
		x += cols[i].width + 1;
	}
	if (cause_w && v->src != WATCH_EVENTS)
		put(3, x, A_REVERSE, "%-*s", cause_w, "CAUSE");
	attroff(A_REVERSE);
}

/* ------------------------------------------------------------------------ */
/* Rows */

/* Colour over what draw_row printed: the sorted column, and a busy row's label. */
static void color_row(int y, const struct ui_row *r, int attr, int sorted)
{
	int lw = label_width(), x = lw + 1;
	short hot = ui_color_row(r->pct_time), sc = ui_color_sorted();

	if (sorted < 0)
		return; /* the Total and time-in-guest rows stay as they are */
	if (hot)
		mvchgat(y, 0, lw, attr | A_BOLD, hot, NULL);
	for (int i = 0; i < NCOLS && x < COLS; i++) {
		if (i == sorted && sc)
			mvchgat(y, x, cols[i].width < COLS - x ? cols[i].width : COLS - x, attr, sc,
				NULL);
		x += cols[i].width + 1;
	}
}

/*
 * A label in w characters. Reason names share their start (KVM_EXIT_), so
 * they are cut in the middle, keeping the end that tells them apart
 * (KVM_EXIT_X86_RDMSR / _WRMSR); drill-down labels put the thread and the
 * VM first and lose the end (the thread's name).
 */
static const char *fit_label(const char *s, int w, bool middle, char *buf, size_t len)
{
	size_t n = strlen(s), head = (size_t)(w - 1) / 3;
	const char *sp = strchr(s, ' '), *last = strrchr(s, ' ');

	if (w < 2 || n <= (size_t)w)
		return s;
	if (!middle && last && last > sp) {
		/* the thread's name goes first; then the VM's command loses its middle */
		n = (size_t)(last - s);
		if (n <= (size_t)w) {
			snprintf(buf, len, "%.*s", (int)n, s);
			return buf;
		}
		head = (size_t)(sp - s) + 4 < (size_t)w - 1 ? (size_t)(sp - s) + 4 : (size_t)w - 1;
	}
	snprintf(buf, len, "%.*s~%.*s", (int)head, s, (int)((size_t)w - 1 - head),
		 s + n - ((size_t)w - 1 - head));
	return buf;
}

static bool label_middle = true; /* set per frame: reason rows, not drill-down rows */

static void draw_row(int y, const struct ui_row *r, int attr, bool with_pct_total, int sorted,
		     bool counts_only)
{
	char avg[16], p99[16], max[16], pct[16], lb[160];
	int lw = label_width();
	const char *label = fit_label(r->label, lw, label_middle, lb, sizeof(lb));

	ui_fmt_time(avg, sizeof(avg), r->s.avg, false);
	ui_fmt_time(p99, sizeof(p99), r->s.p99, false);
	ui_fmt_time(max, sizeof(max), r->s.max, false);
	pct[0] = 0;
	if (with_pct_total)
		snprintf(pct, sizeof(pct), "%.2f", r->pct_total);
	if (attr & A_REVERSE) {
		move(y, 0);
		attron(attr);
		hline(' ', COLS);
		attroff(attr);
	}
	if (counts_only)
		put(y, 0, attr, "%-*.*s %*llu %*s %*.1f", lw, lw, label, cols[C_TOTAL].width,
		    (unsigned long long)r->s.count, cols[C_PCT].width, pct, cols[C_RATE].width,
		    r->rate);
	else
		put(y, 0, attr, "%-*.*s %*llu %*s %*.1f %*s %*s %*s %*.2f", lw, lw, label,
		    cols[C_TOTAL].width, (unsigned long long)r->s.count, cols[C_PCT].width, pct,
		    cols[C_RATE].width, r->rate, cols[C_AVG].width, avg, cols[C_P99].width, p99,
		    cols[C_MAX].width, max, cols[C_TIME].width, r->pct_time);
	if (cause_w && !counts_only) {
		int x = lw + 1;

		for (int i = 0; i < NCOLS; i++)
			x += cols[i].width + 1;
		put(y, x, attr, "%-*.*s", cause_w, cause_w, r->cause[0] ? r->cause : "-");
	}
	color_row(y, r, attr, counts_only && sorted >= C_AVG ? -1 : sorted);
}

/* One line of the table body: a section title or a row. */
struct line {
	const char *title;
	const struct ui_row *row;
	size_t sel; /* selection index of the row */
};

static size_t body_lines(const struct ui_view *v, const struct ui_state *st, struct line *out,
			 char (*titles)[128])
{
	size_t n = 0, s = 0;

	if (st->mode == UI_MODE_DRILL) {
		snprintf(titles[0], 128, "%s by vCPU thread", st->drill);
		snprintf(titles[1], 128, "%s by sub-key (the detail event that explains it)",
			 st->drill);
		out[n++] = (struct line){.title = titles[0]};
	}
	for (size_t i = 0; i < v->nrows; i++)
		out[n++] = (struct line){.row = &v->rows[i], .sel = s++};
	if (st->mode == UI_MODE_DRILL && v->src != WATCH_EVENTS) {
		out[n++] = (struct line){.title = titles[1]};
		for (size_t i = 0; i < v->nsubs; i++)
			out[n++] = (struct line){.row = &v->subs[i], .sel = s++};
	}
	return n;
}

static void draw_body(const struct ui_view *v, struct ui_state *st)
{
	size_t n = v->nrows + v->nsubs + 2, first = 0, nsel = 0;
	struct line *lines = xcalloc(n, sizeof(*lines));
	char titles[2][128];
	int y = HEAD_ROWS, page = ui_table_page_rows();

	n = body_lines(v, st, lines, titles);
	label_middle = st->mode != UI_MODE_DRILL;
	for (size_t i = 0; i < n; i++)
		nsel += lines[i].row != NULL;
	if (st->sel >= nsel)
		st->sel = nsel ? nsel - 1 : 0;
	/* Scroll so that the selected row is on screen. */
	for (size_t i = 0; i < n; i++)
		if (lines[i].row && lines[i].sel == st->sel) {
			if (i < st->top)
				st->top = i ? i - (lines[i - 1].title != NULL) : 0;
			if (i >= st->top + (size_t)page)
				st->top = i - (size_t)page + 1;
		}
	if (st->top >= n)
		st->top = 0;
	first = st->top;
	for (size_t i = first; i < n && y < HEAD_ROWS + page; i++, y++) {
		if (lines[i].title) {
			put(y, 0, A_BOLD | A_UNDERLINE, "%s", lines[i].title);
			continue;
		}
		draw_row(y, lines[i].row, lines[i].sel == st->sel ? A_REVERSE : 0, true,
			 sort_col[st->sort], v->src == WATCH_EVENTS);
	}
	if (v->empty)
		put(y++, 1, 0, "No %s seen yet (collecting data...)",
		    v->src == WATCH_EVENTS ? "events" : "exits");
	if (!v->empty) {
		struct ui_row total = v->total;

		if (st->mode == UI_MODE_DRILL)
			snprintf(total.label, sizeof(total.label), "%s, all", st->drill);
		draw_row(y++, &total, A_BOLD, true, -1, v->src == WATCH_EVENTS);
		if (v->has_guest && st->mode != UI_MODE_DRILL)
			draw_row(y++, &v->guest, A_DIM, false, -1, false);
	}
	free(lines);
}

/* --slower-than: the latest exits over it, above the key line. */
static void draw_slow(const struct ui_view *v)
{
	int y = LINES - FOOT_ROWS - slow_rows;
	size_t show = (size_t)slow_rows - 1, first = v->nslow > show ? v->nslow - show : 0;

	if (!slow_rows)
		return;
	put(y++, 0, A_BOLD, "%s", v->slow_title);
	for (size_t i = first; i < v->nslow; i++)
		put(y++, 0, 0, "%s", v->slow[i]);
}

static void draw_footer(void)
{
	move(LINES - 1, 0);
	attron(A_REVERSE);
	hline(' ', COLS);
	attroff(A_REVERSE);
	put(LINES - 1, 0, A_REVERSE,
	    "h help  q quit  T R A M P o sort  x drill  b VMs  f g p filter  c clear  r reset  "
	    "z pause  0 zero rows  u source  e events");
}

static void draw_help(void)
{
	int y = 2;

	put(0, 0, A_BOLD, "kvm-exitstat top - keys (q quits, any other key closes this)");
	for (size_t i = 0; i < ui_nkey_help && y < LINES; i++, y++)
		put(y, 2, 0, "%-18s %s", ui_key_help[i].keys, ui_key_help[i].what);
	y++;
	put(y++, 2, 0, "Times are handling times in microseconds (ms, s when larger): from");
	put(y++, 2, 0, "the exit to the vCPU thread's next entry; for userspace exits, to the");
	put(y++, 2, 0, "next KVM_RUN. P99 from a log-linear histogram (< 0.8 %% error).");
}

void ui_table_draw(const struct ui_view *v, struct ui_state *st, const struct ui_header *h)
{
	static const char *const first_col[] = {"REASON", "VM", ""};

	erase();
	cursor_x = -1;
	slow_rows = v->slow_on ? (LINES >= 20 ? 5 : 2) : 0;
	cause_w = st->cause && v->has_cause ? CAUSE_W : 0;
	if (LINES < HEAD_ROWS + FOOT_ROWS + 3 || COLS < 40) {
		put(0, 0, 0, "terminal too small");
	} else if (st->help) {
		draw_help();
	} else {
		draw_header(v, st, h);
		draw_col_header(v, st, first_col[st->mode]);
		draw_body(v, st);
		draw_slow(v);
		draw_footer();
	}
	if (st->prompt && cursor_x >= 0 && cursor_x < COLS)
		move(2, cursor_x); /* at the end of the prompt's input */
	wnoutrefresh(stdscr);
	doupdate();
}
