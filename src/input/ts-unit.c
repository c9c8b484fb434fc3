// SPDX-License-Identifier: GPL-2.0
/*
 * The unit of integer timestamps in text (report --ts-unit). trace-cmd
 * report prints a clock that does not count ns (x86-tsc, counter, or any
 * clock with --raw-ts) as the bare integer, and nothing in the text says
 * what one is: the reader keeps such times as ticks unless told.
 */
#include <stdio.h>
#include <string.h>
#include "text.h"

#define MAX_HZ 10000000000ULL /* 10 GHz: (hz - 1) * 1e9 still fits in 64 bits */

static const struct {
	const char *name;
	uint64_t ns;
} durations[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};

static const struct {
	const char *suffix;
	uint64_t hz;
} freqs[] = {{"GHz", 1000000000}, {"MHz", 1000000}, {"kHz", 1000}, {"Hz", 1}};

/* "2.1" with a multiplier (1e9 for GHz) -> Hz, exactly; 0 when it is none or has more decimals. */
static uint64_t parse_hz(const char *s, size_t len, uint64_t mult)
{
	uint64_t ip = 0, fp = 0;
	size_t i = 0, digits = 0;

	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
		if (ip > MAX_HZ)
			return 0;
		ip = ip * 10 + (uint64_t)(s[i] - '0');
	}
	if (ip > MAX_HZ / mult)
		return 0;
	ip *= mult;
	if (i < len && s[i] == '.')
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
			if (mult % 10)
				return 0; /* finer than 1 Hz */
			mult /= 10;
			fp += (uint64_t)(s[i] - '0') * mult;
		}
	return i == len && digits ? ip + fp : 0;
}

int text_ts_unit_parse(const char *s, struct text_ts_unit *u, char *errbuf, size_t errlen)
{
	size_t len = strlen(s);

	for (size_t i = 0; i < sizeof(durations) / sizeof(durations[0]); i++)
		if (!strcmp(s, durations[i].name)) {
			*u = (struct text_ts_unit){durations[i].ns, 1};
			return 0;
		}
	for (size_t i = 0; i < sizeof(freqs) / sizeof(freqs[0]); i++) {
		size_t n = strlen(freqs[i].suffix);
		uint64_t hz;

		if (len <= n || strcmp(s + len - n, freqs[i].suffix))
			continue;
		hz = parse_hz(s, len - n, freqs[i].hz);
		if (!hz || hz > MAX_HZ)
			break;
		*u = (struct text_ts_unit){1000000000, hz};
		return 0;
	}
	snprintf(errbuf, errlen,
		 "bad timestamp unit '%s': ns, us, ms, s, or the clock's frequency "
		 "(2100MHz, 2.1GHz, 1 Hz to 10 GHz)",
		 s);
	return -1;
}

uint64_t text_ts_unit_ns(const struct text_ts_unit *u, uint64_t ticks)
{
	uint64_t q = ticks / u->den, r = ticks % u->den;

	/* r < den <= 10 GHz and num <= 1e9: r * num fits; q * num saturates */
	if (q > (UINT64_MAX - u->num) / u->num)
		return UINT64_MAX;
	return q * u->num + r * u->num / u->den;
}
