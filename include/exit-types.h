/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exit_types/: the set of tables (exit-table.h) the tool knows, built in or
 * from a user's --exit-types FILE, read by one parser; and the events they
 * name, so that record, top and the decoder enable and bind the same list.
 * Format: kvm-exitstat-exit-types(5).
 */
#ifndef KES_EXIT_TYPES_H
#define KES_EXIT_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "event.h"
#include "exit-table.h"

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
 * The other names (`alias` lines) of the reason a table of set displays as
 * name, "DABT_LOW" for arm64's "TRAP_DABT_LOW": up to max into out (interned),
 * over every table; returns how many. For filters a user writes (top -f).
 */
size_t exit_types_aliases(const struct exit_types *set, const char *name, const char **out,
			  size_t max);

/* The name of a detail kind ("mmio"), "?" for none; and back (-1: no such kind). */
const char *exit_types_detail_name(enum kes_detail k);
int exit_types_detail_kind(const char *name);
/* The detail event (system, event) is, in any table, or NULL. */
const struct exit_detail *exit_types_detail(const struct exit_types *set, const char *system,
					    const char *event);
/*
 * The built-in detail events (exit_types/detail.types), for what is checked
 * without a set (a bucket map's tests). Parsed once; NULL if it does not parse.
 */
const struct exit_types *exit_types_builtin_details(void);
/* One built-in file ("ppc_timing.types") alone, parsed once; NULL if none or it does not parse. */
const struct exit_types *exit_types_builtin_file(const char *file);
/* What a kind's sub-key is called in views ("port", "gpa"); "key" when no event says. */
const char *exit_types_sub_label(const struct exit_types *set, enum kes_detail k);
/*
 * A sub-key as people read it, the label and the value in the event's base:
 * "port 0x80", "gpa 0xd0010", "msr 0xc0000080", "hcall 12". Into buf.
 */
const char *exit_types_sub_text(const struct exit_types *set, enum kes_detail k, uint64_t sub,
				char *buf, size_t len);
/* The kind whose sub-key a label names ("gpa": mmio), KES_D_NONE when none. */
enum kes_detail exit_types_sub_kind_of(const struct exit_types *set, const char *label);

/*
 * Is (system, event) a KVM tracepoint, by the tables' `tracepoints` lines?
 * system NULL: the input does not print it (tracefs, trace-cmd report).
 * Text input counts every line naming one: read, or not understood.
 */
bool exit_types_is_kvm_event(const struct exit_types *set, const char *system, const char *event);

/*
 * The one event list: the "system:event" names a collector enables and the
 * decoder binds, the exit and entry events of every table and the detail
 * events a view needs (EXIT_NEED_*; EXIT_NEED_ALL for a recording). Calls fn
 * once per distinct name.
 */
void exit_types_events(const struct exit_types *types, unsigned needs,
		       void (*fn)(const char *system, const char *event, void *arg), void *arg);
/* The same list as "system:event" strings (what a collector is given); *n of them. */
char **exit_types_event_names(const struct exit_types *types, unsigned needs, size_t *n);
void exit_types_event_names_free(char **names, size_t n);

/*
 * The printed forms of (system, event) in every table, in table and file
 * order, each once (x86_vmx and x86_svm print kvm_exit alike); system NULL:
 * not printed (tracefs text), any system. Fills forms[] and the table each
 * came from (its syms and aliases apply), at most max; returns how many.
 */
size_t exit_types_forms(const struct exit_types *set, const char *system, const char *event,
			const struct exit_form **forms, const struct exit_table **tables,
			size_t max);

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
