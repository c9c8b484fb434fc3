// SPDX-License-Identifier: GPL-2.0
/*
 * exit_types/: the built-in tables (numbers checked against the kernel headers
 * named in each file), the lookups the decoder makes, user files replacing
 * built-in tables, malformed input rejected at the right line, and random
 * input never crashing (run under ASan+UBSan by `make asan-check`).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "harness.h"
#include "common.h"
#include "exittypes.h"

static struct exit_types set;

static const struct exit_table *table(const char *isa)
{
	const struct exit_table *t = exit_types_find(&set, isa);

	CHECK(t != NULL, "no built-in table %s", isa);
	return t;
}

static void check_name(const char *isa, uint64_t key, const char *want)
{
	const struct exit_table *t = table(isa);

	if (t)
		CHECK_STR(exit_table_name(t, key), want);
}

static const char *display(const struct exit_table *t, uint64_t reason, uint64_t sub, int64_t error)
{
	uint64_t key, flags;

	exit_table_compose(t, reason, sub, error, &key, &flags);
	return exit_table_display(t, NULL, 0, key, flags);
}

static void test_builtin_loads(void)
{
	static const char *const isas[] = {"x86_vmx",	    "x86_svm",	     "arm64",	  "s390",
					   "ppc_book3s_hv", "ppc_book3s_pr", "ppc_booke", "riscv",
					   "userspace",	    "ppc_timing"};
	char err[256];

	CHECK(exit_types_load_builtin(&set, err, sizeof(err)) == 0, "%s", err);
	CHECK(exit_types_builtin_n == ARRAY_SIZE(isas), "%zu files", exit_types_builtin_n);
	CHECK(set.n == ARRAY_SIZE(isas), "%zu tables", set.n);
	for (size_t i = 0; i < ARRAY_SIZE(isas); i++)
		table(isas[i]);
	for (size_t i = 0; i < set.n; i++) {
		const struct exit_table *t = &set.tables[i];
		CHECK(t->nnames > 0, "%s has no names", t->isa);
		CHECK(strncmp(t->origin, "builtin:", 8) == 0, "%s", t->origin);
		for (size_t j = 1; j < t->nnames; j++)
			CHECK(t->names[j - 1].key < t->names[j].key, "%s not sorted at %zu", t->isa,
			      j);
		for (size_t j = i + 1; j < set.n; j++)
			CHECK(strcmp(t->isa, set.tables[j].isa) != 0, "%s twice", t->isa);
	}
}

/* The embedded text is the file, byte for byte (the escaping in the script). */
static void test_embedding_is_exact(void)
{
	for (size_t i = 0; i < exit_types_builtin_n; i++) {
		char path[256], buf[1 << 16];
		snprintf(path, sizeof(path), "exit_types/%s", exit_types_builtin[i].file);
		FILE *f = fopen(path, "r");
		CHECK(f != NULL, "%s (run from the repository root)", path);
		if (!f)
			continue;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		CHECK(strcmp(buf, exit_types_builtin[i].text) == 0, "%s differs from its copy",
		      path);
	}
}

