// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: guest symbol files (gsym.h: kallsyms, System.map, ELF), the
 * files `--guest-kallsyms FILE` reads as root. A file that loads is looked
 * up at addresses taken from its own bytes and at the ends of the address
 * space, and each answer is held to what must be true of any symbol table,
 * whatever the parser: the symbol found at A - off is the same one at offset
 * 0 (ranges begin at a symbol), both lookups agree, a text file's name is
 * one of its own words and its range is bounded; and, read here by a parser
 * of its own, every code line's address of a text file begins a symbol's
 * range. A violation aborts.
 */
#include <stdbool.h>
#include "fuzz.h"
#include "gsym.h"

static bool text_kind(const struct gsym *s)
{
	return strcmp(gsym_kind(s), "ELF") != 0;
}

static void check_name(const struct gsym *s, const char *name, const uint8_t *data, size_t size)
{
	size_t len = strlen(name);

	if (!len || len > GSYM_MAX_LINE)
		abort();
	/* a text file's names are its own bytes, cut at a blank */
	if (text_kind(s) && (strpbrk(name, " \t\r\n") || !memmem(data, size, name, len)))
		abort();
}

static void check_at(const struct gsym *s, uint64_t addr, const uint8_t *data, size_t size)
{
	uint64_t off = 0, off0 = 1;
	const char *mod = NULL, *name = gsym_lookup_module(s, addr, &off, &mod);

	if (gsym_lookup(s, addr, NULL) != name)
		abort();
	if (!name)
		return;
	check_name(s, name, data, size);
	if (off > addr || (text_kind(s) && off >= GSYM_MAX_RANGE))
		abort();
	if (gsym_lookup(s, addr - off, &off0) != name || off0 != 0)
		abort();
	if (mod && (!*mod || !memmem(data, size, mod, strlen(mod))))
		abort();
}

static bool is_hex(uint8_t c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

static bool is_blank(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/*
 * Line p[0..len): "HEX BLANKS TYPE BLANKS", TYPE one of t T w W (code), the
 * address in *addr. A weak symbol at 0 is an undefined one: not code.
 */
static bool code_line(const uint8_t *p, size_t len, uint64_t *addr)
{
	size_t i = 0;

	for (*addr = 0; i < len && i < 17 && is_hex(p[i]); i++)
		*addr = *addr << 4 | (uint64_t)(p[i] <= '9' ? p[i] - '0' : (p[i] | 0x20) - 'a' + 10);
	if (i == 0 || i > 16 || i >= len || !is_blank(p[i]))
		return false;
	while (i < len && is_blank(p[i]))
		i++;
	if (i + 1 >= len || !strchr("tTwW", p[i]) || !p[i] || !is_blank(p[i + 1]))
		return false;
	return *addr || p[i] == 't' || p[i] == 'T';
}

/* The independent look: each code line's address starts a range. */
static void check_lines(const struct gsym *s, const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;

	while (p < end) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		uint64_t addr, off = 1;

		if (code_line(p, len, &addr) && (!gsym_lookup(s, addr, &off) || off != 0))
			abort();
		p += len + 1;
	}
}

static uint64_t word_at(const uint8_t *data, size_t i)
{
	uint64_t v;

	memcpy(&v, data + i, sizeof(v));
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char e[256];
	struct gsym *s = gsym_load(fuzz_file(data, size), e, sizeof(e));
	static const uint64_t ends[] = {0, 1, UINT64_MAX, UINT64_MAX - 1, 0xffffffff81000000ull};

	if (!s) {
		/* one line, never empty */
		if (!e[0] || strchr(e, '\n'))
			abort();
		return 0;
	}
	if (!gsym_count(s) || !gsym_kind(s))
		abort();
	if (text_kind(s))
		check_lines(s, data, size);
	for (size_t i = 0; i < ARRAY_SIZE(ends); i++)
		check_at(s, ends[i], data, size);
	/* the input's own words: an ELF's addresses, a text file's digits as bytes */
	for (size_t i = 0; i + 8 <= size && i < 8 * 256; i += 8) {
		uint64_t v = word_at(data, i);

		check_at(s, v, data, size);
		check_at(s, v + 1, data, size);
		check_at(s, v - 1, data, size);
	}
	gsym_free(s);
	return 0;
}
