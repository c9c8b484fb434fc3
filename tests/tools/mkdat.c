// SPDX-License-Identifier: GPL-2.0
/*
 * mkdat: build a trace.dat v6 test fixture from real format files and events
 * written as text (see datfixture_build() in tests/lib/fixture.h).
 *
 *   mkdat -o OUT.dat -f [SYSTEM:]PATH [-f ...] [EVENTS.txt | -]
 *
 * Example:
 *   mkdat -o arm64.dat -f tests/fixtures/formats/arm64 - <<EOF
 *   0 1000 4101 kvm:kvm_exit ret=1 esr_ec=0x16 vcpu_pc=0xffff0000
 *   0 3000 4101 kvm:kvm_entry vcpu_pc=0xffff0004
 *   EOF
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "alloc.h"
#include "fixture.h"

static char *read_stream(FILE *f)
{
	size_t cap = 4096, n = 0, r;
	char *p = xmalloc(cap + 1);

	while ((r = fread(p + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap)
			p = xrealloc(p, (cap *= 2) + 1);
	}
	p[n] = 0;
	return p;
}

int main(int argc, char **argv)
{
	const char *out = NULL, *specs[256];
	size_t nspecs = 0;
	char errbuf[512], *text;
	FILE *in = stdin;
	int c, ret;

	while ((c = getopt(argc, argv, "o:f:")) != -1) {
		if (c == 'o')
			out = optarg;
		else if (c == 'f' && nspecs < 256)
			specs[nspecs++] = optarg;
		else
			return 2;
	}
	if (!out || !nspecs || argc - optind > 1) {
		fprintf(stderr,
			"usage: mkdat -o OUT.dat -f [SYSTEM:]FORMAT_OR_DIR... [EVENTS|-]\n");
		return 2;
	}
	if (optind < argc && strcmp(argv[optind], "-")) {
		in = fopen(argv[optind], "r");
		if (!in) {
			perror(argv[optind]);
			return 1;
		}
	}
	text = read_stream(in);
	ret = datfixture_build(out, specs, nspecs, text, errbuf, sizeof(errbuf));
	if (ret)
		fprintf(stderr, "mkdat: %s\n", errbuf);
	free(text);
	return ret ? 1 : 0;
}
