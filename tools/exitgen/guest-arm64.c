/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exitgen's arm64 guest: A64 code generated for the requested counts, run at
 * EL1 with the MMU off (so every data access is a plain physical one and a
 * store to an address outside RAM is a stage-2 abort with a valid syndrome:
 * KVM_EXIT_MMIO). No in-kernel irqchip is created.
 *
 * What the VMM cannot see, the guest counts itself: `hvc #0` calls that the
 * host kernel answers (x20) and `wfi`s the kernel completes (x21); the VMM
 * reads both registers back after the vCPU stops.
 *
 * wfi: without an in-kernel irqchip nothing can make the vCPU runnable
 * again, so KVM blocks in the wfi until a signal is pending. Each vCPU thread
 * therefore has a periodic timer signal (only when --hlt asks for wfi): each
 * signal that lands while the thread is in KVM_RUN ends it with EINTR
 * (KVM_EXIT_INTR), so those exits are counted, never predicted.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include "exitgen.h"

/*
 * Guest-physical layout: RAM at RAM_GPA (1 MiB, not a multiple of 2 MiB, so
 * no transparent huge page can back it and each vCPU's code page takes its
 * own stage-2 fault on the first fetch); each vCPU owns a 16 KiB window with
 * its code. The "device" is outside RAM: 1-byte stores to MMIO_GPA are the
 * mmio ops, a 4-byte store to DONE_GPA ends a pass.
 */
#define RAM_GPA	 0x40000000u
#define RAM_SIZE 0x100000u
#define WIN_SIZE 0x4000u
#define CODE_MAX 0x1000u
#define DEV_GPA	 0x10000000u
#define MMIO_OFF 0x10u
#define DONE_OFF 0x20u
#define MMIO_GPA (DEV_GPA + MMIO_OFF)
#define DONE_GPA (DEV_GPA + DONE_OFF)
_Static_assert(0 + MAX_VCPUS * WIN_SIZE <= RAM_SIZE, "vCPU windows must fit in RAM");
_Static_assert(DEV_GPA + 0x1000u <= RAM_GPA, "the device must not be RAM");

/*
 * The hypercall: an SMCCC function id no firmware interface owns, so KVM
 * answers SMCCC_RET_NOT_SUPPORTED (-1 in w0) in the kernel on every version
 * (6.4+ forwards a call to userspace only when the VMM asked for it with
 * KVM_ARM_VM_SMCCC_FILTER, which we never do).
 */
#define HVC_FN	  0xc600fe00u /* SMC64 fast call, vendor-hyp range, unused */
#define PERIOD_US 1000	      /* the wfi wake-up timer */

/* Registers: KVM writes x0-x3 with an SMCCC call's results, so the
 * program keeps its state in x9 (loop count), x10 (device base), x20 (hvc
 * answered in the kernel), x21 (wfi completed). */
enum { R_CNT = 9, R_DEV = 10, R_HVC = 20, R_WFI = 21 };

/* ---- A64 code generation --------------------------------------------- */

struct code {
	uint32_t *buf;
	size_t n; /* instructions */
	struct eg_map *map; /* --guest-map */
	uint64_t pc0;	    /* the guest-physical address of buf[0]: the pc, MMU off */
};

/* The next instructions are symbol NAME's. */
static void sym(struct code *c, const char *name)
{
	eg_map_mark(c->map, name, c->pc0 + 4 * c->n);
}

static void op(struct code *c, uint32_t insn)
{
	if ((c->n + 1) * 4 > CODE_MAX)
		die(EXIT_FAIL, "internal: guest code larger than %u bytes", CODE_MAX);
	c->buf[c->n++] = insn;
}

/* movz/movk: a 32-bit constant into wRd */
static void mov32(struct code *c, unsigned rd, uint32_t v)
{
	op(c, 0x52800000u | (v & 0xffffu) << 5 | rd);	     /* movz wd, #lo */
	op(c, 0x72800000u | 1u << 21 | (v >> 16) << 5 | rd); /* movk wd, #hi, lsl 16 */
}

