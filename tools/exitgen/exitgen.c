/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exitgen - a tiny VMM whose guests make an exact, known number of exits.
 * End-to-end tests (on this host and inside the lab's kernels) compare what
 * kvm-exitstat reports against the counts printed here; the PV mode
 * reproduces the 2007-2010 KVM hypercall batching work so that a
 * PV-vs-non-PV diff can be shown on any KVM host.
 *
 * This file is the VMM core, the same on every ISA: options, the VM and its
 * vCPU threads, the run loop, the predictions checked and the report. The
 * guest (its code, registers and exits) is guest-<isa>.c: see exitgen.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "exitgen.h"

#define PV_MAX_BATCH 1024u

/* Set before the vCPU threads pass the start gate, read-only after it. */
static const struct eg_opts *g_opts;
static struct timespec g_deadline; /* --seconds: no new pass starts after this */

static const char *const op_opt[EG_NOPS] = {
    [EG_OP_IO] = "io",
    [EG_OP_MMIO] = "mmio",
    [EG_OP_HLT] = "hlt",
    [EG_OP_HCALL] = "hcall",
    [EG_OP_HCALL_USER] = "hcall-user",
    [EG_OP_PRIV] = "priv",
    [EG_OP_PVCALL] = "pvcall",
    [EG_OP_CPUID] = "cpuid",
    [EG_OP_MSR] = "msr",
    [EG_OP_PF] = "pf",
};
/* The names in the output: "hlt" (not ops_hlt) as the first exitgen printed it. */
static const char *const op_out[EG_NOPS] = {
    [EG_OP_IO] = "ops_io",     [EG_OP_MMIO] = "ops_mmio",	  [EG_OP_HLT] = "hlt",
    [EG_OP_HCALL] = "hcall",   [EG_OP_HCALL_USER] = "hcall_user", [EG_OP_PRIV] = "priv",
    [EG_OP_PVCALL] = "pvcall", [EG_OP_CPUID] = "cpuid",		  [EG_OP_MSR] = "msr",
    [EG_OP_PF] = "pf",
};
static const char *const op_help[EG_NOPS] = {
    [EG_OP_IO] = "N port writes",
    [EG_OP_MMIO] = "N stores to an unmapped address (KVM_EXIT_MMIO)",
    [EG_OP_HLT] = "N halts (x86 hlt, arm64/riscv wfi, ...)",
    [EG_OP_HCALL] = "N hypercalls the host kernel answers",
    [EG_OP_HCALL_USER] = "N hypercalls the kernel hands to this VMM",
    [EG_OP_PRIV] = "N privileged instructions the host emulates",
    [EG_OP_PVCALL] = "N paravirtual calls (ppc PR `sc 0` magic)",
    [EG_OP_CPUID] = "N cpuid",
    [EG_OP_MSR] = "N rdmsr of an MSR the kernel emulates",
    [EG_OP_PF] = "N fresh guest pages touched (one stage-2 fault each)",
};

void die(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("exitgen: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

static bool has_op(enum eg_op op)
{
	return eg_guest.ops >> op & 1;
}

/* prog: the name it was run as (installed as kvm-exitgen, built as exitgen). */
static void usage(const char *prog)
{
	const char *base = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;

	printf("usage: %s [--OP N ...] [--vcpus K]%s [--seconds S]\n"
	       "       %*s [--start-delay MS] [--variant V] [--quiet]\n\n"
	       "A tiny VMM: one VM, K vCPU threads (named exitgen-vcpu0..K-1), each running\n"
	       "this build's guest (ISA %s) that makes an exact number of exits. All counts\n"
	       "are per vCPU and per pass of the guest program (N <= 4294967295). Its OPs:\n\n",
	       base, eg_guest.pv ? " [--mode nopv|pv] [--batch B]" : "", (int)strlen(base), "",
	       eg_guest.isa);
	for (int i = 0; i < EG_NOPS; i++)
		if (has_op(i))
			printf("  --%-12s %s\n", op_opt[i], op_help[i]);
	printf("\n  --vcpus K       K vCPUs, 1..%u (default 1)\n", MAX_VCPUS);
	if (eg_guest.pv)
		printf("  --mode nopv|pv  default nopv\n"
		       "  --batch B       pv only: records per doorbell, 1..%u (default 64)\n",
		       PV_MAX_BATCH);
	fputs("  --seconds S     repeat the whole program until S seconds have passed;\n"
	      "                  a pass is never cut short, so counts are passes x per-pass\n"
	      "  --start-delay MS  create the VM and threads, then wait MS ms before the\n"
	      "                  first KVM_RUN (time to attach a tracer to this pid)\n"
	      "  --start-on-usr1 then wait for SIGUSR1 too (a tracer that takes long to\n"
	      "                  set up, on a loaded machine, says when it is ready)\n"
	      "  --pin           vCPU I runs only on the I-th CPU this process may use\n"
	      "                  (modulo their number): a trace whose threads stay on\n"
	      "                  their CPUs, whatever the scheduler would do\n"
	      "  --pause-us US   each vCPU sleeps US microseconds after every pass (with\n"
	      "                  --seconds: a paced workload of a known rate)\n"
	      "  --variant V     a guest-specific setting (below)\n"
	      "  --quiet         print nothing on success\n"
	      "  --give-up S     a run not ended S seconds after its start (past --seconds)\n"
	      "                  fails, status 1: a guest that strayed into a loop of exits\n"
	      "                  the kernel handles would never return to say so\n"
	      "  --name NAME     the VM's name in QEMU's -name syntax ([guest=]NAME[,...]),\n"
	      "                  for tools that read it from the command line (top -g)\n"
	      "  --hog           a thread (exitgen-hog) spins on vCPU 0's CPU for the whole\n"
	      "                  run, preempting it (implies --pin)\n"
	      "  --mmio-delay-us US  the VMM spends US microseconds (busy, on its CPU) on\n"
	      "                  each MMIO exit; each vCPU line then says vmm_ns_mmio, the\n"
	      "                  time from KVM_RUN's return to the next call, by its clock\n"
	      "  --vmm-log FILE  each userspace exit's time in the VMM, by exitgen's clock\n"
	      "                  (CLOCK_MONOTONIC around KVM_RUN): 'VCPU REASON NS' lines in\n"
	      "                  order, written at the end\n"
	      "  --guest-map FILE  the guest code's System.map, every vCPU's (eg_io, eg_done...)\n"
	      "  --stats-fd      hold the VM's and each vCPU's KVM_GET_STATS_FD open for the\n"
	      "                  whole run, as QEMU does for its vCPUs (other processes can\n"
	      "                  then read KVM's binary statistics through pidfd_getfd)\n"
	      "  --slow-exit N:US vCPU 0 handles its N-th userspace exit (from 1) US\n"
	      "                  microseconds late (a sleep before KVM_RUN again): one exit\n"
	      "                  whose exit -> entry time is known to be at least US\n"
	      "  --inject port|read|hlt  test exitgen itself: each pass starts with a\n"
	      "                  deliberate surprise (a wrong port, an MMIO read, an extra\n"
	      "                  halt); the run must then fail with exit status 1\n"
	      "  --help          this text\n\n",
	      stdout);
	fputs(eg_guest.usage, stdout);
	fputs("\nOutput (stdout; every userspace exit counted in the VMM run loop, in-kernel\n"
	      "operations counted by the guest itself and read back at the end):\n"
	      "  exitgen: pid P vcpus K mode nopv|pv io N mmio N hlt N batch B|0 isa ISA ...\n"
	      "  vcpu I tid T ops_io N ops_mmio N hlt N ... KVM_EXIT_IO N ... passes N\n"
	      "  total KVM_EXIT_IO N KVM_EXIT_MMIO N KVM_EXIT_HLT N ... elapsed_us N\n"
	      "The header is printed (and flushed) before the first KVM_RUN.\n\n"
	      "Exit status: 0 counts as predicted; 1 an unexpected exit or a count that\n"
	      "differs from the prediction (reason on stderr); 2 bad option, no /dev/kvm,\n"
	      "not permitted.\n",
	      stdout);
}

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

static double parse_seconds(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || end == s || !(v > 0 && v <= 86400))
		die(EXIT_USAGE, "%s: '%s' is not a number in (0, 86400]", opt, s);
	return v;
}

static enum eg_inject parse_inject(const char *s)
{
	static const char *const names[] = {
	    [INJ_PORT] = "port", [INJ_READ] = "read", [INJ_HLT] = "hlt"};

	for (size_t i = INJ_PORT; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i]))
			return i;
	die(EXIT_USAGE, "--inject: '%s' is none of port, read, hlt", s);
}