/* Numbers verified against the kernel headers cited in each file. */
static void test_spot_checks(void)
{
	const struct exit_table *t;

	check_name("x86_vmx", 0, "EXCEPTION_NMI");
	check_name("x86_vmx", 12, "HLT");
	check_name("x86_vmx", 30, "IO_INSTRUCTION");
	check_name("x86_vmx", 48, "EPT_VIOLATION");
	check_name("x86_vmx", 49, "EPT_MISCONFIG");
	check_name("x86_vmx", 85, "MSR_WRITE_IMM");
	if ((t = table("x86_vmx"))) {
		CHECK(t->reason_mask == 0xffff, "%llx", (unsigned long long)t->reason_mask);
		CHECK_STR(t->match.field, "isa");
		CHECK(t->match.value == 1, "%lld", (long long)t->match.value);
		CHECK_STR(t->exit_system, "kvm");
		CHECK_STR(t->exit_event, "kvm_exit");
		CHECK_STR(t->entry_event, "kvm_entry");
		CHECK_STR(t->vcpu_field, "vcpu_id");
		CHECK(t->nflags == 1 && t->flags[0].key == 0x80000000, "flags");
		CHECK(t->kind == EXIT_TABLE_EXIT, "kind");
	}
	check_name("x86_svm", 0x7b, "io");
	check_name("x86_svm", 0x78, "hlt");
	check_name("x86_svm", 0x400, "npf");
	check_name("x86_svm", 0x40 + 14, "PF excp");
	check_name("x86_svm", 0x80000001, "vmgexit_mmio_read");
	check_name("x86_svm", 0xffffffff, "invalid_guest_state");
	if ((t = table("x86_svm"))) {
		CHECK(t->match.value == 2, "%lld", (long long)t->match.value);
		/* SVM_EXIT_ERR read from a sign-extending 64-bit load still names */
		CHECK_STR(display(t, UINT64_MAX, 0, 0), "invalid_guest_state");
	}
	if ((t = table("arm64"))) {
		CHECK_STR(display(t, 2, 0x16, 0), "TRAP_HVC64");
		CHECK_STR(display(t, 2, 0x24, 0), "TRAP_DABT_LOW");
		CHECK_STR(display(t, 2, 0x01, 0), "TRAP_WFx");
		CHECK_STR(display(t, 2, 0x18, 0), "TRAP_SYS64");
		CHECK_STR(display(t, 0, 0, 0), "IRQ");
		CHECK_STR(display(t, 1, 0, 0), "SERROR");
		CHECK_STR(display(t, 0xbadca11, 0, 0), "HYP_GONE");
		CHECK_STR(display(t, 2, 0x3f, 0), "UNKNOWN(0x23f)");
		CHECK(t->sub_shift == 8, "%u", t->sub_shift);
	}
	check_name("userspace", 2, "KVM_EXIT_IO");
	check_name("userspace", 5, "KVM_EXIT_HLT");
	check_name("userspace", 6, "KVM_EXIT_MMIO");
	check_name("userspace", 17, "KVM_EXIT_INTERNAL_ERROR");
	check_name("userspace", 39, "KVM_EXIT_MEMORY_FAULT");
	if ((t = table("userspace"))) {
		CHECK(t->kind == EXIT_TABLE_USERSPACE, "kind");
		CHECK_STR(t->error_field, "errno");
		CHECK_STR(t->entry_event, "kvm_fpu");
		CHECK_STR(t->entry_match.field, "load");
		CHECK(t->entry_match.value == 1, "entry-match");
		CHECK_STR(display(t, 2, 0, 0), "KVM_EXIT_IO");
		CHECK_STR(display(t, 2, 0, -4), "restart");
		CHECK_STR(display(t, 0, 0, -14), "error(14)");
		CHECK_STR(display(t, 99, 0, 0), "UNKNOWN(0x63)");
		CHECK_STR(display(t, 0, 0, INT64_MIN), "error(0)"); /* no UB, no crash */
	}
	check_name("s390", 0x04, "Instruction");
	check_name("s390", 0x1c, "Wait state");
	check_name("s390", 0x70, "ICPT_PV_PREF");
	if ((t = table("s390"))) {
		CHECK_STR(t->exit_event, "kvm_s390_sie_exit");
		CHECK_STR(t->entry_event, "kvm_s390_sie_enter");
		CHECK_STR(t->vcpu_field, "id");
	}
	check_name("ppc_book3s_hv", 0x500, "EXTERNAL");
	check_name("ppc_book3s_hv", 0x980, "HV_DECREMENTER");
	check_name("ppc_book3s_hv", 0xe40, "H_EMUL_ASSIST");
	if ((t = table("ppc_book3s_hv"))) {
		CHECK_STR(t->exit_system, "kvm_hv");
		CHECK_STR(t->entry_event, "kvm_guest_enter");
	}
	check_name("ppc_book3s_pr", 0x300, "DATA_STORAGE");
	if ((t = table("ppc_book3s_pr")))
		CHECK_STR(t->entry_event, "kvm_book3s_reenter");
	check_name("ppc_booke", 10, "DECREMENTER");
	check_name("ppc_booke", 41, "HV_PRIV");
	if ((t = table("ppc_booke")))
		CHECK(t->entry_event == NULL, "booke has no entry event");
	check_name("riscv", 22, "EXC_VIRTUAL_INST_FAULT");
	check_name("riscv", 0x8000000000000005ULL, "IRQ_S_TIMER");
	check_name("ppc_timing", 0, "MMIO");
	check_name("ppc_timing", 1, "DCR");
	check_name("ppc_timing", 10, "EMULINST");
	check_name("ppc_timing", 26, "TIMEINGUEST");
	if ((t = table("ppc_timing")))
		CHECK(t->kind == EXIT_TABLE_NAMES && !t->exit_event, "names table");
}

