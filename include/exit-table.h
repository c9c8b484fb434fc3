/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One exit table of exit_types/ (one ISA or printer): which tracepoint carries
 * an exit, which field holds the reason, and what each number is called;
 * and the lookups on it: key -> name, name -> key, raw fields -> key.
 * Format: kvm-exitstat-exit-types(5).
 */
#ifndef KES_EXIT_TABLE_H
#define KES_EXIT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum exit_table_kind {
	EXIT_TABLE_EXIT,      /* exit/entry pairs: handling time and TIMEINGUEST */
	EXIT_TABLE_USERSPACE, /* exits that reach the VMM: time until KVM_RUN again */
	EXIT_TABLE_NAMES,     /* a list of names only (the KVM-PPC timing types) */
	EXIT_TABLE_EVENTS,    /* detail events only (what the host did during an exit) */
};

struct exit_name {
	uint64_t key;
	const char *name; /* interned */
};

struct exit_match {
	const char *field; /* NULL: no condition */
	int64_t value;
};

/*
 * A detail event: which tracepoint says what the host did while it handled
 * an exit, its kind (the vocabulary bucket maps and pair/ use: mmio, pio,
 * ...), the field that gives the sub-key, and the field whose value (and bit
 * mask: the flag, 0 for none) the kind's flag and value tests read.
 */
struct exit_detail {
	const char *system, *event; /* interned */
	int kind;		    /* enum kes_detail */
	const char *sub_field;
	const char *flag_field; /* optional: decoded whole into kes_event.value */
	uint64_t flag_mask;	/* flags = (value & mask) != 0; 0: no fixed flag */
	const char *label;	/* what the sub-key is called in views ("port"); the field's name */
	unsigned base;		/* how its value is shown: 16 (0x80), or 10 (hypercall numbers) */
	unsigned need;		/* EXIT_NEED_*: traced only when a view needs it; 0: always */
};

/* What a view needs beyond exits (exit_types_events()). */
enum {
	/*
	 * A view reads detail events at all (sub-keys, buckets, single slow
	 * exits): without it the list is the exit and entry events alone, as
	 * pair/ reads no detail then (pair_reads_details()).
	 */
	EXIT_NEED_DETAILS = 1 << 0,
	EXIT_NEED_BUCKETS = 1 << 1, /* timing buckets read more detail events */
	EXIT_NEED_ALL = ~0u,	    /* a recording keeps everything */
};

/*
 * How a text printer shows an event (ftrace text, trace-cmd report, perf
 * script): the event's TP_printk as a pattern, `%{field:conv}` where a
 * field's value is printed (conv: u, d, x, s a symbol). Matched by
 * decode/decode-form.c; a table's syms name the values of its symbols, its
 * aliases are other printers' names for its reasons.
 */
struct exit_form {
	const char *system, *event; /* interned */
	const char *pattern;	    /* interned */
	const char *fixup;	    /* NULL, or what a pattern cannot say (EXIT_FIXUPS) */
	bool aliases;		    /* the reason may be printed by an alias (a plugin's name) */
};

/* The fixups the text reader knows: kvm_userspace_exit's errno, kvm_emulate_insn's failed. */
#define EXIT_FIXUPS "userspace-errno", "emulate-failed"

struct exit_sym {
	const char *field, *name; /* interned */
	uint64_t value;
};

struct exit_table {
	const char *isa;      /* "x86_vmx", "arm64", "userspace", ... */
	const char *describe; /* one line, or NULL */
	const char *origin;   /* file it came from ("builtin:x86_vmx.types" or a path) */
	enum exit_table_kind kind;

	const char *exit_system, *exit_event; /* "kvm", "kvm_exit" */
	const char *reason_field;	      /* "exit_reason" */
	uint64_t reason_mask;		      /* applied first; ~0 when not given */
	const char *sub_field;		      /* arm64 esr_ec: key = reason << sub_shift | sub */
	unsigned sub_shift;
	const char *error_field; /* userspace: errno < 0 overrides the reason */
	struct exit_match match; /* only events whose field == value */
	const char *vcpu_field;	 /* NULL when the event has no vcpu id */
	/* exit tables: when this field is non-zero the exit has detail detail_kind */
	const char *detail_field, *detail_kind;
	/*
	 * exit tables: for exits whose key is one of subkey_keys, subkey_field
	 * is their sub-key (book3s PR's dar: the address a DATA_STORAGE faulted on);
	 * with subkey_shift, subkey_field << shift | subkey_low_field's low bits
	 * (riscv: htval holds a guest-page fault's address >> 2, stval the rest)
	 */
	const char *subkey_field, *subkey_low_field;
	unsigned subkey_shift;
	uint64_t subkey_keys[6];
	unsigned nsubkey_keys;

	/*
	 * exit tables: the field holding the guest's program counter at the exit
	 * (`pc`: report --by-guest), or NULL; pc_kernel: the lowest guest-kernel
	 * address (0: the layout does not say)
	 */
	const char *pc_field;
	uint64_t pc_kernel;

