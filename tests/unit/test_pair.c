// SPDX-License-Identifier: GPL-2.0
/*
 * Pairing on hand-made event streams: two threads interleaved on one CPU
 * (same vcpu id 0 in two VMs), exits at the edges, losses, timestamps going
 * back, details attached to the right exit, userspace exits.
 */
#include <stdlib.h>
#include "harness.h"
#include "intern.h"
#include "pair.h"

static struct stats_table *ex, *ux;
static struct pair *p;

static void ev(uint64_t ts, int32_t tid, int kind, const char *reason, int32_t vcpu)
{
	struct kes_event e = {.ts = ts,
			      .tid = tid,
			      .vcpu = vcpu,
			      .kind = (uint16_t)kind,
			      .reason = reason ? intern(reason) : NULL,
			      .isa = intern("x86_vmx")};
	pair_event(p, &e);
}

/* A userspace exit whose sub-key comes from a detail of kind `explain` (the decoder's job). */
static void uexit(uint64_t ts, int32_t tid, const char *reason, enum kes_detail explain)
{
	struct kes_event e = {.ts = ts,
			      .tid = tid,
			      .vcpu = -1,
			      .kind = KES_UEXIT,
			      .detail = (uint16_t)explain,
			      .reason = intern(reason),
			      .isa = intern("userspace")};
	pair_event(p, &e);
}

static void detail(uint64_t ts, int32_t tid, enum kes_detail k, uint64_t sub, uint32_t flags)
{
	struct kes_event e = {.ts = ts,
			      .tid = tid,
			      .vcpu = -1,
			      .kind = KES_DETAIL,
			      .detail = (uint16_t)k,
			      .sub = sub,
			      .flags = flags};
	pair_event(p, &e);
}

static void detail_v(uint64_t ts, int32_t tid, enum kes_detail k, uint64_t value)
{
	struct kes_event e = {.ts = ts,
			      .tid = tid,
			      .vcpu = -1,
			      .kind = KES_DETAIL,
			      .detail = (uint16_t)k,
			      .value = value};
	pair_event(p, &e);
}

static const struct stats_acc *get(struct stats_table *t, const char *name, int32_t tid,
				   int32_t vcpu)
{
	return stats_table_find(
	    t, &(struct stats_key){.name = intern(name), .tid = tid, .vcpu = vcpu});
}

/* The pair with o's views, over fresh tables ex and ux. */
static void setup_opts(struct pair_opts o)
{
	ex = stats_table_new();
	ux = stats_table_new();
	o.exits = ex;
	o.uexits = ux;
	p = pair_new(&o);
}

static void setup(bool with_sub)
{
	setup_opts((struct pair_opts){.with_sub = with_sub});
}

static void teardown(void)
{
	pair_free(p);
	stats_table_free(ex);
	stats_table_free(ux);
}

/*
 * Many threads on a few CPUs, every thread's exit open while the others'
 * events come: pair/ caches the thread of each CPU's last event, and its
 * thread table grows (64 slots, then more) with those cached pointers live.
 * Each thread's three exits take 1000 + i ns: counts and sums per thread.
 */
static void test_many_threads(void)
{
	enum { THREADS = 300, ROUNDS = 3 };
	int ok = 1;

	setup(false);
	for (uint64_t r = 0; r < ROUNDS; r++) {
		uint64_t base = 1000000 * (r + 1);

		for (int i = 0; i < THREADS; i++) {
			struct kes_event e = {.ts = base + (uint64_t)i,
					      .cpu = i % 4,
					      .tid = 1000 + i,
					      .vcpu = i % 8,
					      .kind = KES_EXIT,
					      .reason = intern("HLT"),
					      .isa = intern("x86_vmx")};
			pair_event(p, &e);
		}
		for (int i = 0; i < THREADS; i++) {
			struct kes_event e = {.ts = base + 1000 + 2 * (uint64_t)i,
					      .cpu = i % 4,
					      .tid = 1000 + i,
					      .vcpu = i % 8,
					      .kind = KES_ENTRY,
					      .isa = intern("x86_vmx")};
			pair_event(p, &e);
		}
	}
	pair_finish(p);
	for (int i = 0; i < THREADS; i++) {
		const struct stats_acc *a = get(ex, "HLT", 1000 + i, i % 8);

		ok &= a && a->count == ROUNDS && a->sum == ROUNDS * (1000 + (uint64_t)i);
	}
	CHECK(ok, "every thread's three exits, %d threads on 4 CPUs", THREADS);
	teardown();
}

