/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exitgen - a tiny VMM whose guests make an exact, known number of exits to
 * userspace. End-to-end tests compare what kvm-exitstat reports against the
 * counts printed here; the PV mode reproduces the 2007-2010 KVM hypercall
 * batching work so that a PV-vs-non-PV diff can be shown on any x86 KVM host.
 *
 * Each vCPU runs 16-bit real-mode code generated for the requested counts
 * (no interpreter in the guest: the counts are baked into immediate
 * operands, loops use 32-bit ECX via operand-size prefixes). Only x86.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/kvm.h>

#if defined(__x86_64__) || defined(__i386__)

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
#define MAX_VCPUS    32u
_Static_assert(WIN_BASE + MAX_VCPUS * WIN_SIZE <= MEM_SIZE, "vCPU windows must fit in RAM");
_Static_assert(MEM_SIZE <= MMIO_SEG * 16u, "the MMIO address must not be RAM");
#define TSS_ADDR 0xfffbd000u /* 3 pages far above RAM, where QEMU puts it */

#define PORT_IO	  0x80 /* the per-operation port (POST code port) */
#define PORT_BELL 0xf0 /* PV doorbell: 16-bit out, value = records queued */
#define PORT_DONE 0xf4 /* end of one pass of the guest program */

/*
 * PV record, as the guest writes it (little endian): u8 op, u8 size, u16 arg,
 * where arg is the port (io) or the register offset in the MMIO_SEG device.
 */
enum { PV_OP_IO = 1, PV_OP_MMIO = 2 };

#define EXIT_FAIL  1 /* the guest or the counts were not what we predicted */
#define EXIT_USAGE 2 /* bad option, no /dev/kvm, not permitted */

struct opts {
	uint32_t io, mmio, hlt;
	unsigned int vcpus, batch; /* batch 0 = no-PV */
	double seconds;		   /* 0 = run the program once */
	unsigned int start_delay_ms;
	bool quiet;
	enum inject { INJ_NONE, INJ_PORT, INJ_READ, INJ_HLT } inject;
};

struct counts {
	uint64_t ops_io, ops_mmio, hlt;
	uint64_t exit_io, exit_mmio, exit_hlt;
	uint64_t passes;
};

struct vcpu {
	unsigned int id;
	int fd;
	struct kvm_run *run;
	pid_t tid;
	pthread_t thread;
	uint8_t *win; /* host view of this vCPU's window */
	pthread_barrier_t *gate;
	struct counts n;
};

struct vm {
	int kvm_fd, vm_fd;
	size_t run_size;
	uint8_t *mem;
	struct vcpu *vcpus;
	pthread_barrier_t gate;
};

/* Set before the vCPU threads pass the start gate, read-only after it. */
static const struct opts *g_opts;
static struct timespec g_deadline; /* --seconds: no new pass starts after this */

