// SPDX-License-Identifier: GPL-2.0
/*
 * Guest symbol tables (gsym.h): kallsyms text with modules, a System.map,
 * and an ELF file (this test's own binary, its function found at the
 * address dladdr() gives less the load base), lookups at the edges of a
 * range, and hostile files that must be refused with one line: empty,
 * garbage, a line too long, a truncated ELF, a directory, a FIFO, the
 * all-zero kallsyms a non-root reader sees, a missing file.
 * Expected values are written out by hand here.
 */
#include <dlfcn.h>
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "gsym.h"
#include "harness.h"

static char tmpdir[] = "/tmp/kes-gsym-XXXXXX";
static char path[256];

static const char *write_file(const char *name, const char *text, size_t len)
{
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	if (!f || fwrite(text, 1, len, f) != len) {
		perror(path);
		exit(1);
	}
	fclose(f);
	return path;
}

static const char *write_text(const char *name, const char *text)
{
	return write_file(name, text, strlen(text));
}

/* The name at addr, and its offset (the module's when mod is given). */
static void check_at(const struct gsym *s, uint64_t addr, const char *want, uint64_t want_off,
		     const char *want_mod)
{
	uint64_t off = 12345;
	const char *mod = "unset", *name = gsym_lookup_module(s, addr, &off, &mod);

	if (!want) {
		CHECK(name == NULL, "0x%llx: got %s", (unsigned long long)addr, name);
		return;
	}
	CHECK_STR(name, want);
	CHECK(off == want_off, "0x%llx: off 0x%llx want 0x%llx", (unsigned long long)addr,
	      (unsigned long long)off, (unsigned long long)want_off);
	if (want_mod)
		CHECK_STR(mod, want_mod);
	else
		CHECK(mod == NULL, "0x%llx: module %s", (unsigned long long)addr, mod);
}

static void test_kallsyms(void)
{
	static const char text[] =
	    "ffffffff81000000 T _stext\n"
	    "ffffffff81000000 t alias_of_stext\n"
	    "ffffffff81000100 W weak_fn\n"
	    "ffffffff81000100 T strong_fn\n"
	    "ffffffff81000200 D some_data\n"
	    "ffffffff81000300 t local_fn\n"
	    "0000000000000000 A fixed_percpu_data\n"
	    "ffffffff81002000 r rodata_thing\n"
	    "\n"
	    "ffffffffc0001000 t kvm_fn\t[kvm]\n"
	    "ffffffffc0001080 T kvm_other\t[kvm]\n"
	    "ffffffffc0002000 t nf_fn\t[nf_conntrack]"; /* no final newline */
	char e[256] = "";
	struct gsym *s = gsym_load(write_text("kallsyms.copy", text), e, sizeof(e));
	uint64_t off;

	CHECK(s != NULL, "%s", e);
	if (!s)
		return;
	CHECK_STR(gsym_kind(s), "kallsyms");
	CHECK(gsym_count(s) == 6, "%zu symbols", gsym_count(s));
	check_at(s, 0xffffffff80ffffffull, NULL, 0, NULL);     /* before the first */
	check_at(s, 0xffffffff81000000ull, "_stext", 0, NULL); /* the first of one address */
	check_at(s, 0xffffffff810000ffull, "_stext", 0xff, NULL);
	check_at(s, 0xffffffff81000100ull, "strong_fn", 0, NULL);     /* T over W */
	check_at(s, 0xffffffff81000250ull, "strong_fn", 0x150, NULL); /* data is no symbol */
	check_at(s, 0xffffffff81000300ull, "local_fn", 0, NULL);
	check_at(s, 0xffffffff81000300ull + GSYM_MAX_RANGE - 1, "local_fn", GSYM_MAX_RANGE - 1,
		 NULL);
	check_at(s, 0xffffffff81000300ull + GSYM_MAX_RANGE, NULL, 0, NULL); /* the gap to modules */
	check_at(s, 0xffffffffc0001004ull, "kvm_fn", 4, "kvm");
	check_at(s, 0xffffffffc0001080ull, "kvm_other", 0, "kvm");
	check_at(s, 0xffffffffc0002000ull, "nf_fn", 0, "nf_conntrack");
	check_at(s, 0xffffffffc0002000ull + GSYM_MAX_RANGE - 1, "nf_fn", GSYM_MAX_RANGE - 1,
		 "nf_conntrack");
	check_at(s, 0xffffffffc0002000ull + GSYM_MAX_RANGE, NULL, 0, NULL); /* past the last */
	check_at(s, UINT64_MAX, NULL, 0, NULL);
	CHECK_STR(gsym_lookup(s, 0xffffffff81000301ull, &off), "local_fn");
	CHECK(off == 1, "off %llu", (unsigned long long)off);
	CHECK_STR(gsym_lookup(s, 0xffffffff81000301ull, NULL), "local_fn");
	gsym_free(s);
}

