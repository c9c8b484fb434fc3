/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the libFuzzer targets in tests/fuzz/: the built-in exit_types
 * tables (loaded once), a memfd that holds the input for readers that take
 * a path, and a pass through stats views and every renderer so that hostile
 * numbers reach the code that prints them.
 */
#ifndef KES_FUZZ_H
#define KES_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "alloc.h"
#include "exit-types.h"
#include "render.h"
#include "stats.h"
#include "mutate.h"
#include "pipeline.h"

/*
 * The targets are linked with -Wl,--wrap=fork. tracedat_open() opens a file
 * with libtracecmd in a child first (src/input/tracedat-probe.c), so that a
 * crash in the library on a hostile file only refuses the file. Under the
 * sanitizers the child would still report the library's faults (ASan's
 * interceptors see its overreads) and libFuzzer's death callback would save
 * them as our crashes: in the child, both go quiet. The parent, where our
 * code runs, keeps every check.
 */
void __sanitizer_set_death_callback(void (*callback)(void));
void __sanitizer_set_report_fd(void *fd);
pid_t __real_fork(void);

pid_t __wrap_fork(void)
{
	pid_t pid = __real_fork();

	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

		__sanitizer_set_death_callback(NULL);
		if (fd >= 0)
			__sanitizer_set_report_fd((void *)(intptr_t)fd);
	}
	return pid;
}

static inline const struct exit_types *fuzz_types(void)
{
	static struct exit_types types;
	static int loaded;
	char e[256];

	if (!loaded) {
		if (exit_types_load_builtin(&types, e, sizeof(e)) < 0) {
			fprintf(stderr, "fuzz: built-in exit types: %s\n", e);
			abort();
		}
		loaded = 1;
	}
	return &types;
}

/*
 * input_load() as the commands call it, its contract checked: a refusal
 * gives one line to print (not empty, no newline), but for a statistics
 * snapshot, which the commands take apart themselves.
 */
static inline int fuzz_input_load(const char *path, const struct input_opts *o,
				  struct input_result *r)
{
	static char e[INPUT_ERR_MAX];
	int rc = input_load(path, o, r, e, sizeof(e));

	if (rc < 0 && !r->kstat_snapshot && (!*e || strchr(e, '\n'))) {
		fprintf(stderr, "fuzz: input_load() refused without one line: '%s'\n", e);
		abort();
	}
	return rc;
}

/*
 * Half the mutations libFuzzer makes are structure-aware ones
 * (tests/fuzz/mutate.h): a header field, a format's id or field offset, an
 * option, a flyrecord entry, a page header, a text line's pid or length.
 * Random bytes alone almost never get past a v6 header's sizes.
 */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

static inline size_t fuzz_mutate(uint8_t *data, size_t size, size_t max, unsigned int seed);

/*
 * The readers take paths: the input goes into one memfd, reopened through
 * /proc/self/fd so every open() starts at offset 0 and sees the file's size.
 */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("kes-fuzz", MFD_CLOEXEC);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	return path;
}

static inline FILE *fuzz_devnull(void)
{
	static FILE *f;

	if (!f && !(f = fopen("/dev/null", "w")))
		abort();
	return f;
}

/* What `report` does with a table: per-vCPU split, rollup, views, every format. */
static inline void fuzz_render(const struct stats_table *t, bool per_vcpu)
{
	static const enum render_format fmts[] = {RENDER_PPC, RENDER_TABLE, RENDER_CSV,
						  RENDER_JSON};
	struct render_meta m = {.inputs = "fuzz", .kind = "fuzz", .source = "fuzz"};
	struct stats_group *g = NULL;

	/* report refuses an empty table before it builds a view (stats_view_new: qsort(NULL, 0)) */
	if (!stats_table_size(t))
		return;
	size_t ng = per_vcpu ? stats_table_split(t, &g) : 0;
	struct stats_table *whole = stats_table_rollup(t, 0);
	struct render_block *b = xcalloc(ng + 1, sizeof(*b));

	for (size_t i = 0; i < ng; i++)
		b[i] = (struct render_block){.label = "group",
					     .tid = g[i].tid,
					     .vcpu = g[i].vcpu,
					     .v = stats_view_new(g[i].t, 1000, "us", STATS_SORT_SUM)};
	b[ng] = (struct render_block){
	    .tid = -1, .vcpu = -1, .v = stats_view_new(whole, 1, "ns", STATS_SORT_NAME)};
	for (size_t i = 0; i < ARRAY_SIZE(fmts); i++) {
		struct render_opts ro = {.fmt = fmts[i], .quantiles = true};

		render_report(fuzz_devnull(), &ro, &m, b, ng + 1);
	}
	for (size_t i = 0; i <= ng; i++)
		stats_view_free((struct stats_view *)b[i].v);
	free(b);
	stats_table_free(whole);
	stats_groups_free(g, ng);
}

static inline size_t fuzz_mutate(uint8_t *data, size_t size, size_t max, unsigned int seed)
{
	struct rng r = {((uint64_t)seed << 1 | 1) * 0x9E3779B97F4A7C15ULL};
	size_t n = 0;

	/* visible and not: the fuzzers look for crashes, any valid-looking file will do */
	if (rnd(&r) & 1)
		n = mutate_any(data, size, max, &r, (rnd(&r) & 3) == 0, NULL);
	return n ? n : LLVMFuzzerMutate(data, size, max);
}

#endif
