/* SPDX-License-Identifier: GPL-2.0 */
/* Formatting shared by the diff renderers (src/render/diff-*.c). */
#ifndef KES_RENDER_DIFF_FMT_H
#define KES_RENDER_DIFF_FMT_H

#include <stddef.h>
#include "diff.h"

/* A time in ns, in the view's unit, with `prec` decimals ("-" for NAN). */
void diff_fmt_time(char *buf, size_t len, double ns, int prec, const struct diff_render_opts *o);
/* "+12.34%", "-98.40%", "-" for NAN. */
void diff_fmt_change(char *buf, size_t len, double pct);
/* "0.123", "<0.001", "-" for NAN. */
void diff_fmt_p(char *buf, size_t len, double p);
const char *diff_status_name(enum diff_status s);

#endif
