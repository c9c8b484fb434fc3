// SPDX-License-Identifier: GPL-2.0
/*
 * swapper A B: exchanges two directory entries (renameat2 RENAME_EXCHANGE)
 * every 200 us until killed, as an unprivileged user who owns a directory
 * can while root reads a file in it. tests/e2e/hostile-input.sh runs report
 * on A meanwhile: a reader that opens A more than once sees both files.
 */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	const struct timespec pause = {0, 200000};

	if (argc != 3) {
		fputs("usage: swapper A B\n", stderr);
		return 2;
	}
	for (;;) {
		if (syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE)) {
			perror("swapper: renameat2");
			return 1;
		}
		nanosleep(&pause, NULL);
	}
}