static void test_system_map(void)
{
	/* the shape of Debian 12's /boot/System.map-6.1.0-*-amd64, by hand */
	static const char text[] = "0000000000000000 D __per_cpu_start\n"
				   "0000000000001000 D cpu_debug_store\n"
				   "ffffffff81000000 T _text\n"
				   "ffffffff81000000 T startup_64\n"
				   "ffffffff81000060 T secondary_startup_64\n"
				   "ffffffff81000065 T secondary_startup_64_no_verify\n"
				   "ffffffff810001f0 t verify_cpu\n"
				   "ffffffff82000000 R __start_rodata\n";
	char e[256] = "";
	struct gsym *s = gsym_load(write_text("System.map-6.1.0-test", text), e, sizeof(e));

	CHECK(s != NULL, "%s", e);
	if (!s)
		return;
	CHECK_STR(gsym_kind(s), "System.map");
	CHECK(gsym_count(s) == 4, "%zu symbols", gsym_count(s));
	check_at(s, 0x1000, NULL, 0, NULL);
	check_at(s, 0xffffffff8100005full, "_text", 0x5f, NULL);
	check_at(s, 0xffffffff81000064ull, "secondary_startup_64", 4, NULL);
	check_at(s, 0xffffffff81000065ull, "secondary_startup_64_no_verify", 0, NULL);
	check_at(s, 0xffffffff810001f1ull, "verify_cpu", 1, NULL);
	gsym_free(s);

	/* the last address is a symbol's own (its range clamped at UINT64_MAX) */
	s = gsym_load(write_text("map-last", "ffffffffffffffff T last\n"), e, sizeof(e));
	CHECK(s != NULL, "%s", e);
	if (s) {
		check_at(s, UINT64_MAX, "last", 0, NULL);
		check_at(s, UINT64_MAX - 1, NULL, 0, NULL);
		gsym_free(s);
	}

	/* a 32-bit guest's: 8 hex digits; CRLF and blanks are tolerated */
	s = gsym_load(write_text("map32", "c1000000 T _text\r\nc1000010  t  helper \n"), e,
		      sizeof(e));
	CHECK(s != NULL, "%s", e);
	if (s) {
		check_at(s, 0xc1000011, "helper", 1, NULL);
		gsym_free(s);
	}
}

/* A function of this binary the ELF test looks for: not inlined, some bytes long. */
__attribute__((noinline)) int gsym_test_target(volatile int *x);
__attribute__((noinline)) int gsym_test_target(volatile int *x)
{
	return *x * 3 + 1;
}

static void test_elf(void)
{
	volatile int v = 2;
	uintptr_t fn = (uintptr_t)&gsym_test_target;
	const Elf64_Ehdr *eh;
	uint64_t st_value, off = 99;
	char e[256] = "";
	struct gsym *s;
	Dl_info info;

	CHECK(gsym_test_target(&v) == 7, "target");
	if (!dladdr((void *)fn, &info) || !info.dli_fbase) {
		CHECK(0, "dladdr of gsym_test_target failed");
		return;
	}
	/* a PIE's symbols are relative to its load base, a fixed executable's are not */
	eh = info.dli_fbase;
	st_value = eh->e_type == ET_DYN ? fn - (uintptr_t)info.dli_fbase : fn;
	s = gsym_load("/proc/self/exe", e, sizeof(e));
	CHECK(s != NULL, "%s", e);
	if (!s)
		return;
	CHECK_STR(gsym_kind(s), "ELF");
	CHECK(gsym_count(s) > 20, "%zu symbols", gsym_count(s));
	CHECK_STR(gsym_lookup(s, st_value, &off), "gsym_test_target");
	CHECK(off == 0, "off %llu", (unsigned long long)off);
	CHECK_STR(gsym_lookup(s, st_value + 1, &off), "gsym_test_target");
	CHECK(off == 1, "off %llu", (unsigned long long)off);
	CHECK(gsym_lookup(s, 0, &off) == NULL, "address 0");
	gsym_free(s);
}

