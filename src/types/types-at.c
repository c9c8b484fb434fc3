// SPDX-License-Identifier: GPL-2.0
/* The types/ parsers' error line: see types-local.h. */
#include <stdarg.h>
#include "err.h"
#include "types-local.h"

int types_fail(const struct types_at *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_buf_vat(at->err, at->errlen, at->origin, at->line, fmt, ap);
	va_end(ap);
	return -1;
}
