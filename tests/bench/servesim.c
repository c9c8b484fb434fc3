// SPDX-License-Identifier: GPL-2.0
/*
 * servesim: serve's store and page for a host of any size, without a
 * kernel, to put numbers on "one host" for the README.
 *
 *   servesim VMS REASONS_EXIT REASONS_USER [VCPUS] [-o FILE]
 *
 * Fills the store as VMS VMs would (REASONS_EXIT kvm_exit reasons and
 * REASONS_USER userspace reasons each, every one with samples over a few
 * histogram buckets, and time in guest for both sources; with VCPUS > 0
 * per vCPU), then prints: label_sets, series (lines with a value), page
 * bytes, and the CPU time of one interval's fold of every row and of one
 * render, best of 20. -o writes the page (for gzip and promtool).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "intern.h"
#include "serve/serve-local.h"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void fill(struct serve_store *s, int vms, int rx, int ru, int vcpus, struct stats_acc *a)
{
	char name[64];

	for (int v = 0; v < vms; v++) {
		for (int c = 0; c < (vcpus ? vcpus : 1); c++) {
			for (int src = 0; src < 2; src++) {
				int nr = src ? ru : rx;

				for (int r = 0; r <= nr; r++) {
					struct serve_row row = {.source = src,
								.pid = 1000 + v,
								.vm = intern("guest-vm"),
								.tid = 100000 + v * 64 + c,
								.vcpu = c,
								.guest = r == nr,
								.acc = a};

					snprintf(name, sizeof(name), "%s_REASON_%d",
						 src ? "KVM_EXIT" : "EXIT", r);
					row.reason = intern(name);
					serve_store_add(s, &row);
				}
			}
		}
	}
}

int main(int argc, char **argv)
{
	int vms, rx, ru, vcpus = 0;
	const char *out = NULL;
	struct stats_acc a;
	struct serve_meta m = {.version = "sim"};
	double fold = 1e9, render = 1e9;
	char *buf = NULL;
	size_t len = 0, lines = 0, rows;
	struct serve_store *s;

	if (argc < 4) {
		fprintf(stderr,
			"usage: servesim VMS REASONS_EXIT REASONS_USER [VCPUS] [-o FILE]\n");
		return 2;
	}
	vms = atoi(argv[1]);
	rx = atoi(argv[2]);
	ru = atoi(argv[3]);
	for (int i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else
			vcpus = atoi(argv[i]);
	}
	m.per_vcpu = vcpus > 0;
	stats_acc_init(&a);
	for (uint64_t v = 2000; v < 2000000; v = v * 3 / 2)
		stats_acc_add(&a, v);
	s = serve_store_new(10000000, vcpus > 0);
	fill(s, vms, rx, ru, vcpus, &a);
	for (int k = 0; k < 20; k++) {
		double t0 = cpu_now(), t1, t2;

		fill(s, vms, rx, ru, vcpus, &a);
		t1 = cpu_now();
		free(buf);
		serve_expose(s, &m, false, &buf, &len);
		t2 = cpu_now();
		if (t1 - t0 < fold)
			fold = t1 - t0;
		if (t2 - t1 < render)
			render = t2 - t1;
	}
	for (size_t i = 0; i < len; i++)
		lines += buf[i] == '\n' && (i + 1 == len || buf[i + 1] != '#');
	rows = serve_store_rows(s, &(const struct serve_series *const *){NULL});
	printf("label_sets %zu series %zu bytes %zu fold_ms %.3f render_ms %.3f\n", rows, lines,
	       len, fold * 1e3, render * 1e3);
	if (out) {
		FILE *f = fopen(out, "w");

		if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
			return 1;
	}
	free(buf);
	serve_store_free(s);
	stats_acc_free(&a);
	return 0;
}