static void test_interleaved(void)
{
	setup(false);
	/* thread 10 (VM A vcpu 0) and thread 20 (VM B vcpu 0) on the same CPU */
	ev(100, 10, KES_EXIT, "IO_INSTRUCTION", 0); /* leading exit: timed at its entry */
	ev(150, 20, KES_ENTRY, NULL, 0);	    /* leading entry: starts guest time */
	ev(200, 10, KES_ENTRY, NULL, 0);	    /* IO 100 */
	ev(260, 20, KES_EXIT, "HLT", 0);	    /* TIG 110 for 20 */
	ev(300, 10, KES_EXIT, "HLT", 0);	    /* TIG 100 for 10 */
	ev(330, 20, KES_ENTRY, NULL, 0);	    /* HLT 70 */
	ev(700, 10, KES_ENTRY, NULL, 0);	    /* HLT 400 */
	ev(800, 10, KES_EXIT, "EPT_MISCONFIG", 0);  /* open at the end: untimed */
	pair_finish(p);
	const struct stats_acc *a = get(ex, "IO_INSTRUCTION", 10, 0);
	CHECK(a && a->count == 1 && a->sum == 100, "IO on thread 10");
	a = get(ex, "HLT", 10, 0);
	CHECK(a && a->count == 1 && a->sum == 400, "HLT on thread 10");
	a = get(ex, "HLT", 20, 0);
	CHECK(a && a->count == 1 && a->sum == 70, "HLT on thread 20, same vcpu id");
	a = get(ex, "TIMEINGUEST", 10, 0);
	CHECK(a && a->count == 2 && a->sum == 200, "guest time thread 10: %llu",
	      a ? (unsigned long long)a->sum : 0);
	a = get(ex, "TIMEINGUEST", 20, 0);
	CHECK(a && a->count == 1 && a->sum == 110, "guest time thread 20");
	a = get(ex, "EPT_MISCONFIG", 10, 0);
	CHECK(a && a->count == 0 && a->untimed == 1, "trailing exit counted, not timed");
	struct pair_counts c;
	pair_get_counts(p, &c);
	CHECK(c.exits == 4 && c.untimed == 1 && c.backwards == 0, "counts");
	CHECK(stats_table_size(ux) == 0, "no userspace rows");
	teardown();
}

static void test_lost_and_backwards(void)
{
	setup(false);
	ev(100, 10, KES_EXIT, "HLT", 1);
	pair_lost(p);			 /* the entry may have been lost */
	ev(500, 10, KES_ENTRY, NULL, 1); /* must not time HLT as 400 */
	ev(600, 10, KES_EXIT, "HLT", 1);
	ev(550, 10, KES_ENTRY, NULL, 1); /* backwards: skipped, state reset */
	ev(700, 10, KES_ENTRY, NULL, 1); /* no open exit any more */
	pair_finish(p);
	const struct stats_acc *a = get(ex, "HLT", 10, 1);
	CHECK(a && a->count == 0 && a->untimed == 1,
	      "lost: untimed, never a made-up time (count %llu)",
	      a ? (unsigned long long)a->count : 0);
	struct pair_counts c;
	pair_get_counts(p, &c);
	CHECK(c.backwards == 1, "one backwards event");
	CHECK(c.untimed == 1, "untimed %llu", (unsigned long long)c.untimed);
	teardown();
}

static const struct stats_acc *usub(const char *name, uint64_t sub, enum kes_detail kind)
{
	const struct stats_acc *a = stats_table_find(ux, &(struct stats_key){.name = intern(name),
							.tid = 30,
							.vcpu = -1,
							.sub = sub,
							.has_sub = true});

	return a && a->sub_kind == kind ? a : NULL;
}