static uint32_t rel19(size_t from, size_t to)
{
	return (uint32_t)((int32_t)to - (int32_t)from) & 0x7ffffu;
}

/* Emits the head of "repeat n times", returns where to patch its cbz. */
static size_t loop_head(struct code *c, uint32_t n, size_t *top)
{
	size_t cbz;

	mov32(c, R_CNT, n);
	cbz = c->n;
	op(c, 0x34000000u | R_CNT); /* cbz w9, <end>: patched */
	*top = c->n;
	return cbz;
}

static void loop_tail(struct code *c, size_t cbz, size_t top)
{
	op(c, 0x71000400u | R_CNT << 5 | R_CNT);    /* subs w9, w9, #1 */
	op(c, 0x54000001u | rel19(c->n, top) << 5); /* b.ne top */
	c->buf[cbz] |= rel19(cbz, c->n) << 5;
}

static void add1(struct code *c, unsigned rd)
{
	op(c, 0x91000400u | rd << 5 | rd); /* add xd, xd, #1 */
}

static void strb_dev(struct code *c, unsigned off)
{
	op(c, 0x39000000u | off << 10 | R_DEV << 5); /* strb w0, [x10, #off] */
}

/* A deliberate mistake, so that tests can see the VMM catch it. */
static void emit_inject(struct code *c, enum eg_inject what)
{
	if (what == INJ_PORT) /* no ports here: a store to the wrong register */
		strb_dev(c, MMIO_OFF + 1);
	else if (what == INJ_READ)
		op(c, 0x39400000u | MMIO_OFF << 10 | R_DEV << 5); /* ldrb w0, [x10, #off] */
	else if (what == INJ_HLT) {
		op(c, 0xd503207fu); /* one wfi more than asked for */
		add1(c, R_WFI);
	}
}

/*
 * One pass: mmio stores, hvcs, wfis, the done store; then again from the top.
 * For --guest-map: a stage-2 abort and a trapped wfi report the pc of the
 * instruction, an hvc the one after it (ELR_EL2: the preferred return), which
 * is still the loop's (its cmn).
 */
static void gen_guest(uint32_t *buf, const struct eg_opts *o, struct eg_map *map, uint64_t pc0)
{
	struct code c = {.buf = buf, .map = map, .pc0 = pc0};
	size_t top, cbz, skip;

	sym(&c, "eg_start");
	emit_inject(&c, o->inject);
	sym(&c, "eg_mmio");
	cbz = loop_head(&c, o->n[EG_OP_MMIO], &top);
	strb_dev(&c, MMIO_OFF);
	loop_tail(&c, cbz, top);

	sym(&c, "eg_hcall");
	cbz = loop_head(&c, o->n[EG_OP_HCALL], &top);
	mov32(&c, 0, HVC_FN);
	op(&c, 0xd4000002u); /* hvc #0 */
	op(&c, 0x3100041fu); /* cmn w0, #1: answered NOT_SUPPORTED? */
	skip = c.n;
	op(&c, 0x54000001u); /* b.ne past the count: patched */
	add1(&c, R_HVC);
	c.buf[skip] |= rel19(skip, c.n) << 5;
	loop_tail(&c, cbz, top);

	sym(&c, "eg_hlt");
	cbz = loop_head(&c, o->n[EG_OP_HLT], &top);
	op(&c, 0xd503207fu); /* wfi */
	add1(&c, R_WFI);
	loop_tail(&c, cbz, top);

	sym(&c, "eg_done");
	op(&c, 0xb9000000u | (DONE_OFF / 4) << 10 | R_DEV << 5); /* str w0, [x10, #done] */
	op(&c, 0x14000000u | ((uint32_t)(0 - (int32_t)c.n) & 0x3ffffffu)); /* b 0 */
}

/* ---- VM and vCPU setup ------------------------------------------------ */

