// SPDX-License-Identifier: GPL-2.0
/*
 * What kind of file an input is, from its first bytes, never its name:
 * each reader's own sniff says whether the bytes are its kind, asked from
 * the most certain (a magic number) to the least (text that looks like
 * ftrace's).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "input.h"
#include "kstatjson.h"
#include "peertext.h"
#include "ppctext.h"
#include "reportjson.h"
#include "text.h"

#define TRACEDAT_MAGIC "\027\010\104tracing"
#define PERFDATA_MAGIC "PERFILE2" /* tools/perf/util/header.c: perf.data, version 2 */

const char *input_kind_name(enum input_kind k)
{
	switch (k) {
	case INPUT_TRACEDAT:
		return "trace.dat";
	case INPUT_FTRACE_TXT:
		return "ftrace text";
	case INPUT_PPC_REPORT:
		return "PPC timing report";
	case INPUT_PPC_DEBUGFS:
		return "KVM-PPC exit-timing dump";
	case INPUT_REPORT_JSON:
		return "kvm-exitstat JSON report";
	case INPUT_PERF_DATA:
		return "perf.data, through perf script";
	case INPUT_PEER_REPORT:
		return "other tool's report";
	case INPUT_KSTAT_JSON:
		return "KVM statistics snapshot";
	default:
		return "unknown";
	}
}

/*
 * Sniffs up to 64 KiB: a mailed report may carry a page of prose before its
 * first row. Sets errno: ENODATA for an empty file.
 */
enum input_kind input_detect(int fd)
{
	static char buf[64 * 1024];
	enum input_kind k = INPUT_UNKNOWN;
	ssize_t n = pread(fd, buf, sizeof(buf), 0);

	if (n <= 0) {
		errno = n == 0 ? ENODATA : errno;
		return INPUT_UNKNOWN;
	}
	errno = 0;
	if ((size_t)n >= sizeof(TRACEDAT_MAGIC) - 1 &&
	    memcmp(buf, TRACEDAT_MAGIC, sizeof(TRACEDAT_MAGIC) - 1) == 0)
		return INPUT_TRACEDAT;
	if ((size_t)n >= sizeof(PERFDATA_MAGIC) - 1 &&
	    memcmp(buf, PERFDATA_MAGIC, sizeof(PERFDATA_MAGIC) - 1) == 0)
		return INPUT_PERF_DATA;
	if (kstatjson_sniff(buf, (size_t)n))
		return INPUT_KSTAT_JSON;
	if (reportjson_sniff(buf, (size_t)n))
		return INPUT_REPORT_JSON;
	if (memchr(buf, '\0', (size_t)n))
		return INPUT_UNKNOWN; /* binary, and not a trace.dat */
	if (ppctext_sniff(buf, (size_t)n, &k))
		return k;
	if (peertext_sniff(buf, (size_t)n) != PEERTEXT_NONE)
		return INPUT_PEER_REPORT;
	if (text_sniff(buf, (size_t)n))
		return INPUT_FTRACE_TXT;
	return INPUT_UNKNOWN;
}
