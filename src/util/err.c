// SPDX-License-Identifier: GPL-2.0
/*
 * The one place that prints errors: one line on stderr, or, when cli/ has
 * installed a sink (JSON output), into the sink only, so scripts always get
 * something they can parse and nothing else to read (bpftool's p_err()).
 * util/ knows no JSON: the sink does.
 */
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "err.h"
#include "term.h"

static void (*sink)(const char *msg);

void err_set_sink(void (*fn)(const char *msg))
{
	sink = fn;
}

/* One line, in the stream the output mode says: scripts parse JSON, people read stderr. */
static int emit(const char *msg)
{
	if (sink) {
		sink(msg);
		return -1;
	}
	/* a file name with an ESC in it must not reach the terminal as one */
	fputs("kvm-exitstat: ", stderr);
	term_fputs(msg, stderr);
	fputc('\n', stderr);
	return -1;
}

int err(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return emit(buf);
}

int err_errno(const char *fmt, ...)
{
	int e = errno; /* before anything here can change it */
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - (size_t)n, ": %s", strerror(e));
	return emit(buf);
}

void err_info(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	if (sink)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* escaped line by line: the newlines are ours */
	for (char *line = buf, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		term_fputs(line, stderr);
		if (!nl)
			break;
		fputc('\n', stderr);
	}
}