/* A line of exactly GSYM_MAX_LINE bytes is read; one more byte is refused. */
static char *long_line(size_t len)
{
	static const char head[] = "ffffffff81000000 T ";
	char *t = malloc(len + 2);

	memcpy(t, head, sizeof(head) - 1);
	memset(t + sizeof(head) - 1, 'a', len - (sizeof(head) - 1));
	t[len] = '\n';
	t[len + 1] = '\0';
	return t;
}

static void test_long_lines(void)
{
	char e[256] = "", *t = long_line(GSYM_MAX_LINE);
	struct gsym *s = gsym_load(write_text("max-line", t), e, sizeof(e));

	CHECK(s != NULL && gsym_count(s) == 1, "%s", e);
	gsym_free(s);
	free(t);
}

static void check_refused(const char *what, const char *file, const char *want)
{
	char e[256] = "";
	struct gsym *s = gsym_load(file, e, sizeof(e));

	CHECK(s == NULL, "%s: loaded", what);
	gsym_free(s);
	CHECK(e[0] && !strchr(e, '\n'), "%s: error \"%s\"", what, e);
	CHECK(strstr(e, want) != NULL, "%s: \"%s\" lacks \"%s\"", what, e, want);
	if (getenv("GSYM_SHOW"))
		printf("%-24s %s\n", what, e);
}

static void refuse_text(const char *what, const char *text, size_t len, const char *want)
{
	check_refused(what, write_file("bad", text, len), want);
}

static void test_hostile(void)
{
	char *t = long_line(5000), elf[100], fifo[300];
	FILE *f = fopen("/proc/self/exe", "rb");

	refuse_text("empty", "", 0, "empty");
	refuse_text("blank lines", "\n\n  \n", 5, "empty");
	refuse_text("garbage", "hello world\n", 12, "not a symbol line");
	refuse_text("NUL byte", "ffffffff81000000 T a\0b\n", 23, ":1: not a symbol line");
	refuse_text("second line", "ffffffff81000000 T a\nffffffff81000001 T\n", 39, ":2:");
	refuse_text("17 digits", "1ffffffff81000000 T a\n", 22, "not a symbol line");
	refuse_text("no blank", "ffffffff81000000Ta\n", 19, "not a symbol line");
	refuse_text("bad module", "ffffffff81000000 T a\t[kvm\n", 26, "not a symbol line");
	refuse_text("trailing", "ffffffff81000000 T a b\n", 23, "not a symbol line");
	refuse_text("5000 bytes", t, strlen(t), "longer than 4096");
	refuse_text("5000 bytes, no newline", t, strlen(t) - 1, "longer than 4096");
	refuse_text("data only", "ffffffff81000000 D a\nffffffff81000010 r b\n", 42,
		    "no code symbols");
	refuse_text("all zero",
		    "0000000000000000 T _stext\n0000000000000000 t foo\t[kvm]\n"
		    "0000000000000000 D data\n",
		    77, "all zero (read /proc/kallsyms as root)");
	free(t);
	if (!f || fread(elf, 1, sizeof(elf), f) != sizeof(elf))
		CHECK(0, "reading /proc/self/exe");
	if (f)
		fclose(f);
	/* whatever libelf's version says: one line naming the file */
	check_refused("truncated ELF", write_file("trunc", elf, sizeof(elf)), "/trunc: ");
	check_refused("ELF magic only", write_file("magic", ELFMAG, SELFMAG), "/magic: ");
	check_refused("directory", tmpdir, "directory");
	snprintf(fifo, sizeof(fifo), "%s/fifo", tmpdir);
	CHECK(mkfifo(fifo, 0600) == 0, "mkfifo");
	check_refused("FIFO", fifo, "not a regular file");
	unlink(fifo);
	check_refused("missing", "/nonexistent/kallsyms", "No such file");
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_kallsyms();
	test_system_map();
	test_elf();
	test_long_lines();
	test_hostile();
	snprintf(path, sizeof(path), "rm -rf %s", tmpdir);
	if (system(path) != 0)
		fprintf(stderr, "%s failed\n", path);
	return test_summary("test_gsym");
}