static void test_display(void)
{
	const struct exit_table *t = table("x86_vmx");
	struct exit_name over[] = {{12, "HALT_FROM_FORMAT"}, {0x83, "NEW_REASON"}};
	uint64_t key, flags;

	if (!t)
		return;
	over[0].name = intern(over[0].name);
	over[1].name = intern(over[1].name);
	exit_table_compose(t, 0x80000021, 0, 0, &key, &flags);
	CHECK(key == 33 && flags == 0x80000000, "%llx %llx", (unsigned long long)key,
	      (unsigned long long)flags);
	CHECK_STR(exit_table_display(t, NULL, 0, key, flags), "INVALID_STATE|FAILED_VMENTRY");
	CHECK_STR(display(t, 0x83, 0, 0), "UNKNOWN(0x83)");
	CHECK_STR(display(t, 0x80000083, 0, 0), "UNKNOWN(0x83)|FAILED_VMENTRY");
	CHECK_STR(display(t, 0x0800000c, 0, 0), "HLT|0x8000000");
	CHECK_STR(display(t, 0x8800000c, 0, 0), "HLT|FAILED_VMENTRY|0x8000000");
	CHECK_STR(exit_table_display(t, over, 2, 12, 0), "HALT_FROM_FORMAT");
	CHECK_STR(exit_table_display(t, over, 2, 0x83, 0), "NEW_REASON");
	CHECK_STR(exit_table_display(t, over, 2, 30, 0), "IO_INSTRUCTION");
	/* interned: the decoder and stats compare names by pointer */
	CHECK(display(t, 0x80000021, 0, 0) == intern("INVALID_STATE|FAILED_VMENTRY"), "interned");
	CHECK(display(t, 0x83, 0, 0) == intern("UNKNOWN(0x83)"), "interned");
	CHECK(display(t, 12, 0, 0) == intern("HLT"), "interned");
	CHECK(exit_table_name(t, 0x83) == NULL, "unknown key");
}