/* Which detail explains a userspace exit (pair.c's top comment), times by hand. */
static void test_userspace_explained(void)
{
	setup(true);
	/* an in-kernel PIO (read 0x92) before the one that made the exit (write 0x92) */
	ev(1000, 30, KES_UENTRY, NULL, -1);
	detail(1010, 30, KES_D_PIO, 0x92, 0);
	detail(1020, 30, KES_D_MMIO, 0xa0000, 1);
	detail(1030, 30, KES_D_PIO, 0x93, 1);
	uexit(1040, 30, "KVM_EXIT_IO", KES_D_PIO);
	/* an IN traced when the VMM has answered: after the re-entry */
	ev(1100, 30, KES_UENTRY, NULL, -1);
	detail(1105, 30, KES_D_EMULATE, 0xf000, 0);
	uexit(1200, 30, "KVM_EXIT_IO", KES_D_PIO);
	ev(1300, 30, KES_UENTRY, NULL, -1);
	detail(1310, 30, KES_D_PIO, 0x71, 0); /* the answer to the exit at 1200 */
	detail(1320, 30, KES_D_PIO, 0x80, 1); /* the next exit's own */
	uexit(1330, 30, "KVM_EXIT_IO", KES_D_PIO);
	/* a halt after an in-kernel PIO: nothing explains it */
	ev(1400, 30, KES_UENTRY, NULL, -1);
	detail(1410, 30, KES_D_PIO, 0x61, 1);
	uexit(1450, 30, "KVM_EXIT_HLT", KES_D_NONE);
	/* waiting for an answer that never comes: the next exit takes the sample, no sub-key */
	ev(1500, 30, KES_UENTRY, NULL, -1);
	uexit(1600, 30, "KVM_EXIT_MMIO", KES_D_MMIO);
	ev(1650, 30, KES_UENTRY, NULL, -1);
	uexit(1700, 30, "KVM_EXIT_HLT", KES_D_NONE);
	ev(1710, 30, KES_UENTRY, NULL, -1);
	pair_finish(p);
	const struct stats_acc *a = usub("KVM_EXIT_IO", 0x93, KES_D_PIO);
	CHECK(a && a->count == 1 && a->sum == 60, "the last PIO before the exit explains it");
	CHECK(!usub("KVM_EXIT_IO", 0x92, KES_D_PIO) && !usub("KVM_EXIT_IO", 0xa0000, KES_D_MMIO),
	      "earlier in-kernel accesses do not");
	a = usub("KVM_EXIT_IO", 0x71, KES_D_PIO);
	CHECK(a && a->count == 1 && a->sum == 100, "an IN answered after the re-entry");
	a = usub("KVM_EXIT_IO", 0x80, KES_D_PIO);
	CHECK(a && a->count == 1 && a->sum == 70, "the next exit keeps its own port");
	CHECK(!usub("KVM_EXIT_IO", 0xf000, KES_D_EMULATE), "an emulated rip is never a port");
	a = get(ux, "KVM_EXIT_HLT", 30, -1);
	CHECK(a && a->count == 2 && a->sum == 50 + 10, "halts have no sub-key (got %llu)",
	      a ? (unsigned long long)a->count : 0);
	CHECK(!usub("KVM_EXIT_HLT", 0x61, KES_D_PIO), "not the in-kernel PIO's port");
	a = get(ux, "KVM_EXIT_MMIO", 30, -1);
	CHECK(a && a->count == 1 && a->sum == 50, "no answer: timed, no sub-key");
	teardown();
}