/* getopt codes: 0..EG_NOPS-1 are the operations, the rest follow. */
enum {
	OPT_VCPUS = 256,
	OPT_MODE,
	OPT_BATCH,
	OPT_SECONDS,
	OPT_DELAY,
	OPT_USR1,
	OPT_PAUSE,
	OPT_QUIET,
	OPT_PIN,
	OPT_INJECT,
	OPT_VARIANT,
	OPT_NAME,
	OPT_GIVE_UP,
	OPT_HOG,
	OPT_MMIO_DELAY,
	OPT_VMM_LOG,
	OPT_HLT_US,
	OPT_STATS_FD,
	OPT_SLOW_EXIT,
	OPT_GUEST_MAP,
	OPT_HELP
};

static const struct option long_opts[] = {
    {"io", required_argument, NULL, EG_OP_IO},
    {"mmio", required_argument, NULL, EG_OP_MMIO},
    {"hlt", required_argument, NULL, EG_OP_HLT},
    {"hcall", required_argument, NULL, EG_OP_HCALL},
    {"hcall-user", required_argument, NULL, EG_OP_HCALL_USER},
    {"priv", required_argument, NULL, EG_OP_PRIV},
    {"pvcall", required_argument, NULL, EG_OP_PVCALL},
    {"cpuid", required_argument, NULL, EG_OP_CPUID},
    {"msr", required_argument, NULL, EG_OP_MSR},
    {"pf", required_argument, NULL, EG_OP_PF},
    {"vcpus", required_argument, NULL, OPT_VCPUS},
    {"mode", required_argument, NULL, OPT_MODE},
    {"batch", required_argument, NULL, OPT_BATCH},
    {"seconds", required_argument, NULL, OPT_SECONDS},
    {"start-delay", required_argument, NULL, OPT_DELAY},
    {"start-on-usr1", no_argument, NULL, OPT_USR1},
    {"pause-us", required_argument, NULL, OPT_PAUSE},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"pin", no_argument, NULL, OPT_PIN},
    {"inject", required_argument, NULL, OPT_INJECT},
    {"variant", required_argument, NULL, OPT_VARIANT},
    {"name", required_argument, NULL, OPT_NAME},
    {"give-up", required_argument, NULL, OPT_GIVE_UP},
    {"hog", no_argument, NULL, OPT_HOG},
    {"mmio-delay-us", required_argument, NULL, OPT_MMIO_DELAY},
    {"vmm-log", required_argument, NULL, OPT_VMM_LOG},
    {"hlt-us", required_argument, NULL, OPT_HLT_US},
    {"stats-fd", no_argument, NULL, OPT_STATS_FD},
    {"slow-exit", required_argument, NULL, OPT_SLOW_EXIT},
    {"guest-map", required_argument, NULL, OPT_GUEST_MAP},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