static void test_reverse(void)
{
	const struct exit_table *vmx = table("x86_vmx"), *us = table("userspace");
	uint64_t key = 0, flags = 0;

	if (!vmx || !us)
		return;
	CHECK(exit_table_key(vmx, "EPT_VIOLATION", &key) == 0 && key == 48, "%llu",
	      (unsigned long long)key);
	CHECK(exit_table_key(vmx, "UNKNOWN(0x83)", &key) == 0 && key == 0x83, "unknown");
	CHECK(exit_table_key(vmx, "NO_SUCH_EXIT", &key) < 0, "no such name");
	CHECK(exit_table_key(vmx, "UNKNOWN(0x83", &key) < 0, "unbalanced");
	CHECK(exit_table_key(vmx, "UNKNOWN()", &key) < 0, "empty number");
	CHECK(exit_table_key(vmx, "restart", &key) < 0, "errnames are userspace-only");
	CHECK(exit_table_key(us, "restart", &key) == 0 && key == (EXIT_KEY_ERRNO | 4), "restart");
	CHECK(exit_table_key(us, "error(14)", &key) == 0 && key == (EXIT_KEY_ERRNO | 14), "err");
	CHECK(exit_table_key(us, "KVM_EXIT_MMIO", &key) == 0 && key == 6, "mmio");
	CHECK(exit_table_key_flags(vmx, "INVALID_STATE|FAILED_VMENTRY", &key, &flags) == 0 &&
		  key == 33 && flags == 0x80000000,
	      "flags");
	CHECK(exit_table_key_flags(vmx, "HLT|FAILED_VMENTRY|0x8000000", &key, &flags) == 0 &&
		  key == 12 && flags == 0x88000000,
	      "hex flags");
	CHECK(exit_table_key_flags(vmx, "HLT", &key, &flags) == 0 && key == 12 && !flags, "bare");
	CHECK(exit_table_key_flags(vmx, "HLT|BOGUS", &key, &flags) < 0, "bad flag");
	CHECK(exit_table_key_flags(vmx, "HLT|", &key, &flags) < 0, "empty flag");
	/* every display string reads back as the key it came from */
	for (size_t i = 0; i < set.n; i++) {
		const struct exit_table *t = &set.tables[i];
		for (size_t j = 0; j < t->nnames; j++) {
			const char *s = exit_table_display(t, NULL, 0, t->names[j].key, 0);
			CHECK(exit_table_key_flags(t, s, &key, &flags) == 0 &&
				  key == t->names[j].key && !flags,
			      "%s: %s", t->isa, s);
		}
	}
}

static int parse(struct exit_types *s, const char *text, char *err, size_t len)
{
	return exit_types_parse(s, text, "t.types", err, len);
}

static void test_user_file_overrides(void)
{
	char path[] = "/tmp/kvm-exitstat-test-XXXXXX", err[256];
	int fd = mkstemp(path);
	const char *text = "isa x86_vmx\n"
			   "describe a newer kernel\n"
			   "exit kvm:kvm_exit\n"
			   "reason exit_reason mask 0xffff\n"
			   "match isa 1\n"
			   "name 12 MY_HLT\n"
			   "name 90 NEW_EXIT\n"
			   "isa new_isa\n"
			   "kind names\n"
			   "name 1 ONE\n";
	size_t before = set.n;

	CHECK(fd >= 0, "mkstemp");
	if (fd < 0)
		return;
	CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text), "write");
	close(fd);
	CHECK(exit_types_load_file(&set, path, err, sizeof(err)) == 0, "%s", err);
	CHECK(set.n == before + 1, "%zu tables", set.n);
	check_name("x86_vmx", 12, "MY_HLT");
	check_name("x86_vmx", 90, "NEW_EXIT");
	check_name("new_isa", 1, "ONE");
	const struct exit_table *t = table("x86_vmx");
	if (t) {
		CHECK(exit_table_name(t, 30) == NULL, "the whole table is replaced");
		CHECK_STR(t->origin, path);
		CHECK_STR(t->describe, "a newer kernel");
	}
	unlink(path);
	CHECK(exit_types_load_file(&set, path, err, sizeof(err)) < 0, "missing file");
	CHECK(strstr(err, path) != NULL, "%s", err);

	/* back to the built-in tables for the tests after this one */
	exit_types_free(&set);
	CHECK(exit_types_load_builtin(&set, err, sizeof(err)) == 0, "%s", err);
}

struct bad {
	const char *text;
	const char *where; /* "t.types:N:" */
	const char *what;
};

