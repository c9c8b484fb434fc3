// SPDX-License-Identifier: GPL-2.0
/*
 * Numbers given as option arguments, parsed and range-checked one way for
 * every command, so "-b 4k", "-d -1" or " 5" get the same refusal whichever
 * command was given them: strtoul() alone takes a leading '-' (wrapping it)
 * and leading blanks, and the commands had five hand-written copies.
 */
#include <ctype.h>
#include <stdlib.h>
#include "cli-local.h"
#include "err.h"

/* Digits only: no sign, no blank, no base prefix strtoul() would read. */
static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

int cli_parse_ulong(const char *s, unsigned long lo, unsigned long hi, unsigned long *out,
		    const char *what)
{
	char *end;

	if (all_digits(s)) {
		*out = strtoul(s, &end, 10);
		if (*out >= lo && *out <= hi)
			return 0;
	}
	return err("bad %s '%s': want %lu to %lu", what, s, lo, hi);
}

int cli_parse_secs(const char *s, double lo, double hi, double *out, const char *what)
{
	char *end;

	*out = strtod(s, &end);
	if (end == s || *end || isspace((unsigned char)*s) || !(*out >= lo && *out <= hi))
		return err("bad %s '%s': want seconds, %g to %g", what, s, lo, hi);
	return 0;
}

int cli_parse_buffer_kb(const char *s, unsigned *kb)
{
	unsigned long v;

	if (cli_parse_ulong(s, 4, 4 * 1024 * 1024, &v, "buffer size (KB per CPU)") < 0)
		return -1;
	*kb = (unsigned)v;
	return 0;
}