static void test_details_and_sub(void)
{
	setup(true);
	/* exit mode: details come after the exit */
	ev(100, 10, KES_EXIT, "EPT_MISCONFIG", 0);
	detail(110, 10, KES_D_EMULATE, 0xfff0, 0);
	detail(120, 10, KES_D_MMIO, 0xfee00000, 1);
	ev(200, 10, KES_ENTRY, NULL, 0);
	/* a detail of another thread in between must not leak */
	ev(300, 10, KES_EXIT, "EPT_MISCONFIG", 0);
	detail(310, 20, KES_D_MMIO, 0x1000, 0);
	ev(320, 10, KES_ENTRY, NULL, 0);
	/* userspace mode: details come before the exit */
	ev(1000, 30, KES_UENTRY, NULL, -1);
	detail(1010, 30, KES_D_PIO, 0x80, 1);
	uexit(1020, 30, "KVM_EXIT_IO", KES_D_PIO);
	ev(1100, 30, KES_UENTRY, NULL, -1);
	pair_finish(p);
	const struct stats_acc *a =
	    stats_table_find(ex, &(struct stats_key){.name = intern("EPT_MISCONFIG"),
						     .tid = 10,
						     .vcpu = 0,
						     .sub = 0xfee00000,
						     .has_sub = true});
	CHECK(a && a->count == 1 && a->sum == 100, "the MMIO gpa outranks the emulated rip");
	a = get(ex, "EPT_MISCONFIG", 10, 0);
	CHECK(a && a->count == 1 && a->sum == 20, "no detail: no sub-key, none leaked from tid 20");
	a = stats_table_find(ux, &(struct stats_key){.name = intern("KVM_EXIT_IO"),
						     .tid = 30,
						     .vcpu = -1,
						     .sub = 0x80,
						     .has_sub = true});
	CHECK(a && a->count == 1 && a->sum == 80, "userspace exit: detail before the exit");
	a = get(ux, "TIMEINGUEST", 30, -1);
	CHECK(a && a->count == 1 && a->sum == 20, "userspace guest time");
	teardown();
}

static const char *namer(void *arg, const char *isa, const char *reason,
			 const struct kes_details *d)
{
	(void)arg;
	if (d->mask & (1u << KES_D_MMIO))
		return intern(d->flags & (1u << KES_D_MMIO) ? "MMIO_W" : "MMIO_R");
	if (d->mask & (1u << KES_D_EMULATE))
		return intern("EMULINST");
	return reason;
}

static void test_namer(void)
{
	setup_opts((struct pair_opts){.namer = namer});
	ev(100, 10, KES_EXIT, "EPT_MISCONFIG", 0);
	detail(110, 10, KES_D_EMULATE, 0, 0);
	detail(120, 10, KES_D_MMIO, 0, 1);
	ev(200, 10, KES_ENTRY, NULL, 0);
	ev(300, 10, KES_EXIT, "EPT_MISCONFIG", 0);
	detail(310, 10, KES_D_EMULATE, 0, 0);
	ev(350, 10, KES_ENTRY, NULL, 0);
	ev(400, 10, KES_EXIT, "HLT", 0);
	ev(450, 10, KES_ENTRY, NULL, 0);
	pair_finish(p);
	const struct stats_acc *a = get(ex, "MMIO_W", 10, 0);
	CHECK(a && a->count == 1 && a->sum == 100, "every detail counts, not only the first");
	a = get(ex, "EMULINST", 10, 0);
	CHECK(a && a->count == 1 && a->sum == 50, "emulation bucket");
	a = get(ex, "HLT", 10, 0);
	CHECK(a && a->count == 1, "unmatched keeps its reason");
	teardown();
}

/* "PF_<value>" (and "_M<value>" for an MMIO) from the first detail of each kind. */
static const char *value_namer(void *arg, const char *isa, const char *reason,
			       const struct kes_details *d)
{
	char buf[64];
	int n = 0;

	(void)arg;
	if (!(d->mask & (1u << KES_D_PF)))
		return reason;
	n = snprintf(buf, sizeof(buf), "PF_%llx", (unsigned long long)d->value[KES_D_PF]);
	if (d->mask & (1u << KES_D_MMIO))
		snprintf(buf + n, sizeof(buf) - (size_t)n, "_M%llx",
			 (unsigned long long)d->value[KES_D_MMIO]);
	return intern(buf);
}

