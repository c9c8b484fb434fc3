// SPDX-License-Identifier: GPL-2.0
/*
 * Pairing on hand-made event streams: two threads interleaved on one CPU
 * (same vcpu id 0 in two VMs), exits at the edges, losses, timestamps going
 * back, details attached to the right exit, userspace exits.
 */
#include "harness.h"
#include "common.h"
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

static void setup(bool with_sub)
{
	ex = stats_table_new();
	ux = stats_table_new();
	p = pair_new(ex, ux, with_sub);
}

static void teardown(void)
{
	pair_free(p);
	stats_table_free(ex);
	stats_table_free(ux);
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
	ev(1020, 30, KES_UEXIT, "KVM_EXIT_IO", -1);
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
			 const struct pair_details *d)
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
	setup(false);
	pair_set_namer(p, namer, NULL);
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
			       const struct pair_details *d)
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
	setup(false);
	pair_set_namer(p, value_namer, NULL);
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

int main(void)
{
	test_interleaved();
	test_lost_and_backwards();
	test_details_and_sub();
	test_namer();
	test_values();
	return test_summary("test_pair");
}
