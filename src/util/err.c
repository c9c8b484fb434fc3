// SPDX-License-Identifier: GPL-2.0
/*
 * The one place that prints errors. In JSON mode the error goes into the
 * output stream as {"error": "..."} so scripts always get something they can
 * parse (bpftool's p_err()); otherwise one line on stderr.
 */
#include <stdarg.h>
#include <stdio.h>
#include "common.h"

static bool json_mode;

void err_set_json(bool on)
{
	json_mode = on;
}

int err(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (json_mode) {
		fputs("{\"error\": ", stdout);
		json_quote(stdout, buf);
		fputs("}\n", stdout);
		fflush(stdout);
	}
	fprintf(stderr, "kvm-exitstat: %s\n", buf);
	return -1;
}

void info(const char *fmt, ...)
{
	va_list ap;

	if (json_mode)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}
