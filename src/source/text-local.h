/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to the ftrace/perf text reader (text*.c).
 *
 *   text.c        reading, line dispatch, headers, loss markers, sniffing
 *   text-line.c   one line's context: comm, tid, cpu, timestamp, event name
 *   text-form.c   each KVM event's printed form (its TP_printk) -> field values
 *   text-decode.c fields + exit_types tables -> struct kes_event
 */
#ifndef KES_SOURCE_TEXT_LOCAL_H
#define KES_SOURCE_TEXT_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "event.h"
#include "exittypes.h"
#include "source.h"

/* Longest line kept: the rest is dropped (the context and the fields read come first). */
#define TEXT_MAX_LINE 4096
#define TEXT_MAX_NAME 128 /* event, system, instance and comm names */

enum text_shape {
	TEXT_SHAPE_FTRACE,  /* comm-pid [cpu] ...: tracefs and trace-cmd report */
	TEXT_SHAPE_LATENCY, /* comm-pid cpu+flags ...: trace-cmd report -l */
	TEXT_SHAPE_PERF,    /* comm pid[/tid] [cpu] ...: perf script */
};

/* One event line, pointing into the line buffer (which the parser may modify). */
struct text_line {
	enum text_shape shape;
	const char *instance; /* trace-cmd buffer prefix "name:", or NULL */
	size_t instance_len;
	const char *comm; /* NULL when not printed */
	size_t comm_len;
	int32_t tid;
	int32_t cpu;	    /* -1 when not printed */
	uint64_t ts;	    /* ns */
	const char *system; /* NULL when not printed (tracefs, trace-cmd) */
	size_t system_len;
	const char *event;
	size_t event_len;
	const char *payload; /* NUL-terminated, leading blanks skipped */
};

/* 0 and *l filled when s (NUL-terminated, len bytes) is a trace event line, else -1. */
int text_parse_line(const char *s, size_t len, struct text_line *l);

/* ---- printed forms ---- */

#define TEXT_MAX_FIELDS 8

struct text_field {
	const char *name; /* not NUL-terminated: it may point into a pattern */
	size_t name_len;
	bool has_num;
	uint64_t num;
	const char *text; /* the printed symbol, when the form prints one */
	size_t text_len;
};

struct text_fields {
	struct text_field v[TEXT_MAX_FIELDS];
	int n;
	bool kernel_symbols; /* symbol texts are the kernel's own __print_symbolic names */
	const struct text_alias *aliases; /* other printers' names for the reason field */
};

/* A name some printer (not the kernel) gives a reason value, e.g. trace-cmd's kvm plugin. */
struct text_alias {
	const char *name;
	uint64_t value;
	const char *match_field; /* the value only holds where this field ... */
	int64_t match_value;	 /* ... has this value (x86: isa) */
};

struct text_form;

/* The printed forms known for an event, NULL-terminated; system may be NULL (not printed). */
void text_forms_find(const char *system, const char *event, const struct text_form **out,
		     size_t max);
/* Fills f from payload when it has this form: 0, or -1. */
int text_form_match(const struct text_form *form, const char *payload, struct text_fields *f);
const char *text_form_system(const struct text_form *form);
/* Last resort for events without a known form: "field=value" / "field value" pairs. */
void text_fields_generic(const char *payload, const char *const *names, size_t n,
			 struct text_fields *f);
const struct text_field *text_field_get(const struct text_fields *f, const char *name);

/* ---- decoding ---- */

struct text_decoder;

struct text_decoder *text_decoder_new(const struct exit_types *types);
void text_decoder_free(struct text_decoder *d);
/*
 * The input is trace-cmd report output, whose kvm plugin prints kvm_exit
 * with its own names: an aliased name is then shown by its table's name. In
 * other inputs the same shape is an old kernel's own print (its names win,
 * as the binary decoder shows the format file's names).
 */
void text_decoder_set_plugin_names(struct text_decoder *d, bool on);
/*
 * 1 and ev filled when the line is a KVM exit/entry/detail event the tables
 * know; 0 when it is some other event; -1 when it is a KVM event whose
 * payload did not parse.
 */
int text_decode(struct text_decoder *d, const struct text_line *l, struct kes_event *ev);

#endif
