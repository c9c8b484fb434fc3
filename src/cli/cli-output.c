// SPDX-License-Identifier: GPL-2.0
/*
 * An output file written whole or not at all: opened as outfile.c opens it
 * (every component of the path checked, a temporary beside it), written by
 * the caller's function through stdio, renamed over the old one only once
 * it is complete. One line on stderr for whatever failed.
 */
#include <stdio.h>
#include "cli-local.h"
#include "err.h"
#include "outfile.h"

int cli_write_file(const char *path, int (*write)(FILE *f, const void *arg), const void *arg)
{
	char e[512] = "";
	struct outfile *of = outfile_open(path, OUTFILE_REPLACE, e, sizeof(e));
	FILE *f = of ? outfile_stdio(of, "w", e, sizeof(e)) : NULL;
	int ret = 0;

	if (!f) {
		ret = err("%s", e);
	} else {
		int w = write(f, arg);

		if (fclose(f) != 0)
			ret = err_errno("cannot write '%s'", path);
		else if (w < 0)
			ret = err("writing '%s' failed", path);
		else if (outfile_commit(of, e, sizeof(e)) < 0)
			ret = err("%s", e);
	}
	outfile_free(of);
	return ret;
}