/* Each kind's first value, per exit: a later one, or the previous exit's, never shows. */
static void test_values(void)
{
	setup_opts((struct pair_opts){.namer = value_namer});
	ev(100, 10, KES_EXIT, "EPT_VIOLATION", 0);
	detail_v(110, 10, KES_D_PF, 0x184);
	detail_v(115, 20, KES_D_PF, 0x4); /* another thread's: not this exit's */
	detail_v(120, 10, KES_D_PF, 0x2); /* the second fault of the exit */
	detail_v(130, 10, KES_D_MMIO, 2);
	ev(200, 10, KES_ENTRY, NULL, 0); /* PF_184_M2, 100 */
	ev(300, 10, KES_EXIT, "EPT_VIOLATION", 0);
	detail_v(310, 10, KES_D_PF, 0x19a);
	ev(400, 10, KES_ENTRY, NULL, 0); /* PF_19a, 100: no MMIO left from the last exit */
	ev(500, 10, KES_EXIT, "HLT", 0);
	ev(550, 10, KES_ENTRY, NULL, 0);  /* HLT: no fault left either */
	detail_v(560, 10, KES_D_PF, 0x7); /* in the guest: belongs to no exit */
	ev(600, 10, KES_EXIT, "HLT", 0);
	ev(620, 10, KES_ENTRY, NULL, 0);
	pair_finish(p);
	const struct stats_acc *a = get(ex, "PF_184_M2", 10, 0);
	CHECK(a && a->count == 1 && a->sum == 100, "first fault's value, first MMIO's value");
	a = get(ex, "PF_19a", 10, 0);
	CHECK(a && a->count == 1 && a->sum == 100, "the next exit's own value");
	a = get(ex, "HLT", 10, 0);
	CHECK(a && a->count == 2 && a->sum == 70, "no stale fault on later exits");
	CHECK(!get(ex, "PF_2", 10, 0) && !get(ex, "PF_4", 10, 0) && !get(ex, "PF_7", 10, 0),
	      "no other value");
	teardown();
}

/* A userspace exit whose reason implies a detail (exit_types/userspace.types `detail`). */
static void uexit_implies(uint64_t ts, int32_t tid, const char *reason, enum kes_detail k)
{
	struct kes_event e = {.ts = ts,
			      .tid = tid,
			      .vcpu = -1,
			      .kind = KES_UEXIT,
			      .implies = (uint16_t)k,
			      .reason = intern(reason),
			      .isa = intern("userspace")};
	pair_event(p, &e);
}

/*
 * KVM_EXIT_MMIO names the kvm_exit it ends MMIO, in both orders the real
 * kernels trace: HV (kvm_guest_exit, kvm_userspace_exit, kvm_guest_enter)
 * and PR (kvm_exit, kvm_book3s_reenter r=2, kvm_userspace_exit). Nothing
 * leaks to the exits after it, and guest time is untouched.
 */
