// SPDX-License-Identifier: GPL-2.0
/*
 * --guest-kallsyms, as report and diff read it: the guest's symbols loaded
 * before the inputs (a bad file is said before minutes of reading), and the
 * lookup stats/ calls through a pointer (it knows no gsym).
 */
#include "cli-local.h"
#include "err.h"
#include "gsym.h"

/* --guest-kallsyms's help, the same in report, diff, top and serve */
const char cli_guest_syms_help[] = "the guest's symbols for --by-guest: a copy of its\n"
				   "/proc/kallsyms, a System.map, or an ELF (vmlinux, a module)";

int cli_guest_syms(const char *path, struct gsym **out)
{
	char why[320];

	*out = NULL;
	if (!path)
		return 0;
	if (!(*out = gsym_load(path, why, sizeof(why))))
		return err("--guest-kallsyms: %s", why);
	return 0;
}

const char *cli_guest_sym(const void *syms, uint64_t pc, uint64_t *off)
{
	return gsym_lookup(syms, pc, off);
}
