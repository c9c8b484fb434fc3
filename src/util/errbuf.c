// SPDX-License-Identifier: GPL-2.0
/*
 * Modules below cli/ never print: they write a one-line reason into the
 * caller's buffer and return -1 (tracefs_error_last()'s contract), and
 * cli/ prints it with err().
 */
#include <stdarg.h>
#include <stdio.h>
#include "common.h"

int errbuf_vset(char *buf, size_t len, const char *fmt, va_list ap)
{
	if (buf && len)
		vsnprintf(buf, len, fmt, ap);
	return -1;
}

int errbuf_set(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errbuf_vset(buf, len, fmt, ap);
	va_end(ap);
	return -1;
}

int errbuf_vat(char *buf, size_t len, const char *origin, unsigned line, const char *fmt,
	       va_list ap)
{
	int n;

	if (!buf || !len)
		return -1;
	n = snprintf(buf, len, "%s:%u: ", origin, line);
	if (n < 0 || (size_t)n >= len)
		return -1;
	return errbuf_vset(buf + n, len - (size_t)n, fmt, ap);
}