static void test_uexit_details(void)
{
	setup_opts((struct pair_opts){.namer = namer});
	ev(100, 10, KES_EXIT, "H_DATA_STORAGE", 0); /* HV order */
	uexit_implies(150, 10, "KVM_EXIT_MMIO", KES_D_MMIO);
	ev(200, 10, KES_ENTRY, NULL, 0);
	ev(300, 10, KES_EXIT, "DATA_STORAGE", 0); /* PR order: the "entry" first */
	ev(320, 10, KES_ENTRY, NULL, 0);
	uexit_implies(330, 10, "KVM_EXIT_MMIO", KES_D_MMIO);
	ev(400, 10, KES_EXIT, "SYSCALL", 0); /* no userspace exit: its own name */
	ev(410, 10, KES_ENTRY, NULL, 0);
	ev(500, 10, KES_EXIT, "DATA_STORAGE", 0);
	ev(520, 10, KES_ENTRY, NULL, 0);
	uexit_implies(530, 10, "KVM_EXIT_PAPR_HCALL", KES_D_HCALL); /* not an mmio detail */
	ev(600, 10, KES_EXIT, "DATA_STORAGE", 0);
	ev(610, 10, KES_ENTRY, NULL, 0); /* counted at the end of the input */
	ev(700, 20, KES_ENTRY, NULL, 0);
	uexit_implies(710, 20, "KVM_EXIT_MMIO", KES_D_MMIO); /* no exit to explain */
	pair_finish(p);
	const struct stats_acc *a = get(ex, "MMIO_R", 10, 0);
	CHECK(a && a->count == 2 && a->sum == 120, "both orders are MMIO (count %llu sum %llu)",
	      a ? (unsigned long long)a->count : 0, a ? (unsigned long long)a->sum : 0);
	a = get(ex, "SYSCALL", 10, 0);
	CHECK(a && a->count == 1 && a->sum == 10, "a later exit keeps its name");
	a = get(ex, "DATA_STORAGE", 10, 0);
	CHECK(a && a->count == 2 && a->sum == 30, "no MMIO from a hypercall exit, none left over");
	a = get(ex, "TIMEINGUEST", 10, 0);
	CHECK(a && a->count == 4 && a->sum == 100 + 80 + 90 + 80,
	      "guest time unchanged (count %llu sum %llu)", a ? (unsigned long long)a->count : 0,
	      a ? (unsigned long long)a->sum : 0);
	CHECK(!get(ex, "MMIO_R", 20, -1) && !get(ex, "MMIO_R", 20, 0), "no exit made up");
	/*
	 * HV order: the entry ends the userspace exit (50). PR order: the guest
	 * exits again with the userspace exit open, re-entered unseen: untimed,
	 * never the 80 of guest time and SYSCALL handling up to the entry at 410.
	 */
	a = get(ux, "KVM_EXIT_MMIO", 10, 0); /* the vcpu id of the thread's exits */
	CHECK(a && a->count == 1 && a->sum == 50 && a->untimed == 1,
	      "userspace MMIO: count %llu sum %llu untimed %llu",
	      a ? (unsigned long long)a->count : 0, a ? (unsigned long long)a->sum : 0,
	      a ? (unsigned long long)a->untimed : 0);
	a = get(ux, "KVM_EXIT_PAPR_HCALL", 10, 0);
	CHECK(a && a->count == 0 && a->untimed == 1,
	      "PR order: the hypercall's userspace exit too");
	a = get(ux, "TIMEINGUEST", 10, 0);
	CHECK(a && a->count == 1 && a->sum == 130, "no userspace guest time after an untimed one");
	struct pair_counts c;
	pair_get_counts(p, &c);
	CHECK(c.exits == 5 && c.uexits == 4 && c.untimed == 3, "counts %llu %llu %llu",
	      (unsigned long long)c.exits, (unsigned long long)c.uexits,
	      (unsigned long long)c.untimed);
	teardown();
}

static const char *halt_namer(void *arg, const char *isa, const char *reason,
			      const struct kes_details *d)
{
	(void)arg;
	return d->mask & (1u << KES_D_HALT) ? intern("HALT") : reason;
}

/* An exit event that carries its own detail (book3s HV ceded=1), and only it. */
static void test_exit_detail(void)
{
	struct kes_event e = {.ts = 100,
			      .tid = 10,
			      .vcpu = 0,
			      .kind = KES_EXIT,
			      .detail = KES_D_HALT,
			      .reason = intern("RETURN_TO_HOST"),
			      .isa = intern("ppc_book3s_hv")};

	setup_opts((struct pair_opts){.with_sub = true, .namer = halt_namer});
	pair_event(p, &e);
	ev(400, 10, KES_ENTRY, NULL, 0);
	ev(500, 10, KES_EXIT, "RETURN_TO_HOST", 0);
	ev(520, 10, KES_ENTRY, NULL, 0);
	pair_finish(p);
	const struct stats_acc *a = get(ex, "HALT", 10, 0);
	CHECK(a && a->count == 1 && a->sum == 300, "the ceded exit is a halt");
	a = get(ex, "RETURN_TO_HOST", 10, 0);
	CHECK(a && a->count == 1 && a->sum == 20, "the next exit is not");
	teardown();
}

