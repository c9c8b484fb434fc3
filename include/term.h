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
#include <stdint.h>
#include <stdio.h>

/* The length of the well-formed UTF-8 character at s, 0 if none starts there. */
size_t term_utf8_len(const char *s, uint32_t *cp);
/*
 * The length of the printable UTF-8 character that starts s, 0 when its
 * first byte must be escaped (XML forbids the same controls: svg_text).
 */
size_t term_char_len(const char *s);

/* s itself when nothing needs escaping, else buf (cut to fit len). */
const char *term_safe(const char *s, char *buf, size_t len);
void term_fputs(const char *s, FILE *f);

#endif
