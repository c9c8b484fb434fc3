/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Digits of a number, for the two readers of numbers in text that are not
 * the command line's: exit_types/ files and trace lines. Each has its own
 * rules for signs, prefixes and what may follow; the digits and the
 * overflow check are one piece.
 */
#ifndef KES_NUM_H
#define KES_NUM_H

#include <stddef.h>
#include <stdint.h>

/*
 * The digits of base (10 or 16) at s[0, len), as many as there are: 0 with
 * *v their value and *used how many (0: none), or -1 when the value passes
 * UINT64_MAX.
 */
int num_digits(const char *s, size_t len, unsigned base, uint64_t *v, size_t *used);

#endif
