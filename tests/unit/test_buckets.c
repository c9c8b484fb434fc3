// SPDX-License-Identifier: GPL-2.0
/*
 * Timing bucket maps: the parser (and its errors, with line numbers), rule
 * semantics, the shipped maps against the shipped exit tables, a user's map
 * read at run time, and one trace.dat fixture per ISA whose buckets were
 * computed by hand (tests/fixtures/buckets/ISA.expect): whole run, per
 * thread, per-vCPU tables summing exactly to the whole.
 */
#include <stdlib.h>
#include <unistd.h>
#include "alloc.h"
#include "bucket-map.h"
#include "fixture.h"
#include "harness.h"
#include "intern.h"
#include "pipeline.h"

#define FIXTURES "tests/fixtures/buckets/"

static char tmpdir[] = "/tmp/kes-buckets-XXXXXX";
static struct exit_types types;

static const char *tmp(const char *name)
{
	static char buf[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmpdir, name);
	return buf[i];
}

static struct bucket_map *parse(const char *text, char *e, size_t elen)
{
	return bucket_map_parse(text, strlen(text), "t.map", e, elen);
}

static const char *apply(struct bucket_map *m, const char *isa, const char *reason, uint32_t mask,
			 uint32_t flags)
{
	struct kes_details d = {.mask = mask, .flags = flags};

	return bucket_map_apply(m, intern(isa), intern(reason), &d);
}

#define BIT(k) (1u << (k))

/* An exit with one kvm_page_fault whose error_code is ec (and the other kinds of mask). */
static const char *apply_pf(struct bucket_map *m, const char *isa, const char *reason,
			    uint32_t mask, uint64_t ec)
{
	struct kes_details d = {.mask = mask | BIT(KES_D_PF)};

	d.value[KES_D_PF] = ec;
	return bucket_map_apply(m, intern(isa), intern(reason), &d);
}

