// SPDX-License-Identifier: GPL-2.0
/*
 * record --in-kernel FILE: the recording's own instance also carries the
 * in-kernel aggregation top and serve --in-kernel use (live/khist.c), so
 * the kernel counts and times the very events the trace.dat gets; at the
 * end its hists go to FILE as JSON (raw keys: the exit event's fields, the
 * log2 buckets with their sums), for a check of one against the other
 * (tests/e2e/inkernel-live.sh does that with trace-cmd's text of the file).
 */
#include <stdio.h>
#include <stdlib.h>
#include "cli-local.h"
#include "err.h"
#include "jsonw.h"
#include "khist.h"
#include "outfile.h"
#include "watch.h"

struct khist *cli_khist_attach(struct live *c, const char *const *types, size_t ntypes,
			       const char **fields, size_t *nfields)
{
	struct khist_opts ko = {.exit_sys = "kvm",
				.exit_ev = "kvm_exit",
				.entry_sys = "kvm",
				.entry_ev = "kvm_entry"};
	struct exit_types t;
	struct khist *h;
	char e[512];

	if (!khist_supported("kvm", "kvm_exit", e, sizeof(e)))
		return err("--in-kernel: %s", e), NULL;
	if (cli_load_exit_types(&t, types, ntypes) < 0)
		return NULL;
	ko.nfields = watch_in_kernel_fields(&t, ko.fields);
	exit_types_free(&t); /* the field names are interned */
	if (!ko.nfields)
		return err("--in-kernel: no exit table names kvm:kvm_exit's fields"), NULL;
	h = khist_new(c, &ko, e, sizeof(e));
	if (!h)
		return err("--in-kernel: %s", e), NULL;
	for (size_t i = 0; i < ko.nfields; i++)
		fields[i] = ko.fields[i];
	*nfields = ko.nfields;
	return h;
}

static void entries(struct jsonw *w, const char *key, const struct khist_entry *e, size_t n,
		    bool lat)
{
	jsonw_arr_open(w, key);
	for (size_t i = 0; i < n; i++) {
		jsonw_obj_open_flat(w, NULL);
		jsonw_i64(w, "tid", e[i].tid);
		jsonw_arr_open_flat(w, "f");
		for (size_t k = 0; k < (lat ? 1 : KHIST_MAX_FIELDS); k++)
			jsonw_u64(w, NULL, e[i].f[k]);
		jsonw_arr_close(w);
		if (lat)
			jsonw_i64(w, "log2", e[i].log2);
		jsonw_u64(w, "n", e[i].n);
		if (lat)
			jsonw_u64(w, "sum", e[i].sum);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
}

int cli_khist_write(struct khist *h, const char *path, const char *const *fields, size_t nfields)
{
	struct khist_data d;
	char e[512] = "";
	struct outfile *of;
	struct jsonw w;
	FILE *f;
	int ret = 0;

	if (khist_read(h, &d) < 0)
		return err_errno("--in-kernel: cannot read the kernel's hists");
	of = outfile_open(path, OUTFILE_REPLACE, e, sizeof(e));
	f = of ? outfile_stdio(of, "w", e, sizeof(e)) : NULL;
	if (!f) {
		ret = err("%s", e);
		goto out;
	}
	jsonw_start(&w, f, true);
	jsonw_obj_open(&w, NULL);
	jsonw_str(&w, "kind", "kvm-exitstat-in-kernel");
	jsonw_arr_open_flat(&w, "fields");
	for (size_t i = 0; i < nfields; i++)
		jsonw_str(&w, NULL, fields[i]);
	jsonw_arr_close(&w);
	jsonw_u64(&w, "dropped", d.dropped);
	entries(&w, "counts", d.counts, d.ncounts, false);
	entries(&w, "latency", d.lat, d.nlat, true);
	jsonw_obj_close(&w);
	jsonw_end(&w);
	if (fclose(f) != 0)
		ret = err_errno("cannot write '%s'", path);
	else if (outfile_commit(of, e, sizeof(e)) < 0)
		ret = err("%s", e);
out:
	outfile_free(of);
	khist_data_free(&d);
	return ret;
}