/* --slow-exit N:US */
static void parse_slow(struct eg_opts *o, const char *arg)
{
	const char *colon = strchr(arg, ':');
	char n[24];

	if (!colon || colon == arg || (size_t)(colon - arg) >= sizeof(n))
		die(EXIT_USAGE, "--slow-exit: '%s' is not N:US", arg);
	snprintf(n, sizeof(n), "%.*s", (int)(colon - arg), arg);
	o->slow_exit = parse_uint("--slow-exit N", n, UINT64_MAX);
	o->slow_us = parse_uint("--slow-exit US", colon + 1, 10000000);
	if (!o->slow_exit)
		die(EXIT_USAGE, "--slow-exit: N counts from 1");
}

static void parse_op(struct eg_opts *o, int op, const char *arg)
{
	char name[24];

	snprintf(name, sizeof(name), "--%s", op_opt[op]);
	o->n[op] = parse_uint(name, arg, UINT32_MAX);
	if (o->n[op] && !has_op(op))
		die(EXIT_USAGE, "%s: the %s guest cannot make this exit", name, eg_guest.isa);
}

static void parse_one(struct eg_opts *o, int c, const char *arg, int *pv, long long *batch,
		      const char *prog)
{
	if (c >= 0 && c < EG_NOPS) {
		parse_op(o, c, arg);
		return;
	}
	switch (c) {
	case OPT_VCPUS:
		o->vcpus = parse_uint("--vcpus", arg, MAX_VCPUS);
		if (!o->vcpus)
			die(EXIT_USAGE, "--vcpus: must be at least 1");
		break;
	case OPT_MODE:
		if (strcmp(arg, "pv") && strcmp(arg, "nopv"))
			die(EXIT_USAGE, "--mode: '%s' is neither nopv nor pv", arg);
		*pv = !strcmp(arg, "pv");
		if (*pv && !eg_guest.pv)
			die(EXIT_USAGE, "--mode pv: the %s guest has no PV mode", eg_guest.isa);
		break;
	case OPT_BATCH:
		*batch = parse_uint("--batch", arg, PV_MAX_BATCH);
		if (!*batch)
			die(EXIT_USAGE, "--batch: must be at least 1");
		break;
	case OPT_SECONDS:
		o->seconds = parse_seconds("--seconds", arg);
		break;
	case OPT_DELAY:
		o->start_delay_ms = parse_uint("--start-delay", arg, 3600000);
		break;
	case OPT_USR1:
		o->start_on_usr1 = true;
		break;
	case OPT_PAUSE:
		o->pause_us = parse_uint("--pause-us", arg, 1000000);
		break;
	case OPT_QUIET:
		o->quiet = true;
		break;
	case OPT_PIN:
		o->pin = true;
		break;
	case OPT_INJECT:
		o->inject = parse_inject(arg);
		break;
	case OPT_VARIANT:
		o->variant = arg;
		break;
	case OPT_GIVE_UP:
		o->give_up = parse_seconds("--give-up", arg);
		break;
	case OPT_STATS_FD:
		o->stats_fd = true;
		break;
	case OPT_SLOW_EXIT:
		parse_slow(o, arg);
		break;
	case OPT_NAME: /* only there to be read from /proc/PID/cmdline, as QEMU's -name is */
		break;
	case OPT_HOG:
		o->hog = o->pin = true;
		break;
	case OPT_MMIO_DELAY:
		o->mmio_delay_us = parse_uint("--mmio-delay-us", arg, 10000000);
		break;
	case OPT_VMM_LOG:
		o->vmm_log = arg;
		break;
	case OPT_GUEST_MAP:
		o->guest_map = arg;
		break;
	case OPT_HLT_US:
		o->hlt_us = parse_uint("--hlt-us", arg, 50000);
		if (!o->hlt_us)
			die(EXIT_USAGE, "--hlt-us: must be at least 1");
		if (!eg_guest.hlt_timer)
			die(EXIT_USAGE, "--hlt-us: the %s guest has no timer to wake a halt",
			    eg_guest.isa);
		break;
	case OPT_HELP:
		usage(prog);
		exit(0);
	default: /* getopt has printed its own message: keep to one line */
		exit(EXIT_USAGE);
	}
}

