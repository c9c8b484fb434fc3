/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A directory path resolved for a tool that runs as root, one component at a
 * time (as systemd's chase() with CHASE_SAFE): each component is opened with
 * O_PATH | O_NOFOLLOW relative to the one before, so what is checked is what
 * is used, and a symbolic link is followed only when the directory holding
 * it can be written by nobody but root and us, and the link is owned by that
 * directory's owner. A symlink planted by another user, in any component,
 * is refused, with the component named.
 */
#ifndef KES_CHASE_H
#define KES_CHASE_H

#include <stddef.h>
#include <sys/stat.h>

/*
 * May a symlink in dir (the directory's stat), owned by link_uid, be
 * followed? Not when others than root and us can write dir (group or world
 * write, or another owner: /tmp, a user's home), nor when its owner is not
 * dir's.
 */
int chase_link_trusted(const struct stat *dir, uid_t link_uid);
/* Can others than root and us add, remove or rename entries of dir? */
int chase_others_can_write(const struct stat *dir);
/*
 * The directory `dir` names (relative to the current directory, or "/"),
 * opened O_RDONLY | O_DIRECTORY, or -1 with a one-line reason in errbuf that
 * names `shown` (the whole path as the user gave it) and the component that
 * failed: missing, not a directory, a link not trusted, too many links.
 */
int chase_dir(const char *dir, const char *shown, char *errbuf, size_t errlen);

#endif
