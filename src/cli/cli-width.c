// SPDX-License-Identifier: GPL-2.0
/*
 * How wide a table may be: --width, else COLUMNS, else the terminal's
 * width when the output is one, else 80. A pipe or a file gets 80 whatever
 * terminal the command ran in, so a script's output does not depend on it.
 */
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "cli-local.h"

#define WIDTH_MIN 40
#define WIDTH_MAX 4000

static unsigned clamp(unsigned long w)
{
	return w < WIDTH_MIN ? WIDTH_MIN : w > WIDTH_MAX ? WIDTH_MAX : (unsigned)w;
}

int cli_parse_width(const char *s, unsigned *w)
{
	unsigned long v;

	if (cli_parse_ulong(s, WIDTH_MIN, WIDTH_MAX, &v, "width (columns)") < 0)
		return -1;
	*w = (unsigned)v;
	return 0;
}

unsigned cli_out_width(unsigned opt)
{
	const char *c = getenv("COLUMNS");
	struct winsize ws;
	char *end;

	if (opt)
		return opt;
	if (c && *c) {
		unsigned long v = strtoul(c, &end, 10);

		if (!*end && v > 0)
			return clamp(v);
	}
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col)
		return clamp(ws.ws_col);
	return 80;
}