static void test_errors(void)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
	    {"", "t.map:1: no 'map NAME' line"},
	    {"# only a comment\n", "t.map:1: no 'map NAME' line"},
	    {"map a\n", "t.map:1: map 'a' has no rule"},
	    {"rule * * -> X\n", "t.map:1: 'rule' before 'map NAME'"},
	    {"map a\nmap b\n", "t.map:2: a second 'map' line"},
	    {"map a\n\nrul * * -> X\n", "t.map:3: unknown directive 'rul'"},
	    {"map a\nrule * * X\n", "t.map:2: want 'rule ISA REASON [CONDITION...] -> BUCKET'"},
	    {"map a\nrule * * -> X Y\n", "t.map:2: want 'rule"},
	    {"map a\nrule * -> X\n", "t.map:2: want 'rule"},
	    {"map a\nrule * * mmoi -> X\n", "t.map:2: unknown detail 'mmoi' (want mmio, pio,"},
	    {"map a\nrule * * mmio/fetch -> X\n",
	     "t.map:2: detail mmio has no flag 'fetch' (it has 'write')"},
	    /* page_fault/fetch is gone: no one bit is a fetch on every exit */
	    {"map a\nrule * * page_fault/fetch -> X\n",
	     "t.map:2: detail page_fault has no flag (test the bits of its error_code: "
	     "page_fault&MASK)"},
	    {"map a\nrule * * hypercall/x -> X\n", "t.map:2: detail hypercall has no flag"},
	    {"map a\nrule * * hypercall&0x1 -> X\n",
	     "t.map:2: detail hypercall carries no value to test"},
	    {"map a\nrule * * !page_fault&0x4 -> X\n",
	     "t.map:2: '!page_fault&0x4': a value test needs its detail seen (write "
	     "page_fault&!0x4)"},
	    {"map a\nrule * * !page_fault&!0x4 -> X\n",
	     "t.map:2: '!page_fault&!0x4': a value test needs its detail seen (write "
	     "page_fault&!0x4)"},
	    {"map a\nrule * * page_fault& -> X\n", "t.map:2: 'page_fault&': bad mask ''"},
	    {"map a\nrule * * page_fault&! -> X\n", "t.map:2: 'page_fault&!': bad mask ''"},
	    {"map a\nrule * * page_fault&0 -> X\n", "t.map:2: 'page_fault&0': bad mask '0'"},
	    {"map a\nrule * * page_fault&0x0 -> X\n", "t.map:2: 'page_fault&0x0': bad mask"},
	    {"map a\nrule * * page_fault&0x -> X\n", "t.map:2: 'page_fault&0x': bad mask"},
	    {"map a\nrule * * page_fault&-4 -> X\n", "t.map:2: 'page_fault&-4': bad mask"},
	    {"map a\nrule * * page_fault&+4 -> X\n", "t.map:2: 'page_fault&+4': bad mask"},
	    {"map a\nrule * * page_fault&010 -> X\n", "t.map:2: 'page_fault&010': bad mask"},
	    {"map a\nrule * * page_fault&0x4g -> X\n", "t.map:2: 'page_fault&0x4g': bad mask"},
	    {"map a\nrule * * page_fault&0x4/fetch -> X\n", "t.map:2: 'page_fault&0x4/fetch'"},
	    {"map a\nrule * * page_fault&0x10000000000000000 -> X\n",
	     "t.map:2: 'page_fault&0x10000000000000000': bad mask"},
	    {"map a\nrule * * page_fault&18446744073709551616 -> X\n",
	     "t.map:2: 'page_fault&18446744073709551616': bad mask"},
	    {"map a\nrule * * mmoi&0x1 -> X\n", "t.map:2: unknown detail 'mmoi'"},
	    {"map a\nrule * * !page_fault page_fault&0x4 -> X\n",
	     "t.map:2: a detail both seen and not seen"},
	    {"map a\nrule * * !mmio/write -> X\n", "t.map:2: '!mmio/write': a flag needs"},
	    {"map a\nrule * * mmio !mmio -> X\n", "t.map:2: a detail both seen and not seen"},
	    {"map a\nrule * \"Wait state -> X\n", "t.map:2: unterminated quote"},
	    {"map a\nrule * * -> TIMEINGUEST\n", "t.map:2: bucket TIMEINGUEST is the time"},
	    {"map a\nrule * * -> \"A B\"\n", "t.map:2: bad bucket 'A B'"},
	    {"map a\nrule * * -> X\ndescribe x\ndescribe y\n", "t.map:4: a second 'describe'"},
	    {"map a\nrule * * a b c d e f g h i j k l m n -> X\n", "t.map:2: too many words"},
	};
	char e[256];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		e[0] = '\0';
		struct bucket_map *m = parse(cases[i].text, e, sizeof(e));
		CHECK(!m, "case %zu parsed", i);
		CHECK(!strncmp(e, cases[i].want, strlen(cases[i].want)),
		      "case %zu: got '%s' want '%s'", i, e, cases[i].want);
		bucket_map_free(m);
	}
	/* A long line and a NUL byte, with their line numbers. */
	char big[1200 + 32];
	snprintf(big, sizeof(big), "map a\n#%01200d\n", 0);
	CHECK(!parse(big, e, sizeof(e)) && strstr(e, "t.map:2: line longer than 1024"), "%s", e);
	static const char nul[] = "map a\nrule * * -> X\nru\0le\n";
	CHECK(!bucket_map_parse(nul, sizeof(nul) - 1, "t.map", e, sizeof(e)) &&
		  !strcmp(e, "t.map:3: NUL byte in a map file"),
	      "%s", e);
	/* Value tests: 64 different ones fit (the memo keys on their outcomes), 65 do not. */
	char text[66 * 48] = "map a\n";
	for (int i = 1; i <= 64; i++) {
		size_t n = strlen(text);
		if (i < 64)
			snprintf(text + n, sizeof(text) - n, "rule * * page_fault&%d -> X\n", i);
		else /* the 64th: pio's; page_fault&1 again is no new test */
			snprintf(text + n, sizeof(text) - n,
				 "rule * * pio&0x1 page_fault&1 -> X\n");
	}
	struct bucket_map *m = parse(text, e, sizeof(e));
	CHECK(m, "64 tests, one repeated: %s", e);
	bucket_map_free(m);
	strcat(text, "rule * * page_fault&0x40 -> X\n");
	CHECK(!parse(text, e, sizeof(e)) &&
		  !strcmp(e, "t.map:66: more than 64 different DETAIL&MASK tests in one map"),
	      "65 tests: %s", e);
}