static void test_malformed(void)
{
	static const struct bad bad[] = {
	    {"name 1 X\n", "t.types:1:", "before the first 'isa'"},
	    {"# c\n\nisa a\nbogus 1\n", "t.types:4:", "unknown directive"},
	    {"isa a\nexit kvm:e\nreason r\nname 0xZZ X\n", "t.types:4:", "bad number"},
	    {"isa a\nkind names\nname 1 A\nname 2 B\nname 1 C\n", "t.types:5:", "both"},
	    {"isa a\n\nexit kvm:kvm_exit\n", "t.types:3:", "'exit' without 'reason'"},
	    {"isa a\nkind userspace\nexit kvm:x\n\nisa b\n", "t.types:3:", "without"},
	    {"isa a\nreason r\n", "t.types:2:", "no 'exit'"},
	    {"isa a\nkind nonsense\n", "t.types:2:", "bad kind"},
	    {"isa a\nexit kvm_exit\n", "t.types:2:", "bad event"},
	    {"isa a\nexit kvm:a:b\n", "t.types:2:", "bad event"},
	    {"isa a\nexit kvm:e\nreason r mask 0\n", "t.types:3:", "mask 0"},
	    {"isa a\nexit kvm:e\nreason r bits 1\n", "t.types:3:", "mask"},
	    {"isa a\nvcpu a b\n", "t.types:2:", "too many"},
	    {"isa a\nvcpu\n", "t.types:2:", "needs"},
	    {"isa a\nvcpu 1x\n", "t.types:2:", "bad field"},
	    {"isa a\nkind exit\nkind exit\n", "t.types:3:", "twice"},
	    {"isa a\nexit kvm:e\nreason r\nerrname 4 restart\n", "t.types:4:", "userspace"},
	    {"isa a\nexit kvm:e\nreason r mask 0xff\nflag 0x80 X\n", "t.types:4:", "overlaps"},
	    {"isa a\nexit kvm:e\nreason r\nflag 0x8000 X\n", "t.types:4:", "overlaps"},
	    {"isa a\nexit kvm:e\nreason r mask 0xff\nflag 0 X\n", "t.types:4:", "flag 0"},
	    {"isa a\nkind names\nisa a\n", "t.types:3:", "twice"},
	    {"isa a\nkind names\nname 0x10000000000000000 X\n", "t.types:3:", "bad number"},
	    {"isa a\nkind names\nname -0x8000000000000001 X\n", "t.types:3:", "bad number"},
	    {"isa a\nkind names\nname 1x X\n", "t.types:3:", "bad number"},
	    {"isa a\nkind names\nname 1 X\xff\n", "t.types:3:", "printable"},
	    {"isa a\nexit kvm:e\nreason r\nsubreason s shift 64\n", "t.types:4:", "63"},
	    {"isa a\nexit kvm:e\nreason r\nsubreason s by 8\n", "t.types:4:", "shift"},
	    {"isa a\nexit kvm:e\nreason r\nentry-match load 1\n", "t.types:4:", "'entry'"},
	    {"isa a\nkind names\nexit kvm:e\n", "t.types:3:", "names"},
	    {"isa a\nkind names\nerrname 0 x\n", "t.types:3:", "range"},
	    {"isa\n", "t.types:1:", "needs"},
	    {"isa a:b\n", "t.types:1:", "bad isa"},
	    {"isa a\nkind userspace\nexit k:e\nreason r\nname -1 X\n", "t.types:5:", "bit 63"},
	};
	char err[256];

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct exit_types s = {0};
		int rc = parse(&s, bad[i].text, err, sizeof(err));
		CHECK(rc < 0, "accepted: %s", bad[i].text);
		CHECK(strncmp(err, bad[i].where, strlen(bad[i].where)) == 0 &&
			  strstr(err, bad[i].what),
		      "case %zu: got \"%s\", want %s ... %s", i, err, bad[i].where, bad[i].what);
		CHECK(s.n == 0 && s.tables == NULL, "set touched on error");
		exit_types_free(&s);
	}
}

