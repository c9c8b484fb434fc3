/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Other tools' exit reports as saved reports (input/peertext.c): perf kvm
 * stat report and live tables, kvm_stat -1 and -l output, bcc's kvmexit
 * output. Summary rows (stats_acc_set_summary; counts alone where the tool
 * prints no min and max: untimed), keyed by reason (and thread for bcc).
 */
#ifndef KES_PEERTEXT_H
#define KES_PEERTEXT_H

#include <stddef.h>
#include "exit-types.h"
#include "stats.h"

enum peertext_form {
	PEERTEXT_NONE,
	PEERTEXT_PERF_KVM_STAT, /* perf kvm stat report / live */
	PEERTEXT_KVM_STAT_ONCE, /* kvm_stat -1 */
	PEERTEXT_KVM_STAT_LOG,	/* kvm_stat -l, -l -c */
	PEERTEXT_BCC_KVMEXIT,	/* bcc tools/kvmexit.py */
};

struct peertext_info {
	enum peertext_form form;
	unsigned rows;		/* rows read (a reason of a table, a log line's column) */
	unsigned times_unknown; /* rows whose times the tool did not print in full */
};

/* Which form the first bytes of a text are (PEERTEXT_NONE: none of them). */
enum peertext_form peertext_sniff(const char *buf, size_t len);
/* "perf kvm stat report", "kvm_stat -1 output", ... */
const char *peertext_form_name(enum peertext_form f);
/*
 * Reads text into `into` (names as the exit tables of types spell them where
 * they know them; types may be NULL). info may be NULL. 0, or -1 with a
 * one-line reason in errbuf (no exit in it; another perf kvm stat table; a
 * log line that does not fit its banner).
 */
int peertext_parse(const char *text, size_t len, const struct exit_types *types,
		   struct stats_table *into, struct peertext_info *info, char *errbuf, size_t errlen);

#endif
