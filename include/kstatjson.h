/* SPDX-License-Identifier: GPL-2.0 */
/*
 * input/kstatjson.c: reads the KVM-statistics snapshot `record --stats`
 * writes (render_kstat_snapshot()) back, for report and diff: its schema
 * (KVM's descriptors as they were) and its readings. Everything is checked
 * against the schema: a histogram with another number of buckets than its
 * descriptor's, an unknown statistic, a value that is no unsigned integer
 * refuse the file with one line.
 */
#ifndef KES_KSTATJSON_H
#define KES_KSTATJSON_H

#include <stdbool.h>
#include <stddef.h>
#include "kstat.h"

struct kstatjson {
	struct kstat_schema schema;
	struct kstat_reading *readings;
	size_t nreadings;
	char *host, *kernel;
};

/* Does the file start like a snapshot (its "kind" within the first bytes)? */
bool kstatjson_sniff(const char *buf, size_t len);
/* 0, or -1 with a one-line reason in errbuf. */
int kstatjson_load(const char *path, struct kstatjson *out, char *errbuf, size_t errlen);
void kstatjson_free(struct kstatjson *k);

#endif
