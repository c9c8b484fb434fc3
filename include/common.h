/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small things every module uses: allocation that cannot return NULL,
 * string interning, and the one error/info printer.
 */
#ifndef KES_COMMON_H
#define KES_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Allocation failure is not recoverable for a CLI tool: these abort with a message. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t sz);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/*
 * intern() returns a pointer that stays valid until the process exits and is
 * equal for equal strings, so exit names can be compared and hashed by pointer.
 * Never free it.
 */
const char *intern(const char *s);
const char *intern_n(const char *s, size_t len);

/*
 * err() prints "kvm-exitstat: <msg>" on stderr (or {"error": ...} on stdout in
 * JSON mode) and returns -1, so callers write `return err(...)`.
 * info() prints nothing in JSON mode.
 */
int err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void err_set_json(bool on);

/*
 * A one-line reason into a caller's buffer (buf may be NULL); returns -1 so
 * callers write `return errbuf_set(...)`. errbuf_vat() prefixes
 * "origin:line: " for parsers of data files.
 */
int errbuf_set(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int errbuf_vset(char *buf, size_t len, const char *fmt, va_list ap);
int errbuf_vat(char *buf, size_t len, const char *origin, unsigned line, const char *fmt,
	       va_list ap);

/* JSON string with its quotes; CSV cell, quoted only when it must be (RFC 4180). */
void json_quote(FILE *f, const char *s);
void csv_quote(FILE *f, const char *s);

#endif
