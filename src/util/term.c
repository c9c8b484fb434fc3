// SPDX-License-Identifier: GPL-2.0
/*
 * Escaping for what reaches a terminal (table, ppc and top output, error
 * lines): names from an input may hold ESC and other controls.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "term.h"

/*
 * The length of the well-formed UTF-8 character at s (1 for any ASCII byte
 * but NUL), its code point in *cp; 0 for a byte that starts none: overlong,
 * surrogates, past U+10FFFF, cut short. JSON and Prometheus text must be
 * UTF-8 (RFC 8259, the exposition format): such bytes are written as \xNN.
 */
size_t term_utf8_len(const char *str, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;

	if (*s && *s < 0x80)
		return *cp = *s, 1;
	if (*s >= 0xc2 && *s <= 0xdf)
		n = 2, *cp = *s & 0x1f;
	else if (*s >= 0xe0 && *s <= 0xef)
		n = 3, *cp = *s & 0x0f;
	else if (*s >= 0xf0 && *s <= 0xf4)
		n = 4, *cp = *s & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && *cp < 0x800) || (n == 4 && (*cp < 0x10000 || *cp > 0x10ffff)) ||
	    (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return n;
}

/*
 * The length of the printable UTF-8 character at s (1 for printable ASCII),
 * or 0 when the byte at s must be escaped: what term_utf8_len() refuses, C0
 * and C1 controls, DEL, the invisible characters that reorder or hide text on
 * a terminal (bidi overrides and isolates, zero-width marks, line
 * separators, BOM), and U+FFFE and U+FFFF, which no XML document may hold.
 */
size_t term_char_len(const char *s)
{
	uint32_t cp;
	size_t n = term_utf8_len(s, &cp);

	if (!n || cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || (cp >= 0x200b && cp <= 0x200f) ||
	    (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f) || cp == 0xfeff ||
	    cp == 0xfffe || cp == 0xffff)
		return 0;
	return n;
}

static bool needs_escape(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = term_char_len((const char *)p);

		if (!n)
			return true;
		p += n;
	}
	return false;
}

const char *term_safe(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	if (!s || !needs_escape(s) || !len)
		return s;
	for (const unsigned char *p = (const unsigned char *)s; *p && o + 1 < len;) {
		size_t n = term_char_len((const char *)p);

		if (n) {
			if (o + n >= len)
				break;
			memcpy(buf + o, p, n);
			o += n;
			p += n;
		} else {
			if (o + 4 >= len)
				break;
			snprintf(buf + o, len - o, "\\x%02x", *p++);
			o += 4;
		}
	}
	buf[o] = '\0';
	return buf;
}

void term_fputs(const char *s, FILE *f)
{
	char buf[1024];

	if (!needs_escape(s)) {
		fputs(s, f);
		return;
	}
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n = term_char_len((const char *)p);

		if (n) {
			fwrite(p, 1, n, f);
			p += n;
		} else {
			snprintf(buf, sizeof(buf), "\\x%02x", *p++);
			fputs(buf, f);
		}
	}
}
