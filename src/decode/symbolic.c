// SPDX-License-Identifier: GPL-2.0
/*
 * A format file's print fmt carries the kernel's own name table, e.g.
 * __print_symbolic(REC->exit_reason & 0xffff, { 0, "EXCEPTION_NMI" }, ...).
 * It is right for the kernel that recorded the trace, so its names win over
 * exit_types/ (a newer kernel's new reason gets its real name, not a number).
 *
 * x86's kvm_exit holds two tables behind `REC->isa == 1 ? VMX : SVM`, so the
 * walk carries the conditions it went through and a table only takes names
 * reached under conditions compatible with its `match` (isa == 1 for VMX).
 */
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include "alloc.h"
#include "intern.h"
#include "decode-local.h"

#define MAX_CONDS 8

struct cond {
	const char *field;
	int64_t value;
	bool truth;
};

struct walk {
	const struct exit_table *t;
	int field_size;
	struct tep_print_flag_sym *found;
};

static bool refers_to(const struct tep_print_arg *a, const char *field)
{
	if (!a)
		return false;
	switch (a->type) {
	case TEP_PRINT_FIELD:
		return a->field.name && strcmp(a->field.name, field) == 0;
	case TEP_PRINT_OP:
		return refers_to(a->op.left, field) || refers_to(a->op.right, field);
	case TEP_PRINT_TYPE:
		return refers_to(a->typecast.item, field);
	default:
		return false;
	}
}

static bool compatible(const struct walk *w, const struct cond *c, int nc)
{
	const struct exit_match *m = &w->t->match;

	for (int i = 0; i < nc; i++) {
		if (!m->field || strcmp(c[i].field, m->field) != 0)
			continue;
		if (c[i].truth != (c[i].value == m->value))
			return false;
	}
	return true;
}

/* `REC->f == N` as a condition, or false. */
static bool as_cond(const struct tep_print_arg *a, struct cond *c)
{
	if (!a || a->type != TEP_PRINT_OP || strcmp(a->op.op, "==") != 0)
		return false;
	const struct tep_print_arg *l = a->op.left, *r = a->op.right;
	if (!l || !r || l->type != TEP_PRINT_FIELD || r->type != TEP_PRINT_ATOM)
		return false;
	c->field = l->field.name;
	c->value = strtoll(r->atom.atom, NULL, 0);
	return true;
}

static void walk(struct walk *w, const struct tep_print_arg *a, struct cond *c, int nc, int depth)
{
	if (!a || w->found || depth > 64)
		return;
	switch (a->type) {
	case TEP_PRINT_SYMBOL:
		if (refers_to(a->symbol.field, w->t->reason_field) && compatible(w, c, nc))
			w->found = a->symbol.symbols;
		return;
	case TEP_PRINT_TYPE:
		walk(w, a->typecast.item, c, nc, depth + 1);
		return;
	case TEP_PRINT_OP:
		break;
	default:
		return;
	}
	const struct tep_print_arg *r = a->op.right;
	if (strcmp(a->op.op, "?") == 0 && nc < MAX_CONDS && as_cond(a->op.left, &c[nc]) && r &&
	    r->type == TEP_PRINT_OP && strcmp(r->op.op, ":") == 0) {
		c[nc].truth = true;
		walk(w, r->op.left, c, nc + 1, depth + 1);
		c[nc].truth = false;
		walk(w, r->op.right, c, nc + 1, depth + 1);
		return;
	}
	walk(w, a->op.left, c, nc, depth + 1);
	walk(w, a->op.right, c, nc, depth + 1);
}

static int cmp_name(const void *a, const void *b)
{
	const struct exit_name *x = a, *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

void symbolic_names(struct tep_event *ev, const struct exit_table *t, struct exit_name **out,
		    size_t *n)
{
	struct tep_format_field *f = tep_find_field(ev, t->reason_field);
	struct walk w = {.t = t, .field_size = f ? f->size : 8};
	struct cond c[MAX_CONDS];
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	if (t->sub_field) /* composite keys (arm64): the format's tables name parts, not keys */
		return;
	for (const struct tep_print_arg *a = ev->print_fmt.args; a && !w.found; a = a->next)
		walk(&w, a, c, 0, 0);
	for (struct tep_print_flag_sym *s = w.found; s; s = s->next) {
		if (!s->value || !s->str)
			continue;
		uint64_t key = (uint64_t)strtoll(s->value, NULL, 0);
		if (w.field_size < 8) /* { -1, "invalid_guest_state" } in a u32 field */
			key &= (1ULL << (8 * w.field_size)) - 1;
		key &= t->reason_mask;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			*out = xrealloc(*out, cap * sizeof(**out));
		}
		(*out)[(*n)++] = (struct exit_name){key, intern(s->str)};
	}
	if (*n)
		qsort(*out, *n, sizeof(**out), cmp_name);
}
