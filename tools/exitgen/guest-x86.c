/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exitgen's x86 guest: 16-bit real-mode code generated for the requested
 * counts (no interpreter in the guest: the counts are baked into immediate
 * operands, loops use 32-bit ECX or ESI via operand-size prefixes).
 *
 * cpuid and rdmsr are answered inside the host kernel, so the VMM cannot see
 * them: the guest counts them itself in EDI and EBP (never reset, read back
 * after the vCPU stopped). The page-fault storm writes one byte to each of N
 * pages of a second memory slot the VMM never touches, through GS loaded
 * with a 4 GiB limit ("unreal" mode: real mode with a 32-bit offset); the VMM
 * counts the pages that became resident (mincore) at the end of each pass,
 * and discards them before the next one (MADV_DONTNEED, which also drops
 * KVM's mappings), so every pass faults on fresh pages again.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "exitgen.h"

/*
 * Guest-physical layout. RAM is [0, MEM_SIZE); each vCPU owns a 16 KiB
 * window (its CS, DS, ES, SS, GS segment) holding its code and its PV record
 * page.
 * MMIO_GPA is above RAM and below 1 MiB, so a real-mode store reaches it
 * through FS and KVM reports it as KVM_EXIT_MMIO.
 */
#define MEM_SIZE     0xa0000u
#define WIN_BASE     0x10000u
#define WIN_SIZE     0x4000u
#define CODE_MAX     0x1000u
#define STACK_TOP    0x2000u
#define PV_OFF	     0x2000u /* the record page shared with the VMM */
#define PV_PAGE_SIZE 0x1000u
#define PV_REC_SIZE  4u
#define PV_MAX_BATCH (PV_PAGE_SIZE / PV_REC_SIZE)
#define MMIO_SEG     0xd000u /* FS: the "device" the mmio ops write to */
#define MMIO_OFF     0x10u   /* the device register written */
#define MMIO_GPA     (MMIO_SEG * 16u + MMIO_OFF)
_Static_assert(WIN_BASE + MAX_VCPUS * WIN_SIZE <= MEM_SIZE, "vCPU windows must fit in RAM");
_Static_assert(MEM_SIZE <= MMIO_SEG * 16u, "the MMIO address must not be RAM");
#define TSS_ADDR 0xfffbd000u /* 3 pages far above RAM, where QEMU puts it */

/* The page-fault storm's memory: slot 1, PF_SPAN per vCPU, far above RAM. */
#define PF_GPA	     0x1000000u
#define PF_PAGE	     0x1000u
#define PF_MAX_PAGES 4096u
#define PF_SPAN	     (PF_MAX_PAGES * PF_PAGE)
#define PF_SLOT	     1u
/* The MSR rdmsr reads: IA32_APIC_BASE, which KVM always intercepts and answers. */
#define MSR_READ 0x1bu

/*
 * --hlt-us: each hlt is woken by the in-kernel PIT (KVM_CREATE_PIT2), channel
 * 0 in mode 0 (one shot), through the in-kernel 8259 (KVM_CREATE_IRQCHIP) as
 * IRQ0 on vector 8, whose handler only acknowledges it. The halts then never
 * reach this VMM (the kernel blocks the vCPU thread: kvm_vcpu_halt()), so the
 * guest counts them itself, in its window at HLT_COUNT_OFF.
 */
#define PIT_HZ	      1193182u
#define HLT_VECTOR    8u
#define HLT_COUNT_OFF 0x3000u /* after the PV page, inside the window */
#define HANDLER_OFF   0x0f00u /* the IRQ0 handler, at the end of the code area */
#define BELL_OFF      0x0f80u /* the PV doorbell, a subroutine: its exits in eg_pv_bell */
_Static_assert(HANDLER_OFF + 0x10u <= BELL_OFF && BELL_OFF + 0x10u <= CODE_MAX,
	       "the IRQ0 handler and the doorbell must fit the code area");
_Static_assert(PV_OFF + PV_PAGE_SIZE <= HLT_COUNT_OFF && HLT_COUNT_OFF + 4 <= WIN_SIZE,
	       "the halt count must not overlap the PV page");

#define PORT_IO	  0x80 /* the per-operation port (POST code port) */
#define PORT_BELL 0xf0 /* PV doorbell: 16-bit out, value = records queued */
#define PORT_DONE 0xf4 /* end of one pass of the guest program */

/*
 * PV record, as the guest writes it (little endian): u8 op, u8 size, u16 arg,
 * where arg is the port (io) or the register offset in the MMIO_SEG device.
 */
enum { PV_OP_IO = 1, PV_OP_MMIO = 2 };

/* ---- guest code generation (16-bit real mode) --------------------------- */

struct code {
	uint8_t *buf;
	size_t len;
	struct eg_map *map; /* --guest-map */
};

/*
 * The next bytes are symbol NAME's. The guest's pc in every exit tracepoint
 * is IP, the offset in CS, and every vCPU's CS is its window with its code at
 * 0: the same offsets on every vCPU.
 */
static void sym(struct code *c, const char *name)
{
	eg_map_mark(c->map, name, c->len);
}

static void emit(struct code *c, const uint8_t *bytes, size_t n)
{
	if (c->len + n > HANDLER_OFF)
		die(EXIT_FAIL, "internal: guest code larger than %u bytes", CODE_MAX);
	memcpy(c->buf + c->len, bytes, n);
	c->len += n;
}

#define EMIT(c, ...)                                                                               \
	do {                                                                                       \
		const uint8_t b_[] = {__VA_ARGS__};                                                \
		emit((c), b_, sizeof(b_));                                                         \
	} while (0)

#define LE16(v) (uint8_t)(v), (uint8_t)((v) >> 8)
#define LE32(v) LE16(v), LE16((uint32_t)(v) >> 16)

/* mov ecx, n */
static void emit_loop_head(struct code *c, uint32_t n)
{
	EMIT(c, 0x66, 0xb9, LE32(n));
}

/* jnz top (rel16, so a loop body may be any size) */
static void emit_jnz(struct code *c, size_t top)
{
	int rel = (int)top - (int)(c->len + 4);

	EMIT(c, 0x0f, 0x85, LE16((uint16_t)rel));
}

/* dec ecx; jnz top */
static void emit_loop_tail(struct code *c, size_t top)
{
	EMIT(c, 0x66, 0x49);
	emit_jnz(c, top);
}

/*
 * call BELL_OFF: the doorbell is a subroutine, not inline in each queueing
 * loop, so that its exits fall in a symbol of its own (eg_pv_bell).
 */
#define BELL_LEN 3
static void emit_doorbell(struct code *c)
{
	EMIT(c, 0xe8, LE16((uint16_t)(BELL_OFF - (c->len + BELL_LEN))));
}

/* At BELL_OFF: mov ax, bp; out 0xf0, ax; xor bp, bp; mov di, PV_OFF; ret: ring and rewind */
static void write_bell(uint8_t *code)
{
	static const uint8_t b[] = {0x89, 0xe8, 0xe7, PORT_BELL, 0x31, 0xed, 0xbf, LE16(PV_OFF), 0xc3};

	memcpy(code + BELL_OFF, b, sizeof(b));
}

/*
 * Queue n records (the same one: 4 bytes, op | size << 8 | arg << 16) into the
 * page at ES:DI, ringing the doorbell whenever B are queued. BP counts the
 * queued records and survives from the io phase into the mmio phase, so a
 * batch may hold both kinds. The records are written B - BP at a time with
 * one `rep stosd`: on hosts where real mode runs in KVM's instruction
 * emulator every guest instruction costs about a microsecond, and a loop of
 * stores per record would make the guest side of PV slower than the exits
 * it saves.
 */
static void emit_pv_ops(struct code *c, uint32_t n, uint32_t rec, unsigned int b)
{
	size_t top;

	EMIT(c, 0x66, 0xba, LE32(n)); /* mov edx, n: records still to queue */
	top = c->len;
	EMIT(c, 0x66, 0xb8, LE32(rec));	 /* mov eax, rec (the doorbell clobbers ax) */
	EMIT(c, 0xb9, LE16(b));		 /* mov cx, b */
	EMIT(c, 0x29, 0xe9);		 /* sub cx, bp: room left in this batch */
	EMIT(c, 0x66, 0x0f, 0xb7, 0xc9); /* movzx ecx, cx */
	EMIT(c, 0x66, 0x39, 0xd1);	 /* cmp ecx, edx */
	EMIT(c, 0x76, 0x03);		 /* jbe +3 */
	EMIT(c, 0x66, 0x89, 0xd1);	 /* mov ecx, edx: ecx = min(room, left) */
	EMIT(c, 0x66, 0x29, 0xca);	 /* sub edx, ecx */
	EMIT(c, 0x01, 0xcd);		 /* add bp, cx */
	EMIT(c, 0xf3, 0x66, 0xab);	 /* rep stosd: cx records to es:di */
	EMIT(c, 0x81, 0xfd, LE16(b));	 /* cmp bp, b */
	EMIT(c, 0x72, BELL_LEN);	 /* jb past the doorbell */
	emit_doorbell(c);
	EMIT(c, 0x66, 0x85, 0xd2); /* test edx, edx */
	emit_jnz(c, top);
}

static uint32_t pv_record(uint8_t op, uint16_t arg)
{
	return op | 1u << 8 | (uint32_t)arg << 16;
}

static void emit_ops(struct code *c, uint32_t n, bool mmio, unsigned int batch)
{
	size_t top;

	if (!n)
		return;
	sym(c, mmio ? "eg_mmio" : "eg_io");
	if (batch) {
		emit_pv_ops(c, n,
			    mmio ? pv_record(PV_OP_MMIO, MMIO_OFF) : pv_record(PV_OP_IO, PORT_IO),
			    batch);
		return;
	}
	emit_loop_head(c, n);
	top = c->len;
	if (mmio)
		EMIT(c, 0x64, 0xa2, LE16(MMIO_OFF)); /* mov fs:[off], al */
	else
		EMIT(c, 0xe6, PORT_IO); /* out 0x80, al */
	emit_loop_tail(c, top);
}

/* mov esi, n ... dec esi; jnz: a loop whose body may clobber ECX (cpuid, rdmsr). */
static size_t emit_esi_head(struct code *c, uint32_t n)
{
	EMIT(c, 0x66, 0xbe, LE32(n));
	return c->len;
}

static void emit_esi_tail(struct code *c, size_t top)
{
	EMIT(c, 0x66, 0x4e);
	emit_jnz(c, top);
}

/* cpuid (leaf 0) n times, EDI counting them. */
static void emit_cpuid(struct code *c, uint32_t n)
{
	size_t top;

	if (!n)
		return;
	sym(c, "eg_cpuid");
	top = emit_esi_head(c, n);
	EMIT(c, 0x66, 0x31, 0xc0); /* xor eax, eax */
	EMIT(c, 0x0f, 0xa2);	   /* cpuid */
	EMIT(c, 0x66, 0x47);	   /* inc edi */
	emit_esi_tail(c, top);
}

/* rdmsr of MSR_READ n times, EBP counting them. */
static void emit_msr(struct code *c, uint32_t n)
{
	size_t top;

	if (!n)
		return;
	sym(c, "eg_msr");
	top = emit_esi_head(c, n);
	EMIT(c, 0x66, 0xb9, LE32(MSR_READ)); /* mov ecx, msr */
	EMIT(c, 0x0f, 0x32);		     /* rdmsr */
	EMIT(c, 0x66, 0x45);		     /* inc ebp */
	emit_esi_tail(c, top);
}

/* One byte to each of n fresh pages at GS:EBX, EBX stepping a page. */
static void emit_pf(struct code *c, uint32_t n)
{
	size_t top;

	if (!n)
		return;
	sym(c, "eg_pf");
	EMIT(c, 0x66, 0x31, 0xdb); /* xor ebx, ebx */
	top = emit_esi_head(c, n);
	EMIT(c, 0x65, 0x67, 0x88, 0x03);	  /* mov gs:[ebx], al (32-bit address) */
	EMIT(c, 0x66, 0x81, 0xc3, LE32(PF_PAGE)); /* add ebx, 4096 */
	emit_esi_tail(c, top);
}

/*
 * The 8259: vector base 8, only IRQ0 unmasked (ICW1..ICW4, OCW1); channel 0
 * stopped (its control word alone: mode 0 waits for a count), then an IRQ0
 * its reset count may have latched taken now (sti; nop; cli), so that no
 * halt is woken before its own timer. In the kernel: no exits.
 */
static void emit_pic_init(struct code *c)
{
	static const uint8_t w[][2] = {{0x20, 0x11}, {0x21, HLT_VECTOR}, {0x21, 0x04},
				       {0x21, 0x01}, {0x21, 0xfe}, {0x43, 0x30}};

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		EMIT(c, 0xb0, w[i][1], 0xe6, w[i][0]); /* mov al, v; out port, al */
	EMIT(c, 0xfb, 0x90, 0xfa);		       /* sti; nop; cli */
}

/* n halts, each woken by a one-shot PIT timer of us microseconds; the guest counts them. */
static void emit_timed_hlts(struct code *c, uint32_t n, unsigned int us)
{
	uint32_t count = (uint32_t)(((uint64_t)us * PIT_HZ + 500000u) / 1000000u);
	size_t top;

	if (!n)
		return;
	if (count > 0xffff)
		count = 0xffff;
	sym(c, "eg_hlt");
	emit_loop_head(c, n);
	top = c->len;
	EMIT(c, 0xb0, 0x30, 0xe6, 0x43);		     /* channel 0, lo/hi byte, mode 0 */
	EMIT(c, 0xb0, (uint8_t)count, 0xe6, 0x40);	     /* the count, low byte */
	EMIT(c, 0xb0, (uint8_t)(count >> 8), 0xe6, 0x40);    /* high byte: it starts */
	EMIT(c, 0xfb, 0xf4, 0xfa);			     /* sti; hlt; cli */
	EMIT(c, 0x66, 0xff, 0x06, LE16(HLT_COUNT_OFF));	     /* inc dword [count] */
	emit_loop_tail(c, top);
}

/* IRQ0's handler: the 8259 acknowledged, nothing else (push ax; mov al, 20h; out 20h, al; ...). */
static void write_handler(uint8_t *code)
{
	static const uint8_t h[] = {0x50, 0xb0, 0x20, 0xe6, 0x20, 0x58, 0xcf};

	memcpy(code + HANDLER_OFF, h, sizeof(h));
}

/* A deliberate mistake, so that tests can see the VMM catch it. */
static void emit_inject(struct code *c, enum eg_inject what)
{
	if (what == INJ_PORT)
		EMIT(c, 0xe6, PORT_IO + 1); /* out 0x81, al */
	else if (what == INJ_READ)
		EMIT(c, 0x64, 0xa0, LE16(MMIO_OFF)); /* mov al, fs:[off] */
	else if (what == INJ_HLT)
		EMIT(c, 0xf4); /* hlt */
}

/*
 * One pass: io ops, mmio ops, (pv: flush a partial batch), cpuid, rdmsr, the
 * page-fault storm, hlts, then the done `out`. After the done exit the VMM
 * either stops the vCPU or resumes it, and the guest starts the next pass.
 */
static size_t gen_guest(uint8_t *buf, const struct eg_opts *o, struct eg_map *map)
{
	struct code c = {.buf = buf, .map = map};
	size_t top;

	sym(&c, "eg_start");
	if (o->hlt_us)
		emit_pic_init(&c);
	if (o->batch)
		EMIT(&c, 0x31, 0xed, 0xbf, LE16(PV_OFF)); /* xor bp, bp; mov di, PV_OFF */
	EMIT(&c, 0xb0, 0x00);				  /* mov al, 0 */
	emit_inject(&c, o->inject);
	emit_ops(&c, o->n[EG_OP_IO], false, o->batch);
	emit_ops(&c, o->n[EG_OP_MMIO], true, o->batch);
	if (o->batch) {
		EMIT(&c, 0x85, 0xed, 0x74, BELL_LEN); /* test bp, bp; jz past the doorbell */
		emit_doorbell(&c);
	}
	emit_cpuid(&c, o->n[EG_OP_CPUID]);
	emit_msr(&c, o->n[EG_OP_MSR]);
	emit_pf(&c, o->n[EG_OP_PF]);
	if (o->hlt_us) {
		emit_timed_hlts(&c, o->n[EG_OP_HLT], o->hlt_us);
	} else if (o->n[EG_OP_HLT]) {
		sym(&c, "eg_hlt");
		emit_loop_head(&c, o->n[EG_OP_HLT]);
		top = c.len;
		EMIT(&c, 0xf4); /* hlt */
		emit_loop_tail(&c, top);
	}
	sym(&c, "eg_done");
	EMIT(&c, 0xe6, PORT_DONE);			   /* out 0xf4, al */
	EMIT(&c, 0xe9, LE16((uint16_t)(0 - (c.len + 3)))); /* jmp 0 */
	return c.len;
}

/* ---- VM and vCPU setup ------------------------------------------------ */

static void check(const struct eg_opts *o)
{
	if (o->batch > PV_MAX_BATCH)
		die(EXIT_USAGE, "--batch: at most %u records fit the PV page", PV_MAX_BATCH);
	if (o->n[EG_OP_PF] > PF_MAX_PAGES)
		die(EXIT_USAGE, "--pf: at most %u pages per vCPU", PF_MAX_PAGES);
	/* only the boot vCPU takes the 8259's interrupts (its LINT0 is ExtINT after reset) */
	if (o->hlt_us && o->vcpus != 1)
		die(EXIT_USAGE, "--hlt-us: one vCPU only (the 8259 interrupts the first)");
	/* The PV queue keeps its state in BP and DI, where these count. */
	if (o->batch && (o->n[EG_OP_CPUID] || o->n[EG_OP_MSR] || o->n[EG_OP_PF]))
		die(EXIT_USAGE, "--cpuid, --msr and --pf need --mode nopv");
}

/* The page-fault storm's pages, never touched by the VMM: no huge pages. */
static uint8_t *pf_mem;

static void pf_init(struct eg_vm *vm, const struct eg_opts *o)
{
	struct kvm_userspace_memory_region r = {.slot = PF_SLOT, .guest_phys_addr = PF_GPA};
	size_t len = (size_t)o->vcpus * PF_SPAN;

	pf_mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (pf_mem == MAP_FAILED)
		die(EXIT_USAGE, "mmap page-fault memory: %s", strerror(errno));
	madvise(pf_mem, len, MADV_NOHUGEPAGE);
	r.memory_size = len;
	r.userspace_addr = (uintptr_t)pf_mem;
	if (ioctl(vm->vm_fd, KVM_SET_USER_MEMORY_REGION, &r) < 0)
		die(EXIT_USAGE, "KVM_SET_USER_MEMORY_REGION (page-fault slot): %s",
		    strerror(errno));
}

/* End of a pass: the pages the guest made resident. */
static void pf_collect(struct eg_vcpu *v, const struct eg_opts *o)
{
	uint8_t *base = pf_mem + (size_t)v->id * PF_SPAN;
	size_t len = (size_t)o->n[EG_OP_PF] * PF_PAGE;
	unsigned char *vec = malloc(o->n[EG_OP_PF] ? o->n[EG_OP_PF] : 1);

	if (!vec || mincore(base, len, vec) < 0)
		die(EXIT_FAIL, "vcpu %u: mincore: %s", v->id, strerror(errno));
	for (uint32_t i = 0; i < o->n[EG_OP_PF]; i++)
		v->n.ops[EG_OP_PF] += vec[i] & 1;
	free(vec);
}

/*
 * Before the next pass: the pages discarded, so that it faults on fresh ones
 * again. Only then, never after the last pass: discarding is an MMU-notifier
 * invalidation, and KVM retries every stage-2 fault in flight while one runs
 * (Debian 6.1 in the lab: another vCPU's fault taken twice). With --seconds
 * and 2+ vCPUs a pf count can therefore exceed the pages by such retries.
 */
static void next_pass(struct eg_vcpu *v, const struct eg_opts *o)
{
	if (o->n[EG_OP_PF])
		madvise(pf_mem + (size_t)v->id * PF_SPAN, (size_t)o->n[EG_OP_PF] * PF_PAGE,
			MADV_DONTNEED);
}

static unsigned long vm_type(const struct eg_opts *o)
{
	return 0;
}

static void vm_init(struct eg_vm *vm, const struct eg_opts *o)
{
	/* Real mode on Intel without unrestricted guest needs a TSS; harmless elsewhere. */
	if (ioctl(vm->vm_fd, KVM_SET_TSS_ADDR, TSS_ADDR) < 0)
		die(EXIT_USAGE, "KVM_SET_TSS_ADDR: %s", strerror(errno));
	if (o->n[EG_OP_PF])
		pf_init(vm, o);
	if (o->hlt_us) {
		struct kvm_pit_config pit = {.flags = 0};

		/* before any vCPU: the irqchip must exist when they are made */
		if (ioctl(vm->vm_fd, KVM_CREATE_IRQCHIP, 0) < 0)
			die(EXIT_USAGE, "KVM_CREATE_IRQCHIP: %s", strerror(errno));
		if (ioctl(vm->vm_fd, KVM_CREATE_PIT2, &pit) < 0)
			die(EXIT_USAGE, "KVM_CREATE_PIT2: %s", strerror(errno));
	}
}

static void set_seg(struct kvm_segment *s, uint16_t sel, bool code)
{
	*s = (struct kvm_segment){.base = (uint64_t)sel << 4,
				  .limit = 0xffff,
				  .selector = sel,
				  .type = code ? 0xb : 0x3,
				  .present = 1,
				  .s = 1};
}

static void setup_regs(struct eg_vcpu *v)
{
	struct kvm_sregs sregs;
	struct kvm_regs regs = {.rip = 0, .rsp = STACK_TOP, .rflags = 0x2}; /* IF = 0 */
	uint16_t sel = (WIN_BASE + v->id * WIN_SIZE) >> 4;

	if (ioctl(v->fd, KVM_GET_SREGS, &sregs) < 0)
		die(EXIT_USAGE, "KVM_GET_SREGS: %s", strerror(errno));
	set_seg(&sregs.cs, sel, true);
	set_seg(&sregs.ds, sel, false);
	set_seg(&sregs.ss, sel, false);
	set_seg(&sregs.es, sel, false); /* rep stosd target */
	set_seg(&sregs.fs, MMIO_SEG, false);
	/* GS: this vCPU's page-fault pages, with a 4 GiB limit for 32-bit offsets. */
	set_seg(&sregs.gs, 0, false);
	sregs.gs.base = PF_GPA + (uint64_t)v->id * PF_SPAN;
	sregs.gs.limit = 0xffffffffu;
	sregs.gs.g = 1;
	sregs.cr0 &= ~1ull; /* real mode */
	if (ioctl(v->fd, KVM_SET_SREGS, &sregs) < 0)
		die(EXIT_USAGE, "KVM_SET_SREGS: %s", strerror(errno));
	if (ioctl(v->fd, KVM_SET_REGS, &regs) < 0)
		die(EXIT_USAGE, "KVM_SET_REGS: %s", strerror(errno));
}

static void vcpu_init(struct eg_vm *vm, struct eg_vcpu *v, const struct eg_opts *o)
{
	uint8_t code[CODE_MAX];
	size_t len = gen_guest(code, o, &vm->map);

	v->win = vm->mem + WIN_BASE + v->id * WIN_SIZE;
	memcpy(v->win, code, len);
	if (o->hlt_us) {
		uint16_t ivt[2] = {HANDLER_OFF, (uint16_t)((WIN_BASE + v->id * WIN_SIZE) >> 4)};

		write_handler(v->win);
		eg_map_mark(&vm->map, "eg_irq", HANDLER_OFF);
		memcpy(vm->mem + HLT_VECTOR * 4, ivt, sizeof(ivt)); /* real mode's IVT at 0 */
	}
	if (o->batch) {
		write_bell(v->win);
		eg_map_mark(&vm->map, "eg_pv_bell", BELL_OFF);
	}
	setup_regs(v);
}

/* ---- exits ------------------------------------------------------------ */

static void __attribute__((noreturn)) bad_io(const struct eg_vcpu *v, const char *why)
{
	const struct kvm_run *r = v->run;

	die(EXIT_FAIL, "vcpu %u: unexpected KVM_EXIT_IO (%s): port 0x%x %s size %u count %u", v->id,
	    why, r->io.port, r->io.direction == KVM_EXIT_IO_OUT ? "out" : "in", r->io.size,
	    r->io.count);
}

/* The VMM side of the hypercall queue: validate, count and consume records. */
static void pv_perform(struct eg_vcpu *v, unsigned int n, unsigned int batch)
{
	uint8_t *rec = v->win + PV_OFF;
	uint16_t arg;

	if (n == 0 || n > batch)
		die(EXIT_FAIL, "vcpu %u: doorbell with %u records (batch %u)", v->id, n, batch);
	for (unsigned int i = 0; i < n; i++, rec += PV_REC_SIZE) {
		memcpy(&arg, rec + 2, 2);
		if (rec[0] == PV_OP_IO && rec[1] == 1 && arg == PORT_IO)
			v->n.ops[EG_OP_IO]++;
		else if (rec[0] == PV_OP_MMIO && rec[1] == 1 && arg == MMIO_OFF)
			v->n.ops[EG_OP_MMIO]++;
		else
			die(EXIT_FAIL, "vcpu %u: bad PV record %u: op %u size %u arg 0x%x", v->id,
			    i, rec[0], rec[1], arg);
		/* Poison it, so a record the guest failed to rewrite cannot pass twice. */
		memset(rec, 0, PV_REC_SIZE);
	}
}

static enum eg_step handle_io(struct eg_vcpu *v, const struct eg_opts *o)
{
	const struct kvm_run *r = v->run;
	const uint8_t *data = (const uint8_t *)r + r->io.data_offset;
	bool pv = o->batch;

	if (r->io.direction != KVM_EXIT_IO_OUT || r->io.count != 1)
		bad_io(v, "not a single out");
	if (r->io.port == PORT_IO && r->io.size == 1 && !pv)
		v->n.ops[EG_OP_IO]++;
	else if (r->io.port == PORT_BELL && r->io.size == 2 && pv)
		pv_perform(v, data[0] | data[1] << 8, o->batch);
	else if (r->io.port == PORT_DONE && r->io.size == 1) {
		if (o->n[EG_OP_PF])
			pf_collect(v, o);
		return EG_PASS_DONE;
	} else
		bad_io(v, "wrong port for this mode");
	return EG_CONTINUE;
}

static enum eg_step handle_mmio(struct eg_vcpu *v, const struct eg_opts *o)
{
	const struct kvm_run *r = v->run;

	if (o->batch || !r->mmio.is_write || r->mmio.len != 1 || r->mmio.phys_addr != MMIO_GPA)
		die(EXIT_FAIL, "vcpu %u: unexpected KVM_EXIT_MMIO: %s gpa 0x%" PRIx64 " len %u",
		    v->id, r->mmio.is_write ? "write" : "read", (uint64_t)r->mmio.phys_addr,
		    r->mmio.len);
	v->n.ops[EG_OP_MMIO]++;
	return EG_CONTINUE;
}

static enum eg_step handle_exit(struct eg_vcpu *v, const struct eg_opts *o)
{
	switch (v->run->exit_reason) {
	case KVM_EXIT_IO:
		return handle_io(v, o);
	case KVM_EXIT_MMIO:
		return handle_mmio(v, o);
	case KVM_EXIT_HLT:
		v->n.ops[EG_OP_HLT]++;
		return EG_CONTINUE;
	default:
		eg_bad_exit(v);
	}
}

/* After the vCPU stopped: the counts of cpuid and rdmsr the guest kept. */
static void finish(struct eg_vcpu *v, const struct eg_opts *o)
{
	struct kvm_regs regs;
	uint32_t halts;

	if (o->hlt_us) {
		memcpy(&halts, v->win + HLT_COUNT_OFF, sizeof(halts));
		v->n.ops[EG_OP_HLT] = halts;
	}
	if (o->batch) /* the PV queue's BP and DI: no cpuid or rdmsr there (check()) */
		return;
	if (ioctl(v->fd, KVM_GET_REGS, &regs) < 0)
		die(EXIT_FAIL, "vcpu %u: KVM_GET_REGS: %s", v->id, strerror(errno));
	v->n.ops[EG_OP_CPUID] = (uint32_t)regs.rdi;
	v->n.ops[EG_OP_MSR] = (uint32_t)regs.rbp;
}

/* ---- predictions ------------------------------------------------------ */

static void predict(const struct eg_opts *o, struct eg_counts *p, uint64_t *exact)
{
	uint64_t ops = (uint64_t)o->n[EG_OP_IO] + o->n[EG_OP_MMIO];

	p->exits[KVM_EXIT_HLT] = o->hlt_us ? 0 : o->n[EG_OP_HLT];
	if (o->batch) {
		p->exits[KVM_EXIT_IO] = (ops + o->batch - 1) / o->batch + 1;
	} else {
		p->exits[KVM_EXIT_IO] = (uint64_t)o->n[EG_OP_IO] + 1;
		p->exits[KVM_EXIT_MMIO] = o->n[EG_OP_MMIO];
	}
	*exact = 1ull << KVM_EXIT_IO | 1ull << KVM_EXIT_MMIO | 1ull << KVM_EXIT_HLT;
}

const struct eg_guest eg_guest = {
    .isa = "x86",
    .ops = 1u << EG_OP_IO | 1u << EG_OP_MMIO | 1u << EG_OP_HLT | 1u << EG_OP_CPUID |
	   1u << EG_OP_MSR | 1u << EG_OP_PF,
    .pv = true,
    .mem_gpa = 0,
    .mem_size = MEM_SIZE,
    .usage = "x86 guest: 16-bit real mode.\n"
	     "  --io N          N x `out 0x80,al`                 (KVM_EXIT_IO, port 0x80)\n"
	     "  --mmio N        N x 1-byte store to gpa 0xd0010   (KVM_EXIT_MMIO, unmapped)\n"
	     "  --hlt N         N x `hlt`, no in-kernel irqchip   (KVM_EXIT_HLT)\n"
	     "  --hlt-us US     with --hlt N: an in-kernel irqchip and PIT instead, each hlt\n"
	     "                  woken by a one-shot PIT timer US us (at most 50000) after\n"
	     "                  it is armed; the kernel blocks the vCPU (kvm_vcpu_wakeup),\n"
	     "                  no KVM_EXIT_HLT; one vCPU; the guest counts the halts\n"
	     "  --cpuid N       N x `cpuid` leaf 0: the kernel answers (counted by the guest)\n"
	     "  --msr N         N x `rdmsr` of 0x1b (IA32_APIC_BASE): the kernel answers\n"
	     "                  (counted by the guest)\n"
	     "  --pf N          one byte to each of N fresh pages (at most 4096) of a memory\n"
	     "                  slot at gpa 0x1000000 + vcpu * 16 MiB: one stage-2 (or, with\n"
	     "                  shadow paging, one #PF) fault each; pf = the pages found\n"
	     "                  resident after the pass, discarded before the next one\n"
	     "  cpuid, msr and pf need --mode nopv; none of them reaches this VMM.\n"
	     "\n"
	     "Each pass ends with `out 0xf4,al` (the done exit), so per vCPU per pass:\n"
	     "  nopv: KVM_EXIT_IO = io + 1        KVM_EXIT_MMIO = mmio   KVM_EXIT_HLT = hlt\n"
	     "  pv:   KVM_EXIT_IO = ceil((io + mmio) / B) + 1\n"
	     "                                    KVM_EXIT_MMIO = 0      KVM_EXIT_HLT = hlt\n"
	     "In pv mode the guest queues each io/mmio operation as a 4-byte record in a\n"
	     "page of RAM shared with the VMM and rings a doorbell (16-bit `out 0xf0,ax`,\n"
	     "value = records queued) every B records and once at the end of the io/mmio\n"
	     "phase for a partial batch; the VMM validates and performs the records. The\n"
	     "work done (ops_io, ops_mmio) is the same in both modes; hlt stays a real hlt.\n"
	     "--guest-map: IPs (offsets in CS, as kvm_exit's guest_rip), the same for every\n"
	     "vCPU; eg_irq is --hlt-us's IRQ0 handler, eg_pv_bell the pv doorbell.\n",
    .hlt_timer = true,
    .check = check,
    .vm_type = vm_type,
    .vm_init = vm_init,
    .vcpu_init = vcpu_init,
    .handle_exit = handle_exit,
    .predict = predict,
    .next_pass = next_pass,
    .finish = finish,
};