static void parse_opts(struct eg_opts *o, int argc, char **argv)
{
	int c, pv = 0;
	long long batch = -1;

	*o = (struct eg_opts){.vcpus = 1};
	opterr = 0; /* we print the one error line ourselves */
	while ((c = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
		if (c == '?' || c == ':')
			die(EXIT_USAGE, "bad option '%s' (try --help)", argv[optind - 1]);
		parse_one(o, c, optarg, &pv, &batch, argv[0]);
	}
	if (optind < argc)
		die(EXIT_USAGE, "unexpected argument '%s' (try --help)", argv[optind]);
	if (!pv && batch >= 0)
		die(EXIT_USAGE, "--batch needs --mode pv");
	if (pv)
		o->batch = batch >= 0 ? batch : 64;
	if (eg_guest.check)
		eg_guest.check(o);
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

/* --stats-fd: the fd stays open until exit, for other processes to find in /proc. */
static int stats_fd_of(int fd, const char *what)
{
	int sfd = ioctl(fd, KVM_GET_STATS_FD, NULL);

	if (sfd < 0)
		die(EXIT_USAGE, "KVM_GET_STATS_FD (%s): %s", what, strerror(errno));
	return sfd;
}

static void setup_vm(struct eg_vm *vm, const struct eg_opts *o)
{
	struct kvm_userspace_memory_region region = {0};
	int sz;

	vm->kvm_fd = open_kvm();
	vm->vm_fd = ioctl(vm->kvm_fd, KVM_CREATE_VM, eg_guest.vm_type(o));
	if (vm->vm_fd < 0)
		die(EXIT_USAGE, "KVM_CREATE_VM: %s", strerror(errno));
	vm->mem = mmap(NULL, eg_guest.mem_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (vm->mem == MAP_FAILED)
		die(EXIT_USAGE, "mmap guest memory: %s", strerror(errno));
	/*
	 * No huge pages, as pf_mem: a THP collapse (khugepaged, "always" in
	 * Debian's kernel) of a range holding guest pages, or of a neighbour
	 * this mapping merged with, would unmap them under KVM, and the guest's
	 * next touch would be one stage-2 fault more than its code makes.
	 */
	madvise(vm->mem, eg_guest.mem_size, MADV_NOHUGEPAGE);
	region.guest_phys_addr = eg_guest.mem_gpa;
	region.memory_size = eg_guest.mem_size;
	region.userspace_addr = (uintptr_t)vm->mem;
	if (ioctl(vm->vm_fd, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		die(EXIT_USAGE, "KVM_SET_USER_MEMORY_REGION: %s", strerror(errno));
	sz = ioctl(vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (sz < (int)sizeof(struct kvm_run))
		die(EXIT_USAGE, "KVM_GET_VCPU_MMAP_SIZE: %s", strerror(errno));
	vm->run_size = sz;
	vm->stats_fd = o->stats_fd ? stats_fd_of(vm->vm_fd, "VM") : -1;
	if (eg_guest.vm_init)
		eg_guest.vm_init(vm, o);
}

static void setup_vcpu(struct eg_vm *vm, struct eg_vcpu *v, const struct eg_opts *o)
{
	v->vm = vm;
	v->fd = ioctl(vm->vm_fd, KVM_CREATE_VCPU, v->id);
	if (v->fd < 0)
		die(EXIT_USAGE, "KVM_CREATE_VCPU %u: %s", v->id, strerror(errno));
	v->run = mmap(NULL, vm->run_size, PROT_READ | PROT_WRITE, MAP_SHARED, v->fd, 0);
	if (v->run == MAP_FAILED)
		die(EXIT_USAGE, "mmap kvm_run: %s", strerror(errno));
	v->stats_fd = o->stats_fd ? stats_fd_of(v->fd, "vCPU") : -1;
	eg_guest.vcpu_init(vm, v, o);
}

/* ---- the run loop ----------------------------------------------------- */

static bool past(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec);
}

const char *eg_exit_name(uint32_t reason)
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
	    [KVM_EXIT_SET_TPR] = "KVM_EXIT_SET_TPR",
	    [KVM_EXIT_TPR_ACCESS] = "KVM_EXIT_TPR_ACCESS",
	    [KVM_EXIT_S390_SIEIC] = "KVM_EXIT_S390_SIEIC",
	    [KVM_EXIT_S390_RESET] = "KVM_EXIT_S390_RESET",
	    [KVM_EXIT_DCR] = "KVM_EXIT_DCR",
	    [KVM_EXIT_NMI] = "KVM_EXIT_NMI",
	    [KVM_EXIT_INTERNAL_ERROR] = "KVM_EXIT_INTERNAL_ERROR",
	    [KVM_EXIT_OSI] = "KVM_EXIT_OSI",
	    [KVM_EXIT_PAPR_HCALL] = "KVM_EXIT_PAPR_HCALL",
	    [KVM_EXIT_WATCHDOG] = "KVM_EXIT_WATCHDOG",
	    [KVM_EXIT_EPR] = "KVM_EXIT_EPR",
	    [KVM_EXIT_SYSTEM_EVENT] = "KVM_EXIT_SYSTEM_EVENT",
	    [KVM_EXIT_S390_STSI] = "KVM_EXIT_S390_STSI",
	    [KVM_EXIT_IOAPIC_EOI] = "KVM_EXIT_IOAPIC_EOI",
	    [KVM_EXIT_HYPERV] = "KVM_EXIT_HYPERV",
	    [KVM_EXIT_ARM_NISV] = "KVM_EXIT_ARM_NISV",
	    [KVM_EXIT_X86_RDMSR] = "KVM_EXIT_X86_RDMSR",
	    [KVM_EXIT_X86_WRMSR] = "KVM_EXIT_X86_WRMSR",
	    [KVM_EXIT_DIRTY_RING_FULL] = "KVM_EXIT_DIRTY_RING_FULL",
	    [KVM_EXIT_AP_RESET_HOLD] = "KVM_EXIT_AP_RESET_HOLD",
	    [KVM_EXIT_X86_BUS_LOCK] = "KVM_EXIT_X86_BUS_LOCK",
	    [KVM_EXIT_XEN] = "KVM_EXIT_XEN",
	    [KVM_EXIT_RISCV_SBI] = "KVM_EXIT_RISCV_SBI",
	    [KVM_EXIT_RISCV_CSR] = "KVM_EXIT_RISCV_CSR",
	    [KVM_EXIT_NOTIFY] = "KVM_EXIT_NOTIFY",
	};

	if (reason < sizeof(names) / sizeof(names[0]) && names[reason])
		return names[reason];
	return "KVM_EXIT_?";
}

void eg_bad_exit(const struct eg_vcpu *v)
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
	    eg_exit_name(r->exit_reason), r->exit_reason, detail);
}

/* Counts one KVM_RUN return (each is one kvm_userspace_exit in the trace). */
static void count_exit(struct eg_vcpu *v)
{
	uint32_t r = v->run->exit_reason;

	if (r >= EG_NEXITS)
		eg_bad_exit(v);
	v->n.exits[r]++;
}

static void pause_us(unsigned int us)
{
	struct timespec t = {us / 1000000, (long)(us % 1000000) * 1000};

	while (nanosleep(&t, &t) < 0 && errno == EINTR)
		;
}

/*
 * vCPU N enters the guest only once vCPU N-1's first KVM_RUN has returned:
 * first faults taken at the same instant race in KVM's MMU (two vCPUs
 * installing the same page-table page: the loser retries), and a retried
 * fault is one exit more than the program makes (x86-svm in the lab: npf 31
 * for 30, now and then). After that every vCPU runs freely.
 */
static void wait_turn(const struct eg_vcpu *v)
{
	while (atomic_load(&v->vm->started) < v->id)
		pause_us(50);
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* --mmio-delay-us: the VMM's work on an MMIO exit, on its CPU (no sleep: its time is the VMM's). */
static void spin_us(unsigned int us)
{
	uint64_t end = now_ns() + (uint64_t)us * 1000u;

	while (now_ns() < end)
		;
}

/* Does the run loop time the VMM (--mmio-delay-us, --vmm-log)? */
static bool vmm_clock(const struct eg_opts *o)
{
	return o->mmio_delay_us || o->vmm_log;
}

static void vmm_log_grow(struct eg_vcpu *v, size_t cap)
{
	v->vlog = realloc(v->vlog, cap * sizeof(*v->vlog));
	if (!v->vlog)
		die(EXIT_USAGE, "out of memory (--vmm-log)");
	/* touched now: a page fault later would be VMM time this clock does not see */
	memset(v->vlog + v->capvlog, 0, (cap - v->capvlog) * sizeof(*v->vlog));
	v->capvlog = cap;
}

/* Room for a pass's userspace exits (more passes, --seconds: grown as they come), touched. */
static void vmm_log_reserve(struct eg_vcpu *v, const struct eg_opts *o)
{
	size_t n = 1024;

	if (!o->vmm_log)
		return;
	for (int i = 0; i < EG_NOPS; i++)
		n += o->n[i];
	vmm_log_grow(v, n);
}

/*
 * One userspace exit's time in the VMM: KVM_RUN's return (at) to its next
 * call (end, read just before it). What is done with it comes before that
 * call too, and is kept to a store.
 */
static void vmm_time(struct eg_vcpu *v, uint32_t reason, uint64_t at, uint64_t end)
{
	if (reason >= EG_NEXITS)
		return;
	v->n.vmm_ns[reason] += end - at;
	if (!g_opts->vmm_log)
		return;
	if (v->nvlog == v->capvlog)
		vmm_log_grow(v, 2 * v->capvlog);
	v->vlog[v->nvlog++] = (struct eg_vmm_rec){end - at, reason};
}

/*
 * --slow-exit: vCPU 0's N-th userspace exit (KVM_EXIT_INTR included: every
 * KVM_RUN return counts) waits before KVM_RUN is called again, so its kvm_exit
 * -> kvm_entry time (and its userspace exit's handling time) is at least US.
 */
static void slow_exit(struct eg_vcpu *v, uint32_t reason)
{
	if (!g_opts->slow_exit || v->id != 0 || ++v->nreturns != g_opts->slow_exit)
		return;
	pause_us(g_opts->slow_us);
	v->slow_reason = (int)reason;
}

static void *vcpu_main(void *arg)
{
	struct eg_vcpu *v = arg;
	bool first = true;
	uint64_t ret_at = 0;	    /* when KVM_RUN last returned with an exit, --vmm-log */
	uint32_t ret_reason = EG_NEXITS; /* and why: EG_NEXITS none to time */

	v->tid = gettid();
	/*
	 * The clock's first read maps the vDSO's pages (a fault, milliseconds in
	 * the lab's emulated kernel), which the kernel would count in the first
	 * exit's VMM time and this clock not: read it once before the first KVM_RUN.
	 */
	if (vmm_clock(g_opts)) {
		(void)now_ns();
		vmm_log_reserve(v, g_opts);
	}
	if (eg_guest.vcpu_thread_init)
		eg_guest.vcpu_thread_init(v, g_opts);
	pthread_barrier_wait(v->gate);
	wait_turn(v);
	for (;; first = false) {
		int rc;

		if (ret_reason < EG_NEXITS)
			vmm_time(v, ret_reason, ret_at, now_ns());
		ret_reason = EG_NEXITS;
		rc = ioctl(v->fd, KVM_RUN, 0);
		if (vmm_clock(g_opts)) {
			ret_at = now_ns();
			ret_reason = rc < 0 ? (errno == EINTR ? KVM_EXIT_INTR : EG_NEXITS)
					    : v->run->exit_reason;
		}
		if (first)
			atomic_fetch_add(&v->vm->started, 1);
		if (rc < 0) {
			/* A signal (a wfi's wake-up, a tracer) ended KVM_RUN: KVM_EXIT_INTR. */
			if (errno == EINTR) {
				v->n.exits[KVM_EXIT_INTR]++;
				slow_exit(v, KVM_EXIT_INTR);
				continue;
			}
			if (errno == EAGAIN)
				continue;
			die(EXIT_FAIL, "vcpu %u: KVM_RUN: %s", v->id, strerror(errno));
		}
		count_exit(v);
		if (v->run->exit_reason == KVM_EXIT_MMIO && g_opts->mmio_delay_us)
			spin_us(g_opts->mmio_delay_us);
		slow_exit(v, v->run->exit_reason);
		if (eg_guest.handle_exit(v, g_opts) != EG_PASS_DONE)
			continue;
		v->n.passes++;
		if (!g_opts->seconds || past(&g_deadline))
			break;
		if (eg_guest.next_pass)
			eg_guest.next_pass(v, g_opts);
		if (g_opts->pause_us)
			pause_us(g_opts->pause_us);
	}
	if (eg_guest.finish)
		eg_guest.finish(v, g_opts);
	return NULL;
}

/* ---- predictions and report ------------------------------------------ */

static int check_one(unsigned int id, const char *what, uint64_t got, uint64_t want)
{
	if (got == want)
		return 0;
	fprintf(stderr, "exitgen: vcpu %u: %s observed %" PRIu64 ", predicted %" PRIu64 "\n", id,
		what, got, want);
	return -1;
}

/* The exits the output always shows (the predicted ones), as a bit mask. */
static uint64_t shown_exits(const struct eg_opts *o)
{
	struct eg_counts p = {0};
	uint64_t exact = 0, shown = 0;

	eg_guest.predict(o, &p, &exact);
	for (int r = 0; r < EG_NEXITS; r++)
		if (p.exits[r] || (exact >> r & 1))
			shown |= 1ull << r;
	return shown;
}

/* Compares what the run loop counted with the prediction for its passes. */
static int verify(const struct eg_vcpu *v, const struct eg_opts *o)
{
	const struct eg_counts *n = &v->n;
	struct eg_counts p = {0};
	uint64_t exact = 0;
	int bad = 0;

	eg_guest.predict(o, &p, &exact);
	if (!n->passes || (!o->seconds && n->passes != 1))
		bad |= check_one(v->id, "passes", n->passes, 1);
	for (int i = 0; i < EG_NOPS; i++)
		if (has_op(i))
			bad |= check_one(v->id, op_out[i], n->ops[i], n->passes * o->n[i]);
	for (int r = 0; r < EG_NEXITS; r++)
		if (exact >> r & 1)
			bad |=
			    check_one(v->id, eg_exit_name(r), n->exits[r], n->passes * p.exits[r]);
	return bad;
}

static void print_header(const struct eg_opts *o)
{
	printf("exitgen: pid %d vcpus %u mode %s io %" PRIu32 " mmio %" PRIu32 " hlt %" PRIu32
	       " batch %u isa %s",
	       (int)getpid(), o->vcpus, o->batch ? "pv" : "nopv", o->n[EG_OP_IO], o->n[EG_OP_MMIO],
	       o->n[EG_OP_HLT], o->batch, eg_guest.isa);
	for (int i = EG_OP_HLT + 1; i < EG_NOPS; i++)
		if (has_op(i))
			printf(" %s %" PRIu32, op_out[i], o->n[i]);
	if (o->variant)
		printf(" variant %s", o->variant);
	putchar('\n');
	fflush(stdout);
}

/* IO, MMIO, HLT first, as exitgen always printed them; the rest by number. */
static int exit_at(int i)
{
	static const int first[] = {KVM_EXIT_IO, KVM_EXIT_MMIO, KVM_EXIT_HLT};
	int nfirst = sizeof(first) / sizeof(first[0]), skipped = 0;

	if (i < nfirst)
		return first[i];
	for (int r = 0; r < EG_NEXITS; r++) {
		if (r == KVM_EXIT_IO || r == KVM_EXIT_MMIO || r == KVM_EXIT_HLT)
			continue;
		if (skipped++ == i - nfirst)
			return r;
	}
	return -1;
}

static void print_exits(const uint64_t *exits, uint64_t shown)
{
	for (int i = 0, r; (r = exit_at(i)) >= 0; i++)
		if ((shown >> r & 1) || exits[r])
			printf(" %s %" PRIu64, eg_exit_name(r), exits[r]);
}

static void print_vcpu(const struct eg_vcpu *v, uint64_t shown)
{
	printf("vcpu %u tid %d", v->id, (int)v->tid);
	for (int i = 0; i < EG_NOPS; i++)
		if (has_op(i))
			printf(" %s %" PRIu64, op_out[i], v->n.ops[i]);
	print_exits(v->n.exits, shown);
	if (vmm_clock(g_opts))
		printf(" vmm_ns_mmio %" PRIu64 " vmm_ns_io %" PRIu64, v->n.vmm_ns[KVM_EXIT_MMIO],
		       v->n.vmm_ns[KVM_EXIT_IO]);
	printf(" passes %" PRIu64, v->n.passes);
	if (v->slow_reason >= 0)
		printf(" slow_exit %" PRIu64 " %s %u", g_opts->slow_exit,
		       eg_exit_name((uint32_t)v->slow_reason), g_opts->slow_us);
	putchar('\n');
}

static int report(const struct eg_vm *vm, const struct eg_opts *o, uint64_t elapsed_us)
{
	uint64_t total[EG_NEXITS] = {0}, shown = shown_exits(o);
	int bad = 0;

	for (unsigned int i = 0; i < o->vcpus; i++) {
		const struct eg_vcpu *v = &vm->vcpus[i];

		if (!o->quiet)
			print_vcpu(v, shown);
		for (int r = 0; r < EG_NEXITS; r++)
			total[r] += v->n.exits[r];
		bad |= verify(v, o);
	}
	if (!o->quiet) {
		fputs("total", stdout);
		print_exits(total, shown);
		printf(" elapsed_us %" PRIu64 "\n", elapsed_us);
	}
	return bad ? EXIT_FAIL : 0;
}

/* ---- main ------------------------------------------------------------- */

static uint64_t ns_of(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000u + t->tv_nsec;
}

/* --pin: vCPU i on the (i mod n)-th of the n CPUs this process may run on. */
static void pin_vcpu(pthread_t thread, unsigned int i)
{
	cpu_set_t allowed, one;
	int n;

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		die(EXIT_USAGE, "--pin: sched_getaffinity: %s", strerror(errno));
	n = CPU_COUNT(&allowed);
	for (int cpu = 0, k = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed) || k++ != (int)(i % (unsigned int)n))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		errno = pthread_setaffinity_np(thread, sizeof(one), &one);
		if (errno)
			die(EXIT_USAGE, "--pin: cpu %d: %s", cpu, strerror(errno));
		return;
	}
}

