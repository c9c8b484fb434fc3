// SPDX-License-Identifier: GPL-2.0
/*
 * The ftrace/perf text reader: line shapes, every ISA's printed form, losses,
 * errors, hostile input, and the real recordings of tests/fixtures/text/
 * (one exitgen run seen by tracefs, trace-cmd and perf at once), whose events
 * must be identical to what the binary decoder makes of the trace.dat.
 * Run from the top of the tree (fixtures are read by relative path).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include "alloc.h"
#include "decode.h"
#include "exit-types.h"
#include "harness.h"
#include "intern.h"
#include "input/text-local.h"
#include "decode/decode-local.h"
#include "text.h"
#include "tracedat.h"

#define FIX	   "tests/fixtures/text/"
#define MAX_EVENTS 4096

/*
 * libtraceevent 1.7.1 leaks a 2-byte strdup() while parsing some event
 * formats (tracecmd_open() of the fixture): not ours, and LeakSanitizer
 * would fail the ASan run for it. Read only by LSan.
 */
__attribute__((used)) const char *__lsan_default_suppressions(void);
__attribute__((used)) const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

static struct exit_types types;

struct got {
	struct kes_event ev[MAX_EVENTS];
	size_t n;
	long long lost[16];
	int lost_cpu[16];
	size_t nlost;
	int32_t comm_tid[16];
	char comm[16][32];
	size_t ncomm;
	size_t stop_after; /* 0: never stop */
	int32_t brk_tid[16]; /* pairing breaks: the tid (-1 every thread), */
	size_t brk_at[16];   /* and how many events had come before it */
	size_t nbrk;
};

static int on_event(void *arg, const struct kes_event *ev)
{
	struct got *g = arg;

	if (g->n < MAX_EVENTS)
		g->ev[g->n++] = *ev;
	return g->stop_after && g->n >= g->stop_after;
}

static int on_lost(void *arg, int cpu, long long missed)
{
	struct got *g = arg;

	if (g->nlost < 16) {
		g->lost_cpu[g->nlost] = cpu;
		g->lost[g->nlost++] = missed;
	}
	return 0;
}

static void on_comm(void *arg, int32_t tid, const char *comm)
{
	struct got *g = arg;

	if (g->ncomm < 16) {
		g->comm_tid[g->ncomm] = tid;
		snprintf(g->comm[g->ncomm++], sizeof(g->comm[0]), "%s", comm);
	}
}

static void on_brk(void *arg, int32_t tid)
{
	struct got *g = arg;

	if (g->nbrk < 16) {
		g->brk_at[g->nbrk] = g->n;
		g->brk_tid[g->nbrk++] = tid;
	}
}

static struct text_ops ops_for(struct got *g)
{
	return (struct text_ops){
	    .event = on_event, .lost = on_lost, .comm = on_comm, .brk = on_brk, .arg = g};
}

/* Reads text held in a string; returns text_read_mem's result. */
static int read_str(const char *s, struct got *g, struct text_counts *c, char *e, size_t el)
{
	struct text_ops ops = ops_for(g);

	memset(g, 0, sizeof(*g));
	return text_read_mem(s, strlen(s), &types, &ops, c, e, el);
}

/* One line's single decoded event, or NULL. */
static const struct kes_event *one(const char *line)
{
	static struct got g;
	struct text_counts c;
	char e[256];

	if (read_str(line, &g, &c, e, sizeof(e)) < 0 || g.n != 1) {
		fprintf(stderr, "  no single event from: %s (n %zu, undecoded %llu)\n", line, g.n,
			(unsigned long long)c.undecoded);
		return NULL;
	}
	return &g.ev[0];
}

static void expect_exit(const char *line, const char *reason, const char *isa, int vcpu)
{
	const struct kes_event *ev = one(line);

	CHECK(ev, "%s", line);
	if (!ev)
		return;
	CHECK(ev->kind == KES_EXIT || ev->kind == KES_UEXIT, "%s: kind %u", line, ev->kind);
	CHECK_STR(ev->reason, reason);
	CHECK_STR(ev->isa, isa);
	CHECK(ev->vcpu == vcpu, "%s: vcpu %d want %d", line, ev->vcpu, vcpu);
	CHECK(ev->reason == intern(reason), "reason not interned: %s", reason);
}

/* ---- line shapes ---- */