static void __attribute__((noreturn, format(printf, 2, 3))) die(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("exitgen: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

static const char usage_text[] =
    "usage: exitgen [--io N] [--mmio N] [--hlt N] [--vcpus K] [--mode nopv|pv]\n"
    "               [--batch B] [--seconds S] [--start-delay MS] [--quiet]\n"
    "\n"
    "A tiny VMM: one VM, K vCPU threads (named exitgen-vcpu0..K-1), each running a\n"
    "16-bit real-mode guest that makes an exact number of exits to userspace.\n"
    "All counts are per vCPU and per pass of the guest program (N <= 4294967295).\n"
    "\n"
    "  --io N          N x `out 0x80,al`                 (KVM_EXIT_IO, port 0x80)\n"
    "  --mmio N        N x 1-byte store to gpa 0xd0010   (KVM_EXIT_MMIO, unmapped)\n"
    "  --hlt N         N x `hlt`, no in-kernel irqchip   (KVM_EXIT_HLT)\n"
    "  --vcpus K       K vCPUs, 1..32 (default 1)\n"
    "  --mode nopv|pv  default nopv\n"
    "  --batch B       pv only: records per doorbell, 1..1024 (default 64)\n"
    "  --seconds S     repeat the whole program until S seconds have passed;\n"
    "                  a pass is never cut short, so counts are passes x per-pass\n"
    "  --start-delay MS  create the VM and threads, then wait MS ms before the\n"
    "                  first KVM_RUN (time to attach a tracer to this pid)\n"
    "  --quiet         print nothing on success\n"
    "  --inject port|read|hlt  test exitgen itself: each pass starts with an\n"
    "                  `out 0x81,al`, a 1-byte MMIO read, or one extra hlt;\n"
    "                  the run must then fail with exit status 1\n"
    "  --help          this text\n"
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
    "\n"
    "Output (stdout; every exit counted in the VMM run loop):\n"
    "  exitgen: pid P vcpus K mode nopv|pv io N mmio N hlt N batch B|0\n"
    "  vcpu I tid T ops_io N ops_mmio N hlt N KVM_EXIT_IO N KVM_EXIT_MMIO N"
    " KVM_EXIT_HLT N passes N\n"
    "  total KVM_EXIT_IO N KVM_EXIT_MMIO N KVM_EXIT_HLT N elapsed_us N\n"
    "The header is printed (and flushed) before the first KVM_RUN.\n"
    "\n"
    "Exit status: 0 counts as predicted; 1 an unexpected exit or a count that\n"
    "differs from the prediction (reason on stderr); 2 bad option, no /dev/kvm,\n"
    "not permitted.\n";

/* ---- options ---------------------------------------------------------- */

static uint64_t parse_uint(const char *opt, const char *s, uint64_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (*s < '0' || *s > '9')
		die(EXIT_USAGE, "%s: not a number: '%s'", opt, s);
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		die(EXIT_USAGE, "%s: '%s' is not an integer in 0..%" PRIu64, opt, s, max);
	return v;
}

static double parse_seconds(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || end == s || !(v > 0 && v <= 86400))
		die(EXIT_USAGE, "--seconds: '%s' is not a number in (0, 86400]", s);
	return v;
}

static enum inject parse_inject(const char *s)
{
	static const char *const names[] = {
	    [INJ_PORT] = "port", [INJ_READ] = "read", [INJ_HLT] = "hlt"};

	for (size_t i = INJ_PORT; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i]))
			return i;
	die(EXIT_USAGE, "--inject: '%s' is none of port, read, hlt", s);
}

enum {
	OPT_IO = 256,
	OPT_MMIO,
	OPT_HLT,
	OPT_VCPUS,
	OPT_MODE,
	OPT_BATCH,
	OPT_SECONDS,
	OPT_DELAY,
	OPT_QUIET,
	OPT_INJECT,
	OPT_HELP
};

static const struct option long_opts[] = {
    {"io", required_argument, NULL, OPT_IO},
    {"mmio", required_argument, NULL, OPT_MMIO},
    {"hlt", required_argument, NULL, OPT_HLT},
    {"vcpus", required_argument, NULL, OPT_VCPUS},
    {"mode", required_argument, NULL, OPT_MODE},
    {"batch", required_argument, NULL, OPT_BATCH},
    {"seconds", required_argument, NULL, OPT_SECONDS},
    {"start-delay", required_argument, NULL, OPT_DELAY},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"inject", required_argument, NULL, OPT_INJECT},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

