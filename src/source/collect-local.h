/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared by the files of src/source/ that implement collect.h. */
#ifndef KES_COLLECT_LOCAL_H
#define KES_COLLECT_LOCAL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* The mask collect_read() waits with; NULL when signals are not installed. */
const sigset_t *collect_wait_mask(void);

/*
 * From a header_page text: the sub-buffer (page) size and the kernel long
 * size (the size of the commit field). Returns 0 or -1.
 */
int ringpage_header_parse(const char *text, size_t len, size_t *page_size, int *long_size);

/* Reads a whole file (tracefs files say size 0) into a NUL-terminated buffer. */
int datwrite_slurp(const char *path, char **buf, size_t *len);

/* Builds one ring-buffer page from events (test fixtures). */
struct ringenc {
	unsigned char *page;
	size_t page_size, used;
	int long_size;
	uint64_t last_ts;
};

void ringenc_init(struct ringenc *e, void *page, size_t page_size, int long_size);
/*
 * Appends an event (data starts at common_type). Returns 0, 1 when the page
 * is full (write it out, ringenc_init() again, retry), or -1 when the event
 * can never fit or goes back in time.
 */
int ringenc_add(struct ringenc *e, uint64_t ts, const void *data, size_t len);

#endif