static void test_shapes(void)
{
	struct text_line l;
	const char *s;

	s = "   exitgen-vcpu0-4102  [001] d..1.  1234.567890: kvm_fpu: load";
	CHECK(text_parse_line(s, strlen(s), &l) == 0, "tracefs");
	CHECK(l.tid == 4102 && l.cpu == 1 && l.ts == 1234567890000ULL, "tid %d cpu %d ts %llu",
	      l.tid, l.cpu, (unsigned long long)l.ts);
	CHECK(l.comm_len == 13 && memcmp(l.comm, "exitgen-vcpu0", 13) == 0, "comm");
	CHECK(l.event_len == 7 && !l.system && strcmp(l.payload, "load") == 0, "event");

	s = "   exitgen-vcpu1-13075   (  13071) [000]    727.002100: kvm_fpu: load";
	CHECK(text_parse_line(s, strlen(s), &l) == 0 && l.tid == 13075 && l.cpu == 0, "tgid");
	s = "          <...>-7     (-------) [003] .....    1.000001: kvm_fpu: unload";
	CHECK(text_parse_line(s, strlen(s), &l) == 0 && l.tid == 7 && l.cpu == 3, "no tgid");
	s = " Web Content-77 [002] 5.000000009: sched_switch: prev_comm=a";
	CHECK(text_parse_line(s, strlen(s), &l) == 0 && l.tid == 77 && l.ts == 5000000009ULL &&
		  l.comm_len == 11,
	      "comm with a blank, 9 decimals");
	s = "kvm-exitstat-a-1: exitgen-vcpu0-18 [000]   7.5: kvm_fpu:              load";
	CHECK(text_parse_line(s, strlen(s), &l) == 0 && l.instance_len == 16 && l.tid == 18 &&
		  l.ts == 7500000000ULL && strcmp(l.payload, "load") == 0,
	      "trace-cmd instance prefix");
	s = "exitgen--18267   0d..1.  1064.471055: kvm_fpu: load";
	CHECK(text_parse_line(s, strlen(s), &l) == 0 && l.shape == TEXT_SHAPE_LATENCY &&
		  l.tid == 18267 && l.cpu == 0,
	      "trace-cmd -l");
	s = "   exitgen-vcpu1 13071/13075 [000]   726.972339025:    kvm:kvm_fpu: load";
	CHECK(text_parse_line(s, strlen(s), &l) == 0 && l.shape == TEXT_SHAPE_PERF &&
		  l.tid == 13075 && l.system_len == 3 && l.ts == 726972339025ULL,
	      "perf pid/tid");
	s = "  qemu system x86 900 12.000001: kvm:kvm_exit: reason HLT rip 0x1 info 0 0";
	CHECK(text_parse_line(s, strlen(s), &l) == 0 && l.tid == 900 && l.cpu == -1 &&
		  l.comm_len == 15,
	      "perf without cpu, comm with blanks");
	s = "  1a-2 [000] 5: kvm_fpu: load";
	CHECK(text_parse_line(s, strlen(s), &l) == 0 && l.ts == 5, "counter clock");
	/* not trace lines */
	const char *bad[] = {
	    "",
	    "# tracer: nop",
	    "cpus=2",
	    "x-1 [000] 1.5 kvm_fpu: load",		       /* no colon after the time */
	    "x-1 [000] 1.5: kvm_fpu load",		       /* no colon after the event */
	    "x-1 [000] 99999999999999999999.5: kvm_fpu: load", /* overflow */
	    "x-1 [000] 1.1234567890123456789: kvm_fpu: load",  /* fraction too long */
	    "x-1 1.5:",						 /* cut after the time, no [cpu]: */
	    "1.5:",						 /* nothing says it is a record */
	    "kvm_exit",						 /* a word */
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		CHECK(text_parse_line(bad[i], strlen(bad[i]), &l) < 0, "parsed: '%s'", bad[i]);
	/* shapes of no printer: loose, a record only if the event is a KVM tracepoint */
	const char *loose[] = {
	    "x [000] 1.5: kvm_fpu: load",		/* no pid: the comm names the thread */
	    "x-1 [0a0] 1.5: kvm_fpu: load",	/* not a cpu */
	    "1.5: kvm_fpu: load",		/* no head */
	    "x-1 [000] junk junk 1.5: kvm_fpu: load", /* words after [cpu] */
	    "  kvm_fpu: load",			/* no time */
	    "x-1 [000] 1.5: kvm_exit",		/* cut before its payload */
	};
	for (size_t i = 0; i < ARRAY_SIZE(loose); i++)
		CHECK(text_parse_line(loose[i], strlen(loose[i]), &l) == 0 && l.loose,
		      "loose: '%s'", loose[i]);
}

/* ---- each ISA's printed form ---- */

#define TF "  qemu-kvm-500   [001] d..1.  100.000001: "

static void test_x86(void)
{
	expect_exit(TF "kvm_exit: vcpu 1 reason EPT_VIOLATION rip 0xffffffff81000000 info1 "
		       "0x0000000000000181 info2 0x0 intr_info 0x00000000 error_code 0x00000000",
		    "EPT_VIOLATION", "x86_vmx", 1);
	expect_exit(TF "kvm_exit: vcpu 0 reason INVALID_STATE FAILED_VMENTRY rip 0x0 info1 0x0",
		    "INVALID_STATE|FAILED_VMENTRY", "x86_vmx", 0);
	expect_exit(TF "kvm_exit: vcpu 2 reason npf rip 0xfff info1 0x0", "npf", "x86_svm", 2);
	expect_exit(TF "kvm_exit: vcpu 2 reason DE excp rip 0xfff info1 0x0", "DE excp", "x86_svm",
		    2);
	/* a newer kernel's name the table lacks: shown as printed, like the format's names */
	expect_exit(TF "kvm_exit: vcpu 0 reason SOME_NEW_EXIT rip 0x0 info1 0x0", "SOME_NEW_EXIT",
		    "x86_svm", 0);
	/* trace-cmd's kvm plugin ("cpus=" says trace-cmd): its names, no vcpu, UNKNOWN (n) */
	expect_exit("cpus=2\n" TF "kvm_exit:   reason EXIT_NPF rip 0xffff info 181 0", "npf",
		    "x86_svm", -1);
	expect_exit("cpus=2\n" TF "kvm_exit:   reason PENDING_INTERRUPT rip 0x0 info 0 0",
		    "INTERRUPT_WINDOW", "x86_vmx", -1);
	/* the same shape from an old kernel (tracefs): the kernel's own name, as decoder.c */
	expect_exit(TF "kvm_exit: reason PENDING_INTERRUPT rip 0x0 info 0 0", "PENDING_INTERRUPT",
		    "x86_vmx", -1);
	/* libtraceevent could not parse the print fmt: name=value */
	expect_exit(TF "kvm_exit: [FAILED TO PARSE] exit_reason=48 guest_rip=0x1 isa=1 info1=0 "
		       "info2=0 intr_info=0 error_code=0 vcpu_id=3",
		    "EPT_VIOLATION", "x86_vmx", 3);

	struct got g;
	struct text_counts c;
	char e[256];

	/* a number after a VMX name: VMX (the thread's last exit table) */
	CHECK(read_str(TF "kvm_exit: vcpu 0 reason HLT rip 0x0 info1 0x0\n" TF
			  "kvm_exit: vcpu 0 reason 0x53 rip 0x0 info1 0x0\n",
		       &g, &c, e, sizeof(e)) == 0 &&
		  g.n == 2,
	      "numbers: %zu", g.n);
	if (g.n == 2) {
		CHECK_STR(g.ev[1].reason, "UNKNOWN(0x53)");
		CHECK_STR(g.ev[1].isa, "x86_vmx");
	}

	const char *plugin =
	    "cpus=2\n" TF "kvm_entry:  vcpu 3 rip 0xfff0\n" TF
	    "kvm_exit:   reason HLT rip 0xfff0 info 0 0\n" TF "kvm_entry:  vcpu 3 rip 0xfff0\n" TF
	    "kvm_exit:   reason UNKNOWN (2147483681) rip 0x0 info 0 0\n";
	CHECK(read_str(plugin, &g, &c, e, sizeof(e)) == 0 && g.n == 4, "plugin run: %zu", g.n);
	if (g.n == 4) {
		CHECK(g.ev[0].kind == KES_ENTRY && g.ev[0].vcpu == 3, "entry vcpu %d",
		      g.ev[0].vcpu);
		CHECK(g.ev[1].vcpu == 3, "exit vcpu from the thread's entry: %d", g.ev[1].vcpu);
		CHECK_STR(g.ev[1].reason, "HLT");
		CHECK_STR(g.ev[0].isa,
			  "x86_vmx"); /* before any exit: as decoder.c (the last table) */
		CHECK_STR(g.ev[2].isa, "x86_vmx"); /* after: the thread's exit's table */
		CHECK_STR(g.ev[3].reason, "INVALID_STATE|FAILED_VMENTRY");
	}
}

static void test_other_isas(void)
{
	expect_exit(TF "kvm_exit: TRAP: HSR_EC: 0x0024 (DABT_LOW), PC: 0x0000ffff8000a000",
		    "TRAP_DABT_LOW", "arm64", -1);
	expect_exit(TF "kvm_exit: IRQ: HSR_EC: 0x0000 (UNKNOWN), PC: 0x0000ffff8000a000", "IRQ",
		    "arm64", -1);
	expect_exit(TF "kvm_exit: SEPC:0xffffffff80001000, SCAUSE:0x14, STVAL:0x0, HTVAL:0x0, "
		       "HTINST:0x0",
		    "EXC_INST_GUEST_PAGE_FAULT", "riscv", -1);
	expect_exit(TF "kvm_s390_sie_exit: 01[0706000180000000-0000000000010a2c]: exit sie "
		       "icptcode 4 (Instruction)",
		    "Instruction", "s390", 1);
	/* the kernel's spelling (its table has a typo) wins, as the format's names do */
	expect_exit(TF "kvm_s390_sie_exit: 00[0-0]: exit sie icptcode 12 (Instruction and "
		       "program interuption)",
		    "Instruction and program interuption", "s390", 0);
	expect_exit(TF "kvm_s390_sie_exit: 00[0-0]: exit sie icptcode 44 (0x2c)",
		    "Operation exception", "s390", 0);
	expect_exit(TF "kvm_guest_exit: VCPU 3: trap=HV_DECREMENTER pc=0xc000000000001234 "
		       "msr=0x8000000000001033, ceded=0",
		    "HV_DECREMENTER", "ppc_book3s_hv", 3);
	expect_exit(TF "kvm_exit: exit=SYSCALL | pc=0x1 | msr=0x2 | dar=0x3 | srr1=0x4 | "
		       "last_inst=0x5",
		    "SYSCALL", "ppc_book3s_pr", -1);
	expect_exit(TF "kvm_exit: exit=SYSCALL | pc=0x1 | msr=0x2 | dar=0x3 | last_inst=0x5",
		    "SYSCALL", "ppc_booke", -1);
	expect_exit("  qemu 500 [001] 1.000001: kvm_booke:kvm_exit: exit=DECREMENTER | pc=0x1 | "
		    "msr=0x2 | dar=0x3 | last_inst=0x5",
		    "DECREMENTER", "ppc_booke", -1);
}

/* The first kvm form payload matches, and its field's number (or ~0). */
static uint64_t form_num(const char *event, const char *payload, const char *field)
{
	struct text_form forms[TEXT_MAX_FORMS];
	struct text_fields f;
	size_t n = text_forms_find(&types, "kvm", event, forms, ARRAY_SIZE(forms));

	for (size_t i = 0; i < n; i++) {
		memset(&f, 0, sizeof(f));
		if (text_form_match(&forms[i], payload, &f) < 0)
			continue;
		const struct text_field *tf = text_field_get(&f, field);
		return tf && tf->has_num ? tf->num : ~0ULL;
	}
	return ~0ULL;
}

/*
 * Lines of the lab's riscv kernel (6.12.117, tests/fixtures/lab/riscv64):
 * kvm_entry prints "PC: 0x016%lx" (an upstream typo for %016lx).
 */
static void test_riscv_lab_lines(void)
{
	/* a store guest-page fault: its gpa is htval << 2 | stval & 3 (riscv.types) */
	const struct kes_event *x = one(TF "kvm_exit: SEPC:0x80000014, SCAUSE:0x17, "
					   "STVAL:0x40000011, HTVAL:0x10000004, HTINST:0x0");
	CHECK(x && (x->flags & KES_EXIT_HAS_SUB) && x->sub == 0x40000011,
	      "riscv store fault gpa 0x%llx", x ? (unsigned long long)x->sub : 0);
	x = one(TF "kvm_exit: SEPC:0x80000020, SCAUSE:0xa, STVAL:0x0, HTVAL:0x0, HTINST:0x0");
	CHECK(x && !(x->flags & KES_EXIT_HAS_SUB), "an ecall has no sub-key");
	CHECK(form_num("kvm_entry", "PC: 0x01680000000", "pc") == 0x80000000, "riscv pc");
	CHECK(form_num("kvm_entry", "PC: 0x0000ffff8000a000", "vcpu_pc") == 0xffff8000a000,
	      "arm64 pc");
	const struct kes_event *ev = one(TF "kvm_entry: PC: 0x01680000018");
	CHECK(ev && ev->kind == KES_ENTRY, "riscv entry");
	/* the same lines as trace-cmd 3.1.6 prints them through its (x86) kvm plugin */
	expect_exit(TF "kvm_exit: <CANT FIND FIELD exit_reason>SEPC:0x80010014, SCAUSE:0x17, "
		       "STVAL:0x40000010, HTVAL:0x10000004, HTINST:0x0",
		    "EXC_STORE_GUEST_PAGE_FAULT", "riscv", -1);
	ev =
	    one(TF "kvm_entry: CAN'T FIND FIELD \"vcpu_id\"<CANT FIND FIELD rip>PC: 0x01680010000");
	CHECK(ev && ev->kind == KES_ENTRY, "riscv entry through the kvm plugin");
	expect_exit(TF "kvm_exit: <CANT FIND FIELD exit_reason>TRAP: HSR_EC: 0x0024 (DABT_LOW), "
		       "PC: 0x0000ffff8000a000",
		    "TRAP_DABT_LOW", "arm64", -1);
}

static void test_userspace_and_details(void)
{
	expect_exit(TF "kvm_userspace_exit: reason KVM_EXIT_IO (2)", "KVM_EXIT_IO", "userspace",
		    -1);
	expect_exit(TF "kvm_userspace_exit: reason restart (4)", "restart", "userspace", -1);
	expect_exit(TF "kvm_userspace_exit: reason error (14)", "error(14)", "userspace", -1);
	expect_exit(TF "kvm_userspace_exit: reason 0x63 (99)", "UNKNOWN(0x63)", "userspace", -1);

	const struct kes_event *ev;
	struct got g;
	struct text_counts c;
	char e[256];

	CHECK(read_str(TF "kvm_fpu: unload\n" TF "kvm_fpu: load\n", &g, &c, e, sizeof(e)) == 0 &&
		  g.n == 1 && g.ev[0].kind == KES_UENTRY,
	      "fpu load is the userspace entry, unload nothing: %zu", g.n);

	struct {
		const char *line;
		enum kes_detail kind;
		uint64_t sub;
		uint32_t flags;
		int vcpu;
		uint64_t value; /* the flag field, whole */
	} d[] = {
	    {TF "kvm_mmio: mmio write len 1 gpa 0xd0010 val 0x0", KES_D_MMIO, 0xd0010, 1, -1, 2},
	    {TF "kvm_mmio: mmio read len 4 gpa 0xfee00030 val 0x50014", KES_D_MMIO, 0xfee00030, 0,
	     -1, 1},
	    {TF "kvm_fast_mmio: fast mmio at gpa 0xfe003000", KES_D_MMIO, 0xfe003000, 0, -1, 0},
	    {TF "kvm_pio: pio_read at 0x3f8 size 1 count 1 val 0x0 ", KES_D_PIO, 0x3f8, 0, -1, 0},
	    {TF "kvm_pio: pio_write at 0x80 size 1 count 2 val 0x0 (...)", KES_D_PIO, 0x80, 1, -1,
	     1},
	    {TF "kvm_emulate_insn: 10000:8:e6 80 (real)", KES_D_EMULATE, 8, 0, -1, 0},
	    {TF "kvm_emulate_insn: 0:ffffffff81000000:0f 01 c1 (prot64) failed", KES_D_EMULATE,
	     0xffffffff81000000ULL, 1, -1, 1},
	    {TF "kvm_emulate_insn:     10000:a: 66 49 FAIL", KES_D_EMULATE, 0xa, 1, -1, 1},
	    {TF "kvm_hypercall: nr 0xc a0 0x1 a1 0x0 a2 0x0 a3 0x0", KES_D_HCALL, 0xc, 0, -1, 0},
	    {TF "kvm_msr: msr_write c0000100 = 0x7f00 (#GP)", KES_D_MSR, 0xc0000100, 1, -1, 1},
	    {TF "kvm_msr: msr_read 1b = 0xfee00900", KES_D_MSR, 0x1b, 0, -1, 0},
	    /* kvm_page_fault: no flag (its bits mean different things per exit), the value whole */
	    {TF "kvm_page_fault: vcpu 1 rip 0xffffffff81000000 address 0x0000000000001000 "
		"error_code 0x14",
	     KES_D_PF, 0x1000, 0, 1, 0x14},
	    {TF "kvm_page_fault: vcpu 0 rip 0x1000 address 0x0000000000006000 "
		"error_code 0x100000014",
	     KES_D_PF, 0x6000, 0, 0, 0x100000014ULL},
	    {TF "kvm_page_fault: address 7f0001000 error_code 6", KES_D_PF, 0x7f0001000ULL, 0, -1,
	     6},
	};
	for (size_t i = 0; i < ARRAY_SIZE(d); i++) {
		ev = one(d[i].line);
		CHECK(ev && ev->kind == KES_DETAIL && ev->detail == d[i].kind &&
			  ev->sub == d[i].sub && ev->flags == d[i].flags && ev->vcpu == d[i].vcpu &&
			  ev->value == d[i].value && !ev->isa,
		      "%s: kind %d sub %llx flags %u vcpu %d value %llx", d[i].line,
		      ev ? ev->detail : -1, ev ? (unsigned long long)ev->sub : 0,
		      ev ? ev->flags : 0, ev ? ev->vcpu : -2,
		      ev ? (unsigned long long)ev->value : 0);
	}

	/*
	 * other events: parsed, not KVM; a KVM event printed in no known way:
	 * undecoded; kvm_vcpu_wakeup: a halt detail, which needs no field.
	 */
	CHECK(read_str(TF "sched_switch: prev_comm=a prev_pid=1\n" TF
			  "kvm_userspace_exit: something else\n" TF
			  "kvm_vcpu_wakeup: wait time 1 ns\n",
		       &g, &c, e, sizeof(e)) == 0,
	      "%s", e);
	CHECK(g.n == 1 && g.ev[0].kind == KES_DETAIL && g.ev[0].detail == KES_D_HALT &&
		  c.events == 3 && c.undecoded == 1,
	      "n %zu undecoded %llu", g.n, (unsigned long long)c.undecoded);
}

/* ---- losses, headers, instances, names, errors ---- */

static void test_losses(void)
{
	struct got g;
	struct text_counts c;
	char e[256];
	const char *tracefs =
	    "# tracer: nop\n#\n# entries-in-buffer/entries-written: 10/15   #P:2\n"
	    "#\n" TF "kvm_fpu: load\nCPU:1 [LOST 12 EVENTS]\n" TF
	    "kvm_fpu: load\nCPU:0 [LOST EVENTS]\n";

	CHECK(read_str(tracefs, &g, &c, e, sizeof(e)) == 0, "%s", e);
	CHECK(g.nlost == 3 && g.lost[0] == 5 && g.lost[1] == 12 && g.lost_cpu[1] == 1 &&
		  g.lost[2] == -1 && g.lost_cpu[2] == 0,
	      "tracefs losses: %zu", g.nlost);
	CHECK(c.lost == 17 && c.lost_unknown && c.lost_reported && c.flavor == TEXT_TRACEFS,
	      "counts: lost %llu", (unsigned long long)c.lost);
	CHECK(c.skipped == 0 && c.nlines == 8, "skipped %llu lines %llu",
	      (unsigned long long)c.skipped, (unsigned long long)c.nlines);

	const char *tc = "cpus=2\nCPU:0 [5 EVENTS DROPPED]\n" TF "kvm_fpu: load\n"
			 "CPU:3 [EVENTS DROPPED]\n";
	CHECK(read_str(tc, &g, &c, e, sizeof(e)) == 0 && g.nlost == 2 && g.lost[0] == 5 &&
		  g.lost[1] == -1 && c.flavor == TEXT_TRACECMD,
	      "trace-cmd losses");
	const char *perf = "  q 5 [000] 1.0: kvm:kvm_fpu: load\n  q 5 [000] 1.1: PERF_RECORD_LOST "
			   "lost 7\n";
	CHECK(read_str(perf, &g, &c, e, sizeof(e)) == 0 && g.nlost == 1 && g.lost[0] == 7 &&
		  c.flavor == TEXT_PERF && !c.lost_reported,
	      "perf losses");
}

static void test_instances_comms_stop(void)
{
	struct got g;
	struct text_counts c;
	char e[256];
	const char *two = "cpus=1\n"
			  "a: q-5 [000] 1.0: kvm_userspace_exit: reason KVM_EXIT_IO (2)\n"
			  "b: q-5 [000] 1.1: kvm_userspace_exit: reason KVM_EXIT_IO (2)\n"
			  "a: r-6 [000] 1.2: kvm_userspace_exit: reason KVM_EXIT_HLT (5)\n";

	CHECK(read_str(two, &g, &c, e, sizeof(e)) == 0 && g.n == 2 && c.other_instance == 1,
	      "a second buffer is skipped: n %zu", g.n);
	CHECK(g.ncomm == 2 && g.comm_tid[0] == 5 && strcmp(g.comm[0], "q") == 0 &&
		  strcmp(g.comm[1], "r") == 0,
	      "comms: %zu", g.ncomm);

	memset(&g, 0, sizeof(g));
	g.stop_after = 1;
	struct text_ops ops = ops_for(&g);
	CHECK(text_read_mem(two, strlen(two), &types, &ops, &c, e, sizeof(e)) == 0 && g.n == 1,
	      "a callback stops the reading");
}

static void test_errors(void)
{
	struct got g;
	struct text_counts c;
	char e[256] = "";
	static const char bin[] = "   q-5 [000] 1.0: kvm_fpu: load\n\0\x17\x08\x44tracing";
	struct text_ops ops = ops_for(&g);

	CHECK(text_read_mem(bin, sizeof(bin), &types, &ops, &c, e, sizeof(e)) < 0 &&
		  strstr(e, "binary") && !strchr(e, '\n'),
	      "binary: '%s'", e);
	CHECK(read_str("hello\nworld\n", &g, &c, e, sizeof(e)) < 0 && strstr(e, "no trace event"),
	      "not a trace: '%s'", e);
	CHECK(read_str("", &g, &c, e, sizeof(e)) < 0, "empty");
	CHECK(read_str("# tracer: nop\n#\n", &g, &c, e, sizeof(e)) < 0, "header only");
	CHECK(text_read("tests/fixtures/text/does-not-exist", &types, &ops, &c, e, sizeof(e)) < 0 &&
		  strstr(e, "No such file"),
	      "missing: '%s'", e);

	/* a 1 MB line, then a good one without a final newline */
	size_t big = 1 << 20;
	char *s = xmalloc(big + 200);
	memset(s, 'a', big);
	s[big] = '\n';
	strcpy(s + big + 1, TF "kvm_userspace_exit: reason KVM_EXIT_IO (2)");
	CHECK(read_str(s, &g, &c, e, sizeof(e)) == 0 && g.n == 1 && c.skipped == 1 && c.nlines == 2,
	      "long line: n %zu", g.n);
	/* a long event line: cut, still read */
	size_t off = strlen(TF "kvm_userspace_exit: reason KVM_EXIT_IO (2) ");
	strcpy(s, TF "kvm_userspace_exit: reason KVM_EXIT_IO (2) ");
	memset(s + off, 'x', big);
	s[off + big] = '\0';
	CHECK(read_str(s, &g, &c, e, sizeof(e)) == 0 && g.n == 1, "long event line");
	free(s);
}

static void test_sniff(void)
{
	const char *yes[] = {
	    "# tracer: nop\n#\n   q-1 [000] ....  1.000001: kvm_fpu: load\n",
	    "cpus=2\n   q-1 [000]  1.000001: kvm_fpu:  load\n",
	    "  q 1 [000] 1.000001: kvm:kvm_fpu: load",
	};
	const char *no[] = {
	    "",
	    "MMIO count 10000 min 45 max 1550 sum 2933679 avg 293.3679 stddev 294.569 % 2.50\n",
	    "# tracer: nop\n",
	    "   q-1 [000] ....  1.000001: kvm_fpu: lo\n   q-1 [000] ....  1.000001: kv",
	};
	for (size_t i = 0; i < ARRAY_SIZE(yes); i++)
		CHECK(text_sniff(yes[i], strlen(yes[i])), "sniff yes %zu", i);
	for (size_t i = 0; i < ARRAY_SIZE(no) - 1; i++)
		CHECK(!text_sniff(no[i], strlen(no[i])), "sniff no %zu", i);
	/* a cut last line does not count, a complete first line does */
	CHECK(text_sniff(no[3], strlen(no[3])), "first complete line");
	CHECK(!text_sniff(no[3] + 46, strlen(no[3] + 46)), "cut line alone, after a newline");
	CHECK(!text_sniff("\0abc", 4), "NUL");
}

/* ---- the real recordings ---- */

struct dat {
	struct decoder *d;
	struct got *g;
};

static int on_record(void *arg, const void *data, int size, uint64_t ts, int cpu, long long missed)
{
	struct dat *x = arg;
	struct kes_event ev;

	if (decode_rec(x->d, data, size, ts, cpu, &ev))
		on_event(x->g, &ev);
	return 0;
}

static int read_dat(const char *path, struct got *g)
{
	char e[256];
	struct tracedat *td = tracedat_open(path, e, sizeof(e));

	memset(g, 0, sizeof(*g));
	if (!td) {
		fprintf(stderr, "%s\n", e);
		return -1;
	}
	struct dat x = {decode_new(tracedat_tep(td), &types), g};
	int ret = tracedat_iterate(td, on_record, &x, e, sizeof(e));
	decode_free(x.d);
	tracedat_close(td);
	return ret;
}

enum ts_check { TS_NS, TS_US, TS_NONE };

/* Same events, field by field; timestamps at the text's precision (perf: its own clock). */
static void same_events(const char *name, const struct got *dat, const struct got *txt,
			enum ts_check tc)
{
	size_t bad = 0;

	CHECK(dat->n == txt->n && dat->n > 400, "%s: %zu events, trace.dat %zu", name, txt->n,
	      dat->n);
	for (size_t i = 0; i < dat->n && i < txt->n && bad < 5; i++) {
		const struct kes_event *a = &dat->ev[i], *b = &txt->ev[i];
		uint64_t ts = tc == TS_US ? (a->ts + 500) / 1000 * 1000 : a->ts;
		bool same = a->kind == b->kind && a->detail == b->detail && a->flags == b->flags &&
			    a->reason == b->reason && a->isa == b->isa && a->tid == b->tid &&
			    a->cpu == b->cpu && a->vcpu == b->vcpu && a->sub == b->sub &&
			    a->value == b->value && (tc == TS_NONE || ts == b->ts);
		if (!same) {
			bad++;
			fprintf(
			    stderr,
			    "  %s #%zu: dat kind %u %s tid %d cpu %d vcpu %d sub %llx ts %llu / "
			    "text kind %u %s tid %d cpu %d vcpu %d sub %llx ts %llu\n",
			    name, i, a->kind, a->reason ? a->reason : "-", a->tid, a->cpu, a->vcpu,
			    (unsigned long long)a->sub, (unsigned long long)a->ts, b->kind,
			    b->reason ? b->reason : "-", b->tid, b->cpu, b->vcpu,
			    (unsigned long long)b->sub, (unsigned long long)b->ts);
		}
	}
	CHECK(bad == 0, "%s: events differ from the trace.dat's", name);
}

/* Userspace exits per reason, counted by exitgen itself (exitgen.out "total" line). */
static void truth(const struct got *g, const char *name)
{
	unsigned long io = 0, mmio = 0, hlt = 0, want_io = 0, want_mmio = 0, want_hlt = 0;
	char line[512];
	FILE *f = fopen(FIX "exitgen.out", "r");

	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "total KVM_EXIT_IO %lu KVM_EXIT_MMIO %lu KVM_EXIT_HLT %lu", &want_io,
		       &want_mmio, &want_hlt);
	if (f)
		fclose(f);
	for (size_t i = 0; i < g->n; i++) {
		if (g->ev[i].kind != KES_UEXIT)
			continue;
		io += g->ev[i].reason == intern("KVM_EXIT_IO");
		mmio += g->ev[i].reason == intern("KVM_EXIT_MMIO");
		hlt += g->ev[i].reason == intern("KVM_EXIT_HLT");
	}
	CHECK(want_io && io == want_io && mmio == want_mmio && hlt == want_hlt,
	      "%s: IO %lu/%lu MMIO %lu/%lu HLT %lu/%lu", name, io, want_io, mmio, want_mmio, hlt,
	      want_hlt);
}

