// SPDX-License-Identifier: GPL-2.0
/* XML escaping for the SVG renderers (report --svg, diff --svg). */
#include <stdio.h>
#include "render-local.h"

void svg_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}
