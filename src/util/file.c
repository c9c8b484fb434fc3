// SPDX-License-Identifier: GPL-2.0
/* Whole small files, read to EOF: tracefs files report size 0, so no stat(). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "alloc.h"
#include "file.h"

int file_read_fd(int fd, char **buf, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *p = xmalloc(cap + 1);

	/* tracefs files report size 0: read to EOF. */
	for (;;) {
		ssize_t r = read(fd, p + n, cap - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(p);
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == cap) {
			cap *= 2;
			p = xrealloc(p, cap + 1);
		}
	}
	p[n] = 0;
	*buf = p;
	*len = n;
	return 0;
}

int file_read_path(const char *path, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = file_read_fd(fd, buf, len);
	close(fd);
	return ret;
}

/*
 * Reading a small data file a user names (--exit-types, --buckets): only a
 * regular file. A FIFO would block the open (no writer) or the read (a
 * writer that never writes), a device could be endless (/dev/zero) or have
 * side effects; none of them is a data file.
 */
int file_read_regular(const char *path, size_t max, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	size_t cap = 4096, n = 0;
	struct stat st;
	char *p;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		int e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;

		close(fd);
		errno = e;
		return -1;
	}
	p = xmalloc(cap + 1);
	for (;;) {
		ssize_t r = read(fd, p + n, cap - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(p);
			close(fd);
			errno = e;
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			free(p);
			close(fd);
			errno = EFBIG;
			return -1;
		}
		if (n == cap)
			p = xrealloc(p, (cap *= 2) + 1);
	}
	close(fd);
	p[n] = '\0';
	*buf = p;
	*len = n;
	return 0;
}

const char *file_read_error(int e)
{
	return e == EINVAL ? "not a regular file (a FIFO or device is no data file)" : strerror(e);
}