struct arm64_vcpu {
	timer_t timer;
	bool has_timer;
};

#define CORE_REG(x)                                                                                \
	(KVM_REG_ARM64 | KVM_REG_SIZE_U64 | KVM_REG_ARM_CORE |                                     \
	 (offsetof(struct kvm_regs, x) / sizeof(uint32_t)))

static void set_reg(struct eg_vcpu *v, uint64_t id, uint64_t val)
{
	struct kvm_one_reg r = {.id = id, .addr = (uintptr_t)&val};

	if (ioctl(v->fd, KVM_SET_ONE_REG, &r) < 0)
		die(EXIT_USAGE, "KVM_SET_ONE_REG 0x%" PRIx64 ": %s", id, strerror(errno));
}

static uint64_t get_reg(struct eg_vcpu *v, uint64_t id)
{
	uint64_t val = 0;
	struct kvm_one_reg r = {.id = id, .addr = (uintptr_t)&val};

	if (ioctl(v->fd, KVM_GET_ONE_REG, &r) < 0)
		die(EXIT_FAIL, "vcpu %u: KVM_GET_ONE_REG 0x%" PRIx64 ": %s", v->id, id,
		    strerror(errno));
	return val;
}

static unsigned long vm_type(const struct eg_opts *o)
{
	return 0; /* the default 40-bit IPA space */
}

static void vm_init(struct eg_vm *vm, const struct eg_opts *o)
{
	/* Belt and braces: 4 KiB stage-2 mappings, one fault per page. */
	madvise(vm->mem, RAM_SIZE, MADV_NOHUGEPAGE);
}

static void vcpu_init(struct eg_vm *vm, struct eg_vcpu *v, const struct eg_opts *o)
{
	struct kvm_vcpu_init init;
	uint32_t code[CODE_MAX / 4];
	uint64_t win = (uint64_t)v->id * WIN_SIZE;

	if (ioctl(vm->vm_fd, KVM_ARM_PREFERRED_TARGET, &init) < 0)
		die(EXIT_USAGE, "KVM_ARM_PREFERRED_TARGET: %s", strerror(errno));
	init.features[0] |= 1u << KVM_ARM_VCPU_PSCI_0_2;
	if (ioctl(v->fd, KVM_ARM_VCPU_INIT, &init) < 0)
		die(EXIT_USAGE, "KVM_ARM_VCPU_INIT: %s", strerror(errno));
	memset(code, 0, sizeof(code));
	gen_guest(code, o, &vm->map, RAM_GPA + win);
	v->win = vm->mem + win;
	memcpy(v->win, code, sizeof(code));
	/* After KVM_ARM_VCPU_INIT: EL1h, DAIF masked, MMU and caches off. */
	set_reg(v, CORE_REG(regs.pc), RAM_GPA + win);
	set_reg(v, CORE_REG(regs.regs[R_DEV]), DEV_GPA);
	set_reg(v, CORE_REG(regs.regs[R_HVC]), 0);
	set_reg(v, CORE_REG(regs.regs[R_WFI]), 0);
	v->priv = calloc(1, sizeof(struct arm64_vcpu));
	if (!v->priv)
		die(EXIT_USAGE, "out of memory");
}

static void on_tick(int sig)
{
	(void)sig; /* its only job: make KVM_RUN return (EINTR) */
}

/* The wfi wake-up: a periodic SIGUSR1 to this thread only. */
static void vcpu_thread_init(struct eg_vcpu *v, const struct eg_opts *o)
{
	struct arm64_vcpu *a = v->priv;
	struct sigaction sa = {.sa_handler = on_tick}; /* no SA_RESTART */
	struct sigevent sev = {.sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGUSR1};
	struct itimerspec its = {{0, PERIOD_US * 1000L}, {0, PERIOD_US * 1000L}};

	if (!o->n[EG_OP_HLT] && o->inject != INJ_HLT)
		return;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL) < 0)
		die(EXIT_USAGE, "sigaction: %s", strerror(errno));
	sev._sigev_un._tid = gettid(); /* sigev_notify_thread_id: glibc 2.36 lacks the name */
	if (timer_create(CLOCK_MONOTONIC, &sev, &a->timer) < 0 ||
	    timer_settime(a->timer, 0, &its, NULL) < 0)
		die(EXIT_USAGE, "timer_create: %s", strerror(errno));
	a->has_timer = true;
}

