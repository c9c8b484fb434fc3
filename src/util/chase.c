// SPDX-License-Identifier: GPL-2.0
/*
 * include/chase.h. Only the last component of an output path used to be
 * looked at: with nb/ owned by nobody and nb/d2 a symlink to a root-only
 * directory, `report --svg nb/d2/x.svg` run by root wrote into that
 * directory, and swapping nb/d2 between a directory and a symlink during
 * 150 runs won once (issue 29). Every component is now opened relative to
 * the last one checked, never by a path again, and nothing is followed that
 * another user could have put there.
 *
 * ".." is the real parent of the directory in hand (openat(fd, "..")), as
 * the kernel would resolve it: a directory moved by its owner leads up into
 * one that owner can write, where the same rules hold; it cannot lead where
 * the owner could not already put the output.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "alloc.h"
#include "chase.h"
#include "err.h"

#define MAX_LINKS 32 /* links followed in one path (the kernel allows 40) */

int chase_others_can_write(const struct stat *dir)
{
	return (dir->st_mode & (S_IWGRP | S_IWOTH)) ||
	       (dir->st_uid != geteuid() && dir->st_uid != 0);
}

int chase_link_trusted(const struct stat *dir, uid_t link_uid)
{
	return !chase_others_can_write(dir) && link_uid == dir->st_uid;
}

/* The walk: the directory in hand, the path still to go, and the path so far (for messages). */
struct walk {
	int fd;
	struct stat st;
	char *todo; /* components left, '/'-separated; replaced when a link is followed */
	size_t pos;
	char at[PATH_MAX];
	int links;
	const char *shown;
	char *e;
	size_t n;
};

static int fail(struct walk *w, const char *why)
{
	return err_buf(w->e, w->n, "cannot write '%s': '%s' %s", w->shown, w->at, why);
}

static int fail_errno(struct walk *w, int e)
{
	return err_buf(w->e, w->n, "cannot write '%s': '%s': %s", w->shown, w->at, strerror(e));
}

static int enter(struct walk *w, int fd)
{
	close(w->fd);
	w->fd = fd;
	return fstat(fd, &w->st) < 0 ? fail_errno(w, errno) : 0;
}

static int start_at(struct walk *w, const char *from)
{
	int fd = open(from, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return fail_errno(w, errno);
	if (w->fd < 0) {
		w->fd = fd;
		return fstat(fd, &w->st) < 0 ? fail_errno(w, errno) : 0;
	}
	return enter(w, fd);
}

/* Appends name to w->at (the path as resolved so far, for messages). */
static void at_add(struct walk *w, const char *name)
{
	size_t l = strlen(w->at);

	snprintf(w->at + l, sizeof(w->at) - l, "%s%s", l && w->at[l - 1] != '/' ? "/" : "", name);
}

/* The link in hand (lfd, an O_PATH fd of it): its target goes first in what is left. */
static int follow(struct walk *w, int lfd, const struct stat *lst)
{
	char target[PATH_MAX];
	ssize_t len;
	size_t rest;
	char *todo;

	if (!chase_link_trusted(&w->st, lst->st_uid))
		return fail(w,
			    chase_others_can_write(&w->st)
				? "is a symbolic link in a directory others can write: not followed"
				: "is a symbolic link owned by another user than its directory: "
				  "not followed");
	if (++w->links > MAX_LINKS)
		return fail_errno(w, ELOOP);
	len = readlinkat(lfd, "", target, sizeof(target) - 1);
	if (len <= 0)
		return fail_errno(w, len < 0 ? errno : ENOENT);
	target[len] = '\0';
	rest = strlen(w->todo + w->pos);
	todo = xmalloc((size_t)len + rest + 2);
	snprintf(todo, (size_t)len + rest + 2, "%s/%s", target, w->todo + w->pos);
	free(w->todo);
	w->todo = todo;
	w->pos = 0;
	/* the link's directory: "at" names where the target is looked up from */
	char *slash = strrchr(w->at, '/');
	if (slash)
		slash[slash == w->at ? 1 : 0] = '\0';
	else
		w->at[0] = '\0';
	if (target[0] == '/') {
		snprintf(w->at, sizeof(w->at), "/");
		return start_at(w, "/");
	}
	return 0;
}

/* The next component of what is left (NULL: none); name is NUL-terminated in todo. */
static char *next_name(struct walk *w)
{
	char *s = w->todo + w->pos, *slash;

	while (*s == '/')
		s++;
	if (!*s)
		return NULL;
	slash = strchr(s, '/');
	if (slash) {
		*slash = '\0';
		w->pos = (size_t)(slash + 1 - w->todo);
	} else {
		w->pos = (size_t)(s + strlen(s) - w->todo);
	}
	return s;
}

static int step(struct walk *w, const char *name)
{
	struct stat st;
	int fd;

	if (!strcmp(name, "."))
		return 0;
	at_add(w, name);
	fd = openat(w->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return fail_errno(w, errno);
	if (fstat(fd, &st) < 0) {
		close(fd);
		return fail_errno(w, errno);
	}
	if (S_ISDIR(st.st_mode))
		return enter(w, fd);
	int ret = S_ISLNK(st.st_mode) ? follow(w, fd, &st) : fail(w, "is not a directory");

	close(fd);
	return ret;
}

int chase_dir(const char *dir, const char *shown, char *errbuf, size_t errlen)
{
	struct walk w = {.fd = -1, .shown = shown, .e = errbuf, .n = errlen};
	const char *name;
	int ret, fd = -1;

	w.todo = xstrdup(dir);
	snprintf(w.at, sizeof(w.at), "%s", dir[0] == '/' ? "/" : "");
	ret = start_at(&w, dir[0] == '/' ? "/" : ".");
	while (ret == 0 && (name = next_name(&w)))
		ret = step(&w, name);
	/* An fd of the directory itself: O_PATH ones cannot be fsync'ed or read */
	if (ret == 0 && (fd = openat(w.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		fail_errno(&w, errno);
	if (w.fd >= 0)
		close(w.fd);
	free(w.todo);
	return fd;
}
