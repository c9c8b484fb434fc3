// SPDX-License-Identifier: GPL-2.0
/*
 * wordsum: the floor of reading a trace.dat in place, for the report
 * benchmark. Maps FILE the way the report fast path does (2 MiB windows,
 * MAP_POPULATE, tracedat-fast.c) and adds up every 64-bit word, on one
 * core. A reader that looks at every byte of the file once cannot be
 * cheaper than this by much; the bench prints report's CPU as a multiple
 * of it. Prints the sum, so the loop cannot be optimized away.
 */
#define _FILE_OFFSET_BITS 64
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define WINDOW (2u << 20)

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
	struct stat st;
	uint64_t sum = 0;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: wordsum FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(argv[1]);
		return 1;
	}
	for (off_t off = 0; off < st.st_size; off += WINDOW) {
		size_t len = st.st_size - off < WINDOW ? (size_t)(st.st_size - off) : WINDOW;
		void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, off);

		if (m == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		sum += sum_window(m, len);
		munmap(m, len);
	}
	printf("%" PRIu64 "\n", sum);
	close(fd);
	return 0;
}