static void test_limits(void)
{
	struct exit_types s = {0};
	char err[256], *text;
	size_t before = set.n;

	/* an overlong line, even when it is a comment */
	text = malloc(4096);
	strcpy(text, "isa a\n#");
	memset(text + 7, 'x', 2000);
	strcpy(text + 2007, "\n");
	CHECK(parse(&s, text, err, sizeof(err)) < 0 && strstr(err, "t.types:2:") &&
		  strstr(err, "longer"),
	      "%s", err);
	free(text);
	/* NUL bytes, with their line */
	static const char nul[] = "isa a\nkind names\nname 1 A\0B\n";
	CHECK(exit_types_parse_mem(&s, nul, sizeof(nul) - 1, "t.types", err, sizeof(err)) < 0 &&
		  strstr(err, "t.types:3:") && strstr(err, "NUL"),
	      "%s", err);
	/* a good table before the bad line does not reach the set */
	CHECK(exit_types_parse(&set, "isa good\nkind names\nname 1 A\nisa bad\nfoo\n", "t", err,
			       sizeof(err)) < 0,
	      "bad");
	CHECK(set.n == before && !exit_types_find(&set, "good"), "partial commit");
	/* a tiny error buffer truncates, NULL takes nothing */
	CHECK(parse(&s, "bogus\n", err, 8) < 0 && strlen(err) == 7, "%s", err);
	CHECK(parse(&s, "bogus\n", NULL, 0) < 0, "NULL errbuf");
	CHECK(s.n == 0, "nothing parsed");
}

static void test_syntax(void)
{
	struct exit_types s = {0};
	const struct exit_table *t;
	char err[256];
	const char *text = "  # comment\r\n"
			   "isa\tx   # trailing comment\r\n"
			   "describe  A  long\tdescription, with many words in it\r\n"
			   "kind userspace\n"
			   "exit sys:ev\n"
			   "reason r\n"
			   "error e\n"
			   "errname 4 restart\n"
			   "errname 4 restart\n" /* the same twice is fine */
			   "name 0x10 Two  words \n"
			   "name 16 Two words\n"
			   "name 1 ONE # and a comment\n"
			   "isa y\n"
			   "exit sys:ev\n"
			   "reason r\n"
			   "name -1 ALL ONES";
	CHECK(exit_types_parse(&s, text, "t", err, sizeof(err)) == 0, "%s", err);
	if ((t = exit_types_find(&s, "x"))) {
		CHECK_STR(t->describe, "A long description, with many words in it");
		CHECK(t->nnames == 2 && t->nerrnames == 1, "%zu %zu", t->nnames, t->nerrnames);
		CHECK_STR(exit_table_name(t, 16), "Two words");
		CHECK_STR(exit_table_name(t, 1), "ONE");
		CHECK(t->reason_mask == UINT64_MAX, "default mask");
	} else {
		CHECK(0, "table x missing");
	}
	if ((t = exit_types_find(&s, "y")))
		CHECK_STR(exit_table_name(t, UINT64_MAX), "ALL ONES");
	CHECK(t != NULL, "table y missing");
	/* an empty text and a text of comments hold no table */
	CHECK(exit_types_parse(&s, "", "t", err, sizeof(err)) == 0, "%s", err);
	CHECK(exit_types_parse(&s, "# nothing\n\n", "t", err, sizeof(err)) == 0, "%s", err);
	CHECK(s.n == 2, "%zu", s.n);
	exit_types_free(&s);
	CHECK(s.n == 0 && !s.tables, "freed");
}

/* xorshift64*: fixed seed, so a failure reproduces */
static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545f4914f6cdd1dULL;
}