/*
 * An exit its table calls a halt (exit_types `halt`: x86 hlt, KVM_EXIT_HLT)
 * is one, kvm_vcpu_wakeup or not: the namer sees the halt bit, and
 * top --slower-than's outliers (threshold mode) leave it out.
 */
static void test_halt_flag(void)
{
	struct kes_event e = {.ts = 100,
			      .tid = 10,
			      .vcpu = 0,
			      .kind = KES_EXIT,
			      .flags = KES_EXIT_HALT,
			      .reason = intern("hlt"),
			      .isa = intern("x86_svm")};
	struct stats_outliers *o = stats_outliers_new(8, 50);
	struct stats_outlier *v;

	setup_opts((struct pair_opts){.with_sub = true, .namer = halt_namer, .outliers = {o}});
	pair_event(p, &e);
	ev(5100, 10, KES_ENTRY, NULL, 0);
	ev(5200, 10, KES_EXIT, "io", 0);
	ev(5400, 10, KES_ENTRY, NULL, 0);
	pair_finish(p);
	const struct stats_acc *a = get(ex, "HALT", 10, 0);
	CHECK(a && a->count == 1 && a->sum == 5000, "the hlt exit is a halt");
	a = get(ex, "io", 10, 0);
	CHECK(a && a->count == 1 && a->sum == 200, "the next exit is not");
	size_t n = stats_outliers_sorted(o, &v);
	CHECK(n == 1 && v[0].ns == 200, "--slower-than 50 ns keeps the io exit, not the 5000 ns halt (%zu)",
	      n);
	free(v);
	stats_outliers_free(o);
	teardown();
}

/*
 * Where no kvm_fpu marks KVM_RUN again (arm64, riscv), the next kvm_entry of
 * the thread ends its userspace exit; on x86 kvm_fpu comes first and the
 * entry after it changes nothing. Sequences as Debian 6.1 recorded them in
 * the lab (arm64: kvm_exit DABT_LOW, kvm_userspace_exit MMIO, kvm_entry).
 */
static void test_userspace_closed_by_entry(void)
{
	setup(false);
	ev(100, 40, KES_ENTRY, NULL, -1);
	ev(200, 40, KES_EXIT, "TRAP_DABT_LOW", -1);
	ev(210, 40, KES_UEXIT, "KVM_EXIT_MMIO", -1);
	ev(300, 40, KES_ENTRY, NULL, -1);	 /* MMIO userspace 90, DABT 100 */
	ev(400, 40, KES_EXIT, "TRAP_HVC64", -1); /* in-kernel: the userspace TIG goes on */
	ev(410, 40, KES_ENTRY, NULL, -1);
	ev(500, 40, KES_EXIT, "TRAP_DABT_LOW", -1);
	ev(505, 40, KES_UEXIT, "KVM_EXIT_MMIO", -1); /* userspace TIG 505 - 300 */
	ev(600, 40, KES_ENTRY, NULL, -1);	     /* MMIO userspace 95 */
	ev(700, 40, KES_EXIT, "TRAP_DABT_LOW", -1);
	ev(710, 40, KES_UEXIT, "KVM_EXIT_MMIO", -1); /* the last: never re-entered */
	/* x86: kvm_fpu load (UENTRY) ends the exit, the entry after it is a no-op */
	ev(100, 50, KES_UEXIT, "KVM_EXIT_IO", -1);
	ev(130, 50, KES_UENTRY, NULL, -1); /* IO 30 */
	ev(160, 50, KES_ENTRY, NULL, -1);
	ev(200, 50, KES_EXIT, "IO_INSTRUCTION", -1);
	ev(210, 50, KES_UEXIT, "KVM_EXIT_IO", -1); /* userspace TIG 210 - 130 */
	pair_finish(p);
	const struct stats_acc *m = get(ux, "KVM_EXIT_MMIO", 40, -1);
	CHECK(m && m->count == 2 && m->untimed == 1 && m->sum == 185,
	      "userspace MMIO timed by kvm_entry: count %llu untimed %llu sum %llu",
	      m ? (unsigned long long)m->count : 0, m ? (unsigned long long)m->untimed : 0,
	      m ? (unsigned long long)m->sum : 0);
	const struct stats_acc *g = get(ux, KES_TIMEINGUEST, 40, -1);
	CHECK(g && g->count == 2 && g->sum == 205 + 110,
	      "userspace TIMEINGUEST spans the in-kernel exit: count %llu sum %llu",
	      g ? (unsigned long long)g->count : 0, g ? (unsigned long long)g->sum : 0);
	const struct stats_acc *x = get(ex, "TRAP_DABT_LOW", 40, -1);
	CHECK(x && x->count == 2 && x->untimed == 1, "the kvm_exit machine is unchanged");
	const struct stats_acc *io = get(ux, "KVM_EXIT_IO", 50, -1);
	CHECK(io && io->count == 1 && io->sum == 30 && io->untimed == 1,
	      "x86: kvm_fpu times the exit, the kvm_entry after it does not (sum %llu)",
	      io ? (unsigned long long)io->sum : 0);
	const struct stats_acc *g5 = get(ux, KES_TIMEINGUEST, 50, -1);
	CHECK(g5 && g5->count == 1 && g5->sum == 80, "x86: userspace TIMEINGUEST from kvm_fpu");
	teardown();
}