static void test_rules(void)
{
	static const char text[] = "map t # comment\n"
				   "describe a  test\n"
				   "rule userspace KVM_EXIT_HLT -> HALT\n"
				   "rule x86_vmx * mmio -> MMIO\n"
				   "rule * * page_fault&0x10 -> ITLB # any isa\n"
				   "rule * * page_fault&!0x10 -> DTLB\n"
				   "rule x86_vmx IO_INSTRUCTION emulate !pio -> EMUL_ONLY\n"
				   "rule x86_vmx IO_INSTRUCTION emulate -> EMULINST\n"
				   "rule x86_vmx MSR_* -> MSR\n"
				   "rule s390 \"Wait state\" -> HALT\n"
				   "rule s390 \"W*\" -> LITERAL_STAR\n"
				   "rule x86_vmx HLT -> =\n";
	char e[256];
	struct bucket_map *m = parse(text, e, sizeof(e));

	CHECK(m, "parse: %s", e);
	if (!m)
		return;
	CHECK_STR(bucket_map_name(m), "t");
	CHECK_STR(bucket_map_describe(m), "a test");
	CHECK_STR(apply(m, "userspace", "KVM_EXIT_HLT", BIT(KES_D_EMULATE), 0), "HALT");
	/* isa must match: the same reason name elsewhere is another exit */
	CHECK_STR(apply(m, "x86_svm", "KVM_EXIT_HLT", 0, 0), "OTHER(KVM_EXIT_HLT)");
	/* first match wins: mmio before the page fault rules */
	CHECK_STR(apply_pf(m, "x86_vmx", "EPT_VIOLATION", BIT(KES_D_MMIO), 0x10), "MMIO");
	CHECK_STR(apply_pf(m, "x86_vmx", "EPT_VIOLATION", 0, 0x10), "ITLB");
	CHECK_STR(apply_pf(m, "arm64", "TRAP_DABT_LOW", 0, 0x4), "DTLB");
	/* a flag of another kind says nothing of the fault's value */
	CHECK_STR(apply(m, "arm64", "X", BIT(KES_D_PF) | BIT(KES_D_MMIO), BIT(KES_D_MMIO)), "DTLB");
	/* &!MASK needs the fault seen */
	CHECK_STR(apply(m, "arm64", "X", 0, 0), "OTHER(X)");
	CHECK_STR(apply(m, "x86_vmx", "IO_INSTRUCTION", BIT(KES_D_EMULATE), 0), "EMUL_ONLY");
	CHECK_STR(apply(m, "x86_vmx", "IO_INSTRUCTION", BIT(KES_D_EMULATE) | BIT(KES_D_PIO), 0),
		  "EMULINST");
	CHECK_STR(apply(m, "x86_vmx", "IO_INSTRUCTION", BIT(KES_D_PIO), 0),
		  "OTHER(IO_INSTRUCTION)");
	CHECK_STR(apply(m, "x86_vmx", "MSR_READ", 0, 0), "MSR");
	CHECK_STR(apply(m, "x86_vmx", "MSR_WRITE", BIT(KES_D_MSR), BIT(KES_D_MSR)), "MSR");
	CHECK_STR(apply(m, "s390", "Wait state", 0, 0), "HALT");
	CHECK_STR(apply(m, "s390", "W*", 0, 0), "LITERAL_STAR"); /* quoted: not a pattern */
	CHECK_STR(apply(m, "s390", "Wx", 0, 0), "OTHER(Wx)");
	CHECK_STR(apply(m, "x86_vmx", "HLT", 0, 0), "HLT"); /* '=' keeps the exit's name */
	/* memoized: the same pointer every time, also after the memo grew */
	const char *first = apply(m, "x86_vmx", "MSR_READ", 0, 0);
	char name[32];
	for (int i = 0; i < 500; i++) {
		snprintf(name, sizeof(name), "R%d", i);
		apply(m, "riscv", name, (uint32_t)i & 0x3e, 0);
	}
	CHECK(apply(m, "x86_vmx", "MSR_READ", 0, 0) == first, "memo");
	CHECK_STR(apply(m, "riscv", "R499", 499 & 0x3e, 0), "OTHER(R499)");
	CHECK(bucket_map_namer(m, intern("s390"), intern("Wait state"), NULL) == intern("HALT"),
	      "namer");
	bucket_map_free(m);
}