static void test_fixtures(void)
{
	static struct got dat, txt;
	static const struct {
		const char *file;
		enum ts_check ts;
		enum text_flavor flavor;
	} f[] = {
	    {"trace.txt", TS_US, TEXT_TRACEFS},
	    /* instance B: its own timestamps of the same events */
	    {"trace_pipe.txt", TS_NONE, TEXT_TRACEFS},
	    {"report.txt", TS_US, TEXT_TRACECMD},
	    {"report-ns.txt", TS_NS, TEXT_TRACECMD},
	    {"report-lat.txt", TS_US, TEXT_TRACECMD},
	    {"report-noplugin.txt", TS_US, TEXT_TRACECMD},
	    {"perf.txt", TS_NONE, TEXT_PERF},
	    {"perf-ns-pidtid.txt", TS_NONE, TEXT_PERF},
	};
	struct text_counts c;
	char e[256];

	CHECK(read_dat(FIX "trace.dat", &dat) == 0, "trace.dat");
	truth(&dat, "trace.dat");
	for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
		char path[256];
		struct text_ops ops = ops_for(&txt);
		memset(&txt, 0, sizeof(txt));
		snprintf(path, sizeof(path), FIX "%s", f[i].file);
		CHECK(text_read(path, &types, &ops, &c, e, sizeof(e)) == 0, "%s: %s", path, e);
		CHECK(c.flavor == f[i].flavor && c.undecoded == 0 && c.other_instance == 0 &&
			  c.lost == 0 && !c.lost_unknown && c.kvm == txt.n,
		      "%s: flavor %d undecoded %llu", f[i].file, c.flavor,
		      (unsigned long long)c.undecoded);
		same_events(f[i].file, &dat, &txt, f[i].ts);
		truth(&txt, f[i].file);
		CHECK(txt.ncomm >= 2 && strncmp(txt.comm[0], "exitgen", 7) == 0, "%s: comm '%s'",
		      f[i].file, txt.ncomm ? txt.comm[0] : "");
	}
	/* the old entry point */
	uint64_t nkvm = 0;
	memset(&txt, 0, sizeof(txt));
	CHECK(text_iterate(FIX "trace.txt", &types, on_event, &txt, &nkvm, e, sizeof(e)) == 0 &&
		  nkvm == txt.n && nkvm == dat.n,
	      "text_iterate: %llu", (unsigned long long)nkvm);
}