/* ---- exits ------------------------------------------------------------ */

static enum eg_step handle_exit(struct eg_vcpu *v, const struct eg_opts *o)
{
	const struct kvm_run *r = v->run;

	if (r->exit_reason != KVM_EXIT_MMIO)
		eg_bad_exit(v);
	if (r->mmio.is_write && r->mmio.len == 1 && r->mmio.phys_addr == MMIO_GPA) {
		v->n.ops[EG_OP_MMIO]++;
		return EG_CONTINUE;
	}
	if (r->mmio.is_write && r->mmio.len == 4 && r->mmio.phys_addr == DONE_GPA)
		return EG_PASS_DONE;
	die(EXIT_FAIL, "vcpu %u: unexpected KVM_EXIT_MMIO: %s gpa 0x%" PRIx64 " len %u", v->id,
	    r->mmio.is_write ? "write" : "read", (uint64_t)r->mmio.phys_addr, r->mmio.len);
}

/* The guest's own counts of what the kernel answered without us. */
static void finish(struct eg_vcpu *v, const struct eg_opts *o)
{
	struct arm64_vcpu *a = v->priv;

	if (a->has_timer)
		timer_delete(a->timer);
	v->n.ops[EG_OP_HCALL] = get_reg(v, CORE_REG(regs.regs[R_HVC]));
	v->n.ops[EG_OP_HLT] = get_reg(v, CORE_REG(regs.regs[R_WFI]));
	free(a);
	v->priv = NULL;
}

/* ---- predictions ------------------------------------------------------ */

static void predict(const struct eg_opts *o, struct eg_counts *p, uint64_t *exact)
{
	p->exits[KVM_EXIT_MMIO] = (uint64_t)o->n[EG_OP_MMIO] + 1; /* + the done store */
	/* KVM_EXIT_INTR: one per timer signal that found the thread in KVM_RUN. */
	*exact = 1ull << KVM_EXIT_MMIO;
}

const struct eg_guest eg_guest = {
    .isa = "arm64",
    .ops = 1u << EG_OP_MMIO | 1u << EG_OP_HLT | 1u << EG_OP_HCALL,
    .pv = false,
    .mem_gpa = RAM_GPA,
    .mem_size = RAM_SIZE,
    .usage = "arm64 guest: EL1, MMU off, no in-kernel irqchip.\n"
	     "  --mmio N        N x `strb` to gpa 0x10000010      (KVM_EXIT_MMIO, unmapped)\n"
	     "  --hcall N       N x `hvc #0`, function 0xc600fe00: the kernel answers\n"
	     "                  NOT_SUPPORTED (counted by the guest: hcall)\n"
	     "  --hlt N         N x `wfi`, each woken by a 1 ms timer signal to its vCPU\n"
	     "                  thread (counted by the guest: hlt)\n"
	     "\n"
	     "Each pass ends with a 4-byte store to gpa 0x10000020 (the done exit), so per\n"
	     "vCPU per pass: KVM_EXIT_MMIO = mmio + 1. KVM_EXIT_INTR (timer signals that\n"
	     "ended KVM_RUN, at least one per wfi) is counted, not predicted.\n"
	     "--guest-map: guest-physical pcs (kvm_exit's vcpu_pc), each vCPU's own copy.\n",
    .vm_type = vm_type,
    .vm_init = vm_init,
    .vcpu_init = vcpu_init,
    .vcpu_thread_init = vcpu_thread_init,
    .handle_exit = handle_exit,
    .predict = predict,
    .finish = finish,
};