/* DETAIL&MASK / DETAIL&!MASK: the first detail's raw value, any bit of MASK. */
static void test_values(void)
{
	static const char text[] =
	    "map v\n"
	    "rule x86_vmx EPT_VIOLATION page_fault&0x4 -> ITLB\n"
	    "rule x86_vmx EPT_VIOLATION page_fault&!0x4 -> DTLB\n"
	    "rule x86_vmx EPT_VIOLATION !page_fault -> NOFAULT\n"
	    "rule x86_svm npf page_fault&0x10 page_fault&0x100000000 -> FINAL_I\n"
	    "rule x86_svm npf page_fault&0x10 -> ITLB\n"
	    "rule x86_svm npf page_fault&0x6 -> ANY_OF_6\n"
	    "rule x86_svm npf -> REST\n"
	    "rule x86_vmx CPUID pio&!1 mmio&0x2 -> IN_AND_MMIO_WRITE\n"
	    "rule * * -> =\n";
	char e[256];
	struct bucket_map *m = parse(text, e, sizeof(e));

	CHECK(m, "parse: %s", e);
	if (!m)
		return;
	/* An EPT exit qualification: bit 2 is a fetch, bit 4 "the page was writable". */
	CHECK_STR(apply_pf(m, "x86_vmx", "EPT_VIOLATION", 0, 0x184), "ITLB");
	CHECK_STR(apply_pf(m, "x86_vmx", "EPT_VIOLATION", 0, 0x19a), "DTLB");
	CHECK_STR(apply_pf(m, "x86_vmx", "EPT_VIOLATION", 0, 0x184), "ITLB"); /* memo keys on it */
	CHECK_STR(apply_pf(m, "x86_vmx", "EPT_VIOLATION", 0, 0x2), "DTLB");
	CHECK_STR(apply(m, "x86_vmx", "EPT_VIOLATION", 0, 0), "NOFAULT");
	/* a stale value of a kind not seen is no fault: &MASK and &!MASK both need it seen */
	struct kes_details d = {.mask = BIT(KES_D_MMIO)};
	d.value[KES_D_PF] = 0x4;
	CHECK_STR(bucket_map_apply(m, intern("x86_vmx"), intern("EPT_VIOLATION"), &d), "NOFAULT");
	/* 64-bit values and masks; several tests in one rule must all hold */
	CHECK_STR(apply_pf(m, "x86_svm", "npf", 0, 0x100000014ULL), "FINAL_I");
	CHECK_STR(apply_pf(m, "x86_svm", "npf", 0, 0x200000014ULL), "ITLB");
	/* a mask of several bits: any of them */
	CHECK_STR(apply_pf(m, "x86_svm", "npf", 0, 0x100000004ULL), "ANY_OF_6");
	CHECK_STR(apply_pf(m, "x86_svm", "npf", 0, 0x2), "ANY_OF_6");
	CHECK_STR(apply_pf(m, "x86_svm", "npf", 0, 0x100000001ULL), "REST");
	/* other kinds have values too: kvm_pio rw (1: out), kvm_mmio type (2: write) */
	d = (struct kes_details){.mask = BIT(KES_D_PIO) | BIT(KES_D_MMIO)};
	d.value[KES_D_PIO] = 0;
	d.value[KES_D_MMIO] = 2;
	CHECK_STR(bucket_map_apply(m, intern("x86_vmx"), intern("CPUID"), &d), "IN_AND_MMIO_WRITE");
	d.value[KES_D_PIO] = 1;
	CHECK_STR(bucket_map_apply(m, intern("x86_vmx"), intern("CPUID"), &d), "CPUID");
	bucket_map_free(m);
}

static void test_check(void)
{
	static const struct {
		const char *text, *want; /* want NULL: passes */
	} cases[] = {
	    {"map a\nrule x86_vmx HLT -> H\nrule * KVM_EXIT_IO -> I\nrule * * -> =\n", NULL},
	    {"map a\nrule s390 \"Wait state\" -> H\nrule userspace restart -> S\n", NULL},
	    {"map a\nrule x86_svm vmgexit_* -> H\nrule arm64 TRAP_* -> T\n", NULL},
	    {"map a\nrule x86_vmx HLT -> H\nrule x86_vmx HLTT -> H\n",
	     "t.map:3: x86_vmx has no exit named 'HLTT'"},
	    {"map a\nrule x86vmx HLT -> H\n", "t.map:2: no exit table 'x86vmx'"},
	    {"map a\nrule ppc_timing MMIO -> H\n", "t.map:2: no exit table 'ppc_timing'"},
	    {"map a\nrule * NO_SUCH_EXIT -> H\n",
	     "t.map:2: no exit table has an exit named 'NO_SUCH_EXIT'"},
	    {"map a\nrule arm64 XTRAP_* -> H\n", "t.map:2: arm64 has no exit named 'XTRAP_*'"},
	};
	char e[256];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct bucket_map *m = parse(cases[i].text, e, sizeof(e));
		CHECK(m, "case %zu: %s", i, e);
		if (!m)
			continue;
		e[0] = '\0';
		int rc = bucket_map_check(m, &types, e, sizeof(e));
		if (cases[i].want)
			CHECK(rc < 0 && !strcmp(e, cases[i].want), "case %zu: got '%s' want '%s'",
			      i, e, cases[i].want);
		else
			CHECK(rc == 0, "case %zu: %s", i, e);
		bucket_map_free(m);
	}
}

