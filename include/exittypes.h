/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exit_types/: per-ISA tables that say which tracepoint carries an exit, which
 * field holds the reason, and what each number is called. The same parser reads
 * the files built into the binary and a user's --exit-types FILE.
 * Format: kvm-exitstat-exit-types(5).
 */
#ifndef KES_EXITTYPES_H
#define KES_EXITTYPES_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

enum exit_table_kind {
	EXIT_TABLE_EXIT,      /* exit/entry pairs: handling time and TIMEINGUEST */
	EXIT_TABLE_USERSPACE, /* exits that reach the VMM: time until KVM_RUN again */
	EXIT_TABLE_NAMES,     /* a list of names only (the KVM-PPC timing types) */
};

struct exit_name {
	uint64_t key;
	const char *name; /* interned */
};

struct exit_match {
	const char *field; /* NULL: no condition */
	int64_t value;
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

	const char *entry_system, *entry_event; /* NULL when there is none */
	struct exit_match entry_match;

	struct exit_name *names; /* sorted by key */
	size_t nnames;
	struct exit_name *flags; /* bits above reason_mask, e.g. FAILED_VMENTRY */
	size_t nflags;
	struct exit_name *errnames; /* userspace: -errno -> name ("restart" for EINTR) */
	size_t nerrnames;
};

struct exit_types {
	struct exit_table *tables;
	size_t n;
};

/*
 * Parse one data file's text and add its table(s) to set: a table whose isa is
 * already in set replaces that table, others are appended. All or nothing: on
 * error set is unchanged, the function returns -1 and writes
 * "origin:line: message" into errbuf (which may be NULL).
 */
int exit_types_parse(struct exit_types *set, const char *text, const char *origin, char *errbuf,
		     size_t errlen);
/* The same for a buffer of len bytes that need not end in NUL (NUL bytes are an error). */
int exit_types_parse_mem(struct exit_types *set, const char *buf, size_t len, const char *origin,
			 char *errbuf, size_t errlen);
/* Append every table built into the binary. Returns 0 or -1. */
int exit_types_load_builtin(struct exit_types *set, char *errbuf, size_t errlen);
/* Read and parse a file. A table with the same isa replaces the built-in one. */
int exit_types_load_file(struct exit_types *set, const char *path, char *errbuf, size_t errlen);
void exit_types_free(struct exit_types *set);
const struct exit_table *exit_types_find(const struct exit_types *set, const char *isa);

/*
 * Userspace tables: the key of a KVM_RUN that failed with -errno is
 * EXIT_KEY_ERRNO | errno (EINTR: "restart" through `errname 4 restart`).
 */
#define EXIT_KEY_ERRNO (1ULL << 63)

/* Name for key, or NULL when the table does not know it. */
const char *exit_table_name(const struct exit_table *t, uint64_t key);
/*
 * Reverse lookup (text input prints names): 0 and *key set, or -1. Takes what
 * exit_table_display() prints without flags: a name, "UNKNOWN(0x83)", and for
 * userspace tables an errname or "error(N)".
 */
int exit_table_key(const struct exit_table *t, const char *name, uint64_t *key);
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

/*
 * The files of exit_types/ as built into the binary; tools/embed-exit-types.sh
 * generates the array, exit_types_load_builtin() parses it.
 */
struct exit_types_builtin_file {
	const char *file; /* "x86_vmx.types" */
	const char *text;
};
extern const struct exit_types_builtin_file exit_types_builtin[];
extern const size_t exit_types_builtin_n;

#endif
