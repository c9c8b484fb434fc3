// SPDX-License-Identifier: GPL-2.0
/*
 * Modules below cli/ never print: they write a one-line reason into the
 * caller's buffer and return -1 (tracefs_error_last()'s contract), and
 * cli/ prints it with err().
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "err.h"

int err_buf_v(char *buf, size_t len, const char *fmt, va_list ap)
{
	if (buf && len)
		vsnprintf(buf, len, fmt, ap);
	return -1;
}

int err_buf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_buf_v(buf, len, fmt, ap);
	va_end(ap);
	return -1;
}

int err_buf_vat(char *buf, size_t len, const char *origin, unsigned line, const char *fmt,
		va_list ap)
{
	int n;

	if (!buf || !len)
		return -1;
	n = snprintf(buf, len, "%s:%u: ", origin, line);
	if (n < 0 || (size_t)n >= len)
		return -1;
	return err_buf_v(buf + n, len - (size_t)n, fmt, ap);
}

int err_buf_errno(char *buf, size_t len, const char *fmt, ...)
{
	int e = errno, n;
	va_list ap;

	if (!buf || !len)
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ": %s", strerror(e));
	return -1;
}