/* ---- every table name, printed by libtraceevent, against the binary decoder ---- */

#define FORMATS "tests/fixtures/formats/"

/* One ISA's format files, parsed into a tep; system per directory. */
static struct tep_handle *formats_tep(const char *dir, const char *system, bool plugins)
{
	char path[512], *buf = xmalloc(1 << 16);
	struct tep_handle *tep = tep_alloc();
	struct dirent *de;
	DIR *d;

	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, tep_is_local_bigendian(tep));
	if (plugins)
		tep_load_plugins(tep);
	snprintf(path, sizeof(path), FORMATS "%s", dir);
	d = opendir(path);
	CHECK(d, "%s", path);
	while (d && (de = readdir(d))) {
		FILE *f;
		size_t n;
		if (de->d_name[0] == '.' || strncmp(de->d_name, "header_", 7) == 0)
			continue;
		snprintf(path, sizeof(path), FORMATS "%s/%s/format", dir, de->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		n = fread(buf, 1, (1 << 16) - 1, f);
		fclose(f);
		CHECK(tep_parse_event(tep, buf, n, system) == 0, "parse %s", path);
	}
	if (d)
		closedir(d);
	free(buf);
	return tep;
}

static void put(struct tep_event *ev, uint8_t *data, const char *name, uint64_t v)
{
	struct tep_format_field *f = name ? tep_find_any_field(ev, name) : NULL;

	if (f && f->size <= 8)
		memcpy(data + f->offset, &v, (size_t)f->size); /* little endian host */
}

