/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Errors. cli/ and ui/ print them with err(); the modules below never print:
 * they write one line into a caller's buffer with err_buf() and return -1
 * (tracefs_error_last()'s contract), and their caller prints it.
 */
#ifndef KES_ERR_H
#define KES_ERR_H

#include <stdarg.h>
#include <stddef.h>

/*
 * err() prints "kvm-exitstat: <msg>" on stderr and returns -1, so callers
 * write `return err(...)`; err_errno() appends ": <strerror(errno)>" (errno
 * as it was at the call). With a sink installed (JSON output: cli installs
 * one before it parses any option), the message goes to the sink instead,
 * and nowhere else. err_info() prints to stderr, or nothing with a sink.
 */
int err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int err_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void err_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Where err() writes instead of stderr; NULL: stderr again. */
void err_set_sink(void (*sink)(const char *msg));

/*
 * A one-line reason into a caller's buffer (buf may be NULL); returns -1 so
 * callers write `return err_buf(...)`. err_buf_vat() prefixes
 * "origin:line: " for parsers of data files; err_buf_errno() appends
 * ": <strerror(errno)>".
 */
int err_buf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int err_buf_errno(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int err_buf_v(char *buf, size_t len, const char *fmt, va_list ap);
int err_buf_vat(char *buf, size_t len, const char *origin, unsigned line, const char *fmt,
		va_list ap);

#endif
