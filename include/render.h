/* SPDX-License-Identifier: GPL-2.0 */
/*
 * render/: prints views computed by stats/. No renderer computes a statistic.
 * Formats: the KVM-PPC timing report (default), an aligned table, CSV, JSON
 * (schema in kvm-exitstat-report(1); field names never change).
 */
#ifndef KES_RENDER_H
#define KES_RENDER_H

#include <stdio.h>
#include <stdbool.h>
#include "stats.h"

enum render_format { RENDER_PPC, RENDER_TABLE, RENDER_CSV, RENDER_JSON };

/* 0 and *f set, or -1 for an unknown name. */
int render_format_parse(const char *name, enum render_format *f);

struct render_meta {
	const char *inputs;  /* "a.dat, b.dat" */
	const char *kind;    /* input kind name */
	const char *isa;     /* "x86_vmx", or NULL */
	const char *source;  /* "kvm_exit", "userspace", "summary" */
	const char *note;    /* why this source, or NULL */
	const char *buckets; /* timing-bucket map the rows are counted in, or NULL */
	uint64_t events;
	uint64_t lost;
	bool lost_known;
	uint64_t untimed;
	uint64_t backwards;
	uint64_t sub_folded; /* --by-sub: exits counted in an "other" sub-key row */
};

/* One table of a report: the whole run, or one thread/vCPU of it. */
struct render_block {
	const char *label; /* NULL for the whole run; "vcpu 0 tid 4102 (exitgen-vcpu0)" */
	int32_t tid, vcpu;
	const struct stats_view *v;
};

struct render_opts {
	enum render_format fmt;
	bool quantiles;
};

void render_report(FILE *f, const struct render_opts *o, const struct render_meta *m,
		   const struct render_block *b, size_t n);

/* The per-format printers render_report() dispatches to. */
void render_ppc(FILE *f, const struct render_opts *o, const struct render_meta *m,
		const struct render_block *b, size_t n);
void render_table(FILE *f, const struct render_opts *o, const struct render_meta *m,
		  const struct render_block *b, size_t n);
void render_csv(FILE *f, const struct render_opts *o, const struct render_meta *m,
		const struct render_block *b, size_t n);
void render_json(FILE *f, const struct render_opts *o, const struct render_meta *m,
		 const struct render_block *b, size_t n);

/* A row's label: "KVM_EXIT_IO", or with a sub-key "KVM_EXIT_IO@0x80" / "MMIO@other". */
const char *render_row_name(const struct stats_row *r, char *buf, size_t len);
/* The sub-key alone ("0x80", "other"), or NULL when the row has none. */
const char *render_row_sub(const struct stats_row *r, char *buf, size_t len);

/* "1:57" for 117 s; hours as "2:03:04". */
void render_runtime(char *buf, size_t len, double seconds);

#endif
