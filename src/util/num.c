// SPDX-License-Identifier: GPL-2.0
#include "num.h"

static int digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * The overflow test against UINT64_MAX / base and its remainder, worked out
 * once: a division per digit was most of a number's cycles. A local v, not
 * *v, for the loop: stores through it would alias s.
 */
int num_digits(const char *s, size_t len, unsigned base, uint64_t *v, size_t *used)
{
	uint64_t x = 0, lim = UINT64_MAX / base, rem = UINT64_MAX % base;
	size_t i;

	*v = 0;
	for (i = 0; i < len; i++) {
		int d = digit(s[i]);

		if (d < 0 || (unsigned)d >= base)
			break;
		if (x > lim || (x == lim && (unsigned)d > rem))
			return -1;
		x = x * base + (unsigned)d;
	}
	*v = x;
	*used = i;
	return 0;
}
