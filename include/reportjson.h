/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A report's own JSON (`report -f json`, schema kvm-exitstat-report/1) as an
 * input: every row carries its exact state (integer ns, the moments, every
 * histogram bucket), so reports from many hosts merge into one exactly
 * (input/reportjson.c).
 */
#ifndef KES_REPORTJSON_H
#define KES_REPORTJSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "stats.h"

struct reportjson_meta {
	uint64_t events, lost, untimed, backwards, sub_folded;
	uint64_t threadless_exits; /* "exits_no_thread": absent from older reports */
	bool ticks;		   /* its times are ticks of an unknown clock ("unit": "ticks") */
	bool lost_known;
	uint64_t wall_ns; /* the reports' wall spans, summed */
	bool wall_known;  /* some report had one (wall_ns not null) */
	const char *isa;    /* interned, or NULL */
	const char **hosts; /* the reports' "hosts" (interned; the array malloc'd, the caller's) */
	size_t nhosts;
	const char *source; /* "kvm_exit", "userspace" or "summary": the table it went into */
};

/* Does this look like our JSON report? (The first 64 KiB of a file.) */
bool reportjson_sniff(const char *buf, size_t len);
/*
 * Merges the report's rows into exits, uexits or summary (by its "source"),
 * m->hosts malloc'd when 0 is returned (free it),
 * keyed by name, sub-key and, when it has per-vCPU tables, tid and vcpu.
 * 0, or -1 with the reason in errbuf.
 */
/* The same from memory (origin names it in errors): for tests and fuzzing. */
int reportjson_parse(const char *buf, size_t len, const char *origin, struct stats_table *exits,
		     struct stats_table *uexits, struct stats_table *summary,
		     struct reportjson_meta *m, char *errbuf, size_t errlen);
int reportjson_load(int fd, const char *path, struct stats_table *exits,
		    struct stats_table *uexits, struct stats_table *summary,
		    struct reportjson_meta *m, char *errbuf, size_t errlen);

#endif
