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

static inline int test_summary(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, t_pass, t_fail);
	return t_fail ? 1 : 0;
}

#endif