/*
 * arm64's bare exception classes (exit_types/arm64.types `alias` lines): a
 * rule may name a reason as the kernel prints it, "(DABT_LOW)"; it matches
 * the exits the tables name TRAP_DABT_LOW. Every alias line of the file,
 * read here with awk-free C from the data itself: alias CLASS KEY names the
 * TRAP_CLASS of KEY.
 */
static void test_aliases(void)
{
	const struct exit_table *t = exit_types_find(&types, "arm64");
	char e[256], text[256];
	size_t checked = 0;

	CHECK(t && t->naliases >= 40, "arm64 has %zu aliases", t ? t->naliases : 0);
	for (size_t i = 0; t && i < t->naliases; i++) {
		const char *name = exit_table_name(t, t->aliases[i].key);
		char want[128];

		snprintf(want, sizeof(want), "TRAP_%s", t->aliases[i].name);
		CHECK(name && !strcmp(name, want), "alias %s: key 0x%llx is %s", t->aliases[i].name,
		      (unsigned long long)t->aliases[i].key, name ? name : "(none)");
		snprintf(text, sizeof(text), "map a\nrule arm64 %s -> B\n", t->aliases[i].name);
		struct bucket_map *m = parse(text, e, sizeof(e));
		CHECK(m && bucket_map_check(m, &types, e, sizeof(e)) == 0, "%s: %s",
		      t->aliases[i].name, e);
		if (m && name) {
			CHECK_STR(apply(m, "arm64", name, 0, 0), "B");
			checked++;
		}
		bucket_map_free(m);
	}
	CHECK(checked == (t ? t->naliases : 0), "%zu of the aliases applied", checked);
	/* isa '*': the alias is found in the table that has it */
	struct bucket_map *m = parse("map a\nrule * DABT_LOW -> MMIO\nrule * * -> =\n", e, sizeof(e));
	CHECK(m && bucket_map_check(m, &types, e, sizeof(e)) == 0, "*: %s", e);
	if (m) {
		CHECK_STR(apply(m, "arm64", "TRAP_DABT_LOW", 0, 0), "MMIO");
		CHECK_STR(apply(m, "arm64", "TRAP_DABT_CUR", 0, 0), "TRAP_DABT_CUR");
	}
	bucket_map_free(m);
	/* SERROR stays the exception type's name: no alias takes it over */
	m = parse("map a\nrule arm64 SERROR -> S\n", e, sizeof(e));
	CHECK(m && bucket_map_check(m, &types, e, sizeof(e)) == 0, "SERROR: %s", e);
	if (m) {
		CHECK_STR(apply(m, "arm64", "SERROR", 0, 0), "S");
		CHECK_STR(apply(m, "arm64", "TRAP_SERROR", 0, 0), "OTHER(TRAP_SERROR)");
	}
	bucket_map_free(m);
	/* an alias is a name of its table only */
	m = parse("map a\nrule x86_vmx DABT_LOW -> B\n", e, sizeof(e));
	CHECK(m && bucket_map_check(m, &types, e, sizeof(e)) < 0 &&
		  !strcmp(e, "t.map:2: x86_vmx has no exit named 'DABT_LOW'"),
	      "x86_vmx DABT_LOW: '%s'", e);
	bucket_map_free(m);
}

/*
 * ppc.map's x86 page faults: kvm_page_fault's error_code is an EPT exit
 * qualification on VMX EPT_VIOLATION (fetch: bit 2) and a #PF error code on
 * the #PF intercepts and SVM's npf (fetch: bit 4).
 */
