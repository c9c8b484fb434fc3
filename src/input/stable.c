// SPDX-License-Identifier: GPL-2.0
/*
 * A file root reads may belong to someone who can change it while it is
 * read: rewrite it after our checks passed and before libtracecmd reads it,
 * or truncate it under a mapping (SIGBUS). Only the owner (and root) can
 * write a file that is not group- or world-writable, and on a local file
 * system a read returns what is stored; on FUSE or a network file system the
 * server answers each read as it likes. So such a file is read where it is,
 * and any other is first copied into a sealed memfd, which nobody, not even
 * this process, can change any more: every reader then sees the same bytes.
 * The copy costs its size in memory for as long as it is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include "alloc.h"
#include "err.h"
#include "input.h"

/* statfs() magic numbers (linux/magic.h) of file systems that serve each read anew. */
static bool remote_fs(int fd)
{
	static const unsigned long remote[] = {
	    0x65735546, /* FUSE */
	    0x6969,	/* NFS */
	    0xFF534D42, /* CIFS */
	    0xFE534D42, /* SMB2 */
	    0x517B,	/* SMB */
	    0x01021997, /* 9P */
	    0x00C36400, /* CEPH */
	    0x564c,	/* NCP */
	    0x6B414653, /* AFS */
	};
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(remote); i++)
		if ((unsigned long)sf.f_type == remote[i])
			return true;
	return false;
}

static bool others_can_write(const struct stat *st)
{
	return (st->st_uid != geteuid() && st->st_uid != 0) || (st->st_mode & (S_IWGRP | S_IWOTH));
}

static int copy_sealed(int fd, const struct stat *st, char *errbuf, size_t errlen)
{
	int mfd = memfd_create("kvm-exitstat-input", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	off_t in = 0;

	if (mfd < 0)
		return err_buf_errno(errbuf, errlen, "cannot make a private copy");
	/* Up to the end the file has now; a file that grows meanwhile is cut there. */
	while (in < st->st_size) {
		ssize_t n = sendfile(mfd, fd, &in, (size_t)(st->st_size - in));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : 0;

			close(mfd);
			return err_buf(errbuf, errlen, "cannot make a private copy: %s",
					  e ? strerror(e) : "the file shrank while it was copied");
		}
	}
	if (fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
		int e = errno;

		close(mfd);
		errno = e; /* close() may change it: the reason is fcntl()'s */
		return err_buf_errno(errbuf, errlen, "cannot seal the private copy");
	}
	return mfd;
}

int input_stable_fd(int fd, char *errbuf, size_t errlen)
{
	struct stat st;
	int nfd;

	if (fstat(fd, &st) < 0)
		return err_buf_errno(errbuf, errlen, "cannot stat the input");
	if (S_ISREG(st.st_mode) && !others_can_write(&st) && !remote_fs(fd)) {
		nfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (nfd < 0)
			return err_buf_errno(errbuf, errlen, "cannot dup the input");
		return nfd;
	}
	return copy_sealed(fd, &st, errbuf, errlen);
}