static void parse_one(struct opts *o, int c, const char *arg, int *pv, long long *batch)
{
	switch (c) {
	case OPT_IO:
		o->io = parse_uint("--io", arg, UINT32_MAX);
		break;
	case OPT_MMIO:
		o->mmio = parse_uint("--mmio", arg, UINT32_MAX);
		break;
	case OPT_HLT:
		o->hlt = parse_uint("--hlt", arg, UINT32_MAX);
		break;
	case OPT_VCPUS:
		o->vcpus = parse_uint("--vcpus", arg, MAX_VCPUS);
		if (!o->vcpus)
			die(EXIT_USAGE, "--vcpus: must be at least 1");
		break;
	case OPT_MODE:
		if (strcmp(arg, "pv") && strcmp(arg, "nopv"))
			die(EXIT_USAGE, "--mode: '%s' is neither nopv nor pv", arg);
		*pv = !strcmp(arg, "pv");
		break;
	case OPT_BATCH:
		*batch = parse_uint("--batch", arg, PV_MAX_BATCH);
		if (!*batch)
			die(EXIT_USAGE, "--batch: must be at least 1");
		break;
	case OPT_SECONDS:
		o->seconds = parse_seconds(arg);
		break;
	case OPT_DELAY:
		o->start_delay_ms = parse_uint("--start-delay", arg, 3600000);
		break;
	case OPT_QUIET:
		o->quiet = true;
		break;
	case OPT_INJECT:
		o->inject = parse_inject(arg);
		break;
	case OPT_HELP:
		fputs(usage_text, stdout);
		exit(0);
	default: /* getopt has printed its own message: keep to one line */
		exit(EXIT_USAGE);
	}
}