static void check_ppc_page_faults(struct bucket_map *m)
{
	static const struct {
		const char *isa, *reason;
		uint64_t ec;
		const char *want;
	} c[] = {
	    {"x86_vmx", "EPT_VIOLATION", 0x184, "ITLBVIRT"}, /* fetch, GVA valid, translated */
	    {"x86_vmx", "EPT_VIOLATION", 0x4, "ITLBVIRT"},
	    {"x86_vmx", "EPT_VIOLATION", 0x14, "ITLBVIRT"},
	    {"x86_vmx", "EPT_VIOLATION", 0x19a, "DTLBVIRT"}, /* bit 4 without bit 2: data */
	    {"x86_vmx", "EPT_VIOLATION", 0x10, "DTLBVIRT"},
	    {"x86_vmx", "EPT_VIOLATION", 0x181, "DTLBVIRT"},
	    {"x86_vmx", "EXCEPTION_NMI", 0x15, "ITLBVIRT"}, /* #PF: present, user, fetch */
	    {"x86_vmx", "EXCEPTION_NMI", 0x10, "ITLBVIRT"},
	    {"x86_vmx", "EXCEPTION_NMI", 0x4, "DTLBVIRT"}, /* #PF: user read */
	    {"x86_vmx", "EXCEPTION_NMI", 0x7, "DTLBVIRT"},
	    {"x86_svm", "npf", 0x100000014ULL, "ITLBVIRT"},
	    {"x86_svm", "npf", 0x100000004ULL, "DTLBVIRT"}, /* user read: bit 2 is no fetch */
	    {"x86_svm", "npf", 0x200000006ULL, "DTLBVIRT"},
	    {"x86_svm", "PF excp", 0x15, "ITLBVIRT"},
	    {"x86_svm", "PF excp", 0x6, "DTLBVIRT"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(c); i++)
		CHECK(!strcmp(apply_pf(m, c[i].isa, c[i].reason, 0, c[i].ec), c[i].want),
		      "ppc: %s %s error_code %#llx: got %s want %s", c[i].isa, c[i].reason,
		      (unsigned long long)c[i].ec, apply_pf(m, c[i].isa, c[i].reason, 0, c[i].ec),
		      c[i].want);
	/* MMIO first; an EPT violation or npf recorded without kvm_page_fault is data */
	CHECK_STR(apply_pf(m, "x86_vmx", "EPT_VIOLATION", BIT(KES_D_MMIO), 0x184), "MMIO");
	CHECK_STR(apply_pf(m, "x86_svm", "npf", BIT(KES_D_MMIO), 0x100000014ULL), "MMIO");
	CHECK_STR(apply(m, "x86_vmx", "EPT_VIOLATION", 0, 0), "DTLBVIRT");
	CHECK_STR(apply(m, "x86_svm", "npf", 0, 0), "DTLBVIRT");
	/* EXCEPTION_NMI without a page fault: another exception, not a TLB bucket */
	CHECK_STR(apply(m, "x86_vmx", "EXCEPTION_NMI", 0, 0), "OTHER(EXCEPTION_NMI)");
	CHECK_STR(apply(m, "x86_vmx", "EXCEPTION_NMI", BIT(KES_D_EMULATE), 0), "EMULINST");
}

static void test_shipped(void)
{
	char e[512];
	bool have_ppc = false, have_native = false;

	CHECK(bucket_map_nfiles >= 2, "built-in maps: %zu", bucket_map_nfiles);
	for (size_t i = 0; i < bucket_map_nfiles; i++) {
		const char *f = bucket_map_files[i].file;
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)(strlen(f) - 4), f);
		struct bucket_map *m = bucket_map_builtin(name, e, sizeof(e));
		CHECK(m, "%s: %s", f, e);
		if (!m)
			continue;
		CHECK_STR(bucket_map_name(m), name);
		CHECK(bucket_map_check(m, &types, e, sizeof(e)) == 0, "%s: %s", f, e);
		have_ppc |= !strcmp(name, "ppc");
		have_native |= !strcmp(name, "native");
		bucket_map_free(m);
	}
	CHECK(have_ppc && have_native, "ppc and native are built in");
	struct bucket_map *m = bucket_map_open("native", e, sizeof(e));
	CHECK(m && !strcmp(apply(m, "s390", "Wait state", 0, 0), "Wait state"), "native: %s", e);
	bucket_map_free(m);
	m = bucket_map_open("ppc", e, sizeof(e));
	CHECK(m && !strcmp(apply(m, "userspace", "KVM_EXIT_IO", BIT(KES_D_EMULATE), 0), "EMULINST"),
	      "ppc");
	if (m)
		check_ppc_page_faults(m);
	bucket_map_free(m);
}

static void check_man_map(const char *text, void *arg)
{
	char e[256];
	struct bucket_map *m = parse(text, e, sizeof(e));

	(void)arg;
	CHECK(m && bucket_map_check(m, &types, e, sizeof(e)) == 0, "man: %s", e);
	if (m) /* the example's own point: bit 2 on VMX, bit 4 on SVM */
		CHECK(!strcmp(apply_pf(m, "x86_vmx", "EPT_VIOLATION", 0, 0x4), "ITLB") &&
			  !strcmp(apply_pf(m, "x86_svm", "npf", 0, 0x4), "DTLB"),
		      "man example's page faults");
	bucket_map_free(m);
}

/* The map examples of kvm-exitstat-exit-types(5) parse and pass the checks. */
static void test_man_example(void)
{
	int n = man_examples("man/kvm-exitstat-exit-types.5", "map ", check_man_map, NULL);

	CHECK(n == 1, "%d map examples (-1: no man page; run from the repository root)", n);
}