	const char *entry_system, *entry_event; /* NULL when there is none */
	/*
	 * A second entry event, or NULL: LoongArch enters the guest again by
	 * kvm_reenter when the kernel handled the exit, by kvm_enter when it went
	 * through the VMM (perf's kvm-stat-loongarch.c ends an exit at either).
	 */
	const char *entry_system2, *entry_event2;
	struct exit_match entry_match;

	struct exit_name *names; /* sorted by key */
	size_t nnames;
	struct exit_name *flags; /* bits above reason_mask, e.g. FAILED_VMENTRY */
	size_t nflags;
	struct exit_name *errnames; /* userspace: -errno -> name ("restart" for EINTR) */
	size_t nerrnames;
	/*
	 * userspace: reason -> the detail kind ("mmio", "pio", "hypercall") that
	 * such an exit says the kvm_exit before it on its thread was: the exit
	 * that KVM handed to the VMM (`detail KEY KIND`; sorted by key; name is
	 * the interned kind). Not `explain`: that one says which detail event
	 * gives the userspace exit itself its sub-key.
	 */
	struct exit_name *implies;
	size_t nimplies;

	struct exit_detail *details; /* kind events: the detail events */
	size_t ndetails;
	struct exit_form *forms; /* in file order: the first that matches wins */
	size_t nforms;
	struct exit_sym *syms; /* values of the symbols the forms print */
	size_t nsyms;
	struct exit_name *aliases; /* other printers' names for reasons (key: the reason) */
	size_t naliases;
	/*
	 * `explain KEY KIND`: the detail kind whose event explains an exit of
	 * KEY and gives its sub-key (KVM_EXIT_IO: pio); name = the kind's name
	 * (exit_types_detail_name()), interned. Sorted by key. pair.c says how.
	 */
	struct exit_name *explains;
	size_t nexplains;
	/* `halt KEY...`: exits that are halts (the vCPU idles), sorted by key. */
	struct exit_name *halts;
	size_t nhalts;
	/*
	 * `tracepoints`: which event names are KVM tracepoints in text input
	 * ("kvm:*" a system, "kvm_*" a name prefix, or a name), interned.
	 */
	const char **tracepoints;
	size_t ntracepoints;
};

/*
 * Userspace tables: the key of a KVM_RUN that failed with -errno is
 * EXIT_KEY_ERRNO | errno (EINTR: "restart" through `errname 4 restart`).
 */
#define EXIT_KEY_ERRNO (1ULL << 63)

/*
 * The interned detail kind name ("mmio") a userspace exit of this key implies
 * for the kvm_exit it ends (directive `detail`, t->implies), or NULL.
 */
const char *exit_table_detail(const struct exit_table *t, uint64_t key);

/* Whether an exit of this key takes its sub-key from t->subkey_field. */
bool exit_table_has_subkey(const struct exit_table *t, uint64_t key);
/* The sub-key from the values of subkey_field and subkey_low_field. */
uint64_t exit_table_subkey(const struct exit_table *t, uint64_t field, uint64_t low);

/* Name for key, or NULL when the table does not know it. */
const char *exit_table_name(const struct exit_table *t, uint64_t key);
/* Whether an exit of key is a halt (`halt`): top --slower-than leaves it out. */
bool exit_table_is_halt(const struct exit_table *t, uint64_t key);
/* The detail kind that explains an exit of key (`explain`), KES_D_NONE when none does. */
enum kes_detail exit_table_explain(const struct exit_table *t, uint64_t key);
/*
 * Reverse lookup (text input prints names): 0 and *key set, or -1. Takes what
 * exit_table_display() prints without flags: a name, "UNKNOWN(0x83)", and for
 * userspace tables an errname or "error(N)".
 */
int exit_table_key(const struct exit_table *t, const char *name, uint64_t *key);
/*
 * exit_table_key(), or else one of the table's `alias` names (arm64's bare
 * exception classes, "DABT_LOW" for TRAP_DABT_LOW): for names a user writes.
 */
int exit_table_key_alias(const struct exit_table *t, const char *name, uint64_t *key);
/* The same for a whole display string, "INVALID_STATE|FAILED_VMENTRY" included. */
int exit_table_key_flags(const struct exit_table *t, const char *display, uint64_t *key,
			 uint64_t *flagbits);
/*
 * The interned display name for a key and flag bits from exit_table_compose():
 * the name, "|NAME" for each known flag, "|0x..." for other set bits above the
 * mask ("INVALID_STATE|FAILED_VMENTRY"); "UNKNOWN(0x83)" for an unnamed key.
 * `over` may supply names taken from the recording's own format file (they
 * win; sorted by key); may be NULL.
 */
const char *exit_table_display(const struct exit_table *t, const struct exit_name *over,
			       size_t nover, uint64_t key, uint64_t flagbits);

/*
 * The ONE place where raw field values become a table key: applies
 * reason_mask, composes the sub-field (key = reason << sub_shift | sub), and
 * for userspace tables turns a negative error into EXIT_KEY_ERRNO | -error.
 * *flagbits gets the reason bits above the mask (FAILED_VMENTRY). The decoder (binary
 * records) and the text reader both call it.
 */
void exit_table_compose(const struct exit_table *t, uint64_t reason, uint64_t sub, int64_t error,
			uint64_t *key, uint64_t *flagbits);

#endif
