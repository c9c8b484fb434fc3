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

/* JSON string with its quotes; CSV cell, quoted only when it must be (RFC 4180). */
void json_quote(FILE *f, const char *s);
void csv_quote(FILE *f, const char *s);

#endif
