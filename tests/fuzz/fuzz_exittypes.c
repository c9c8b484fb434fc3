// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: exit_types data files (a user's --exit-types FILE). A table
 * that parses is then used the way the tool uses it: names looked up both
 * ways, keys composed from raw values, and a short text trace decoded with
 * it, so masks, shifts and flag bits from the file reach the decoder.
 */
#include <string.h>
#include "fuzz.h"
#include "pair.h"
#include "text.h"

static const char trace[] =
    "CPU 0/KVM-4102 [001] d.... 100.000001: kvm_exit: reason EPT_MISCONFIG rip 0xfff0 info 0 0\n"
    "CPU 0/KVM-4102 [001] d.... 100.000002: kvm_mmio: mmio write len 1 gpa 0xd0010 val 0x0\n"
    "CPU 0/KVM-4102 [001] d.... 100.000003: kvm_entry: vcpu 0, rip 0xfff3\n"
    "CPU 0/KVM-4102 [001] d.... 100.000004: kvm_exit: vcpu 0 reason 0x83 rip 0x1 info 0 0\n"
    "CPU 0/KVM-4102 [001] d.... 100.000005: kvm_userspace_exit: reason KVM_EXIT_IO (2)\n"
    "CPU 0/KVM-4102 [001] d.... 100.000006: kvm_fpu: load\n"
    "CPU 0/KVM-4102 [001] d.... 100.000007: kvm_userspace_exit: reason restart (4)\n"
    "CPU 0/KVM-4102 [001] d.... 100.000008: kvm_exit: ret 1 esr_ec 0x16 vcpu_pc 0x1\n"
    "CPU 0/KVM-4102 [001] d.... 100.000009: kvm_exit: reason 3 trap 0x500\n"
    "CPU 0/KVM-4102 [001] d.... 100.000010: kvm_exit: [FAILED TO PARSE] exit_reason=48 "
    "guest_rip=0x1 isa=1 info1=0 info2=0 intr_info=0 error_code=0 vcpu_id=1\n"
    "CPU 0/KVM-4102 [001] d.... 100.000011: kvm_userspace_exit: [FAILED TO PARSE] reason=6 "
    "errno=-4\n";

static void use_table(const struct exit_table *t)
{
	static const uint64_t raw[] = {0, 1, 2, 30, 0x83, 0x80000021, ~0ULL, 1ULL << 63};
	uint64_t key, flags;

	for (size_t i = 0; i < ARRAY_SIZE(raw); i++) {
		exit_table_compose(t, raw[i], raw[i] >> 3, -(int64_t)(raw[i] & 0xff), &key, &flags);
		const char *name = exit_table_display(t, NULL, 0, key, flags);
		exit_table_key_flags(t, name, &key, &flags);
		exit_table_name(t, raw[i]);
	}
	for (size_t i = 0; i < t->nnames; i++)
		exit_table_key(t, t->names[i].name, &key);
}

static int on_event(void *arg, const struct kes_event *ev)
{
	pair_event(arg, ev);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct exit_types set = {0};
	char e[256];

	/* Twice: the second parse replaces the tables of the first (same isa). */
	for (int pass = 0; pass < 2; pass++)
		if (exit_types_parse_mem(&set, (const char *)data, size, "fuzz", e, sizeof(e)) < 0)
			goto out;
	for (size_t i = 0; i < set.n; i++)
		use_table(&set.tables[i]);

	struct stats_table *exits = stats_table_new(), *uexits = stats_table_new();
	struct pair *p =
	    pair_new(&(struct pair_opts){.exits = exits, .uexits = uexits, .with_sub = true});
	struct text_ops ops = {.event = on_event, .arg = p};

	text_read_mem(trace, strlen(trace), &set, &ops, NULL, e, sizeof(e));
	pair_finish(p);
	pair_free(p);
	stats_table_free(exits);
	stats_table_free(uexits);
out:
	exit_types_free(&set);
	return 0;
}
