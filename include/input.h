/* SPDX-License-Identifier: GPL-2.0 */
/*
 * input/detect.c: what kind of file an input is, told by its content, never
 * its name; input/stable.c: an fd of it that nobody can change while it is read;
 * input/perfdata.c: a perf.data file as text.
 */
#ifndef KES_INPUT_H
#define KES_INPUT_H

#include <stddef.h>

enum input_kind {
	INPUT_UNKNOWN,
	INPUT_TRACEDAT,	   /* trace-cmd's trace.dat, v6 or v7 */
	INPUT_FTRACE_TXT,  /* tracefs trace / trace_pipe, trace-cmd report, perf script */
	INPUT_PPC_REPORT,  /* saved "NAME count N min ..." report, one-line or wrapped */
	INPUT_PPC_DEBUGFS, /* kernel exit-timing dump: type count min max sum sum_squared */
	INPUT_REPORT_JSON, /* our own `report -f json`, with its histograms (merges exactly) */
	INPUT_PERF_DATA,   /* perf record's perf.data: read through `perf script` */
	INPUT_PEER_REPORT, /* perf kvm stat / kvm_stat / bcc kvmexit output (input/peertext.c) */
	INPUT_KSTAT_JSON,  /* record --stats: KVM's own statistics, reported apart (cli-kstat.c) */
};

/*
 * The kind of the input open on fd, from its first 64 KiB (read with pread:
 * the offset stays). INPUT_UNKNOWN with errno set when it cannot be read
 * (ENODATA: empty, EISDIR...), INPUT_UNKNOWN with errno 0 when it is none
 * of the kinds above.
 */
enum input_kind input_detect(int fd);
const char *input_kind_name(enum input_kind k);

/*
 * An fd whose bytes nobody can change while it is read, for readers that
 * check a file before they trust it (the checks must hold for what is then
 * read): fd itself (dup'd) when only root or we can write the file and it is
 * on a local file system; else a sealed in-memory copy (memfd). Returns a new
 * fd, or -1 with errbuf set.
 */
int input_stable_fd(int fd, char *errbuf, size_t errlen);

/*
 * A perf.data file open on fd, as `perf script` prints it: an fd of that
 * text (an unlinked file, read from its start), or -1 with errbuf set (no
 * perf here: how to convert it; perf failed: its last message).
 */
int input_perfdata_text(int fd, const char *path, char *errbuf, size_t errlen);

#endif