static size_t random_text(char *buf, size_t cap)
{
	static const char *const words[] = {
	    "isa ",	    "exit ",	   "reason ",	"name ",
	    "flag ",	    "mask ",	   "kind ",	"names\n",
	    "exit\n",	    "userspace\n", "errname ",	"error ",
	    "subreason ",   "shift ",	   "match ",	"entry ",
	    "entry-match ", "vcpu ",	   "describe ", "kvm:kvm_exit ",
	    "0x",	    "-1 ",	   "ff",	"99999999999999999999",
	    "\n",	    "#",	   " ",		"\t",
	    "\r",	    ":",
	};
	size_t n = 0, len = rnd() % cap;

	while (n < len) {
		if (rnd() % 3) {
			const char *w = words[rnd() % ARRAY_SIZE(words)];
			size_t wl = strlen(w);
			if (n + wl > len)
				break;
			memcpy(buf + n, w, wl);
			n += wl;
		} else {
			buf[n++] = (char)(rnd() % 256);
		}
	}
	return n;
}

static size_t mutate(char *buf, size_t cap, const char *src)
{
	size_t n = strlen(src) < cap ? strlen(src) : cap;

	memcpy(buf, src, n);
	for (int k = (int)(rnd() % 4); k >= 0 && n; k--) {
		size_t at = rnd() % n;
		switch (rnd() % 3) {
		case 0:
			buf[at] = (char)(rnd() % 256);
			break;
		case 1:
			memmove(buf + at, buf + at + 1, n - at - 1);
			n--;
			break;
		default:
			if (n < cap) {
				memmove(buf + at + 1, buf + at, n - at);
				buf[at] = "0x\n #:|-"[rnd() % 8];
				n++;
			}
		}
	}
	return n;
}

static void poke(const struct exit_types *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct exit_table *t = &s->tables[i];
		uint64_t key, flags, back;
		exit_table_compose(t, rnd(), rnd(), (int64_t)rnd(), &key, &flags);
		const char *d = exit_table_display(t, t->names, t->nnames, key, flags);
		exit_table_key_flags(t, d, &back, &flags);
		for (size_t j = 0; j < t->nnames; j++)
			exit_table_key(t, t->names[j].name, &back);
	}
}

static void test_garbage(void)
{
	enum { N = 20000, CAP = 6000 };
	char *buf = malloc(CAP), err[128];
	int ok = 0, bad = 0;

	for (int i = 0; i < N; i++) {
		struct exit_types s = {0};
		size_t n = i % 2
			       ? random_text(buf, 600)
			       : mutate(buf, CAP,
					exit_types_builtin[(size_t)i % exit_types_builtin_n].text);
		if (exit_types_parse_mem(&s, buf, n, "fuzz", err, sizeof(err)) == 0) {
			ok++;
			poke(&s);
		} else {
			bad++;
			if (strncmp(err, "fuzz:", 5) != 0) {
				CHECK(0, "error without origin: %s", err);
				break;
			}
		}
		exit_types_free(&s);
	}
	CHECK(ok > N / 20 && bad > N / 20, "ok %d bad %d: the inputs test too little", ok, bad);
	printf("garbage: %d inputs, %d parsed, %d rejected\n", N, ok, bad);
	free(buf);
}

static void check_man_types(const char *text, void *arg)
{
	struct exit_types s = {0};
	char err[256];

	(void)arg;
	CHECK(exit_types_parse(&s, text, "man", err, sizeof(err)) == 0, "%s", err);
	exit_types_free(&s);
}

/* The examples of kvm-exitstat-exit-types(5) are valid files. */
static void test_man_examples(void)
{
	int n = man_examples("man/kvm-exitstat-exit-types.5", "isa", check_man_types, NULL);

	CHECK(n >= 2, "%d examples (-1: no man page; run from the repository root)", n);
}

int main(void)
{
	test_builtin_loads();
	test_embedding_is_exact();
	test_spot_checks();
	test_display();
	test_reverse();
	test_user_file_overrides();
	test_malformed();
	test_limits();
	test_syntax();
	test_garbage();
	test_man_examples();
	exit_types_free(&set);
	return test_summary("test_exittypes");
}