/* A map read at run time, by path; and what an unknown name says. */
static void test_user_file(void)
{
	char e[512];
	const char *path = tmp("my.map");
	FILE *f = fopen(path, "w");

	fputs("map mine\nrule userspace KVM_EXIT_IO pio/write -> OUT\nrule * * -> REST\n", f);
	fclose(f);
	struct bucket_map *m = bucket_map_open(path, e, sizeof(e));
	CHECK(m, "%s", e);
	if (m) {
		CHECK_STR(bucket_map_name(m), "mine");
		CHECK_STR(apply(m, "userspace", "KVM_EXIT_IO", BIT(KES_D_PIO), BIT(KES_D_PIO)),
			  "OUT");
		CHECK_STR(apply(m, "userspace", "KVM_EXIT_IO", BIT(KES_D_PIO), 0), "REST");
	}
	bucket_map_free(m);
	f = fopen(path, "w");
	fputs("map mine\n\nrule * * -> REST\nrule * * bogus -> X\n", f);
	fclose(f);
	char want[600];
	snprintf(want, sizeof(want), "%s:4: unknown detail 'bogus'", path);
	CHECK(!bucket_map_open(path, e, sizeof(e)) && !strncmp(e, want, strlen(want)), "%s", e);
	CHECK(!bucket_map_open("ppcc", e, sizeof(e)) && strstr(e, "'ppcc'") &&
		  strstr(e, "native") && strstr(e, "ppc"),
	      "%s", e);
	CHECK(!bucket_map_open(tmp("missing.map"), e, sizeof(e)) &&
		  strstr(e, "No such file or directory"),
	      "%s", e);
}

/* ---- fixtures ---------------------------------------------------------- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = xcalloc(1, 1 << 16);

	if (f) {
		size_t n = fread(buf, 1, (1 << 16) - 1, f);
		buf[n] = '\0';
		fclose(f);
	}
	return buf;
}

/* "# formats: SPEC..." in the events file: what datfixture_build() needs. */
static size_t format_specs(char *text, const char **specs, size_t max)
{
	char *s = strstr(text, "# formats: ");
	size_t n = 0;

	if (!s)
		return 0;
	s += strlen("# formats: ");
	s[strcspn(s, "\n")] = '\0';
	for (char *tok = strtok(s, " "); tok && n < max; tok = strtok(NULL, " "))
		specs[n++] = xstrdup(tok);
	return n;
}

static bool load(const char *isa, struct bucket_map *m, struct input_result *r)
{
	char path[256], e[512];
	const char *specs[8];

	snprintf(path, sizeof(path), FIXTURES "%s.events", isa);
	char *text = slurp(path);
	char *copy = xstrdup(text);
	size_t n = format_specs(copy, specs, ARRAY_SIZE(specs));
	const char *dat = tmp("fixture.dat");
	int rc = datfixture_build(dat, specs, n, text, e, sizeof(e));
	CHECK(n && rc == 0, "%s: %s", isa, n ? e : "no '# formats:' line");
	for (size_t i = 0; i < n; i++)
		free((char *)specs[i]);
	free(copy);
	free(text);
	struct input_opts o = {.types = &types, .vcpu = -1, .buckets = m};
	input_result_init(r);
	return rc == 0 && input_load(dat, &o, r, e, sizeof(e)) == 0;
}

struct tally {
	uint64_t count, untimed, sum;
};

static void add_row(const struct stats_key *k, const struct stats_acc *a, void *arg)
{
	struct tally *t = arg;

	t->count += a->count;
	t->untimed += a->untimed;
	t->sum += a->sum;
}

/* Every expect line holds; and the whole run has no bucket the file omits. */
struct expect_ctx {
	const char *isa;
	char *text;
};

static void listed(const struct stats_key *k, const struct stats_acc *a, void *arg)
{
	struct expect_ctx *c = arg;
	char name[128], tid[16];
	bool found = false;

	for (char *s = c->text; s && *s && !found; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL)
		found = sscanf(s, "%127s %15s", name, tid) == 2 && !strcmp(name, k->name) &&
			!strcmp(tid, "*");
	CHECK(found, "%s: bucket %s has no 'tid *' line in the .expect file", c->isa, k->name);
}

