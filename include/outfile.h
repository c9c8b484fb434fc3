/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output files, safe for a tool that runs as root: `record -o`, `report
 * --svg`, `diff --svg`, `serve --textfile` and `top -L`. Everything is
 * decided once, when the output is opened (before a workload runs), relative
 * to a directory fd opened once, a component at a time (chase.h: a symlink
 * another user could have planted, in any component, is refused):
 *
 *  - a name ending in '/', longer than NAME_MAX, or a missing directory is
 *    refused at once, not after a recording;
 *  - a symbolic link in a directory others can write (/tmp), or owned by
 *    another user than its directory, is refused, never followed; elsewhere
 *    it is followed once, to where it points now;
 *  - a FIFO or a character device (/dev/null, a pipe to another tool) is
 *    written through, never replaced; a FIFO nobody reads, a block device or
 *    a socket is refused;
 *  - OUTFILE_REPLACE writes an unnamed file in the output's directory and
 *    renames it into place when complete: an existing file stays until then,
 *    and a file another user linked in is never written, chmod'ed or chown'ed;
 *  - OUTFILE_APPEND (a log) appends to an existing file only when it is ours
 *    and not a hard link, or when nobody else can write the directory.
 */
#ifndef KES_OUTFILE_H
#define KES_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum outfile_mode { OUTFILE_REPLACE, OUTFILE_APPEND };

struct outfile;

/* NULL with a one-line reason in errbuf. */
struct outfile *outfile_open(const char *path, enum outfile_mode mode, char *errbuf, size_t errlen);
/* The fd to write: the unnamed file, the stream, or the appended file. */
int outfile_fd(const struct outfile *o);
/*
 * A stdio stream on a duplicate of that fd (mode "w" or "a"), for renderers
 * that print: fclose it before outfile_commit. NULL with errbuf set.
 */
FILE *outfile_stdio(const struct outfile *o, const char *mode, char *errbuf, size_t errlen);
/* A FIFO or device: written in order, once (no seeking, no fsync). */
bool outfile_is_stream(const struct outfile *o);
/* The output's directory (stays open until outfile_free), or -1 for a stream. */
int outfile_dirfd(const struct outfile *o);
/*
 * OUTFILE_REPLACE: fsyncs and links the file in under its name, replacing
 * what was there. Others: nothing to do. 0, or -1 with errbuf set.
 */
int outfile_commit(struct outfile *o, char *errbuf, size_t errlen);
/* Closes; an uncommitted OUTFILE_REPLACE output leaves no trace. */
void outfile_free(struct outfile *o);

#endif
