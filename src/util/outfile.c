// SPDX-License-Identifier: GPL-2.0
/*
 * Output files for a tool that runs as root (include/outfile.h). The
 * directory is resolved once, component by component (chase.h: a symlink
 * another user could have planted, in any component, is refused), and
 * everything after is relative to its fd, up to the final linkat/renameat,
 * so a symlink swapped in later (a directory renamed, a link retargeted)
 * cannot move the output; the name itself is looked at without following
 * it, then opened with O_NOFOLLOW and checked to be what was looked at.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "alloc.h"
#include "chase.h"
#include "err.h"
#include "outfile.h"

#define MAX_LINKS 8 /* symlinks followed in directories only root (and we) can write */

struct outfile {
	int dirfd, fd;
	char *base;  /* the name in dirfd */
	char *shown; /* the path as given, for messages */
	enum outfile_mode mode;
	bool stream;
	bool committed;
	char tmpname[64]; /* a named temporary in dirfd ("" for none or O_TMPFILE) */
};

static int fail(struct outfile *o, char *errbuf, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(struct outfile *o, char *errbuf, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_buf_v(errbuf, errlen, fmt, ap);
	va_end(ap);
	(void)o;
	return -1;
}

/* Others than root and us can add, remove or rename entries: /tmp, a group's, a user's home. */
static bool others_can_write(const struct stat *dir)
{
	return chase_others_can_write(dir);
}

static const char *kind_of(mode_t m)
{
	return S_ISDIR(m)    ? "a directory"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISSOCK(m) ? "a socket"
	       : S_ISFIFO(m) ? "a FIFO"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISLNK(m)  ? "a symbolic link"
			     : "not a regular file";
}

/* Splits path into its directory (opened) and its last name, checking the name. */
static int open_dir(struct outfile *o, const char *path, char *errbuf, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char *dir;

	if (!*path)
		return fail(o, errbuf, errlen, "an empty output name");
	if (!*base)
		return fail(o, errbuf, errlen, "'%s' names a directory (a trailing slash)", path);
	if (!strcmp(base, ".") || !strcmp(base, ".."))
		return fail(o, errbuf, errlen, "'%s' is a directory", path);
	if (strlen(base) > NAME_MAX)
		return fail(o, errbuf, errlen, "'%s': file name too long (%zu bytes, at most %d)",
			    path, strlen(base), NAME_MAX);
	dir = slash ? strndup(path, (size_t)(slash - path)) : xstrdup(".");
	if (!dir)
		return fail(o, errbuf, errlen, "out of memory");
	if (!*dir) { /* "/name" */
		free(dir);
		dir = xstrdup("/");
	}
	/* every component checked, from the first to the last directory (chase.h) */
	o->dirfd = chase_dir(dir, o->shown, errbuf, errlen);
	free(dir);
	if (o->dirfd < 0)
		return -1;
	o->base = xstrdup(base);
	return 0;
}

/* Opens what st describes (already looked at) and checks it is still that. */
static int open_checked(struct outfile *o, const struct stat *st, int flags, char *errbuf,
			size_t errlen)
{
	struct stat now;

	o->fd = openat(o->dirfd, o->base, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (o->fd < 0 && errno == ENXIO)
		return fail(o, errbuf, errlen, "'%s' is a FIFO nobody reads", o->shown);
	if (o->fd < 0)
		return err_buf_errno(errbuf, errlen, "cannot write '%s'", o->shown);
	if (fstat(o->fd, &now) < 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino)
		return fail(o, errbuf, errlen, "'%s' changed while it was opened", o->shown);
	/* non-blocking only for the open (a FIFO without a reader); writes may wait */
	if (fcntl(o->fd, F_SETFL, flags & O_APPEND) < 0)
		return err_buf_errno(errbuf, errlen, "cannot write '%s'", o->shown);
	return 0;
}

/* An unnamed file in the directory, named only by outfile_commit(). */
static int open_temp(struct outfile *o, char *errbuf, size_t errlen)
{
	static unsigned seq;

	o->fd = openat(o->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
	/* file systems without O_TMPFILE: a hidden name, removed unless committed */
	for (int i = 0;
	     o->fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EEXIST) && i < 100;
	     i++) {
		snprintf(o->tmpname, sizeof(o->tmpname), ".kvm-exitstat-%d-%u", (int)getpid(),
			 seq++);
		o->fd = openat(o->dirfd, o->tmpname,
			       O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	}
	if (o->fd < 0) {
		o->tmpname[0] = '\0';
		return err_buf_errno(errbuf, errlen, "cannot create '%s'", o->shown);
	}
	return 0;
}

static int open_new(struct outfile *o, char *errbuf, size_t errlen)
{
	if (o->mode == OUTFILE_REPLACE)
		return open_temp(o, errbuf, errlen);
	o->fd = openat(o->dirfd, o->base,
		       O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (o->fd < 0)
		return err_buf_errno(errbuf, errlen, "cannot create '%s'", o->shown);
	return 0;
}

static int open_regular(struct outfile *o, const struct stat *st, bool shared, char *errbuf,
			size_t errlen)
{
	if (o->mode == OUTFILE_REPLACE)
		return open_temp(o, errbuf, errlen); /* the old file is not touched */
	if (shared && (st->st_uid != geteuid() || st->st_nlink > 1))
		return fail(o, errbuf, errlen,
			    "'%s' is %s in a directory others can write: not appended to", o->shown,
			    st->st_nlink > 1 ? "a hard link" : "another user's file");
	return open_checked(o, st, O_WRONLY | O_APPEND, errbuf, errlen);
}

static struct outfile *open_path(const char *path, const char *shown, enum outfile_mode mode,
				 int links, char *errbuf, size_t errlen);

/*
 * What a link points at is opened once (O_PATH, following), and that object
 * is the output: a FIFO or device, or a file reached through /proc (as
 * /dev/stdout is, an fd already open), is written through; a regular file is
 * replaced in its own directory, found from the opened object, so the link
 * cannot be retargeted between the look and the use.
 */
static struct outfile *through_link(struct outfile *o, int pfd, bool via_proc, int links,
				    char *errbuf, size_t errlen)
{
	char proc[64], real[PATH_MAX];
	struct stat st;
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	if (fstat(pfd, &st) < 0) {
		err_buf_errno(errbuf, errlen, "cannot write '%s'", o->shown);
		return NULL;
	}
	if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || (via_proc && S_ISREG(st.st_mode))) {
		o->stream = true;
		/* appended: a file behind /dev/stdout already holds what was written to it */
		o->fd = open(proc, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
				       (S_ISREG(st.st_mode) ? O_APPEND : 0));
		if (o->fd < 0 && errno == ENXIO) {
			fail(o, errbuf, errlen, "'%s' is a FIFO nobody reads", o->shown);
			return NULL;
		}
		if (o->fd < 0) {
			err_buf_errno(errbuf, errlen, "cannot write '%s'", o->shown);
			return NULL;
		}
		fcntl(o->fd, F_SETFL, S_ISREG(st.st_mode) ? O_APPEND : 0);
		return o;
	}
	n = readlink(proc, real, sizeof(real) - 1);
	if (!S_ISREG(st.st_mode) || n <= 0 || real[0] != '/') {
		fail(o, errbuf, errlen, "'%s' points at %s, not an output file", o->shown,
		     kind_of(st.st_mode));
		return NULL;
	}
	real[n] = '\0';
	return open_path(real, o->shown, o->mode, links + 1, errbuf, errlen);
}

/* A symlink in a directory nobody else can write: where it points now, once. */
static struct outfile *follow(struct outfile *o, const char *path, int links, char *errbuf,
			      size_t errlen)
{
	char target[PATH_MAX], *next;
	ssize_t n = readlinkat(o->dirfd, o->base, target, sizeof(target) - 1);
	const char *slash = strrchr(path, '/');
	struct outfile *r;
	int pfd;

	if (n < 0) {
		err_buf_errno(errbuf, errlen, "cannot read the link '%s'", o->shown);
		return NULL;
	}
	target[n] = '\0';
	if (links >= MAX_LINKS) {
		fail(o, errbuf, errlen, "'%s': %s", o->shown, strerror(ELOOP));
		return NULL;
	}
	pfd = openat(o->dirfd, o->base, O_PATH | O_CLOEXEC);
	if (pfd >= 0) {
		struct outfile *s =
		    through_link(o, pfd, !strncmp(target, "/proc/", 6), links, errbuf, errlen);

		close(pfd);
		return s; /* o itself for a stream: the caller keeps it */
	}
	/* a link to nothing yet: the file it names is made */
	if (target[0] == '/' || !slash) {
		next = xstrdup(target);
	} else {
		size_t d = (size_t)(slash - path) + 1;

		next = xmalloc(d + (size_t)n + 1);
		memcpy(next, path, d);
		memcpy(next + d, target, (size_t)n + 1);
	}
	r = open_path(next, o->shown, o->mode, links + 1, errbuf, errlen);
	free(next);
	return r;
}

static struct outfile *open_path(const char *path, const char *shown, enum outfile_mode mode,
				 int links, char *errbuf, size_t errlen)
{
	struct outfile *o = xcalloc(1, sizeof(*o));
	struct stat dir, st;
	int ret = -1;

	*o = (struct outfile){.dirfd = -1, .fd = -1, .mode = mode};
	o->shown = xstrdup(shown);
	if (open_dir(o, path, errbuf, errlen) < 0 || fstat(o->dirfd, &dir) < 0)
		goto out;
	if (fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			ret = open_new(o, errbuf, errlen);
		else
			err_buf_errno(errbuf, errlen, "cannot write '%s'", shown);
	} else if (S_ISLNK(st.st_mode)) {
		if (!chase_link_trusted(&dir, st.st_uid)) {
			fail(o, errbuf, errlen, "'%s' is a symbolic link %s: not followed", shown,
			     others_can_write(&dir) ? "in a directory others can write"
						    : "owned by another user than its directory");
			goto out;
		}
		struct outfile *r = follow(o, path, links, errbuf, errlen);
		if (r != o)
			outfile_free(o);
		return r;
	} else if (S_ISREG(st.st_mode)) {
		ret = open_regular(o, &st, others_can_write(&dir), errbuf, errlen);
	} else if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
		/* written through, never replaced: /dev/null stays /dev/null */
		o->stream = true;
		ret = open_checked(o, &st, O_WRONLY, errbuf, errlen);
	} else {
		fail(o, errbuf, errlen, "'%s' is %s, not an output file", shown,
		     kind_of(st.st_mode));
	}
out:
	if (ret < 0) {
		outfile_free(o);
		return NULL;
	}
	return o;
}

struct outfile *outfile_open(const char *path, enum outfile_mode mode, char *errbuf, size_t errlen)
{
	return open_path(path, path, mode, 0, errbuf, errlen);
}

int outfile_fd(const struct outfile *o)
{
	return o->fd;
}

FILE *outfile_stdio(const struct outfile *o, const char *mode, char *errbuf, size_t errlen)
{
	int fd = fcntl(o->fd, F_DUPFD_CLOEXEC, 0);
	FILE *f = fd < 0 ? NULL : fdopen(fd, mode);

	if (!f) {
		err_buf_errno(errbuf, errlen, "cannot write '%s'", o->shown);
		if (fd >= 0)
			close(fd);
	}
	return f;
}

bool outfile_is_stream(const struct outfile *o)
{
	return o->stream;
}

int outfile_dirfd(const struct outfile *o)
{
	return o->stream ? -1 : o->dirfd;
}

/* Gives the O_TMPFILE file a (hidden, short) name in the directory. */
static int name_temp(struct outfile *o)
{
	static unsigned seq;
	char proc[64];
	int ret = -1;

	for (int i = 0; i < 100 && ret < 0; i++) {
		snprintf(o->tmpname, sizeof(o->tmpname), ".kvm-exitstat-%d-%u", (int)getpid(),
			 seq++);
		ret = linkat(o->fd, "", o->dirfd, o->tmpname, AT_EMPTY_PATH);
		if (ret < 0 && errno != EEXIST) {
			/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH: the same through /proc */
			snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
			ret = linkat(AT_FDCWD, proc, o->dirfd, o->tmpname, AT_SYMLINK_FOLLOW);
		}
		if (ret < 0 && errno != EEXIST)
			break;
	}
	if (ret < 0)
		o->tmpname[0] = '\0';
	return ret;
}

int outfile_commit(struct outfile *o, char *errbuf, size_t errlen)
{
	struct stat st;

	if (o->committed || o->mode != OUTFILE_REPLACE || o->stream)
		return 0;
	if (fsync(o->fd) < 0 && errno != EINVAL)
		return err_buf_errno(errbuf, errlen, "cannot write '%s'", o->shown);
	if (!o->tmpname[0] && name_temp(o) < 0)
		return err_buf_errno(errbuf, errlen, "cannot write '%s'", o->shown);
	/* A device or FIFO put there meanwhile is not replaced: the file keeps its hidden name. */
	if (fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode) &&
	    !S_ISLNK(st.st_mode)) {
		o->committed = true;
		return fail(o, errbuf, errlen,
			    "'%s' became %s meanwhile: the output is kept as '%s'", o->shown,
			    kind_of(st.st_mode), o->tmpname);
	}
	if (renameat(o->dirfd, o->tmpname, o->dirfd, o->base) < 0)
		return err_buf_errno(errbuf, errlen, "cannot write '%s'", o->shown);
	o->committed = true;
	return 0;
}

void outfile_free(struct outfile *o)
{
	if (!o)
		return;
	if (o->fd >= 0)
		close(o->fd);
	if (!o->committed && o->tmpname[0] && o->dirfd >= 0)
		unlinkat(o->dirfd, o->tmpname, 0);
	if (o->dirfd >= 0)
		close(o->dirfd);
	free(o->base);
	free(o->shown);
	free(o);
}
