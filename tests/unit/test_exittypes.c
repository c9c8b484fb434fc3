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
#include "alloc.h"
#include "exit-types.h"
#include "harness.h"
#include "intern.h"

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
					   "userspace",	    "ppc_timing",    "detail",	  "loongarch"};
	char err[256];

	CHECK(exit_types_load_builtin(&set, err, sizeof(err)) == 0, "%s", err);
	CHECK(exit_types_builtin_n == ARRAY_SIZE(isas), "%zu files", exit_types_builtin_n);
	CHECK(set.n == ARRAY_SIZE(isas), "%zu tables", set.n);
	for (size_t i = 0; i < ARRAY_SIZE(isas); i++)
		table(isas[i]);
	for (size_t i = 0; i < set.n; i++) {
		const struct exit_table *t = &set.tables[i];
		CHECK(t->nnames > 0 || (t->kind == EXIT_TABLE_EVENTS && t->ndetails > 0),
		      "%s has no names", t->isa);
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

	/* userspace exits that say what their kvm_exit was (powerpc/riscv MMIO) */
	if ((t = table("userspace"))) {
		CHECK_STR(exit_table_detail(t, 6), "mmio");
		CHECK_STR(exit_table_detail(t, 19), "hypercall");
		CHECK_STR(exit_table_detail(t, 2), "pio");
		CHECK(exit_table_detail(t, 10) == NULL, "KVM_EXIT_INTR implies nothing");
	}
	CHECK(exit_table_detail(table("x86_vmx"), 48) == NULL, "exit tables have no details");
	/* book3s HV's H_CEDE: kvm_guest_exit ceded=1 */
	if ((t = table("ppc_book3s_hv"))) {
		CHECK_STR(t->detail_field, "ceded");
		CHECK_STR(t->detail_kind, "halt");
	}
	CHECK(table("x86_vmx") && !table("x86_vmx")->detail_field, "no detail field elsewhere");
	/* halts (top --slower-than leaves them out): x86 hlt and KVM_EXIT_HLT, nothing else */
	CHECK(exit_table_is_halt(table("x86_svm"), 0x78) && exit_table_is_halt(table("x86_vmx"), 12) &&
		  exit_table_is_halt(table("userspace"), 5),
	      "hlt, HLT and KVM_EXIT_HLT are halts");
	CHECK(!exit_table_is_halt(table("x86_svm"), 0x7b) && !exit_table_is_halt(table("x86_vmx"), 30) &&
		  !exit_table_is_halt(table("userspace"), 2) &&
		  !exit_table_is_halt(table("userspace"), EXIT_KEY_ERRNO | 5),
	      "io, IO_INSTRUCTION, KVM_EXIT_IO and -EIO are not");
	/* book3s PR's dar is the sub-key of data faults only */
	if ((t = table("ppc_book3s_pr"))) {
		CHECK_STR(t->subkey_field, "dar");
		CHECK(exit_table_has_subkey(t, 0x300) && exit_table_has_subkey(t, 0x380) &&
			  !exit_table_has_subkey(t, 0xc00),
		      "DATA_STORAGE, DATA_SEGMENT yes, SYSCALL no");
	}
	CHECK(!exit_table_has_subkey(table("x86_vmx"), 48), "no sub-key field elsewhere");
	/* the guest's pc (--by-guest): each exit event's field, as the formats name it */
	{
		static const char *const pcs[][2] = {
		    {"x86_svm", "guest_rip"}, {"x86_vmx", "guest_rip"}, {"arm64", "vcpu_pc"},
		    {"riscv", "sepc"},	      {"ppc_book3s_hv", "pc"},  {"ppc_book3s_pr", "pc"},
		    {"ppc_booke", "pc"},      {"loongarch", "pc"},
		};
		for (size_t i = 0; i < sizeof(pcs) / sizeof(pcs[0]); i++)
			if ((t = table(pcs[i][0])))
				CHECK_STR(t->pc_field, pcs[i][1]);
		CHECK(table("x86_svm") && table("x86_svm")->pc_kernel == 0xff00000000000000ull,
		      "x86: the kernel half from 0xff00000000000000");
		CHECK(table("ppc_booke") && !table("ppc_booke")->pc_kernel,
		      "booke: a 32-bit layout, no kernel address");
		CHECK(!table("userspace") || !table("userspace")->pc_field, "userspace exits: no pc");
	}
	/*
	 * riscv's guest-page faults: the privileged spec's htval is the gpa
	 * shifted right by 2, stval keeps the low bits (a byte store at 0x40000011;
	 * the lab's kernel traced htval 0x10000004 for exitgen's 0x40000010).
	 */
	if ((t = table("riscv"))) {
		CHECK_STR(t->subkey_field, "htval");
		CHECK_STR(t->subkey_low_field, "stval");
		CHECK(exit_table_has_subkey(t, 20) && exit_table_has_subkey(t, 21) &&
			  exit_table_has_subkey(t, 23) && !exit_table_has_subkey(t, 10),
		      "riscv: guest-page faults, no ecall");
		CHECK(exit_table_subkey(t, 0x10000004, 0x40000011) == 0x40000011, "riscv gpa");
		CHECK(exit_table_subkey(t, 0x10000004, 0x40000010) == 0x40000010, "riscv gpa 0x10");
	}
	if ((t = table("ppc_book3s_pr")))
		CHECK(exit_table_subkey(t, 0x40000010, 0xffff) == 0x40000010,
		      "no shift: the field");

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
	    {"isa a\nexit kvm:e\nreason r\nname 1 X\nname 2 Y\nalias X 2\n", "t.types:6:",
	     "alias 'X' is the name of 0x1"},
	    {"isa a\nkind names\nname 1 A\nname 2 B\nname 1 C\n", "t.types:5:", "both"},
	    {"isa a\n\nexit kvm:kvm_exit\n", "t.types:3:", "'exit' without 'reason'"},
	    {"isa a\nkind userspace\nexit kvm:x\n\nisa b\n", "t.types:3:", "without"},
	    {"isa a\nreason r\n", "t.types:2:", "no 'exit'"},
	    {"isa a\nkind nonsense\n", "t.types:2:", "bad kind"},
	    {"isa a\nexit kvm:e\nreason r\nhalt 0x7g\n", "t.types:4:", "bad number"},
	    {"isa a\nexit kvm:e\nreason r\nhalt\n", "t.types:4:", "needs"},
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
	    {"isa a\nkind userspace\nexit k:e\nreason r\ndetail 6 nonsense\n",
	     "t.types:5:", "unknown detail kind"},
	    {"isa a\nexit k:e\nreason r\n\ndetail 6 mmio\n", "t.types:5:", "'detail' needs"},
	    {"isa a\nexit k:e\nreason r\ndetail-field ceded nap\n",
	     "t.types:4:", "unknown detail kind"},
	    {"isa a\nkind userspace\nexit k:e\nreason r\ndetail-field ceded halt\n",
	     "t.types:5:", "'detail-field' needs"},
	    {"isa a\nexit k:e\nreason r\ndetail-field c halt\ndetail-field d halt\n",
	     "t.types:5:", "twice"},
	    {"isa a\nkind userspace\nexit k:e\nreason r\nsubkey-field dar 0x300\n",
	     "t.types:5:", "'subkey-field' needs"},
	    {"isa a\nexit k:e\nreason r\nsubkey-field dar 0x3zz\n", "t.types:4:", "bad number"},
	    {"isa a\nexit k:e\nreason r\nsubkey-field dar 1 2 3 4 5 6 7\n",
	     "t.types:4:", "too many"},
	    {"isa a\nexit k:e\nreason r\nsubkey-field h shift 2 s 1 2 3 4 5 6 7\n",
	     "t.types:4:", "too many"},
	    {"isa a\nexit k:e\nreason r\nsubkey-field h shift 2 s\n",
	     "t.types:4:", "want: subkey-field"},
	    {"isa a\nexit k:e\nreason r\nsubkey-field h shift 64 s 1\n", "t.types:4:", "1..63"},
	    {"isa a\nexit k:e\nreason r\nsubkey-field h shift 0 s 1\n", "t.types:4:", "1..63"},
	    {"isa a\nkind userspace\nexit k:e\nreason r\npc rip\n", "t.types:5:", "'pc' needs"},
	    {"isa a\nexit k:e\nreason r\npc rip kernel\n", "t.types:4:", "want: pc"},
	    {"isa a\nexit k:e\nreason r\npc rip kern 0x8\n", "t.types:4:", "want: pc"},
	    {"isa a\nexit k:e\nreason r\npc rip kernel 0\n", "t.types:4:", "no guest user"},
	    {"isa a\nexit k:e\nreason r\npc rip kernel 0xzz\n", "t.types:4:", "bad number"},
	    {"isa a\nexit k:e\nreason r\npc 1x\n", "t.types:4:", "bad field"},
	    {"isa a\nexit k:e\nreason r\npc a\npc b\n", "t.types:5:", "twice"},
	    {"isa a\nkind userspace\nexit k:e\nreason r\ndetail 6 mmio\ndetail 6 pio\n",
	     "t.types:6:", "both"},
	    /* detail events, printed forms, symbols, aliases */
	    {"isa a\nevent kvm:e mmio sub gpa\n", "t.types:2:", "kind events"},
	    {"isa a\nkind events\nevent kvm:e bogus sub gpa\n", "t.types:3:", "detail kind"},
	    {"isa a\nkind events\nevent kvm:e mmio gpa x\n", "t.types:3:", "want: event"},
	    {"isa a\nkind events\nevent kvm:e halt sub\n", "t.types:3:", "want: event"},
	    {"isa a\nkind events\nevent kvm:e halt label x\n", "t.types:3:", "want: event"},
	    {"isa a\nkind events\nevent kvm:e mmio sub gpa need all\n",
	     "t.types:3:", "need buckets"},
	    {"isa a\nkind events\nevent kvm:e mmio sub gpa flag type\n",
	     "t.types:3:", "flag FIELD MASK"},
	    {"isa a\nkind events\nevent kvm:e mmio sub a\nevent kvm:e pio sub b\n",
	     "t.types:4:", "twice"},
	    {"isa a\nkind events\nexit kvm:e\n", "t.types:3:", "events"},
	    {"isa a\nkind names\nform kvm:e pattern\n", "t.types:3:", "PATTERN"},
	    {"isa a\nkind names\nform kvm:e \"x\n", "t.types:3:", "PATTERN"},
	    {"isa a\nkind names\nform kvm:e \"\"\n", "t.types:3:", "empty"},
	    {"isa a\nkind names\nform kvm:e \"x\" y\n", "t.types:3:", "after the pattern"},
	    {"isa a\nkind names\nform kvm:e fixup nope \"x\"\n", "t.types:3:", "fixup"},
	    {"isa a\nkind names\nform kvm:e aliases\n", "t.types:3:", "PATTERN"},
	    {"isa a\nkind names\nsym 1f read 0\n", "t.types:3:", "bad field"},
	    {"isa a\nkind names\nsym rw read x\n", "t.types:3:", "bad number"},
	    {"isa a\nkind names\nsym rw read 0\nsym rw read 1\n", "t.types:4:", "twice"},
	    {"isa a\nkind names\nalias X 1\nalias X 2\n", "t.types:4:", "both"},
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

/* The data that used to be C (text forms, plugin names, detail events), as the reader sees it. */
static void test_data_moved(void)
{
	const struct exit_table *svm = exit_types_find(&set, "x86_svm"), *vmx;
	const struct exit_form *f[16];
	const struct exit_table *t[16];
	const struct exit_detail *d;
	size_t n;

	vmx = exit_types_find(&set, "x86_vmx");
	CHECK(svm && svm->naliases == 91, "91 SVM plugin names: %zu", svm ? svm->naliases : 0);
	CHECK(vmx && vmx->naliases == 1 && !strcmp(vmx->aliases[0].name, "PENDING_INTERRUPT") &&
		  vmx->aliases[0].key == 7,
	      "the one VMX plugin name");
	/* kvm_exit prints alike on VMX and SVM: each form once, then arm64's, riscv's, ... */
	/*
	 * x86: with the rip's value (--by-guest), with "rip " only, and the two
	 * an author trimmed to "reason X": 6; arm64 with and without its PC: 2;
	 * riscv: 1; book3s PR and booke (not kvm:): 2
	 */
	n = exit_types_forms(&set, NULL, "kvm_exit", f, t, 16);
	CHECK(n == 11, "forms of kvm_exit: %zu", n);
	n = exit_types_forms(&set, "kvm", "kvm_exit", f, t, 16);
	CHECK(n == 9, "forms of kvm:kvm_exit: %zu", n);
	n = exit_types_forms(&set, "kvm", "kvm_userspace_exit", f, t, 8);
	CHECK(n == 1 && f[0]->fixup && !strcmp(f[0]->fixup, "userspace-errno"),
	      "kvm_userspace_exit's form and fixup");
	d = exit_types_detail(&set, "kvm", "kvm_pio");
	CHECK(d && d->kind == KES_D_PIO && !strcmp(d->sub_field, "port") &&
		  !strcmp(d->flag_field, "rw") && d->flag_mask == 1 && !d->need,
	      "kvm_pio");
	d = exit_types_detail(&set, NULL, "kvm_page_fault");
	CHECK(d && d->kind == KES_D_PF && d->flag_mask == 0 && d->need == EXIT_NEED_BUCKETS &&
		  !strcmp(d->label, "gpa"),
	      "kvm_page_fault");
	/* the lab's: a halt says only that it happened; book3s HV's hypercall number */
	d = exit_types_detail(&set, "kvm", "kvm_vcpu_wakeup");
	CHECK(d && d->kind == KES_D_HALT && !d->sub_field && !d->label && !d->need,
	      "kvm_vcpu_wakeup: a halt, no sub-key");
	d = exit_types_detail(&set, "kvm_hv", "kvm_hcall_enter");
	CHECK(d && d->kind == KES_D_HCALL && !strcmp(d->sub_field, "req") && d->base == 10,
	      "kvm_hcall_enter");
	n = exit_types_forms(&set, "kvm_hv", "kvm_hcall_enter", f, t, 8);
	CHECK(n == 1 && t[0]->nsyms > 130, "kvm_hcall_enter prints names: %zu syms",
	      n ? t[0]->nsyms : 0);
	CHECK(!strcmp(exit_types_sub_label(&set, KES_D_HALT), "key"), "a halt has no label");
	CHECK(!strcmp(exit_types_sub_label(&set, KES_D_MSR), "msr") &&
		  !strcmp(exit_types_sub_label(&set, KES_D_PIO), "port") &&
		  !strcmp(exit_types_sub_label(&set, KES_D_NONE), "key"),
	      "sub-key labels");
	CHECK(exit_types_builtin_details() && exit_types_builtin_details()->n == 1,
	      "the built-in detail events parse alone");
	/* 33: `grep -c '^name' exit_types/ppc_timing.types` */
	const struct exit_types *pt = exit_types_builtin_file("ppc_timing.types");
	const struct exit_table *ptt = pt ? exit_types_find(pt, "ppc_timing") : NULL;
	CHECK(pt && pt->n == 1 && ptt && ptt->nnames == 33, "ppc_timing.types alone: %zu names",
	      ptt ? ptt->nnames : 0);
	CHECK(exit_types_builtin_file("ppc_timing.types") == pt, "parsed once");
	CHECK(!exit_types_builtin_file("no-such.types"), "no such built-in file");
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

/*
 * Linear time (issue 11): 75,000 tables of one name took 23 s when each new
 * table was checked against every earlier one. 300,000 lines: 75,000 tables
 * of x86_vmx's exit/reason lines and a name, or one table of 300,000 names.
 */
static void test_linear(void)
{
	for (int one_table = 0; one_table < 2; one_table++) {
		size_t cap = 300000 * 48 + 256, o = 0, n;
		char *text = xmalloc(cap), e[256];
		struct exit_types gen = {0};
		double t0, dt;
		int rc;

		if (one_table)
			o += (size_t)snprintf(text, cap,
					      "isa big\nexit kvm:kvm_exit\nreason exit_reason\n");
		for (size_t i = 0; i < (one_table ? 300000 : 75000); i++)
			o += (size_t)(one_table
					  ? snprintf(text + o, cap - o, "name %zu N%zu\n", i, i)
					  : snprintf(text + o, cap - o,
						     "isa big%zu\nexit kvm:kvm_exit\nreason "
						     "exit_reason mask 0xffff\nname %zu N%zu\n",
						     i, i, i));
		t0 = test_cpu_seconds();
		rc = exit_types_parse_mem(&gen, text, o, "generated", e, sizeof(e));
		dt = test_cpu_seconds() - t0;
		n = one_table ? (gen.n ? gen.tables[0].nnames : 0) : gen.n;
		printf("test_exittypes: %s parsed in %.3f s of CPU\n",
		       one_table ? "300,000 names" : "75,000 tables", dt);
		CHECK(rc == 0 && n == (one_table ? 300000u : 75000u), "%zu: %s", n, rc ? e : "");
		/* a hang guard (quadratic took > 10 min), not a speed test: make bench */
		CHECK(dt < 30.0 * TEST_SLOW, "300,000 lines parsed in %.3f s (bound %d s)", dt,
		      30 * TEST_SLOW);
		exit_types_free(&gen);
		free(text);
	}
}

/* The aliases of a display name (top -f's other names for a row), and the reverse lookup by one. */
static void test_aliases(void)
{
	const char *out[8];
	uint64_t key = 0;
	const struct exit_table *t = table("arm64");

	CHECK(exit_types_aliases(&set, "TRAP_DABT_LOW", out, 8) == 1 && !strcmp(out[0], "DABT_LOW"),
	      "TRAP_DABT_LOW's alias");
	CHECK(exit_types_aliases(&set, "TRAP_HVC64", out, 8) == 1 && !strcmp(out[0], "HVC64"),
	      "TRAP_HVC64's alias");
	CHECK(exit_types_aliases(&set, "IRQ", out, 8) == 0, "IRQ has no other name");
	CHECK(exit_types_aliases(&set, "TRAP_SERROR", out, 8) == 0, "TRAP_SERROR: none");
	CHECK(exit_types_aliases(&set, "HLT", out, 8) == 0, "vmx HLT: none");
	/* 0x224: ARM_EXCEPTION_TRAP 2 << 8 | ESR_ELx_EC_DABT_LOW 0x24 (arch/arm64/include/asm/esr.h) */
	CHECK(exit_table_key_alias(t, "DABT_LOW", &key) == 0 && key == 0x224, "DABT_LOW 0x%llx",
	      (unsigned long long)key);
	CHECK(exit_table_key_alias(t, "SYS64", &key) == 0 && key == 0x218, "SYS64 0x%llx",
	      (unsigned long long)key);
	CHECK(exit_table_key_alias(t, "SERROR", &key) == 0 && key == 0x100, "SERROR 0x%llx",
	      (unsigned long long)key);
	CHECK(exit_table_key(t, "DABT_LOW", &key) < 0, "exit_table_key takes names only");
	/* SVM's aliases (trace-cmd's plugin names) are aliases too */
	CHECK(exit_types_aliases(&set, "hlt", out, 8) >= 1, "svm hlt's EXIT_HLT");
}

static bool has_name(char **names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* What top and serve trace for each view (exit_types_event_names()'s needs). */
static void test_event_lists(void)
{
	size_t n[3];
	char **none = exit_types_event_names(&set, 0, &n[0]);
	char **det = exit_types_event_names(&set, EXIT_NEED_DETAILS, &n[1]);
	char **all = exit_types_event_names(&set, EXIT_NEED_ALL, &n[2]);

	CHECK(has_name(none, n[0], "kvm:kvm_exit") && has_name(none, n[0], "kvm:kvm_entry") &&
		  has_name(none, n[0], "kvm:kvm_userspace_exit") &&
		  has_name(none, n[0], "kvm_hv:kvm_guest_exit"),
	      "no view of details: the exit and entry events");
	CHECK(!has_name(none, n[0], "kvm:kvm_pio") && !has_name(none, n[0], "kvm:kvm_mmio"),
	      "no view of details: no detail event");
	CHECK(has_name(det, n[1], "kvm:kvm_pio") && !has_name(det, n[1], "kvm:kvm_emulate_insn"),
	      "sub-keys: kvm_pio, not kvm_emulate_insn (need buckets)");
	CHECK(has_name(all, n[2], "kvm:kvm_emulate_insn") &&
		  has_name(all, n[2], "kvm:kvm_page_fault"),
	      "a recording: every detail event");
	/* `grep -c '^event' exit_types/detail.types`: 13 (4 of nesting), of which 2 `need buckets` */
	CHECK(n[2] - n[0] == 13 && n[2] - n[1] == 2, "detail events: %zu, %zu with need buckets",
	      n[2] - n[0], n[2] - n[1]);
	exit_types_event_names_free(none, n[0]);
	exit_types_event_names_free(det, n[1]);
	exit_types_event_names_free(all, n[2]);
}

int main(void)
{
	test_linear();
	test_builtin_loads();
	test_embedding_is_exact();
	test_spot_checks();
	test_display();
	test_reverse();
	test_aliases();
	test_user_file_overrides();
	test_malformed();
	test_limits();
	test_data_moved();
	test_event_lists();
	test_syntax();
	test_garbage();
	test_man_examples();
	exit_types_free(&set);
	return test_summary("test_exittypes");
}