/*
 * Back-to-back userspace exits (riscv, arm64: no kvm_fpu): KVM_RUN was called
 * again and returned -EINTR before entering the guest, so the first exit is
 * timed until the second; the order the lab's 6.12 riscv kernel traced.
 */
static void test_uexit_back_to_back(void)
{
	setup(false);
	ev(100, 60, KES_ENTRY, NULL, -1);
	ev(200, 60, KES_EXIT, "EXC_STORE_GUEST_PAGE_FAULT", -1);
	uexit_implies(210, 60, "KVM_EXIT_MMIO", KES_D_MMIO);
	uexit_implies(240, 60, "restart", KES_D_NONE); /* MMIO 30 */
	uexit_implies(290, 60, "restart", KES_D_NONE); /* restart 50 */
	ev(300, 60, KES_ENTRY, NULL, -1);      /* restart 10; the store 100 */
	ev(400, 60, KES_EXIT, "EXC_STORE_GUEST_PAGE_FAULT", -1);
	uexit_implies(410, 60, "KVM_EXIT_MMIO", KES_D_MMIO); /* the last: untimed */
	pair_finish(p);
	const struct stats_acc *m = get(ux, "KVM_EXIT_MMIO", 60, -1);
	CHECK(m && m->count == 1 && m->untimed == 1 && m->sum == 30,
	      "MMIO timed until the restart");
	const struct stats_acc *r = get(ux, "restart", 60, -1);
	CHECK(r && r->count == 2 && r->untimed == 0 && r->sum == 60, "restarts timed");
	const struct stats_acc *g = get(ux, KES_TIMEINGUEST, 60, -1);
	/* From the entry after the restarts; the first entry opened nothing. */
	CHECK(g && g->count == 1 && g->sum == 110, "no guest time between the restarts");
	const struct stats_acc *x = get(ex, "EXC_STORE_GUEST_PAGE_FAULT", 60, -1);
	CHECK(x && x->count == 1 && x->sum == 100 && x->untimed == 1,
	      "the kvm_exit side as before");
	struct pair_counts c;
	pair_get_counts(p, &c);
	CHECK(c.uexits == 4 && c.untimed == 2, "untimed: the last exit of each machine (%llu)",
	      (unsigned long long)c.untimed);
	teardown();
}

int main(void)
{
	test_userspace_closed_by_entry();
	test_interleaved();
	test_many_threads();
	test_lost_and_backwards();
	test_details_and_sub();
	test_userspace_explained();
	test_namer();
	test_values();
	test_uexit_details();
	test_exit_detail();
	test_halt_flag();
	test_uexit_back_to_back();
	return test_summary("test_pair");
}
