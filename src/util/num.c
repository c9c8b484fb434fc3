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

int num_digits(const char *s, size_t len, unsigned base, uint64_t *v, size_t *used)
{
	size_t i;

	*v = 0;
	for (i = 0; i < len; i++) {
		int d = digit(s[i]);

		if (d < 0 || (unsigned)d >= base)
			break;
		if (*v > (UINT64_MAX - (unsigned)d) / base)
			return -1;
		*v = *v * base + (unsigned)d;
	}
	*used = i;
	return 0;
}
