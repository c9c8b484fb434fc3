/* SPDX-License-Identifier: GPL-2.0 */
/*
 * output/: writes trace-cmd's documented trace.dat version 6 layout
 * (trace-cmd.dat.v6(5)) so that `trace-cmd report` and libtracecmd read it.
 * Functions return 0 / -1 (or NULL) with a one-line reason in errbuf.
 */
#ifndef KES_OUTPUT_H
#define KES_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dat_writer_format {
	const char *system;
	const char *text; /* events/<system>/<event>/format */
	size_t len;
};

struct dat_writer_meta {
	const char *header_page, *header_event;
	size_t header_page_len, header_event_len;
	const struct dat_writer_format *formats;
	size_t nformats;
	const char *cmdlines;	 /* saved_cmdlines text, or NULL */
	char *const *cpustats;	 /* one stats text per CPU (or NULL entries), or NULL */
	const char *trace_clock; /* trace_clock text ("[local] global ..."), or NULL */
	bool uname;		 /* add the UNAME option */
	const char *procmap;	 /* the thread map's text (procmap.h), or NULL */
	size_t procmap_len;
};

struct dat_writer;

/*
 * Opens the output (include/outfile.h: checked now, before any recording) and
 * per-CPU temporary files next to it, where pages wait until
 * dat_writer_finish(). NULL with a one-line reason in errbuf.
 */
struct dat_writer *dat_writer_new(const char *path, int ncpus, size_t page_size, char *errbuf,
				  size_t errlen);
/* Appends one page of cpu (len <= page size; padded with zeros). */
int dat_writer_page(struct dat_writer *w, int cpu, const void *page, size_t len);
/* Writes the pages dat_writer_page() still holds (it writes them in runs). 0, or -1 (errno). */
int dat_writer_flush(struct dat_writer *w);
/* Writes the header and the CPU data, then links the file to path. Returns 0 or -1 (errbuf). */
int dat_writer_finish(struct dat_writer *w, const struct dat_writer_meta *m, char *errbuf,
		      size_t errlen);
/* Bytes written to the output by dat_writer_finish(). */
uint64_t dat_writer_bytes(const struct dat_writer *w);
/* Frees w. Until dat_writer_finish() succeeds, path is untouched (the file has no name yet). */
void dat_writer_free(struct dat_writer *w);

#endif
