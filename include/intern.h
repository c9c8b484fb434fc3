/* SPDX-License-Identifier: GPL-2.0 */
/*
 * intern() returns a pointer that stays valid until the process exits and is
 * equal for equal strings, so exit names can be compared and hashed by
 * pointer. Never free it. Thread-safe (a lock: report's split decodes on
 * two threads).
 */
#ifndef KES_INTERN_H
#define KES_INTERN_H

#include <stddef.h>

const char *intern(const char *s);
const char *intern_n(const char *s, size_t len);

#endif