static void check_expect(const char *isa, const struct stats_table *t)
{
	char path[256], name[128], tid[16];
	unsigned long long count, untimed, sum;
	struct stats_table *whole = stats_table_rollup(t, 0);
	struct stats_table *by_tid = stats_table_rollup(t, STATS_BY_TID);
	int lines = 0;

	snprintf(path, sizeof(path), FIXTURES "%s.expect", isa);
	char *text = slurp(path);
	for (char *s = text; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL) {
		if (*s == '#' || *s == '\n')
			continue;
		if (sscanf(s, "%127s %15s %llu %llu %llu", name, tid, &count, &untimed, &sum) !=
		    5) {
			CHECK(0, "%s: bad expect line '%.40s'", isa, s);
			continue;
		}
		lines++;
		bool all = !strcmp(tid, "*");
		struct stats_key k = {
		    .name = intern(name), .tid = all ? -1 : atoi(tid), .vcpu = -1};
		const struct stats_acc *a = stats_table_find(all ? whole : by_tid, &k);
		CHECK(a && a->count == count && a->untimed == untimed && a->sum == sum,
		      "%s: %s tid %s: got %llu %llu %llu want %llu %llu %llu", isa, name, tid,
		      a ? (unsigned long long)a->count : 0, a ? (unsigned long long)a->untimed : 0,
		      a ? (unsigned long long)a->sum : 0, count, untimed, sum);
	}
	CHECK(lines > 0, "%s: empty expect file", isa);
	struct expect_ctx c = {isa, text};
	stats_table_foreach(whole, listed, &c);
	free(text);
	stats_table_free(whole);
	stats_table_free(by_tid);
}

/* --per-vcpu: the tables of the vCPU threads add up to the whole, exactly. */
static void check_split(const char *isa, const struct stats_table *t)
{
	struct stats_group *g = NULL;
	size_t ng = stats_table_split(t, &g);
	struct stats_table *whole = stats_table_rollup(t, 0);
	struct stats_table *sum = stats_table_new();

	CHECK(ng >= 2, "%s: %zu vCPU groups", isa, ng);
	for (size_t i = 0; i < ng; i++)
		stats_table_merge(sum, g[i].t);
	CHECK(stats_table_size(sum) == stats_table_size(whole), "%s: rows", isa);
	struct tally a = {0}, b = {0};
	stats_table_foreach(sum, add_row, &a);
	stats_table_foreach(whole, add_row, &b);
	CHECK(a.count == b.count && a.untimed == b.untimed && a.sum == b.sum,
	      "%s: per-vCPU sums %llu/%llu/%llu, whole %llu/%llu/%llu", isa,
	      (unsigned long long)a.count, (unsigned long long)a.untimed, (unsigned long long)a.sum,
	      (unsigned long long)b.count, (unsigned long long)b.untimed,
	      (unsigned long long)b.sum);
	stats_groups_free(g, ng);
	stats_table_free(whole);
	stats_table_free(sum);
}

static void test_fixture(const char *isa)
{
	char e[512];
	struct bucket_map *ppc = bucket_map_builtin("ppc", e, sizeof(e));
	struct bucket_map *native = bucket_map_builtin("native", e, sizeof(e));
	struct input_result r, n;
	const char *note;

	if (load(isa, ppc, &r)) {
		const struct stats_table *t = input_main_table(&r, &note);
		CHECK(!strcmp(isa, "userspace") ? t == r.uexits : t == r.exits, "%s: table", isa);
		check_expect(isa, t);
		check_split(isa, t);
		/* A map moves exits between rows; it never adds or drops one. */
		if (load(isa, native, &n)) {
			struct tally a = {0}, b = {0};
			stats_table_foreach(t, add_row, &a);
			stats_table_foreach(input_main_table(&n, &note), add_row, &b);
			CHECK(a.count == b.count && a.untimed == b.untimed && a.sum == b.sum,
			      "%s: ppc and native totals", isa);
		}
		input_result_free(&n);
	}
	input_result_free(&r);
	bucket_map_free(ppc);
	bucket_map_free(native);
}

int main(void)
{
	static const char *const isas[] = {"x86_vmx",	    "x86_svm",	     "userspace",
					   "arm64",	    "riscv",	     "s390",
					   "ppc_book3s_hv", "ppc_book3s_pr", "ppc_booke"};
	char e[512];

	if (!mkdtemp(tmpdir) || exit_types_load_builtin(&types, e, sizeof(e)) < 0) {
		fprintf(stderr, "setup: %s\n", e);
		return 1;
	}
	test_errors();
	test_rules();
	test_values();
	test_check();
	test_aliases();
	test_shipped();
	test_man_example();
	test_user_file();
	for (size_t i = 0; i < ARRAY_SIZE(isas); i++)
		test_fixture(isas[i]);
	exit_types_free(&types);
	unlink(tmp("my.map"));
	unlink(tmp("fixture.dat"));
	rmdir(tmpdir);
	return test_summary("test_buckets");
}