static void start_vcpus(struct eg_vm *vm, const struct eg_opts *o)
{
	char name[24]; /* "exitgen-vcpu31" fits the kernel's 16 bytes */

	vm->vcpus = calloc(o->vcpus, sizeof(*vm->vcpus));
	if (!vm->vcpus)
		die(EXIT_USAGE, "out of memory");
	if (pthread_barrier_init(&vm->gate, NULL, o->vcpus + 1))
		die(EXIT_USAGE, "pthread_barrier_init failed");
	for (unsigned int i = 0; i < o->vcpus; i++) {
		struct eg_vcpu *v = &vm->vcpus[i];

		v->id = i;
		v->gate = &vm->gate;
		v->slow_reason = -1;
		setup_vcpu(vm, v, o);
		if (pthread_create(&v->thread, NULL, vcpu_main, v))
			die(EXIT_USAGE, "pthread_create failed");
		if (o->pin)
			pin_vcpu(v->thread, i);
		/* Named here, not by the thread, so the name is set before the header. */
		snprintf(name, sizeof(name), "exitgen-vcpu%u", i);
		pthread_setname_np(v->thread, name);
	}
}

/* --hog: spins until the vCPUs are done, on vCPU 0's CPU (the scheduler shares it between them). */
static atomic_bool g_hog_stop;

