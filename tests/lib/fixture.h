/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tests/lib: what tests, fuzzers and test tools build their inputs with. It
 * lives here, not in src/, because the tool never writes a fixture: linked
 * as $(O)/tests/libkes-test.a into the unit tests, mkdat and the fuzzers.
 */
#ifndef KES_TESTS_FIXTURE_H
#define KES_TESTS_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Test fixtures: a v6 trace.dat built from format files and text events, for
 * ISAs this host does not have.
 *
 * format_specs: "PATH" or "SYSTEM:PATH"; PATH is a format file or a directory
 * holding <event>/format (and optionally header_page, header_event). Without
 * SYSTEM, an event's system is the one the event lines give it ("kvm" if none).
 *
 * events_text: one event a line, "cpu ts_ns pid system:event field=value ...";
 * values are integers (decimal, 0x hex, negative) or, for char arrays and
 * __data_loc strings, text. Unnamed fields are 0. '#' starts a comment.
 */
int datfixture_build(const char *out, const char *const *format_specs, size_t nspecs,
		     const char *events_text, char *errbuf, size_t errlen);

/* Builds one ring-buffer page from events (test fixtures). */
struct ringenc {
	unsigned char *page;
	size_t page_size, used;
	int long_size;
	uint64_t last_ts;
};

struct ring_info;
/* Walks a raw page (long_size: 4 or 8). Returns 0, or -1 if malformed. */
int ringenc_count(const void *page, size_t len, int long_size, struct ring_info *info);
void ringenc_init(struct ringenc *e, void *page, size_t page_size, int long_size);
/*
 * Appends an event (data starts at common_type). Returns 0, 1 when the page
 * is full (write it out, ringenc_init() again, retry), or -1 when the event
 * can never fit or goes back in time.
 */
int ringenc_add(struct ringenc *e, uint64_t ts, const void *data, size_t len);

#endif
