// SPDX-License-Identifier: GPL-2.0
/*
 * The page gzip'd (zlib), for scrapers that send Accept-Encoding: gzip, as
 * Prometheus does: the exposition is repetitive text and shrinks 20-35x
 * (README, "serve at scale"), which is what a fleet's network and the
 * Prometheus servers' ingest see. Level 1: most of the gain for little CPU.
 */
#include <stdlib.h>
#include <zlib.h>
#include "alloc.h"
#include "serve-local.h"

int serve_gzip(const char *in, size_t len, char **out, size_t *outlen)
{
	z_stream z = {0};
	size_t cap;
	int ret;

	*out = NULL;
	if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	cap = deflateBound(&z, len);
	*out = xmalloc(cap);
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)*out;
	z.avail_out = (uInt)cap;
	ret = deflate(&z, Z_FINISH);
	*outlen = cap - z.avail_out;
	deflateEnd(&z);
	if (ret != Z_STREAM_END || len > UINT32_MAX) {
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}