struct rec {
	uint8_t data[512];
	int size;
};

static void make_rec(struct tep_event *ev, struct rec *r)
{
	memset(r, 0, sizeof(*r));
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
		if (f->offset + f->size > r->size)
			r->size = f->offset + f->size;
	put(ev, r->data, "common_type", (uint64_t)ev->id);
	put(ev, r->data, "common_pid", 4242);
}

/* The record as a text line, the way tracefs / trace-cmd / perf frame it. */
static void line_of(struct tep_handle *tep, struct tep_event *ev, struct rec *r, uint64_t ts,
		    char *out, size_t len)
{
	struct tep_record tr = {.ts = ts, .cpu = 1, .size = r->size, .data = r->data};
	struct trace_seq s;

	trace_seq_init(&s);
	tep_print_event(tep, &s, &tr, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	snprintf(out, len, "       qemu-kvm-4242    [001] d..1.  %llu.%06llu: %s: %s\n",
		 (unsigned long long)(ts / 1000000000),
		 (unsigned long long)(ts % 1000000000 / 1000), ev->name, s.buffer);
	trace_seq_destroy(&s);
}

/* A record of t's exit event for key (reason, sub, errno composed back from the key). */
static void exit_rec(struct tep_event *ev, const struct exit_table *t, uint64_t key, uint64_t flags,
		     struct rec *r)
{
	make_rec(ev, r);
	if (t->kind == EXIT_TABLE_USERSPACE && key >> 63) {
		put(ev, r->data, t->error_field, 0 - (key & ~(1ULL << 63)));
	} else if (t->sub_field) {
		put(ev, r->data, t->reason_field, key >> t->sub_shift);
		put(ev, r->data, t->sub_field, key & ((1ULL << t->sub_shift) - 1));
	} else {
		put(ev, r->data, t->reason_field, key | flags);
	}
	if (t->match.field)
		put(ev, r->data, t->match.field, (uint64_t)t->match.value);
	put(ev, r->data, t->vcpu_field, 3);
}

struct gen {
	struct tep_handle *tep;
	struct decoder *dec;
	const char *what;
	unsigned compared, bad;
	char text[1 << 15];
	size_t len;
	struct kes_event want[64];
	size_t n;
};

static void gen_add(struct gen *g, struct tep_event *ev, struct rec *r)
{
	struct kes_event k;
	uint64_t ts = 1000000000ULL + g->n * 1000;

	if (g->n == ARRAY_SIZE(g->want) || !decode_rec(g->dec, r->data, r->size, ts, 1, &k))
		return;
	g->want[g->n++] = k;
	line_of(g->tep, ev, r, ts, g->text + g->len, sizeof(g->text) - g->len);
	g->len += strlen(g->text + g->len);
}

/* Reads the lines made so far; each event must be what decoder.c made of its record. */
static void gen_check(struct gen *g, bool tracecmd)
{
	static struct got got;
	struct text_counts c;
	char e[256], *text = g->text;

	if (tracecmd) {
		/* trace-cmd's header tells the reader the kvm plugin printed these */
		memmove(text + 7, text, g->len + 1);
		memcpy(text, "cpus=2\n", 7);
	}
	CHECK(read_str(text, &got, &c, e, sizeof(e)) == 0 && got.n == g->n,
	      "%s: %zu events of %zu (undecoded %llu)\n%s", g->what, got.n, g->n,
	      (unsigned long long)c.undecoded, text);
	for (size_t i = 0; i < g->n && i < got.n; i++) {
		const struct kes_event *a = &g->want[i], *b = &got.ev[i];
		g->compared++;
		if (a->kind == b->kind && a->reason == b->reason && a->isa == b->isa &&
		    a->vcpu == b->vcpu && a->tid == b->tid && a->sub == b->sub &&
		    a->flags == b->flags && a->detail == b->detail && a->value == b->value)
			continue;
		if (g->bad++ < 8)
			fprintf(stderr, "  %s #%zu: decoder %s %s vcpu %d / text %s %s vcpu %d\n",
				g->what, i, a->reason ? a->reason : "-", a->isa ? a->isa : "-",
				a->vcpu, b->reason ? b->reason : "-", b->isa ? b->isa : "-",
				b->vcpu);
	}
	g->len = g->n = 0;
	g->text[0] = '\0';
}

/* Every name of t, flags, and numbers t has no name for; each run starts with a named one. */
static void gen_table(struct gen *g, const struct exit_table *t, struct tep_event *entry,
		      bool tracecmd)
{
	struct tep_event *ev = NULL;
	struct rec r;

	if (t->kind != EXIT_TABLE_NAMES && t->exit_system && t->exit_event)
		ev = tep_find_event_by_name(g->tep, t->exit_system, t->exit_event);
	if (!ev || !tep_find_any_field(ev, t->reason_field) || !t->nnames)
		return;
	for (size_t i = 0; i < t->nnames; i++) {
		if (g->n == 0 && entry) {
			/* the plugin prints no vcpu on kvm_exit: the thread's entry gives it */
			make_rec(entry, &r);
			put(entry, r.data, "vcpu_id", 3);
			gen_add(g, entry, &r);
		}
		exit_rec(ev, t, t->names[i].key, 0, &r);
		gen_add(g, ev, &r);
		if (i % 16 == 0 && t->nflags) {
			exit_rec(ev, t, t->names[i].key, t->flags[0].key, &r);
			gen_add(g, ev, &r);
		}
		if (i % 16 == 15) {
			exit_rec(ev, t, t->names[t->nnames - 1].key + 0x51, 0, &r);
			gen_add(g, ev, &r);
		}
		if (g->n > ARRAY_SIZE(g->want) - 8)
			gen_check(g, tracecmd);
	}
	/*
	 * Not the errno exits: libtraceevent 1.7.1 prints kvm_userspace_exit
	 * with errno -4 as "reason KVM_EXIT_UNKNOWN (0)" (its `REC->errno < 0`
	 * comes out false), so its text cannot carry them. The kernel's own
	 * "reason restart (4)" is read in test_userspace_and_details().
	 */
	if (g->n)
		gen_check(g, tracecmd);
}

static void gen_isa(const char *dir, const char *system, bool plugins)
{
	struct gen *g = xcalloc(1, sizeof(*g));
	char what[128];

	g->tep = formats_tep(dir, system, plugins);
	g->dec = decode_new(g->tep, &types);
	CHECK(decode_nbound(g->dec) > 0, "%s: no bound events", dir);
	struct tep_event *entry =
	    plugins ? tep_find_event_by_name(g->tep, "kvm", "kvm_entry") : NULL;
	for (size_t i = 0; i < types.n; i++) {
		snprintf(what, sizeof(what), "%s%s/%s", dir, plugins ? "+plugin" : "",
			 types.tables[i].isa);
		g->what = what;
		gen_table(g, &types.tables[i], entry, plugins);
	}
	CHECK(g->compared > 20 && g->bad == 0, "%s%s: %u of %u events differ", dir,
	      plugins ? " (kvm plugin)" : "", g->bad, g->compared);
	printf("generated %s%s: %u events as decoder.c reads them\n", dir,
	       plugins ? " (kvm plugin)" : "", g->compared - g->bad);
	decode_free(g->dec);
	tep_free(g->tep);
	free(g);
}

/* x86 entries and detail events, printed by libtraceevent. */
static void gen_x86_details(void)
{
	struct gen *g = xcalloc(1, sizeof(*g));
	struct rec r;
	static const struct {
		const char *event, *f1;
		uint64_t v1;
		const char *f2;
		uint64_t v2;
	} d[] = {
	    {"kvm_entry", "vcpu_id", 5, "rip", 0xfff0},
	    {"kvm_fpu", "load", 1, NULL, 0},
	    {"kvm_fpu", "load", 0, NULL, 0},
	    {"kvm_mmio", "type", 2, "gpa", 0xfee00030},
	    {"kvm_mmio", "type", 0, "gpa", 0xd0010},
	    {"kvm_pio", "rw", 1, "port", 0x3f8},
	    {"kvm_pio", "rw", 0, "port", 0x80},
	    {"kvm_emulate_insn", "failed", 1, "rip", 0xffffffff81001234ULL},
	    {"kvm_emulate_insn", "failed", 0, "rip", 0x8},
	    {"kvm_hypercall", "nr", 12, NULL, 0},
	    {"kvm_msr", "write", 1, "ecx", 0xc0000100},
	    {"kvm_msr", "write", 0, "ecx", 0x1b},
	    {"kvm_page_fault", "error_code", 0x14, "fault_address", 0x7f0001000ULL},
	    {"kvm_page_fault", "vcpu_id", 2, "fault_address", 0x1000},
	    /* SVM npf: bits 32+ (PFERR_GUEST_FINAL) must survive both readers */
	    {"kvm_page_fault", "error_code", 0x100000014ULL, "fault_address", 0x6000},
	    {"kvm_page_fault", "error_code", 0x19a, "fault_address", 0xfee00000},
	};

	g->tep = formats_tep("x86", "kvm", false);
	g->dec = decode_new(g->tep, &types);
	g->what = "x86 details";
	for (size_t i = 0; i < ARRAY_SIZE(d); i++) {
		struct tep_event *ev = tep_find_event_by_name(g->tep, "kvm", d[i].event);
		CHECK(ev, "%s", d[i].event);
		if (!ev)
			continue;
		make_rec(ev, &r);
		put(ev, r.data, d[i].f1, d[i].v1);
		put(ev, r.data, d[i].f2, d[i].v2);
		if (strcmp(d[i].event, "kvm_emulate_insn") == 0)
			put(ev, r.data, "len", 2);
		gen_add(g, ev, &r);
	}
	CHECK(g->n == ARRAY_SIZE(d) - 1, "x86 details: %zu decoded", g->n); /* fpu unload: none */
	gen_check(g, false);
	CHECK(g->compared == ARRAY_SIZE(d) - 1 && g->bad == 0, "x86 details: %u differ", g->bad);
	decode_free(g->dec);
	tep_free(g->tep);
	free(g);
}

static void test_generated(void)
{
	static const struct {
		const char *dir, *system;
	} isa[] = {
	    {"x86", "kvm"},
	    {"x86_old", "kvm"},
	    {"arm64", "kvm"},
	    {"riscv", "kvm"},
	    {"s390", "kvm"},
	    {"ppc_book3s_hv", "kvm_hv"},
	    {"ppc_book3s_pr", "kvm_pr"},
	    {"ppc_booke", "kvm_booke"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(isa); i++)
		gen_isa(isa[i].dir, isa[i].system, false);
	gen_isa("x86", "kvm", true);
	gen_x86_details();
}

/* ---- hostile input: mutated fixtures must never crash or hang ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void test_mutations(void)
{
	static const char pieces[][24] = {
	    " ",	 "-",	 ":",  "[000]", "1.5:",
	    "kvm_exit:", "\n",	 "0x", "(",	"reason ",
	    "%{",	 "kvm:", "|",  "\t",	"99999999999999999999",
	    "vcpu ",	 "\r"};
	FILE *f = fopen(FIX "trace.txt", "r");
	char *base = xmalloc(1 << 16), *buf = xmalloc((1 << 16) + 4096);
	size_t blen = f ? fread(base, 1, (1 << 16) - 1, f) : 0;
	struct got *g = xcalloc(1, sizeof(*g));
	unsigned ok = 0, err = 0;

	if (f)
		fclose(f);
	CHECK(blen > 1000, "fixture for mutations");
	for (int round = 0; round < 3000 && blen; round++) {
		size_t start = next() % blen, len = 1 + next() % 3000;
		if (start + len > blen)
			len = blen - start;
		memcpy(buf, base + start, len);
		for (int m = 0, nm = 1 + (int)(next() % 16); m < nm; m++) {
			size_t at = next() % (len + 1);
			switch (next() % 4) {
			case 0:
				buf[at < len ? at : 0] = (char)(next() & 0xff);
				break;
			case 1: {
				const char *p = pieces[next() % ARRAY_SIZE(pieces)];
				size_t pl = strlen(p);
				if (len + pl < (1 << 16) + 4000) {
					memmove(buf + at + pl, buf + at, len - at);
					memcpy(buf + at, p, pl);
					len += pl;
				}
				break;
			}
			case 2:
				len = at;
				break;
			default:
				if (at < len)
					memmove(buf + at, buf + at + 1, len - at - 1), len--;
			}
		}
		struct text_counts c;
		char e[128];
		struct text_ops ops = ops_for(g);
		g->n = 0;
		g->nlost = g->ncomm = 0;
		int rc = text_read_mem(buf, len, &types, &ops, &c, e, sizeof(e));
		rc == 0 ? ok++ : err++;
		text_sniff(buf, len < 4096 ? len : 4096);
	}
	CHECK(ok > 100 && err > 10, "mutations: %u read, %u refused", ok, err);
	free(g);
	free(base);
	free(buf);
}

/* ---- what people paste (issue 13, tests/fixtures/published) ---- */

/* The text reads as n events, the i-th an exit of reason (NULL: not an exit). */
static bool exits_are(const struct got *g, size_t n, const char *const *reasons)
{
	if (g->n != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct kes_event *ev = &g->ev[i];
		if (reasons[i] ? ev->kind != KES_EXIT || strcmp(ev->reason, reasons[i])
			       : ev->kind == KES_EXIT)
			return false;
	}
	return true;
}

static void test_trimmed(void)
{
	static struct got g;
	struct text_counts c;
	char e[256];

	/* class 1: authors trim the line after the reason (no rip) */
	const char *t = " CPU 0/KVM-7289 [023] d.... 2925.640961: kvm_entry: vcpu 0\n"
			" CPU 0/KVM-7289 [023] d.... 2925.640967: kvm_exit: vcpu 0 reason "
			"EXTERNAL_INTERRUPT intr_info 0x800000ec\n"
			" CPU 0/KVM-7289 [023] d.... 2925.640980: kvm_exit: vcpu 0 reason DR_ACCESS "
			"info1 0x0000000000000216\n"
			" CPU 0/KVM-7289 [023] d.... 2925.640983: kvm_exit: reason HLT\n";
	CHECK(read_str(t, &g, &c, e, sizeof(e)) == 0 &&
		  exits_are(&g, 4, (const char *[]){NULL, "EXTERNAL_INTERRUPT", "DR_ACCESS", "HLT"}) &&
		  c.not_understood == 0 && g.ev[1].vcpu == 0 && g.ev[1].tid == 7289,
	      "trimmed kvm_exit lines: %zu events, %llu not understood", g.n,
	      (unsigned long long)c.not_understood);

	/* no prefix, no time: counted, and pairing breaks on both sides of it */
	t = "  kvm_exit:             reason EXIT_RSM rip 0x7ffbb280 info 0 0\n"
	    "  kvm_emulate_insn:     0:7ffbb280: 0f aa\n"
	    "  kvm_entry:            vcpu 0, rip 0xffffffffffbbe119\n"
	    "  kvm_exit:   reason DR_ACCESS info1 0x7\n"
	    "The `kvm_exit` event is at 12.5: here\n";
	CHECK(read_str(t, &g, &c, e, sizeof(e)) == 0 && c.not_understood == 0 &&
		  g.n >= 2 && g.ev[0].kind == KES_EXIT && !strcmp(g.ev[0].reason, "EXIT_RSM") &&
		  g.ev[g.n - 1].kind == KES_EXIT && !strcmp(g.ev[g.n - 1].reason, "DR_ACCESS") &&
		  g.ev[0].tid == TEXT_TID_SYNTHETIC,
	      "no-prefix records: %zu events", g.n);
	/* exit: break, event, break; entry: break; exit: break, event, break */
	CHECK(g.nbrk == 5 && g.brk_at[0] == 0 && g.brk_at[1] == 1 && g.brk_tid[0] == TEXT_TID_SYNTHETIC,
	      "breaks around records without a time: %zu", g.nbrk);
	/* prose naming an event at "12.5:" is no record, "kvm_exit" in backquotes none either */
	CHECK(c.skipped >= 1, "prose skipped");
}

static void test_perf_columns(void)
{
	static struct got g;
	struct text_counts c;
	char e[256];

	/* class 3: perf script -F comm,time (no pid, no cpu): the comm names the thread */
	const char *t = "preempt_test  20677.199579:      kvm:kvm_exit: reason PREEMPTION_TIMER rip "
			"0x40274d info 0 0 intr 0\n"
			"preempt_test  20677.199580:     kvm:kvm_entry: vcpu 0, rip 0x4131a3\n"
			"other  20677.199581:     kvm:kvm_entry: vcpu 1, rip 0x4131a3\n";
	CHECK(read_str(t, &g, &c, e, sizeof(e)) == 0 && g.n == 3 && c.flavor == TEXT_PERF &&
		  g.ev[0].tid == g.ev[1].tid && g.ev[0].tid > TEXT_TID_SYNTHETIC &&
		  g.ev[2].tid != g.ev[0].tid && g.ev[0].cpu == -1,
	      "perf -F comm,time: %zu events, tids %d %d %d", g.n, g.n ? g.ev[0].tid : 0,
	      g.n > 1 ? g.ev[1].tid : 0, g.n > 2 ? g.ev[2].tid : 0);
	CHECK(g.ncomm >= 1 && !strcmp(g.comm[0], "preempt_test"), "its comm");
	/* -F cpu,time: one thread */
	t = "    [001]   770.850287:                      kvm:kvm_entry: vcpu 0, rip 0x100146\n"
	    "    [001]   770.850307:                       kvm:kvm_exit: vcpu 0 reason TRIPLE_FAULT "
	    "rip 0x100146 info1 0x0 info2 0x0 intr_info 0x00000000 error_code 0x00000000\n";
	CHECK(read_str(t, &g, &c, e, sizeof(e)) == 0 && g.n == 2 && g.ev[1].cpu == 1 &&
		  g.ev[1].tid == TEXT_TID_SYNTHETIC && g.ev[1].ts == 770850307000ULL,
	      "perf -F cpu,time: %zu events", g.n);

	/* class 4: perf-prof / perf-monitor: a wall clock, irq flags before [cpu] */
	t = "2022-04-22 17:39:26.535148            <...> 126953 .... [078] 96822671.255015: "
	    "kvm:kvm_exit: reason APIC_WRITE rip 0xfffff801b782acff info 300 0\n"
	    "2022-04-22 17:39:26.535253            <...> 126953 d... [074] 96822671.266643: "
	    "kvm:kvm_entry: vcpu 0\n";
	CHECK(read_str(t, &g, &c, e, sizeof(e)) == 0 && g.n == 2 && g.ev[0].tid == 126953 &&
		  g.ev[0].cpu == 78 && g.ev[1].cpu == 74 && !strcmp(g.ev[0].reason, "APIC_WRITE"),
	      "perf-prof: %zu events, tid %d", g.n, g.n ? g.ev[0].tid : 0);
}

static void test_wrapped(void)
{
	static struct got g;
	struct text_counts c;
	char e[256];

	/* class 5: wrapped after rip, after TRAP:/PC:, right after the time, after the name */
	const char *t = "<...>-35787 [038] ....  2825.959082: kvm_exit: vcpu 1 reason npf rip\n"
			"0xfd11d info 100000014 fd000\n"
			"v-9 [002] ..... 1.000000: kvm_exit: TRAP:\n"
			"HSR_EC: 0x0024 (DABT_LOW), PC: 0x0\n"
			"v-9 [002] d.... 1.000005: kvm_entry: PC:\n"
			"0x4\n"
			"q-7  [000] ....   3.000000:\n"
			" kvm_exit: reason EXTERNAL_INTERRUPT rip 0x22da info 0 800000fd\n"
			"     CPU 0/KVM  699876 [020] 18136.763640:                        kvm:kvm_fpu:\n"
			"load\n";
	CHECK(read_str(t, &g, &c, e, sizeof(e)) == 0 && c.joined == 5 && c.not_understood == 0,
	      "wrapped lines joined: %llu, not understood %llu", (unsigned long long)c.joined,
	      (unsigned long long)c.not_understood);
	CHECK(g.n == 5 && !strcmp(g.ev[0].reason, "npf") && !strcmp(g.ev[1].reason, "TRAP_DABT_LOW") &&
		  g.ev[2].kind == KES_ENTRY && !strcmp(g.ev[3].reason, "EXTERNAL_INTERRUPT") &&
		  g.ev[3].ts == 3000000000ULL && g.ev[3].tid == 7 && g.ev[4].kind == KES_UENTRY,
	      "their events: %zu", g.n);
	/* a loss marker after an open record is read as one, not joined to it */
	t = "v-9 [002] ..... 1.000000: kvm_exit: TRAP:\nCPU:2 [LOST 5 EVENTS]\n"
	    "v-9 [002] d.... 1.000005: kvm_entry: PC: 0x4\n";
	CHECK(read_str(t, &g, &c, e, sizeof(e)) == 0 && c.joined == 0 && c.lost == 5 &&
		  c.not_understood == 1,
	      "a loss line is no wrap: joined %llu lost %llu", (unsigned long long)c.joined,
	      (unsigned long long)c.lost);
	/* a blank line ends a record; a line that is a record of its own is not joined */
	t = "q-7 [000] .... 1.000000: kvm_exit: reason\n\nHLT rip 0x1 info 0 0\n"
	    "q-7 [000] .... 1.000001: kvm_exit: vcpu 0 reason npf rip\n"
	    "q-7 [000] .... 1.000002: kvm_entry: vcpu 0\n";
	CHECK(read_str(t, &g, &c, e, sizeof(e)) == 0 && c.joined == 0 && c.not_understood == 1 &&
		  c.first_bad_line == 1 && g.n == 2,
	      "no join across a blank line or onto a record: joined %llu, nu %llu, n %zu",
	      (unsigned long long)c.joined, (unsigned long long)c.not_understood, g.n);
}

static void test_mail_and_logs(void)
{
	static struct got g;
	struct text_counts c;
	char e[256];

	/* mail quoting, CRLF, dmesg prefixes */
	const char *t = "> q-7 [001] d..1 1.000001: kvm_entry: vcpu 0\r\n"
			">> q-7 [001] .... 1.000004: kvm_exit: reason HLT rip 0x1 info 0 0\r\n"
			"> > q-7 [001] d..1 1.000010: kvm_entry: vcpu 0\r\n"
			"[ 5.123456] q-7 [001] .... 1.000011: kvm_exit: reason IO_INSTRUCTION rip 0x1 info 0 0\n"
			"<6>[ 5.123457] q-7 [001] d..1 1.000012: kvm_entry: vcpu 0\n";
	CHECK(read_str(t, &g, &c, e, sizeof(e)) == 0 && g.n == 5 && c.not_understood == 0 &&
		  !strcmp(g.ev[1].reason, "HLT") && !strcmp(g.ev[3].reason, "IO_INSTRUCTION") &&
		  g.ev[4].ts == 1000012000ULL,
	      "quoted, CRLF, dmesg: %zu events", g.n);
	/* "B:" in front of a line is trace-cmd's buffer name only after its cpus= header */
	t = " q-7 [023] d.... 1.000001: kvm_entry: vcpu 0\n"
	    " B: q-7 [023] d.... 1.000002: kvm_exit: vcpu 0 reason HLT rip 0x1\n";
	CHECK(read_str(t, &g, &c, e, sizeof(e)) == 0 && g.n == 2 && c.other_instance == 0,
	      "an annotation is no buffer name: %zu", g.n);
}

static void test_segments(void)
{
	static struct got g;
	struct text_counts c;
	char e[256];

	/* several traces pasted into one file: a time that goes back starts over */
	const char *t = "x  5.000000: kvm:kvm_exit: reason MSR rip 0x1\n"
			"x  4.000000: kvm:kvm_entry: vcpu 0\n"
			"x  4.000000: kvm:kvm_exit: reason HLT rip 0x1\n"
			"x  4.000001: kvm:kvm_entry: vcpu 0\n";
	CHECK(read_str(t, &g, &c, e, sizeof(e)) == 0 && g.n == 4 && c.restarts == 1 &&
		  c.first_restart_line == 2 && g.nbrk == 1 && g.brk_tid[0] == -1 && g.brk_at[0] == 1,
	      "a restart: %llu, breaks %zu", (unsigned long long)c.restarts, g.nbrk);
	/* equal times are no restart; prose's "3.0:" takes no part */
	t = "q-7 [000] .... 5.0: kvm_exit: reason HLT rip 0x1\n"
	    "at 3.0: note: prose\n"
	    "q-7 [000] .... 5.0: kvm_entry: vcpu 0\n";
	CHECK(read_str(t, &g, &c, e, sizeof(e)) == 0 && c.restarts == 0 && g.nbrk == 0,
	      "no restart: %llu", (unsigned long long)c.restarts);
}

static void test_not_understood(void)
{
	static struct got g;
	struct text_counts c;
	char e[256];

	/* class 2/6: every KVM line is used or counted, with the first's line and why */
	const char *t = "q-7 [000] .... 1.000000: kvm_entry: vcpu 0\n"
			"challenge-24797 [003] .... 83184.290416: kvm_exit\n"
			"q-7 [000] .... 1.000009: kvm_exit: reason HLT\n"
			"q-7 [000] .... 1.000010: kvm_exit: vcpu 0 nothing here\n";
	CHECK(read_str(t, &g, &c, e, sizeof(e)) == 0 && c.not_understood == 2 &&
		  c.first_bad_line == 2 && strstr(c.why, "cut before its payload"),
	      "not understood %llu, first %llu (%s)", (unsigned long long)c.not_understood,
	      (unsigned long long)c.first_bad_line, c.why);
	/* a line longer than 4096 bytes whose event was past the cut: not dropped silently */
	static char longl[6000];
	snprintf(longl, sizeof(longl), "q-7 [000] .... 1.000000: kvm_entry: vcpu 0\n"
				       "q-7 [000] .... 1.000001:%4200s kvm_exit: reason HLT\n"
				       "q-7 [000] .... 1.000002: kvm_entry: vcpu 0\n", "");
	CHECK(read_str(longl, &g, &c, e, sizeof(e)) == 0 && c.not_understood == 1 &&
		  c.first_bad_line == 2 && g.n == 2,
	      "a long line cut after its time: nu %llu, n %zu", (unsigned long long)c.not_understood,
	      g.n);
	/* a record that ends after its time, then a record of its own: not joined, not dropped */
	t = "q-7 [000] .... 1.000000: kvm_entry: vcpu 0\n"
	    "q-7 [000] .... 1.000001:\n"
	    "q-7 [000] .... 1.000002: kvm_exit: reason HLT rip 0x1 info 0 0\n";
	CHECK(read_str(t, &g, &c, e, sizeof(e)) == 0 && c.not_understood == 1 &&
		  c.first_bad_line == 2 && c.joined == 0 && g.n == 2,
	      "an event missing after its time: nu %llu joined %llu n %zu",
	      (unsigned long long)c.not_understood, (unsigned long long)c.joined, g.n);
	/* a printer's head and a name cut short; a trimmed reason no table knows (cut short?) */
	t = "q-7 [000] .... 1.000000: kvm_entry: vcpu 0\n"
	    "q-7 [000] .... 1.000001: k\n"
	    "q-7 [000] .... 1.000002: kvm_exit: reason EPT_VIOLA\n"
	    "q-7 [000] .... 1.000003: kvm_exit: reason EPT_VIOLATION\n";
	CHECK(read_str(t, &g, &c, e, sizeof(e)) == 0 && c.not_understood == 2 &&
		  c.first_bad_line == 2 && g.n == 2 && !strcmp(g.ev[1].reason, "EPT_VIOLATION"),
	      "cut names: nu %llu n %zu", (unsigned long long)c.not_understood, g.n);
	/* an entry whose payload was cut ("vcpu 0" -> "vc"): its vCPU is lost, so not used */
	t = "q-7 [000] .... 1.000000: kvm_entry: vc\n"
	    "q-7 [000] .... 1.000001: kvm_exit: reason HLT rip 0x1 info 0 0\n"
	    "q-7 [000] .... 1.000002: kvm_entry: vcpu 0\n";
	CHECK(read_str(t, &g, &c, e, sizeof(e)) == 0 && c.not_understood == 1 &&
		  c.first_bad_line == 1 && g.n == 2 && g.nbrk == 1,
	      "a cut entry: nu %llu n %zu brk %zu", (unsigned long long)c.not_understood, g.n,
	      g.nbrk);
	t = "q-7 [000] .... 1.000000: kvm_entry: vcpu\n";
	CHECK(read_str(t, &g, &c, e, sizeof(e)) < 0 && c.not_understood == 1,
	      "an entry cut after 'vcpu': nu %llu", (unsigned long long)c.not_understood);
	/* a line blank in its first 4096 bytes */
	snprintf(longl, sizeof(longl), "q-7 [000] .... 1.000000: kvm_entry: vcpu 0\n"
				       "%4200s q-7 [000] .... 1.000001: kvm_exit: reason HLT\n", "");
	CHECK(read_str(longl, &g, &c, e, sizeof(e)) == 0 && c.not_understood == 1 &&
		  c.first_bad_line == 2,
	      "a long line, blank where it was cut: nu %llu", (unsigned long long)c.not_understood);
	/* a long line whose event came before the cut: read up to there, and said */
	memset(longl, 0, sizeof(longl));
	strcpy(longl, "q-7 [000] .... 1.000001: kvm_exit: reason HLT rip 0x1 info ");
	memset(longl + strlen(longl), 'a', 4200);
	strcat(longl, "\n");
	CHECK(read_str(longl, &g, &c, e, sizeof(e)) == 0 && c.not_understood == 0 && g.n == 1 &&
		  c.long_lines == 1 && c.first_long_line == 1,
	      "a long line read up to the cut: long %llu", (unsigned long long)c.long_lines);
	/* a file where none is usable: one error naming the first and why */
	t = "Look:\n  q-7 [000] .... 1.000000: kvm_exit\n  q-7 [000] .... 1.000001: kvm_exit\n";
	CHECK(read_str(t, &g, &c, e, sizeof(e)) < 0 && strstr(e, "2 lines not understood") &&
		  strstr(e, "line 2") &&
		  strstr(e, "cut before its payload"),
	      "all unusable: '%s'", e);
	/* sniffed as text: a file of trimmed or cut lines is one, not an unknown format */
	CHECK(text_sniff(t, strlen(t)) == 1, "sniff of cut lines");
	t = "  kvm_exit:   reason HLT\n";
	CHECK(text_sniff(t, strlen(t)) == 1, "sniff of a no-prefix line");
	t = "> > q-7 [001] d..1 1.000001: kvm_entry: vcpu 0\n";
	CHECK(text_sniff(t, strlen(t)) == 1, "sniff of a quoted line");
	t = "Times: 12.5: note: prose\n";
	CHECK(text_sniff(t, strlen(t)) == 0, "sniff of prose");
}

/*
 * trace-cmd report's timestamp forms (tracecmd/trace-read.c time_format(),
 * trace_show_data()): --ts-diff's "(+N)" column, "%12d:" of a counter clock
 * glued to "[cpu]"; and --ts-unit's conversion, computed here by hand.
 */
static void test_ts_forms(void)
{
	struct text_line l;
	struct text_ts_unit u;
	char s[256], e[160];

	snprintf(s, sizeof(s), "   exitgen-660   [001]   103.254888: (+181)   kvm_exit:   reason npf");
	CHECK(text_parse_line(s, strlen(s), &l) == 0 && l.ts == 103254888000ULL && !l.ts_int &&
		  l.tid == 660 && !strncmp(l.event, "kvm_exit", l.event_len) &&
		  !strcmp(l.payload, "reason npf"),
	      "--ts-diff column");
	snprintf(s, sizeof(s), "   exitgen-658   [001]   102.985575:          kvm_update_master_clock: x");
	CHECK(text_parse_line(s, strlen(s), &l) == 0 && !strncmp(l.event, "kvm_update_master_clock", l.event_len),
	      "--ts-diff's blank first column");
	snprintf(s, sizeof(s), "   exitgen-660   [001]103254887562: kvm_exit:   reason npf");
	CHECK(text_parse_line(s, strlen(s), &l) == 0 && l.ts == 103254887562ULL && l.ts_int &&
		  l.cpu == 1 && l.tid == 660,
	      "an integer glued to [cpu]");
	snprintf(s, sizeof(s), "   exitgen-341   [001] 55891265792: (+13)    kvm_exit:   TRAP: x");
	CHECK(text_parse_line(s, strlen(s), &l) == 0 && l.ts == 55891265792ULL && l.ts_int,
	      "a padded integer and --ts-diff");
	snprintf(s, sizeof(s), "   exitgen-660   [001]103.254887562: kvm_exit:   reason npf");
	CHECK(text_parse_line(s, strlen(s), &l) < 0 || l.loose, "seconds glued to [cpu]: no printer's");
	snprintf(s, sizeof(s), "   q-7   [001]   1.000002: (+2x)   kvm_exit:   reason npf");
	CHECK(text_parse_line(s, strlen(s), &l) < 0 || l.loose, "(+2x) is no ts-diff");

	/* ticks -> ns: 2.1 GHz: 21 ticks are 10 ns; 100000000001 ticks: 47619047619 ns (floor) */
	CHECK(text_ts_unit_parse("2.1GHz", &u, e, sizeof(e)) == 0 && text_ts_unit_ns(&u, 21) == 10 &&
		  text_ts_unit_ns(&u, 100000000001ULL) == 47619047619ULL,
	      "2.1GHz");
	CHECK(text_ts_unit_parse("2100MHz", &u, e, sizeof(e)) == 0 && u.den == 2100000000ULL,
	      "2100MHz");
	CHECK(text_ts_unit_parse("19.2MHz", &u, e, sizeof(e)) == 0 && u.den == 19200000ULL &&
		  text_ts_unit_ns(&u, 192) == 10000,
	      "19.2MHz (arm64's generic timer)");
	CHECK(text_ts_unit_parse("us", &u, e, sizeof(e)) == 0 && text_ts_unit_ns(&u, 7) == 7000, "us");
	CHECK(text_ts_unit_parse("s", &u, e, sizeof(e)) == 0 &&
		  text_ts_unit_ns(&u, UINT64_MAX / 1000) == UINT64_MAX,
	      "s saturates");
	CHECK(text_ts_unit_parse("10GHz", &u, e, sizeof(e)) == 0 &&
		  text_ts_unit_ns(&u, UINT64_MAX) == UINT64_MAX / 10,
	      "10GHz, the largest: no overflow");
	static const char *const bad[] = {"", "GHz", "2.1", "0Hz", "10.1GHz", "1.5Hz", "-1MHz",
					  "2,1GHz", "1e9Hz", "cycles", "2.1.1GHz", "99999999999999999999Hz"};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		CHECK(text_ts_unit_parse(bad[i], &u, e, sizeof(e)) < 0 && strstr(e, "bad timestamp unit"),
		      "accepted '%s'", bad[i]);
}

int main(void)
{
	char e[256];

	if (exit_types_load_builtin(&types, e, sizeof(e)) < 0) {
		fprintf(stderr, "%s\n", e);
		return 1;
	}
	test_shapes();
	test_ts_forms();
	test_x86();
	test_other_isas();
	test_riscv_lab_lines();
	test_userspace_and_details();
	test_losses();
	test_instances_comms_stop();
	test_errors();
	test_sniff();
	test_fixtures();
	test_generated();
	test_mutations();
	test_trimmed();
	test_perf_columns();
	test_wrapped();
	test_mail_and_logs();
	test_segments();
	test_not_understood();
	exit_types_free(&types);
	return test_summary("test_text");
}
