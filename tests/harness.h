/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny test harness: CHECK() records a pass or a failure with its location,
 * test_summary() prints "N passed, N failed" (tests/run.sh adds these up) and
 * returns the exit status.
 */
#ifndef KES_TEST_HARNESS_H
#define KES_TEST_HARNESS_H

#include <stdio.h>
#include <math.h>
#include <string.h>

static int t_pass, t_fail;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (cond) {                                                                        \
			t_pass++;                                                                  \
		} else {                                                                           \
			t_fail++;                                                                  \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);            \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
		}                                                                                  \
	} while (0)

/* Relative comparison for doubles; exact when want == 0. */
#define CHECK_NEAR(got, want, rel)                                                                 \
	CHECK(fabs((double)(got) - (double)(want)) <= (rel)*fabs((double)(want)),                  \
	      "got %.17g want %.17g", (double)(got), (double)(want))

#define CHECK_STR(got, want)                                                                       \
	CHECK((got) && strcmp((got), (want)) == 0, "got \"%s\" want \"%s\"",                       \
	      (got) ? (got) : "(null)", (want))

/*
 * CPU seconds this process has used: parsers are timed on CPU, not wall
 * time, since the test machines are shared. TEST_SLOW scales a time bound
 * for sanitizer builds, which run several times slower.
 */
#include <time.h>
static inline double test_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
#if defined(__SANITIZE_ADDRESS__)
#define TEST_SLOW 8
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_SLOW 8
#endif
#endif
#ifndef TEST_SLOW
#define TEST_SLOW 1
#endif

/*
 * Calls fn on the text of each .nf/.fi example block of a man page that
 * starts with prefix (roff's \- read as a plain minus), so a page's examples
 * are tested as the data they show. Returns how many there were, or -1 when
 * the page cannot be opened (tests run from the repository root).
 */
static inline int man_examples(const char *page, const char *prefix,
			       void (*fn)(const char *text, void *arg), void *arg)
{
	FILE *f = fopen(page, "r");
	char line[512], text[4096];
	size_t len = 0;
	int in = 0, n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, ".nf", 3)) {
			in = 1;
			len = 0;
			continue;
		}
		if (!strncmp(line, ".fi", 3) && in) {
			in = 0;
			text[len] = '\0';
			if (!strncmp(text, prefix, strlen(prefix))) {
				n++;
				fn(text, arg);
			}
			continue;
		}
		for (char *c = line; in && *c && len < sizeof(text) - 1; c++)
			if (!(c[0] == '\\' && c[1] == '-'))
				text[len++] = *c;
	}
	fclose(f);
	return n;
}

static inline int test_summary(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, t_pass, t_fail);
	return t_fail ? 1 : 0;
}

#endif
