// SPDX-License-Identifier: GPL-2.0
/*
 * String interning: exit names are compared and hashed by pointer on the hot
 * path. An open-addressing table that only grows; strings live until exit.
 * One lock around it: report's split (pipeline/split.c) decodes on two
 * threads, and a name met the first time (an exit reason with flag bits, an
 * unknown one) is interned there; everything else interns while parsing,
 * on one thread, where an uncontended lock costs nothing that shows. serve's
 * HTTP threads never intern. Each string is its own
 * allocation, so a grow of the table never moves one: a pointer handed out
 * stays valid.
 */
#include <pthread.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "alloc.h"
#include "intern.h"

static const char **slots;
static size_t nslots, used;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

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

static const char *find_or_add(const char *s, size_t len)
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

const char *intern_n(const char *s, size_t len)
{
	const char *r;

	pthread_mutex_lock(&lock);
	r = find_or_add(s, len);
	pthread_mutex_unlock(&lock);
	return r;
}

const char *intern(const char *s)
{
	return intern_n(s, strlen(s));
}
