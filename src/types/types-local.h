/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the line parsers of types/ (exit_types files, bucket maps) share:
 * where they are in the file, for "origin:line: ..." errors, and which
 * characters separate words.
 */
#ifndef KES_TYPES_LOCAL_H
#define KES_TYPES_LOCAL_H

#include <stdbool.h>
#include <stddef.h>

struct types_at {
	const char *origin; /* the file's name, or what stands for it */
	unsigned line;
	char *err; /* the caller's error buffer */
	size_t errlen;
};

/* One "origin:line: message" line into at->err; returns -1. */
int types_fail(const struct types_at *at, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Blanks between words; a newline ends the line instead. */
static inline bool types_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

#endif
