// SPDX-License-Identifier: GPL-2.0
/*
 * wordsum: the floor of reading a trace.dat, for the report benchmark.
 * Reads FILE the way the report fast path does (pread of 256 KiB windows
 * into one reused buffer, tracedat-fast.c) and adds up every 64-bit word, on
 * one core. A reader that looks at every byte of the file once cannot be
 * cheaper than this by much; the bench prints report's CPU as a multiple
 * of it. Prints the sum, so the loop cannot be optimized away.
 */
#define _FILE_OFFSET_BITS 64
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define WINDOW (256u << 10)

static uint64_t sum_window(const unsigned char *p, size_t len)
{
	uint64_t s = 0, w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		s += w;
	}
	for (; i < len; i++)
		s += p[i];
	return s;
}

int main(int argc, char **argv)
{
	static unsigned char buf[WINDOW];
	uint64_t sum = 0;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: wordsum FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (;;) {
		ssize_t n = read(fd, buf, WINDOW);

		if (n < 0) {
			perror("read");
			return 1;
		}
		if (n == 0)
			break;
		sum += sum_window(buf, (size_t)n);
	}
	printf("%" PRIu64 "\n", sum);
	close(fd);
	return 0;
}
