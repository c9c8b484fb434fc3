/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names from an input (comms, VM names, exit names, file names) as a
 * terminal may show them: every byte outside printable UTF-8 (controls such
 * as ESC, invalid UTF-8, bidi and zero-width characters) as \xNN.
 */
#ifndef KES_TERM_H
#define KES_TERM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* s itself when nothing needs escaping, else buf (cut to fit len). */
const char *term_safe(const char *s, char *buf, size_t len);
void term_fputs(const char *s, FILE *f);

#endif
