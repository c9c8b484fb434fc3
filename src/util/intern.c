// SPDX-License-Identifier: GPL-2.0
/*
 * String interning: exit names are compared and hashed by pointer on the hot
 * path. An open-addressing table that only grows; strings live until exit.
 * Not thread-safe: one thread at a time interns (serve's HTTP threads never
 * do: they send pages the collector rendered). Each string is its own
 * allocation, so a grow of the table never moves one: a pointer handed out
 * stays valid.
 */
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "alloc.h"
#include "intern.h"

static const char **slots;
static size_t nslots, used;

static uint64_t hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static void grow(void)
{
	size_t n = nslots ? nslots * 2 : 256;
	const char **ns = xcalloc(n, sizeof(*ns));

	for (size_t i = 0; i < nslots; i++) {
		if (!slots[i])
			continue;
		size_t j = hash(slots[i], strlen(slots[i])) & (n - 1);
		while (ns[j])
			j = (j + 1) & (n - 1);
		ns[j] = slots[i];
	}
	free(slots);
	slots = ns;
	nslots = n;
}

const char *intern_n(const char *s, size_t len)
{
	if (2 * (used + 1) > nslots)
		grow();
	size_t i = hash(s, len) & (nslots - 1);
	for (; slots[i]; i = (i + 1) & (nslots - 1))
		if (strncmp(slots[i], s, len) == 0 && slots[i][len] == '\0')
			return slots[i];
	char *copy = xmalloc(len + 1);
	memcpy(copy, s, len);
	copy[len] = '\0';
	slots[i] = copy;
	used++;
	return copy;
}

const char *intern(const char *s)
{
	return intern_n(s, strlen(s));
}
