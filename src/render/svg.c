// SPDX-License-Identifier: GPL-2.0
/*
 * XML escaping for the SVG renderers (report --svg, diff --svg). A name from
 * an input may hold controls or invalid UTF-8, which no XML parser accepts,
 * not even as a character reference: those bytes are written as \xNN text,
 * as a terminal would show them (term.h).
 */
#include <stdio.h>
#include "render-local.h"
#include "term.h"

void svg_text(FILE *f, const char *s)
{
	while (*s) {
		size_t n = term_char_len(s);

		if (!n) {
			fprintf(f, "\\x%02x", (unsigned char)*s++);
			continue;
		}
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
			fwrite(s, 1, n, f);
		}
		s += n;
	}
}
