// SPDX-License-Identifier: GPL-2.0
/*
 * Colour in the live view, where the terminal has it (curses has_colors())
 * and the user has not turned it off (--no-color, or NO_COLOR set to
 * anything but "", as no-color.org asks): the sorted column in cyan, and
 * rows whose share of the time (%TIME) is at least UI_WARM_PCT in yellow,
 * at least UI_HOT_PCT in red. Without colour every attribute is 0 and the
 * screen is as before (bold, reverse and underline only).
 */
#include <curses.h>
#include <stdlib.h>
#include "ui-local.h"

enum { PAIR_SORTED = 1, PAIR_WARM, PAIR_HOT };

static bool on;

bool ui_color_wanted(bool no_color_opt)
{
	const char *nc = getenv("NO_COLOR");

	return !no_color_opt && !(nc && *nc);
}

void ui_color_init(bool want)
{
	on = false;
	if (!want || !has_colors() || start_color() == ERR)
		return;
	use_default_colors(); /* -1: the terminal's own background */
	init_pair(PAIR_SORTED, COLOR_CYAN, -1);
	init_pair(PAIR_WARM, COLOR_YELLOW, -1);
	init_pair(PAIR_HOT, COLOR_RED, -1);
	on = true;
}

short ui_color_sorted(void)
{
	return on ? PAIR_SORTED : 0;
}

short ui_color_row(double pct_time)
{
	if (!on || isnan(pct_time) || pct_time < UI_WARM_PCT)
		return 0;
	return pct_time >= UI_HOT_PCT ? PAIR_HOT : PAIR_WARM;
}