static void *hog_main(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&g_hog_stop, memory_order_relaxed))
		;
	return NULL;
}

static void start_hog(pthread_t *t)
{
	if (pthread_create(t, NULL, hog_main, NULL))
		die(EXIT_USAGE, "pthread_create failed (--hog)");
	pin_vcpu(*t, 0);
	pthread_setname_np(*t, "exitgen-hog");
}

static void stop_hog(pthread_t t)
{
	atomic_store(&g_hog_stop, true);
	pthread_join(t, NULL);
}

/* --vmm-log: every vCPU's records, "VCPU REASON NS" a line, in each vCPU's order. */
static void write_vmm_log(const struct eg_vm *vm, const struct eg_opts *o)
{
	FILE *f = fopen(o->vmm_log, "w");

	if (!f)
		die(EXIT_USAGE, "--vmm-log: %s: %s", o->vmm_log, strerror(errno));
	for (unsigned int i = 0; i < o->vcpus; i++)
		for (size_t k = 0; k < vm->vcpus[i].nvlog; k++)
			fprintf(f, "%u %s %" PRIu64 "\n", i, eg_exit_name(vm->vcpus[i].vlog[k].reason),
				vm->vcpus[i].vlog[k].ns);
	if (fclose(f))
		die(EXIT_USAGE, "--vmm-log: %s: %s", o->vmm_log, strerror(errno));
}

