/* SPDX-License-Identifier: GPL-2.0 */
/* Whole small files: tracefs texts (which say size 0), format files, data files. */
#ifndef KES_FILE_H
#define KES_FILE_H

#include <stddef.h>

/* Reads a whole file into a NUL-terminated buffer (malloc'd). 0, or -1 with errno set. */
int file_read_path(const char *path, char **buf, size_t *len);
/* The same from an open fd, read from where it is (not closed). */
int file_read_fd(int fd, char **buf, size_t *len);

/*
 * A whole regular file of at most max bytes into *buf (malloc'd,
 * NUL-terminated): a data file a user names (--exit-types, --buckets).
 * -1 with errno set: EINVAL for a FIFO, device or socket (opened
 * non-blocking and never read, so it never waits), EISDIR, EFBIG, or
 * open/read's. file_read_error() says it in words.
 */
int file_read_regular(const char *path, size_t max, char **buf, size_t *len);
const char *file_read_error(int e);

#endif
