/* SPDX-License-Identifier: GPL-2.0 */
/* Private to render/: the per-format printers and the formatting they share. */
#ifndef KES_RENDER_LOCAL_H
#define KES_RENDER_LOCAL_H

#include <stddef.h>
#include <stdio.h>
#include "diff.h"
#include "render.h"

/* The per-format printers render_report() dispatches to. */
void render_ppc(FILE *f, const struct render_opts *o, const struct render_meta *m,
		const struct render_block *b, size_t n);
void render_table(FILE *f, const struct render_opts *o, const struct render_meta *m,
		  const struct render_block *b, size_t n);
void render_csv(FILE *f, const struct render_opts *o, const struct render_meta *m,
		const struct render_block *b, size_t n);
void render_json(FILE *f, const struct render_opts *o, const struct render_meta *m,
		 const struct render_block *b, size_t n);

/* A row's label: "KVM_EXIT_IO", or with a sub-key "KVM_EXIT_IO@port 0x80" / "MMIO@other gpa". */
const char *render_row_name(const struct stats_row *r, char *buf, size_t len);
/* The sub-key alone ("0x80", "other"), or NULL when the row has none. */
const char *render_row_sub(const struct stats_row *r, char *buf, size_t len);
/* Its kind's word ("port", "gpa", "msr", "hcall"), or NULL. */
const char *render_row_sub_kind(const struct stats_row *r);
/*
 * A PPC row's name as one word (readers split on blanks): "Program
 * interruption" -> "Program_interruption"; bytes a terminal would act on
 * are shown escaped (ppc.c).
 */
void render_ppc_word(FILE *f, const char *s);


/* A duration for people: "4.63 s" under a minute, else render_runtime()'s "1:57". */
void render_duration(char *buf, size_t len, double seconds);
/* " (4.63 s of vCPU time, trace spans 2.33 s)"-style words: vCPU time of v, and the span. */
void render_times(char *buf, size_t len, const struct stats_view *v, const struct render_meta *m);

/* The table format's header lines (Input:, Note:, Lost events:, Time:, Warning:), wrapped. */
void render_table_head(FILE *f, const struct render_meta *m, const struct stats_view *whole,
		       const char *unit, size_t width);

/* The diff printers render_diff() dispatches to. */
int render_diff_table(FILE *f, const struct diff *d, const struct render_diff_opts *o);
int render_diff_csv(FILE *f, const struct diff *d, const struct render_diff_opts *o);
int render_diff_json(FILE *f, const struct diff *d, const struct render_diff_opts *o);
int render_diff_ppc(FILE *f, const struct diff *d, const struct render_diff_opts *o);

/* A time in ns, in the view's unit, with `prec` decimals ("-" for NAN). */
void diff_fmt_time(char *buf, size_t len, double ns, int prec, const struct render_diff_opts *o);
/* "+12.34%", "-98.40%", "-" for NAN. */
void diff_fmt_change(char *buf, size_t len, double pct);
/* "0.123", "<0.001", "-" for NAN. */
void diff_fmt_p(char *buf, size_t len, double p);
const char *diff_status_name(enum diff_status s);
/* "~1:57" style runtime of a sum of ns: M:SS, with milliseconds under 10 s. */
void diff_fmt_runtime(char *buf, size_t len, double ns);
/* "; trace spans 2.33 s -> 0.81 s", or "" when a side's span is unknown. */
void diff_fmt_spans(char *buf, size_t len, const struct render_diff_opts *o);

/* s as XML character data or an attribute value (& < > " escaped): the SVG renderers. */
void svg_text(FILE *f, const char *s);
/* summary-svg.c: report --svg of statistics without histograms (saved reports). 0 or -1. */
int render_summary_svg(FILE *f, const struct render_svg *s);

/* report --svg --anatomy (anatomy-svg.c): the stacked parts per reason, and their height. */
int svg_anatomy_height(const struct stats_anatomy_view *v);
void svg_anatomy(FILE *f, const struct stats_anatomy_view *v, int y0, int width);

/* A CSV cell, quoted only when it must be (RFC 4180). */
void csv_quote(FILE *f, const char *s);

/* ------------------------------------------------------------------------ */
/* Fitting a width (fit.c): cells formatted by a renderer, laid out here. */

/* The width a table is fitted to when nothing says otherwise (pipes, files). */
#define RENDER_WIDTH_DEFAULT 80

struct fit_table {
	size_t ncols, nrows;
	const char **head; /* column titles (static strings) */
	bool *right;	   /* right-aligned (numbers) */
	char ***cells;	   /* [row][col], malloc'd; column 0 is the name */
};

struct fit_table *fit_new(size_t ncols);
void fit_free(struct fit_table *t);
void fit_col(struct fit_table *t, size_t c, const char *head, bool right);
/* A new row, its cells empty; set them with fit_set (s is copied). */
char **fit_row(struct fit_table *t);
void fit_set(char **row, size_t c, const char *s);
/*
 * Prints t in at most `width` columns: names cut in the middle ('~') so that
 * distinct names stay distinct, columns that do not fit in further panels
 * (each repeating the names). Cells are never cut.
 */
void fit_print(FILE *f, const struct fit_table *t, size_t width);
/* prefix then text, broken at blanks into lines of at most width (continuations indented). */
void fit_wrap(FILE *f, const char *prefix, const char *text, size_t width);
/*
 * A time for a narrow column, top's format: in the unit (2 decimals for us,
 * none for ns) under 10 ms, then "12.34ms", then "1.23s". "-" for NAN.
 */
void render_fmt_scaled(char *buf, size_t len, double ns, double unit_ns);

#endif
