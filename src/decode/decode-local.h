/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to decode/: exit names from a recording's own __print_symbolic()
 * tables (symbolic.c); the printed forms of text events (decode-form.c) and
 * the text side of the decoder (decode-text.c).
 */
#ifndef KES_DECODE_LOCAL_H
#define KES_DECODE_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "event.h"
#include "exit-types.h"

struct tep_event;

/*
 * Fills *out (sorted by key, malloc'ed, names interned) with the names the
 * event's print fmt gives the table's reason field, or sets it to NULL/0.
 */
void symbolic_names(struct tep_event *ev, const struct exit_table *t, struct exit_name **out,
		    size_t *n);

/* ---- roles: what an event is to the tables (both sides of the decoder) ---- */

#define DECODE_MAX_TABLES 8
#define DECODE_ROLE_NONE  0xff

/*
 * An event is the exit (or userspace exit) of the tables that name it so,
 * else the entry of those that name it so, else a detail event, else
 * nothing: the first kind wins, tables in set order (kvm_exit: VMX, SVM).
 */
struct decode_role {
	uint8_t role; /* enum kes_kind, or DECODE_ROLE_NONE */
	const struct exit_table *t[DECODE_MAX_TABLES];
	size_t nt;
	const struct exit_detail *detail; /* KES_DETAIL */
};

/*
 * What a table says of an exit's key besides its name: the detail kind that
 * explains it, the one it implies (exit-table.h), whether it is a halt. Both
 * sides of the decoder keep them with the name they show.
 */
struct decode_kinds {
	uint16_t explain, implies; /* enum kes_detail */
	bool halt;
};

void decode_exit_kinds(const struct exit_table *t, uint64_t key, struct decode_kinds *k);

/* system NULL: any system (text that does not print it). */
void decode_role_of(const struct exit_types *types, const char *system, const char *event,
		    struct decode_role *r);

/* ---- printed forms ---- */

#define TEXT_MAX_FIELDS 8

struct text_field {
	const char *name; /* not NUL-terminated: it may point into a pattern */
	size_t name_len;
	bool has_num;
	uint64_t num;
	const char *text; /* the printed symbol, when the form prints one */
	size_t text_len;
	bool word; /* read by a trimmed line's form (conv w): only a name a table knows counts */
};

struct text_fields {
	struct text_field v[TEXT_MAX_FIELDS];
	int n;
	bool kernel_symbols; /* symbol texts are the kernel's own __print_symbolic names */
	bool aliases;	     /* the reason may be another printer's name (a table's aliases) */
};

#define TEXT_MAX_FORMS 16 /* printed forms of one event, over every table */

/*
 * Captures a form may have: a field printed twice (s390's "icptcode %d (%s)")
 * is two captures of one field; a pattern with more is never matched.
 */
#define TEXT_FORM_CAPS 8

/*
 * A literal's blanks (one blank matches a run of them): none, or none next
 * to another, where a byte-for-byte compare that matches is the answer, or
 * some in a row.
 */
enum text_lit { TEXT_LIT_PLAIN, TEXT_LIT_BLANKS, TEXT_LIT_RUNS };

/* One "%{name:c}" of a pattern and the literal after it, read once (text_forms_find()). */
struct text_cap {
	const char *name; /* interned, as the tables' field names are: pointers compare */
	uint16_t lit_at;  /* the literal after it: its offset in the pattern, its length */
	uint16_t lit_len;
	uint8_t name_len;
	char conv;
	uint8_t slot; /* its field in text_fields.v: a field's first capture makes it */
	uint8_t shape; /* the literal's enum text_lit */
};

/*
 * A printed form (exit_types data), the table it came from (its syms and
 * aliases), and its pattern compiled: text_form_match() reads the pattern
 * for every line of a trace, and taking the "%{...}" apart each time was
 * most of a line's matching (callgrind).
 */
struct text_form {
	const struct exit_form *f;
	const struct exit_table *t;
	void (*fixup)(const char *payload, struct text_fields *f);
	uint16_t lit0_len; /* the literal before the first capture (at the pattern's start) */
	uint8_t shape0;
	bool bad; /* a pattern this reader cannot take: it matches nothing */
	uint8_t ncap;
	struct text_cap cap[TEXT_FORM_CAPS];
};

/* The printed forms known for an event (system NULL: not printed), at most max; how many. */
size_t text_forms_find(const struct exit_types *types, const char *system, const char *event,
		       struct text_form *out, size_t max);
/* Fills f from payload when it has this form: 0, or -1. */
int text_form_match(const struct text_form *form, const char *payload, struct text_fields *f);
/* Last resort for events without a known form: "field=value" / "field value" pairs. */
void text_fields_generic(const char *payload, const char *const *names, size_t n,
			 struct text_fields *f);
const struct text_field *text_field_named(const struct text_fields *f, const char *name);

/*
 * The field of that name, or NULL. A line asks for four to fifteen fields,
 * by the C strings of exit_types/, interned as a form's field names are: the
 * pointer finds them, inline (the calls were a twentieth of a text line's
 * instructions: callgrind). Other names are compared (text_field_named()).
 */
static inline const struct text_field *text_field_get(const struct text_fields *f, const char *name)
{
	for (int i = 0; i < f->n; i++)
		if (f->v[i].name == name)
			return &f->v[i];
	return text_field_named(f, name);
}

/* ---- sched.c: the scheduler's and interrupts' events (--anatomy) ---- */

/* One of them: the fields each side reads (NULL: none). */
struct sched_event {
	const char *sys, *name;
	enum kes_sched what;
	const char *tid;   /* -> kes_event.tid (NULL: common_pid) */
	const char *sub;   /* -> sub */
	const char *value; /* -> value */
	const char *comm;  /* -> reason */
	const char *comm2; /* -> isa */
};

/* The halt's own event (a detail event, exit_types/detail.types) and the field of its length. */
#define SCHED_HALT_SYS	 "kvm"
#define SCHED_HALT_EVENT "kvm_vcpu_wakeup"
#define SCHED_HALT_NS	 "ns"

/* system NULL: any. NULL when (sys, name) is none of them. */
const struct sched_event *sched_event_find(const char *sys, const char *name);
/* The i-th, NULL past the last. */
const struct sched_event *sched_event_at(size_t i);

/* Thread names, interned once each, a bounded number of them (sched.c says why). */
struct sched_comms;
struct sched_comms *sched_comms_new(void);
void sched_comms_free(struct sched_comms *c);
/* The name in s[0, len) (up to a NUL), interned; "?" past the bound. */
const char *sched_comm(struct sched_comms *c, const char *s, size_t len);
/* A printed event of e into ev (its common part set): 1, or -1 when it does not parse. */
int sched_text(struct sched_comms *c, const struct sched_event *e, const char *payload,
	       struct kes_event *ev);

/* ---- decode-text.c: the text side of the decoder ---- */

struct text_decoder;

struct text_decoder *text_decoder_new(const struct exit_types *types);
void text_decoder_free(struct text_decoder *d);
void text_decoder_set_plugin_names(struct text_decoder *d, bool on);
/* Read the sched and irq events too (--anatomy). */
void text_decoder_set_anatomy(struct text_decoder *d, bool on);
int text_decode(struct text_decoder *d, const struct kes_text_rec *l, struct kes_event *ev);
const char *text_decode_why(const struct text_decoder *d);
int text_decode_role(struct text_decoder *d, const struct kes_text_rec *l);
bool text_decode_label(struct text_decoder *d, const struct kes_text_rec *l, const char *w,
		       size_t len);

#endif