void eg_map_mark(struct eg_map *m, const char *name, uint64_t pc)
{
	if (m->n && m->sym[m->n - 1].pc == pc) {
		m->sym[m->n - 1].name = name;
		return;
	}
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 64;
		m->sym = realloc(m->sym, m->cap * sizeof(*m->sym));
		if (!m->sym)
			die(EXIT_USAGE, "out of memory (--guest-map)");
	}
	m->sym[m->n++] = (struct eg_sym){pc, name};
}

static int sym_cmp(const void *a, const void *b)
{
	const struct eg_sym *x = a, *y = b;

	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * --guest-map: System.map's "ADDR t NAME" lines, by address. O_NOFOLLOW:
 * exitgen runs as root, and a symbolic link planted at FILE must not send
 * the write elsewhere. Written before the first KVM_RUN, so a tracer can
 * read it while the guest runs.
 */
static void write_guest_map(struct eg_map *m, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");

	if (!f)
		die(EXIT_USAGE, "--guest-map: %s: %s", path, strerror(errno));
	qsort(m->sym, m->n, sizeof(*m->sym), sym_cmp);
	for (size_t i = 0; i < m->n; i++)
		if (!i || sym_cmp(&m->sym[i - 1], &m->sym[i]))
			fprintf(f, "%016" PRIx64 " t %s\n", m->sym[i].pc, m->sym[i].name);
	if (ferror(f) | fclose(f)) /* both: fclose must run either way */
		die(EXIT_USAGE, "--guest-map: %s: %s", path, strerror(errno));
}

/* Sleeps --start-delay, arms --seconds and opens the gate; returns the start. */
static struct timespec release_vcpus(struct eg_vm *vm, const struct eg_opts *o)
{
	struct timespec t0, delay = {o->start_delay_ms / 1000, o->start_delay_ms % 1000 * 1000000L};
	uint64_t end;

	while (nanosleep(&delay, &delay) < 0 && errno == EINTR)
		;
	if (o->start_on_usr1) {
		sigset_t usr1;
		int sig;

		/* blocked since before the vCPU threads existed (main), so only this waits */
		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigwait(&usr1, &sig);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	end = ns_of(&t0) + (uint64_t)(o->seconds * 1e9);
	g_deadline = (struct timespec){end / 1000000000u, end % 1000000000u};
	pthread_barrier_wait(&vm->gate);
	return t0;
}

/*
 * Waits for every vCPU thread; with --give-up, no longer than that past the
 * end of --seconds: a vCPU still running then fails the run, with its counts
 * so far (a guest looping on exits its kernel handles never comes back; read
 * while the thread may still count: a diagnostic, exact or one behind).
 */
static void join_vcpus(struct eg_vm *vm, const struct eg_opts *o)
{
	struct timespec limit;
	uint64_t end;
	int late = 0;

	clock_gettime(CLOCK_REALTIME, &limit); /* pthread_timedjoin_np's clock */
	end = ns_of(&limit) + (uint64_t)((o->seconds + o->give_up) * 1e9);
	limit = (struct timespec){end / 1000000000u, end % 1000000000u};
	for (unsigned int i = 0; i < o->vcpus; i++) {
		struct eg_vcpu *v = &vm->vcpus[i];

		if (!o->give_up) {
			pthread_join(v->thread, NULL);
			continue;
		}
		if (pthread_timedjoin_np(v->thread, NULL, &limit) != ETIMEDOUT)
			continue;
		fprintf(stderr,
			"exitgen: vcpu %u: unexpected: no end %g s after the start (passes %" PRIu64
			", KVM_EXIT_IO %" PRIu64 ", KVM_EXIT_MMIO %" PRIu64 ")\n",
			v->id, o->seconds + o->give_up, v->n.passes, v->n.exits[KVM_EXIT_IO],
			v->n.exits[KVM_EXIT_MMIO]);
		late = 1;
	}
	if (late)
		exit(EXIT_FAIL); /* the late threads still run: no report of half-counts */
}

int main(int argc, char **argv)
{
	struct eg_opts o;
	struct eg_vm vm = {0};
	struct timespec t0, t1;
	pthread_t hog;
	int rc;

	parse_opts(&o, argc, argv);
	g_opts = &o;
	setup_vm(&vm, &o);
	if (o.start_on_usr1) {
		sigset_t usr1;

		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	}
	start_vcpus(&vm, &o);
	if (o.guest_map)
		write_guest_map(&vm.map, o.guest_map);
	if (o.hog)
		start_hog(&hog);
	if (!o.quiet)
		print_header(&o);
	t0 = release_vcpus(&vm, &o);
	join_vcpus(&vm, &o);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (o.hog)
		stop_hog(hog);
	if (o.vmm_log)
		write_vmm_log(&vm, &o);
	rc = report(&vm, &o, (ns_of(&t1) - ns_of(&t0)) / 1000);
	for (unsigned int i = 0; i < o.vcpus; i++)
		free(vm.vcpus[i].vlog);
	free(vm.vcpus);
	free(vm.map.sym);
	return rc;
}