static void parse_opts(struct opts *o, int argc, char **argv)
{
	int c, pv = 0;
	long long batch = -1;

	*o = (struct opts){.vcpus = 1};
	opterr = 0; /* we print the one error line ourselves */
	while ((c = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
		if (c == '?' || c == ':')
			die(EXIT_USAGE, "bad option '%s' (try --help)", argv[optind - 1]);
		parse_one(o, c, optarg, &pv, &batch);
	}
	if (optind < argc)
		die(EXIT_USAGE, "unexpected argument '%s' (try --help)", argv[optind]);
	if (!pv && batch >= 0)
		die(EXIT_USAGE, "--batch needs --mode pv");
	if (pv)
		o->batch = batch >= 0 ? batch : 64;
}

/* ---- guest code generation (16-bit real mode) --------------------------- */

struct code {
	uint8_t *buf;
	size_t len;
};

static void emit(struct code *c, const uint8_t *bytes, size_t n)
{
	if (c->len + n > CODE_MAX)
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

/* mov ax, bp; out 0xf0, ax; xor bp, bp; mov di, PV_OFF: ring and rewind */
#define BELL_LEN 9
static void emit_doorbell(struct code *c)
{
	EMIT(c, 0x89, 0xe8, 0xe7, PORT_BELL, 0x31, 0xed, 0xbf, LE16(PV_OFF));
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

/* A deliberate mistake, so that tests can see the VMM catch it. */
static void emit_inject(struct code *c, enum inject what)
{
	if (what == INJ_PORT)
		EMIT(c, 0xe6, PORT_IO + 1); /* out 0x81, al */
	else if (what == INJ_READ)
		EMIT(c, 0x64, 0xa0, LE16(MMIO_OFF)); /* mov al, fs:[off] */
	else if (what == INJ_HLT)
		EMIT(c, 0xf4); /* hlt */
}

/*
 * One pass: io ops, mmio ops, (pv: flush a partial batch), hlts, then the
 * done `out`. After the done exit the VMM either stops the vCPU or resumes
 * it, and the guest starts the next pass.
 */
static size_t gen_guest(uint8_t *buf, const struct opts *o)
{
	struct code c = {.buf = buf};
	size_t top;

	if (o->batch)
		EMIT(&c, 0x31, 0xed, 0xbf, LE16(PV_OFF)); /* xor bp, bp; mov di, PV_OFF */
	EMIT(&c, 0xb0, 0x00);				  /* mov al, 0 */
	emit_inject(&c, o->inject);
	emit_ops(&c, o->io, false, o->batch);
	emit_ops(&c, o->mmio, true, o->batch);
	if (o->batch) {
		EMIT(&c, 0x85, 0xed, 0x74, BELL_LEN); /* test bp, bp; jz past the doorbell */
		emit_doorbell(&c);
	}
	if (o->hlt) {
		emit_loop_head(&c, o->hlt);
		top = c.len;
		EMIT(&c, 0xf4); /* hlt */
		emit_loop_tail(&c, top);
	}
	EMIT(&c, 0xe6, PORT_DONE);			   /* out 0xf4, al */
	EMIT(&c, 0xe9, LE16((uint16_t)(0 - (c.len + 3)))); /* jmp 0 */
	return c.len;
}

/* ---- VM and vCPU setup ------------------------------------------------ */

static int open_kvm(void)
{
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die(EXIT_USAGE, "/dev/kvm: %s", strerror(errno));
	if (ioctl(fd, KVM_GET_API_VERSION, 0) != KVM_API_VERSION)
		die(EXIT_USAGE, "/dev/kvm: unsupported KVM API version");
	return fd;
}

static void setup_vm(struct vm *vm)
{
	struct kvm_userspace_memory_region region = {0};
	int sz;

	vm->kvm_fd = open_kvm();
	vm->vm_fd = ioctl(vm->kvm_fd, KVM_CREATE_VM, 0);
	if (vm->vm_fd < 0)
		die(EXIT_USAGE, "KVM_CREATE_VM: %s", strerror(errno));
	/* Real mode on Intel without unrestricted guest needs a TSS; harmless elsewhere. */
	if (ioctl(vm->vm_fd, KVM_SET_TSS_ADDR, TSS_ADDR) < 0)
		die(EXIT_USAGE, "KVM_SET_TSS_ADDR: %s", strerror(errno));
	vm->mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (vm->mem == MAP_FAILED)
		die(EXIT_USAGE, "mmap guest memory: %s", strerror(errno));
	region.memory_size = MEM_SIZE;
	region.userspace_addr = (uintptr_t)vm->mem;
	if (ioctl(vm->vm_fd, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		die(EXIT_USAGE, "KVM_SET_USER_MEMORY_REGION: %s", strerror(errno));
	sz = ioctl(vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (sz < (int)sizeof(struct kvm_run))
		die(EXIT_USAGE, "KVM_GET_VCPU_MMAP_SIZE: %s", strerror(errno));
	vm->run_size = sz;
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

static void setup_regs(struct vcpu *v)
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
	set_seg(&sregs.gs, sel, false);
	set_seg(&sregs.fs, MMIO_SEG, false);
	sregs.cr0 &= ~1ull; /* real mode */
	if (ioctl(v->fd, KVM_SET_SREGS, &sregs) < 0)
		die(EXIT_USAGE, "KVM_SET_SREGS: %s", strerror(errno));
	if (ioctl(v->fd, KVM_SET_REGS, &regs) < 0)
		die(EXIT_USAGE, "KVM_SET_REGS: %s", strerror(errno));
}

static void setup_vcpu(struct vm *vm, struct vcpu *v, const uint8_t *code, size_t len)
{
	v->fd = ioctl(vm->vm_fd, KVM_CREATE_VCPU, v->id);
	if (v->fd < 0)
		die(EXIT_USAGE, "KVM_CREATE_VCPU %u: %s", v->id, strerror(errno));
	v->run = mmap(NULL, vm->run_size, PROT_READ | PROT_WRITE, MAP_SHARED, v->fd, 0);
	if (v->run == MAP_FAILED)
		die(EXIT_USAGE, "mmap kvm_run: %s", strerror(errno));
	v->win = vm->mem + WIN_BASE + v->id * WIN_SIZE;
	memcpy(v->win, code, len);
	setup_regs(v);
}

/* ---- the run loop ----------------------------------------------------- */

static bool past(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec);
}

static void __attribute__((noreturn)) bad_io(const struct vcpu *v, const char *why)
{
	const struct kvm_run *r = v->run;

	die(EXIT_FAIL, "vcpu %u: unexpected KVM_EXIT_IO (%s): port 0x%x %s size %u count %u", v->id,
	    why, r->io.port, r->io.direction == KVM_EXIT_IO_OUT ? "out" : "in", r->io.size,
	    r->io.count);
}

/* The VMM side of the hypercall queue: validate, count and consume records. */
static void pv_perform(struct vcpu *v, unsigned int n)
{
	uint8_t *rec = v->win + PV_OFF;
	uint16_t arg;

	if (n == 0 || n > g_opts->batch)
		die(EXIT_FAIL, "vcpu %u: doorbell with %u records (batch %u)", v->id, n,
		    g_opts->batch);
	for (unsigned int i = 0; i < n; i++, rec += PV_REC_SIZE) {
		memcpy(&arg, rec + 2, 2);
		if (rec[0] == PV_OP_IO && rec[1] == 1 && arg == PORT_IO)
			v->n.ops_io++;
		else if (rec[0] == PV_OP_MMIO && rec[1] == 1 && arg == MMIO_OFF)
			v->n.ops_mmio++;
		else
			die(EXIT_FAIL, "vcpu %u: bad PV record %u: op %u size %u arg 0x%x", v->id,
			    i, rec[0], rec[1], arg);
		/* Poison it, so a record the guest failed to rewrite cannot pass twice. */
		memset(rec, 0, PV_REC_SIZE);
	}
}

/* Returns true when the vCPU has finished its last pass. */
static bool handle_io(struct vcpu *v)
{
	const struct kvm_run *r = v->run;
	const uint8_t *data = (const uint8_t *)r + r->io.data_offset;
	bool pv = g_opts->batch;

	if (r->io.direction != KVM_EXIT_IO_OUT || r->io.count != 1)
		bad_io(v, "not a single out");
	v->n.exit_io++;
	if (r->io.port == PORT_IO && r->io.size == 1 && !pv) {
		v->n.ops_io++;
	} else if (r->io.port == PORT_BELL && r->io.size == 2 && pv) {
		pv_perform(v, data[0] | data[1] << 8);
	} else if (r->io.port == PORT_DONE && r->io.size == 1) {
		v->n.passes++;
		return !g_opts->seconds || past(&g_deadline);
	} else {
		bad_io(v, "wrong port for this mode");
	}
	return false;
}

static const char *exit_name(uint32_t reason)
{
	static const char *const names[] = {
	    [KVM_EXIT_UNKNOWN] = "KVM_EXIT_UNKNOWN",
	    [KVM_EXIT_EXCEPTION] = "KVM_EXIT_EXCEPTION",
	    [KVM_EXIT_IO] = "KVM_EXIT_IO",
	    [KVM_EXIT_HYPERCALL] = "KVM_EXIT_HYPERCALL",
	    [KVM_EXIT_DEBUG] = "KVM_EXIT_DEBUG",
	    [KVM_EXIT_HLT] = "KVM_EXIT_HLT",
	    [KVM_EXIT_MMIO] = "KVM_EXIT_MMIO",
	    [KVM_EXIT_IRQ_WINDOW_OPEN] = "KVM_EXIT_IRQ_WINDOW_OPEN",
	    [KVM_EXIT_SHUTDOWN] = "KVM_EXIT_SHUTDOWN",
	    [KVM_EXIT_FAIL_ENTRY] = "KVM_EXIT_FAIL_ENTRY",
	    [KVM_EXIT_INTR] = "KVM_EXIT_INTR",
	    [KVM_EXIT_INTERNAL_ERROR] = "KVM_EXIT_INTERNAL_ERROR",
	    [KVM_EXIT_SYSTEM_EVENT] = "KVM_EXIT_SYSTEM_EVENT",
	};

	if (reason < sizeof(names) / sizeof(names[0]) && names[reason])
		return names[reason];
	return "KVM_EXIT_?";
}

static void __attribute__((noreturn)) bad_exit(const struct vcpu *v)
{
	const struct kvm_run *r = v->run;
	uint64_t detail = 0;

	if (r->exit_reason == KVM_EXIT_FAIL_ENTRY)
		detail = r->fail_entry.hardware_entry_failure_reason;
	else if (r->exit_reason == KVM_EXIT_INTERNAL_ERROR)
		detail = r->internal.suberror;
	else if (r->exit_reason == KVM_EXIT_UNKNOWN)
		detail = r->hw.hardware_exit_reason;
	die(EXIT_FAIL, "vcpu %u: unexpected exit %s (%u, detail 0x%" PRIx64 ")", v->id,
	    exit_name(r->exit_reason), r->exit_reason, detail);
}

static bool handle_mmio(struct vcpu *v)
{
	const struct kvm_run *r = v->run;

	if (g_opts->batch || !r->mmio.is_write || r->mmio.len != 1 || r->mmio.phys_addr != MMIO_GPA)
		die(EXIT_FAIL, "vcpu %u: unexpected KVM_EXIT_MMIO: %s gpa 0x%" PRIx64 " len %u",
		    v->id, r->mmio.is_write ? "write" : "read", (uint64_t)r->mmio.phys_addr,
		    r->mmio.len);
	v->n.exit_mmio++;
	v->n.ops_mmio++;
	return false;
}

/* Counts and validates one exit; returns true when the vCPU is done. */
static bool handle_exit(struct vcpu *v)
{
	switch (v->run->exit_reason) {
	case KVM_EXIT_IO:
		return handle_io(v);
	case KVM_EXIT_MMIO:
		return handle_mmio(v);
	case KVM_EXIT_HLT:
		v->n.exit_hlt++;
		v->n.hlt++;
		return false;
	case KVM_EXIT_INTR: /* a signal interrupted KVM_RUN: not a guest exit */
		return false;
	default:
		bad_exit(v);
	}
}

static void *vcpu_main(void *arg)
{
	struct vcpu *v = arg;

	v->tid = gettid();
	pthread_barrier_wait(v->gate);
	for (;;) {
		if (ioctl(v->fd, KVM_RUN, 0) < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			die(EXIT_FAIL, "vcpu %u: KVM_RUN: %s", v->id, strerror(errno));
		}
		if (handle_exit(v))
			return NULL;
	}
}

/* ---- predictions and report ------------------------------------------ */

static struct counts predict(const struct opts *o, uint64_t passes)
{
	struct counts p = {.passes = passes};
	uint64_t ops = (uint64_t)o->io + o->mmio;

	p.ops_io = passes * o->io;
	p.ops_mmio = passes * o->mmio;
	p.hlt = p.exit_hlt = passes * o->hlt;
	if (o->batch) {
		p.exit_io = passes * ((ops + o->batch - 1) / o->batch + 1);
	} else {
		p.exit_io = passes * ((uint64_t)o->io + 1);
		p.exit_mmio = p.ops_mmio;
	}
	return p;
}

static int check_one(unsigned int id, const char *what, uint64_t got, uint64_t want)
{
	if (got == want)
		return 0;
	fprintf(stderr, "exitgen: vcpu %u: %s observed %" PRIu64 ", predicted %" PRIu64 "\n", id,
		what, got, want);
	return -1;
}

/* Compares what the run loop counted with the prediction for its passes. */
static int verify(const struct vcpu *v, const struct opts *o)
{
	const struct counts *n = &v->n;
	struct counts p = predict(o, n->passes);
	int bad = 0;

	if (!n->passes || (!o->seconds && n->passes != 1))
		bad |= check_one(v->id, "passes", n->passes, 1);
	bad |= check_one(v->id, "ops_io", n->ops_io, p.ops_io);
	bad |= check_one(v->id, "ops_mmio", n->ops_mmio, p.ops_mmio);
	bad |= check_one(v->id, "hlt", n->hlt, p.hlt);
	bad |= check_one(v->id, "KVM_EXIT_IO", n->exit_io, p.exit_io);
	bad |= check_one(v->id, "KVM_EXIT_MMIO", n->exit_mmio, p.exit_mmio);
	bad |= check_one(v->id, "KVM_EXIT_HLT", n->exit_hlt, p.exit_hlt);
	return bad;
}

static void print_header(const struct opts *o)
{
	printf("exitgen: pid %d vcpus %u mode %s io %" PRIu32 " mmio %" PRIu32 " hlt %" PRIu32
	       " batch %u\n",
	       (int)getpid(), o->vcpus, o->batch ? "pv" : "nopv", o->io, o->mmio, o->hlt, o->batch);
	fflush(stdout);
}

static void print_vcpu(const struct vcpu *v)
{
	const struct counts *n = &v->n;

	printf("vcpu %u tid %d ops_io %" PRIu64 " ops_mmio %" PRIu64 " hlt %" PRIu64
	       " KVM_EXIT_IO %" PRIu64 " KVM_EXIT_MMIO %" PRIu64 " KVM_EXIT_HLT %" PRIu64
	       " passes %" PRIu64 "\n",
	       v->id, (int)v->tid, n->ops_io, n->ops_mmio, n->hlt, n->exit_io, n->exit_mmio,
	       n->exit_hlt, n->passes);
}

static int report(const struct vm *vm, const struct opts *o, uint64_t elapsed_us)
{
	struct counts t = {0};
	int bad = 0;

	for (unsigned int i = 0; i < o->vcpus; i++) {
		const struct vcpu *v = &vm->vcpus[i];

		if (!o->quiet)
			print_vcpu(v);
		t.exit_io += v->n.exit_io;
		t.exit_mmio += v->n.exit_mmio;
		t.exit_hlt += v->n.exit_hlt;
		bad |= verify(v, o);
	}
	if (!o->quiet)
		printf("total KVM_EXIT_IO %" PRIu64 " KVM_EXIT_MMIO %" PRIu64
		       " KVM_EXIT_HLT %" PRIu64 " elapsed_us %" PRIu64 "\n",
		       t.exit_io, t.exit_mmio, t.exit_hlt, elapsed_us);
	return bad ? EXIT_FAIL : 0;
}

/* ---- main ------------------------------------------------------------- */

static uint64_t ns_of(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000u + t->tv_nsec;
}

static void start_vcpus(struct vm *vm, const struct opts *o)
{
	uint8_t code[CODE_MAX];
	size_t len = gen_guest(code, o);
	char name[24]; /* "exitgen-vcpu31" fits the kernel's 16 bytes */

	vm->vcpus = calloc(o->vcpus, sizeof(*vm->vcpus));
	if (!vm->vcpus)
		die(EXIT_USAGE, "out of memory");
	if (pthread_barrier_init(&vm->gate, NULL, o->vcpus + 1))
		die(EXIT_USAGE, "pthread_barrier_init failed");
	for (unsigned int i = 0; i < o->vcpus; i++) {
		struct vcpu *v = &vm->vcpus[i];

		v->id = i;
		v->gate = &vm->gate;
		setup_vcpu(vm, v, code, len);
		if (pthread_create(&v->thread, NULL, vcpu_main, v))
			die(EXIT_USAGE, "pthread_create failed");
		/* Named here, not by the thread, so the name is set before the header. */
		snprintf(name, sizeof(name), "exitgen-vcpu%u", i);
		pthread_setname_np(v->thread, name);
	}
}

/* Sleeps --start-delay, arms --seconds and opens the gate; returns the start. */
static struct timespec release_vcpus(struct vm *vm, const struct opts *o)
{
	struct timespec t0, delay = {o->start_delay_ms / 1000, o->start_delay_ms % 1000 * 1000000L};
	uint64_t end;

	while (nanosleep(&delay, &delay) < 0 && errno == EINTR)
		;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	end = ns_of(&t0) + (uint64_t)(o->seconds * 1e9);
	g_deadline = (struct timespec){end / 1000000000u, end % 1000000000u};
	pthread_barrier_wait(&vm->gate);
	return t0;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct vm vm = {0};
	struct timespec t0, t1;
	int rc;

	parse_opts(&o, argc, argv);
	g_opts = &o;
	setup_vm(&vm);
	start_vcpus(&vm, &o);
	if (!o.quiet)
		print_header(&o);
	t0 = release_vcpus(&vm, &o);
	for (unsigned int i = 0; i < o.vcpus; i++)
		pthread_join(vm.vcpus[i].thread, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	rc = report(&vm, &o, (ns_of(&t1) - ns_of(&t0)) / 1000);
	free(vm.vcpus);
	return rc;
}

#else /* not x86 */

int main(void)
{
	fputs("exitgen: needs an x86 KVM host (its guest is 16-bit real-mode x86 code)\n", stderr);
	return 2;
}

#endif
