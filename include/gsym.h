/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A guest's symbol table, for `report --by-guest`: which guest function a VM
 * exit's guest program counter was in. Read from one of
 *   - /proc/kallsyms text as the guest showed it (perf kvm's --guest-kallsyms),
 *   - a System.map (the same "ADDRESS TYPE NAME" lines, without modules),
 *   - an ELF file with a .symtab or .dynsym (vmlinux, a module, any program),
 * told apart by content: the ELF magic, else text lines. Only code symbols
 * are kept (text: types t T w W; ELF: STT_FUNC, STT_GNU_IFUNC, and STT_NOTYPE
 * in an executable section). Addresses are the file's own: a kallsyms
 * copy has the guest's run-time (KASLR) addresses, a System.map or vmlinux
 * the link-time ones; the caller subtracts any slide.
 */
#ifndef KES_GSYM_H
#define KES_GSYM_H

#include <stddef.h>
#include <stdint.h>

/* Bounds on a file (hostile input: this runs as root). */
#define GSYM_MAX_LINE 4096		/* bytes in a text line, without its newline */
#define GSYM_MAX_SYMS (16u << 20)	/* symbol lines of a text file, symbols of an ELF table */
/*
 * How far a symbol's range reaches at most: text formats have no sizes, so a
 * range ends at the next symbol, and the last one (or one before a gap, as
 * between vmlinux's text and the modules') would reach to the end of the
 * address space. No kernel function is 1 MiB long.
 */
#define GSYM_MAX_RANGE (1u << 20)

struct gsym;

/*
 * Reads a guest's symbols from path. NULL with a one-line reason in errbuf:
 * missing file, not a regular file, not a symbol file, no code symbols,
 * a malformed line, addresses all zero, too large, libelf.so.1 missing.
 */
struct gsym *gsym_load(const char *path, char *errbuf, size_t errlen);
void gsym_free(struct gsym *s);
/* The symbol whose range holds addr: its name (owned by s), *off = addr - start. NULL when none. */
const char *gsym_lookup(const struct gsym *s, uint64_t addr, uint64_t *off);
/*
 * The same, and in *module the kernel module a kallsyms symbol is of
 * ("kvm" of "... t foo\t[kvm]"), NULL for vmlinux's and other formats'.
 * off and module may be NULL.
 */
const char *gsym_lookup_module(const struct gsym *s, uint64_t addr, uint64_t *off,
			       const char **module);
size_t gsym_count(const struct gsym *s);
/* "kallsyms", "System.map" or "ELF", for headers. */
const char *gsym_kind(const struct gsym *s);

#endif
