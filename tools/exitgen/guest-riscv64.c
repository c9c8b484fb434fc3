/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exitgen's riscv64 guest: RV64I code generated for the requested counts,
 * run in VS-mode with the MMU off (bare), interrupts off, no in-kernel
 * irqchip. Each vCPU runs its own copy from its own page of guest RAM, so
 * each takes exactly one instruction guest-page fault (its first fetch) and
 * touches no other RAM: every count lives in a register.
 *
 * What each operation is, and what KVM RISC-V (arch/riscv/kvm/) does with it:
 *   --mmio N        `sb` to MMIO_GPA, outside every memslot: a store guest-page
 *                   fault (scause 23), gstage_page_fault() -> KVM_EXIT_MMIO
 *   --hcall N       `ecall` with an extension ID no SBI extension claims:
 *                   kvm_riscv_vcpu_sbi_ecall() answers SBI_ERR_NOT_SUPPORTED in
 *                   the kernel (scause 10); the VMM never sees it, so the guest
 *                   counts the answers and the VMM reads the count back
 *   --hcall-user N  `ecall` in the SBI experimental range (0x08000000..): the
 *                   kernel forwards it (kvm_sbi_ext_forward_handler) as
 *                   KVM_EXIT_RISCV_SBI; the VMM answers, the guest checks the
 *                   answer and counts it
 *   --hlt N         `wfi`: hstatus.VTW makes it a virtual instruction exception
 *                   (scause 22); kvm_riscv_vcpu_wfi() blocks in the kernel until
 *                   the vCPU is runnable or its thread has a signal. Without an
 *                   irqchip only a signal wakes it: a per-vCPU timer sends one
 *                   every WAKE_NS, each ending KVM_RUN with KVM_EXIT_INTR. Those
 *                   (and the timer's host interrupts) are counted, not predicted.
 * A pass ends with one `sb` to DONE_GPA (KVM_EXIT_MMIO), where the VMM reads
 * the guest's counters with KVM_GET_ONE_REG.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <asm/kvm.h>
#include "exitgen.h"

/* Guest-physical layout: RAM at 2 GiB as on QEMU's virt board; a 64 KiB window per vCPU. */
#define MEM_GPA	  0x80000000u
#define WIN_SIZE  0x10000u
#define MEM_SIZE  (MAX_VCPUS * WIN_SIZE)
#define CODE_MAX  0x1000u /* one page: one first-fetch fault per vCPU */
#define MMIO_BASE 0x40000000u
#define MMIO_OFF  0x10u /* the register the mmio ops write */
#define DONE_OFF  0x18u /* end of a pass */
#define MMIO_GPA  (MMIO_BASE + MMIO_OFF)
#define DONE_GPA  (MMIO_BASE + DONE_OFF)
_Static_assert(MMIO_BASE + 0x1000u <= MEM_GPA, "the MMIO page must not be RAM");

/* SBI extension IDs (asm/sbi.h): none of KVM's handlers claims SBI_EXT_NONE. */
#define SBI_EXT_NONE	0x4b455300u /* "KES\0": no such extension */
#define SBI_EXT_USER	0x08004b45u /* experimental range: forwarded to us */
#define SBI_FID_USER	7u
#define SBI_NOT_SUPP	(-2)	 /* SBI_ERR_NOT_SUPPORTED */
#define SBI_USER_ANSWER 0x5a17u	 /* what the VMM puts in a1 */
#define WAKE_NS		2000000L /* the wfi wake-up timer's period */
#ifndef sigev_notify_thread_id	 /* glibc < 2.37 has the field, not its name */
#define sigev_notify_thread_id _sigev_un._tid
#endif

/* Registers (RV64I ABI numbers) the generated code uses. */
enum {
	ZERO = 0,
	T0 = 5,
	T1 = 6,
	S0 = 8,
	S1 = 9,
	A0 = 10,
	A1 = 11,
	A6 = 16,
	A7 = 17,
	S2 = 18,
	S3 = 19
};
#define REG_HCALL      S1 /* in-kernel SBI calls answered SBI_ERR_NOT_SUPPORTED */
#define REG_HLT	       S2 /* wfi instructions completed */
#define REG_HCALL_USER S3 /* forwarded SBI calls answered by the VMM */

/* ---- guest code generation (RV64I) -------------------------------------- */

struct code {
	uint32_t *buf;
	size_t len;	    /* in instructions */
	struct eg_map *map; /* --guest-map */
	uint64_t pc0;	    /* the guest-physical address of buf[0]: the pc, MMU off */
};

/*
 * The next instructions are symbol NAME's. Every trap here reports sepc =
 * the trapping instruction itself (an ecall's too: KVM adds 4 after it).
 */
static void sym(struct code *c, const char *name)
{
	eg_map_mark(c->map, name, c->pc0 + 4 * c->len);
}

static void emit(struct code *c, uint32_t insn)
{
	if ((c->len + 1) * 4 > CODE_MAX)
		die(EXIT_FAIL, "internal: guest code larger than %u bytes", CODE_MAX);
	c->buf[c->len++] = insn;
}

static uint32_t i_type(int32_t imm, int rs1, int f3, int rd, int op)
{
	return (uint32_t)(imm & 0xfff) << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op;
}

static uint32_t s_type(int32_t imm, int rs2, int rs1, int f3)
{
	return (uint32_t)(imm >> 5 & 0x7f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 |
	       (imm & 0x1f) << 7 | 0x23;
}

/* A branch from instruction index `from` to index `to`. */
static uint32_t b_type(size_t from, size_t to, int rs1, int rs2, int f3)
{
	int32_t off = ((int32_t)to - (int32_t)from) * 4;
	uint32_t u = (uint32_t)off;

	return (u >> 12 & 1) << 31 | (u >> 5 & 0x3f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 |
	       (u >> 1 & 0xf) << 8 | (u >> 11 & 1) << 7 | 0x63;
}

static uint32_t jal(size_t from, size_t to, int rd)
{
	uint32_t u = (uint32_t)(((int32_t)to - (int32_t)from) * 4);

	return (u >> 20 & 1) << 31 | (u >> 1 & 0x3ff) << 21 | (u >> 11 & 1) << 20 |
	       (u >> 12 & 0xff) << 12 | rd << 7 | 0x6f;
}

#define ADDI(rd, rs, imm) i_type((imm), (rs), 0, (rd), 0x13)
#define SB(rs2, off, rs1) s_type((off), (rs2), (rs1), 0)
#define LB(rd, off, rs1)  i_type((off), (rs1), 0, (rd), 0x03)
#define BNE		  1
#define BEQ		  0
#define ECALL		  0x00000073u
#define WFI		  0x10500073u

/* rd = v, zero-extended (lui + addiw sign-extend; slli/srli clear bits 63..32). */
static void emit_li(struct code *c, int rd, uint32_t v)
{
	uint32_t hi = (v + 0x800u) >> 12, lo = v & 0xfffu;

	if (v < 0x800u) {
		emit(c, ADDI(rd, ZERO, (int32_t)v));
		return;
	}
	emit(c, (hi & 0xfffffu) << 12 | rd << 7 | 0x37); /* lui rd, hi */
	if (lo)
		emit(c, i_type((int32_t)lo, rd, 0, rd, 0x1b)); /* addiw rd, rd, lo */
	if (v >= 0x80000000u - 0x800u) {
		emit(c, i_type(32, rd, 1, rd, 0x13)); /* slli rd, rd, 32 */
		emit(c, i_type(32, rd, 5, rd, 0x13)); /* srli rd, rd, 32 */
	}
}

/* for (t0 = n; t0; t0--) body(): a loop emits nothing when n is 0. */
static size_t emit_loop_head(struct code *c, uint32_t n)
{
	emit_li(c, T0, n);
	return c->len;
}

static void emit_loop_tail(struct code *c, size_t top)
{
	emit(c, ADDI(T0, T0, -1));
	emit(c, b_type(c->len, top, T0, ZERO, BNE));
}

/* ecall ext/fid; if (a0 == want_a0 [&& a1 == want_a1]) counter++ */
static void emit_sbi_call(struct code *c, uint32_t ext, uint32_t fid, int32_t want_a0,
			  bool check_a1, int counter)
{
	size_t skip;

	emit_li(c, A7, ext);
	emit_li(c, A6, fid);
	emit(c, ECALL);
	emit(c, ADDI(T1, ZERO, want_a0));
	skip = c->len;
	emit(c, 0); /* bne a0, t1, past the increment: patched below */
	if (check_a1) {
		emit_li(c, T1, SBI_USER_ANSWER);
		emit(c, 0);
	}
	emit(c, ADDI(counter, counter, 1));
	c->buf[skip] = b_type(skip, c->len, A0, T1, BNE);
	if (check_a1)
		c->buf[c->len - 2] = b_type(c->len - 2, c->len, A1, T1, BNE);
}

/* A deliberate mistake, so that tests can see the VMM catch it. */
static void emit_inject(struct code *c, enum eg_inject what)
{
	if (what == INJ_PORT) /* no ports here: a store to the wrong register */
		emit(c, SB(ZERO, MMIO_OFF + 1, S0));
	else if (what == INJ_READ)
		emit(c, LB(T1, MMIO_OFF, S0));
	else if (what == INJ_HLT) /* one wfi more than asked: the guest's count shows it */
		emit(c, WFI), emit(c, ADDI(REG_HLT, REG_HLT, 1));
}

/*
 * One pass: clear the counters, mmio stores, in-kernel SBI calls, forwarded
 * SBI calls, wfis, then the done store; after it the VMM either stops the
 * vCPU or resumes it, and the guest starts the next pass.
 */
static size_t gen_guest(uint32_t *buf, const struct eg_opts *o, struct eg_map *map, uint64_t pc0)
{
	struct code c = {.buf = buf, .map = map, .pc0 = pc0};
	size_t top;

	sym(&c, "eg_start");
	emit(&c, ADDI(REG_HCALL, ZERO, 0));
	emit(&c, ADDI(REG_HLT, ZERO, 0));
	emit(&c, ADDI(REG_HCALL_USER, ZERO, 0));
	emit_li(&c, S0, MMIO_BASE);
	emit_inject(&c, o->inject);
	if (o->n[EG_OP_MMIO]) {
		sym(&c, "eg_mmio");
		top = emit_loop_head(&c, o->n[EG_OP_MMIO]);
		emit(&c, SB(ZERO, MMIO_OFF, S0));
		emit_loop_tail(&c, top);
	}
	if (o->n[EG_OP_HCALL]) {
		sym(&c, "eg_hcall");
		top = emit_loop_head(&c, o->n[EG_OP_HCALL]);
		emit_sbi_call(&c, SBI_EXT_NONE, 0, SBI_NOT_SUPP, false, REG_HCALL);
		emit_loop_tail(&c, top);
	}
	if (o->n[EG_OP_HCALL_USER]) {
		sym(&c, "eg_hcall_user");
		top = emit_loop_head(&c, o->n[EG_OP_HCALL_USER]);
		emit_sbi_call(&c, SBI_EXT_USER, SBI_FID_USER, 0, true, REG_HCALL_USER);
		emit_loop_tail(&c, top);
	}
	if (o->n[EG_OP_HLT]) {
		sym(&c, "eg_hlt");
		top = emit_loop_head(&c, o->n[EG_OP_HLT]);
		emit(&c, WFI);
		emit(&c, ADDI(REG_HLT, REG_HLT, 1));
		emit_loop_tail(&c, top);
	}
	sym(&c, "eg_done");
	emit(&c, SB(ZERO, DONE_OFF, S0));
	emit(&c, jal(c.len, 0, ZERO)); /* j 0 */
	return c.len * 4;
}

/* ---- VM and vCPU setup ------------------------------------------------ */

struct rv_vcpu {
	timer_t wake;
	bool has_wake;
};

static unsigned long vm_type(const struct eg_opts *o)
{
	return 0;
}

static void on_wake(int sig)
{
	(void)sig; /* its only job is to end a blocked KVM_RUN with EINTR */
}

static void vm_init(struct eg_vm *vm, const struct eg_opts *o)
{
	struct sigaction sa = {.sa_handler = on_wake}; /* no SA_RESTART: KVM_RUN must return */

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) < 0)
		die(EXIT_USAGE, "sigaction: %s", strerror(errno));
}

static uint64_t core_reg_id(size_t index)
{
	return KVM_REG_RISCV | KVM_REG_SIZE_U64 | KVM_REG_RISCV_CORE | index;
}

static void set_core_reg(const struct eg_vcpu *v, size_t index, uint64_t val)
{
	struct kvm_one_reg r = {.id = core_reg_id(index), .addr = (uintptr_t)&val};

	if (ioctl(v->fd, KVM_SET_ONE_REG, &r) < 0)
		die(EXIT_USAGE, "KVM_SET_ONE_REG: %s", strerror(errno));
}

static uint64_t get_gpr(const struct eg_vcpu *v, int gpr)
{
	/* struct user_regs_struct: pc, then x1..x31 */
	struct kvm_one_reg r;
	uint64_t val = 0;

	r.id = core_reg_id(KVM_REG_RISCV_CORE_REG(regs.pc) + gpr);
	r.addr = (uintptr_t)&val;
	if (ioctl(v->fd, KVM_GET_ONE_REG, &r) < 0)
		die(EXIT_FAIL, "vcpu %u: KVM_GET_ONE_REG x%d: %s", v->id, gpr, strerror(errno));
	return val;
}

static void vcpu_init(struct eg_vm *vm, struct eg_vcpu *v, const struct eg_opts *o)
{
	uint32_t code[CODE_MAX / 4];
	size_t len = gen_guest(code, o, &vm->map, MEM_GPA + v->id * WIN_SIZE);

	v->win = vm->mem + v->id * WIN_SIZE;
	memcpy(v->win, code, len);
	v->priv = calloc(1, sizeof(struct rv_vcpu));
	if (!v->priv)
		die(EXIT_USAGE, "out of memory");
	set_core_reg(v, KVM_REG_RISCV_CORE_REG(regs.pc), MEM_GPA + v->id * WIN_SIZE);
	set_core_reg(v, KVM_REG_RISCV_CORE_REG(regs.a0), v->id); /* hart id, as SBI boots one */
	/*
	 * KVM powers off every vCPU but the first (kvm_arch_vcpu_postcreate(), for
	 * SBI HSM to start them); here each vCPU runs its own program from the start.
	 */
	if (ioctl(v->fd, KVM_SET_MP_STATE, &(struct kvm_mp_state){KVM_MP_STATE_RUNNABLE}) < 0)
		die(EXIT_USAGE, "KVM_SET_MP_STATE: %s", strerror(errno));
}

/* The wake-up timer is this thread's own, so a signal always ends this vCPU's wfi. */
static void vcpu_thread_init(struct eg_vcpu *v, const struct eg_opts *o)
{
	struct rv_vcpu *rv = v->priv;
	struct sigevent ev = {.sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGUSR1};
	struct itimerspec its = {{0, WAKE_NS}, {0, WAKE_NS}};

	if (!o->n[EG_OP_HLT] && o->inject != INJ_HLT)
		return;
	ev.sigev_notify_thread_id = v->tid;
	if (timer_create(CLOCK_MONOTONIC, &ev, &rv->wake) < 0 ||
	    timer_settime(rv->wake, 0, &its, NULL) < 0)
		die(EXIT_USAGE, "vcpu %u: wake-up timer: %s", v->id, strerror(errno));
	rv->has_wake = true;
}

/* ---- exits ------------------------------------------------------------ */

static void __attribute__((noreturn)) bad_mmio(const struct eg_vcpu *v)
{
	const struct kvm_run *r = v->run;

	die(EXIT_FAIL, "vcpu %u: unexpected KVM_EXIT_MMIO: %s gpa 0x%" PRIx64 " len %u", v->id,
	    r->mmio.is_write ? "write" : "read", (uint64_t)r->mmio.phys_addr, r->mmio.len);
}

/* The done store: collect what the guest counted itself during the pass. */
static enum eg_step pass_done(struct eg_vcpu *v)
{
	v->n.ops[EG_OP_HCALL] += get_gpr(v, REG_HCALL);
	v->n.ops[EG_OP_HLT] += get_gpr(v, REG_HLT);
	v->n.ops[EG_OP_HCALL_USER] += get_gpr(v, REG_HCALL_USER);
	return EG_PASS_DONE;
}

static enum eg_step handle_mmio(struct eg_vcpu *v)
{
	const struct kvm_run *r = v->run;

	if (!r->mmio.is_write || r->mmio.len != 1)
		bad_mmio(v);
	if (r->mmio.phys_addr == MMIO_GPA) {
		v->n.ops[EG_OP_MMIO]++;
		return EG_CONTINUE;
	}
	if (r->mmio.phys_addr == DONE_GPA)
		return pass_done(v);
	bad_mmio(v);
}

static enum eg_step handle_sbi(struct eg_vcpu *v)
{
	struct kvm_run *r = v->run;

	if (r->riscv_sbi.extension_id != SBI_EXT_USER || r->riscv_sbi.function_id != SBI_FID_USER)
		die(EXIT_FAIL,
		    "vcpu %u: unexpected KVM_EXIT_RISCV_SBI: extension 0x%lx function %lu", v->id,
		    r->riscv_sbi.extension_id, r->riscv_sbi.function_id);
	r->riscv_sbi.ret[0] = 0; /* SBI_SUCCESS */
	r->riscv_sbi.ret[1] = SBI_USER_ANSWER;
	return EG_CONTINUE;
}

static enum eg_step handle_exit(struct eg_vcpu *v, const struct eg_opts *o)
{
	switch (v->run->exit_reason) {
	case KVM_EXIT_MMIO:
		return handle_mmio(v);
	case KVM_EXIT_RISCV_SBI:
		return handle_sbi(v);
	default:
		eg_bad_exit(v);
	}
}

static void finish(struct eg_vcpu *v, const struct eg_opts *o)
{
	struct rv_vcpu *rv = v->priv;

	if (rv->has_wake)
		timer_delete(rv->wake);
	free(rv);
	v->priv = NULL;
}

/* ---- predictions ------------------------------------------------------ */

static void predict(const struct eg_opts *o, struct eg_counts *p, uint64_t *exact)
{
	p->exits[KVM_EXIT_MMIO] = (uint64_t)o->n[EG_OP_MMIO] + 1;
	p->exits[KVM_EXIT_RISCV_SBI] = o->n[EG_OP_HCALL_USER];
	/* KVM_EXIT_INTR (the wfi wake-ups, and any signal) is left out: counted, not predicted. */
	*exact = 1ull << KVM_EXIT_MMIO | 1ull << KVM_EXIT_RISCV_SBI;
}

const struct eg_guest eg_guest = {
    .isa = "riscv64",
    .ops = 1u << EG_OP_MMIO | 1u << EG_OP_HLT | 1u << EG_OP_HCALL | 1u << EG_OP_HCALL_USER,
    .pv = false,
    .mem_gpa = MEM_GPA,
    .mem_size = MEM_SIZE,
    .usage = "riscv64 guest: RV64I in VS-mode, MMU off, no irqchip.\n"
	     "  --mmio N        N x `sb` to gpa 0x40000010        (KVM_EXIT_MMIO; scause 23,\n"
	     "                                                     store guest-page fault)\n"
	     "  --hcall N       N x `ecall`, SBI extension 0x4b455300, which none claims:\n"
	     "                  KVM answers SBI_ERR_NOT_SUPPORTED (scause 10, no exit to us;\n"
	     "                  the guest counts the answers, read back at the done store)\n"
	     "  --hcall-user N  N x `ecall`, SBI experimental extension 0x08004b45\n"
	     "                  (KVM_EXIT_RISCV_SBI; scause 10)\n"
	     "  --hlt N         N x `wfi` (scause 22, virtual instruction), blocks in the\n"
	     "                  kernel; a per-vCPU timer signal every 2 ms wakes it\n"
	     "                  (KVM_EXIT_INTR, counted but not predicted)\n"
	     "\n"
	     "Each pass ends with `sb` to gpa 0x40000018 (the done exit), so per vCPU per\n"
	     "pass: KVM_EXIT_MMIO = mmio + 1   KVM_EXIT_RISCV_SBI = hcall_user.\n"
	     "Each vCPU's code is in its own page: one instruction guest-page fault\n"
	     "(scause 20) per vCPU in the whole run.\n"
	     "--guest-map: guest-physical pcs (kvm_exit's sepc), each vCPU's own copy.\n",
    .vm_type = vm_type,
    .vm_init = vm_init,
    .vcpu_init = vcpu_init,
    .vcpu_thread_init = vcpu_thread_init,
    .handle_exit = handle_exit,
    .predict = predict,
    .finish = finish,
};
