// SPDX-License-Identifier: GPL-2.0
/*
 * Lookups over what the data files say beyond exit tables: the detail
 * events (exit_types/detail.types), the printed forms of events (text
 * input), and the one list of events a collector enables and a decoder
 * binds. The detail kinds themselves (enum kes_detail) are the tool's
 * vocabulary, the one part that is not data: bucket maps and pair/ reason
 * with them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "exit-types.h"
#include "intern.h"

static const char *const kind_names[KES_D_MAX] = {
    [KES_D_NONE] = "none",	 [KES_D_MMIO] = "mmio",	      [KES_D_PIO] = "pio",
    [KES_D_EMULATE] = "emulate", [KES_D_HCALL] = "hypercall", [KES_D_MSR] = "msr",
    [KES_D_PF] = "page_fault",	 [KES_D_HALT] = "halt",
    [KES_D_NESTED_EXIT] = "nested_exit", [KES_D_NESTED_INJECT] = "nested_inject",
    [KES_D_NESTED_ENTER] = "nested_enter",
};

/* What report --by-guest's sub-keys are called (KES_D_PC: no detail event gives them). */
static const char pc_label[] = "pc";

const char *exit_types_detail_name(enum kes_detail k)
{
	return k < KES_D_MAX ? kind_names[k] : k == KES_D_PC ? pc_label : "?";
}

int exit_types_detail_kind(const char *name)
{
	for (int k = KES_D_NONE + 1; k < KES_D_MAX; k++)
		if (!strcmp(name, kind_names[k]))
			return k;
	return -1;
}

const struct exit_detail *exit_types_detail(const struct exit_types *set, const char *system,
					    const char *event)
{
	for (size_t i = 0; set && i < set->n; i++)
		for (size_t j = 0; j < set->tables[i].ndetails; j++) {
			const struct exit_detail *d = &set->tables[i].details[j];

			if (!strcmp(d->event, event) && (!system || !strcmp(d->system, system)))
				return d;
		}
	return NULL;
}

const char *exit_types_sub_label(const struct exit_types *set, enum kes_detail k)
{
	for (size_t i = 0; set && i < set->n; i++)
		for (size_t j = 0; j < set->tables[i].ndetails; j++)
			if (set->tables[i].details[j].kind == (int)k && set->tables[i].details[j].label)
				return set->tables[i].details[j].label;
	return k == KES_D_PC ? pc_label : "key";
}

/* The first detail event of a kind with a sub-key: it names the kind's sub-keys. */
static const struct exit_detail *first_of(const struct exit_types *set, enum kes_detail k)
{
	for (size_t i = 0; set && i < set->n; i++)
		for (size_t j = 0; j < set->tables[i].ndetails; j++)
			if (set->tables[i].details[j].kind == (int)k && set->tables[i].details[j].label)
				return &set->tables[i].details[j];
	return NULL;
}

const char *exit_types_sub_text(const struct exit_types *set, enum kes_detail k, uint64_t sub,
				char *buf, size_t len)
{
	const struct exit_detail *d = first_of(set, k);

	if (d && d->base == 10)
		snprintf(buf, len, "%s %llu", d->label, (unsigned long long)sub);
	else
		snprintf(buf, len, "%s 0x%llx", d ? d->label : exit_types_sub_label(set, k),
			 (unsigned long long)sub);
	return buf;
}

enum kes_detail exit_types_sub_kind_of(const struct exit_types *set, const char *label)
{
	for (size_t i = 0; set && i < set->n; i++)
		for (size_t j = 0; j < set->tables[i].ndetails; j++)
			if (set->tables[i].details[j].label &&
			    !strcmp(set->tables[i].details[j].label, label))
				return (enum kes_detail)set->tables[i].details[j].kind;
	return !strcmp(label, pc_label) ? KES_D_PC : KES_D_NONE;
}

const struct exit_types *exit_types_builtin_file(const char *file)
{
	/* One slot per file asked for; the callers name two today. */
	static struct {
		const char *file;
		struct exit_types set;
		int state; /* 1 parsed, -1 failed */
	} cache[4];
	size_t i;
	char origin[64];

	for (i = 0; i < ARRAY_SIZE(cache) && cache[i].file; i++)
		if (!strcmp(cache[i].file, file))
			return cache[i].state > 0 ? &cache[i].set : NULL;
	if (i == ARRAY_SIZE(cache))
		return NULL;
	cache[i].file = file;
	cache[i].state = -1;
	snprintf(origin, sizeof(origin), "builtin:%s", file);
	for (size_t j = 0; j < exit_types_builtin_n; j++)
		if (!strcmp(exit_types_builtin[j].file, file) &&
		    exit_types_parse(&cache[i].set, exit_types_builtin[j].text, origin, NULL, 0) == 0)
			cache[i].state = 1;
	return cache[i].state > 0 ? &cache[i].set : NULL;
}

const struct exit_types *exit_types_builtin_details(void)
{
	return exit_types_builtin_file("detail.types");
}

size_t exit_types_forms(const struct exit_types *set, const char *system, const char *event,
			const struct exit_form **forms, const struct exit_table **tables,
			size_t max)
{
	size_t n = 0;

	for (size_t i = 0; set && i < set->n; i++) {
		const struct exit_table *t = &set->tables[i];

		for (size_t j = 0; j < t->nforms && n < max; j++) {
			const struct exit_form *f = &t->forms[j];
			bool dup = false;

			if (strcmp(f->event, event) || (system && strcmp(f->system, system)))
				continue;
			for (size_t k = 0; k < n && !dup; k++)
				dup = forms[k]->pattern == f->pattern &&
				      forms[k]->event == f->event && forms[k]->system == f->system;
			if (dup)
				continue;
			forms[n] = f;
			tables[n++] = t;
		}
	}
	return n;
}

struct seen {
	const char *sys[64], *ev[64];
	size_t n;
};

/* Calls fn unless (system, event) was already given; names are interned, so pointers compare. */
static void once(struct seen *s, const char *sys, const char *ev,
		 void (*fn)(const char *system, const char *event, void *arg), void *arg)
{
	if (!sys || !ev)
		return;
	sys = intern(sys);
	ev = intern(ev);
	for (size_t i = 0; i < s->n; i++)
		if (s->sys[i] == sys && s->ev[i] == ev)
			return;
	if (s->n < ARRAY_SIZE(s->sys)) {
		s->sys[s->n] = sys;
		s->ev[s->n++] = ev;
	}
	fn(sys, ev, arg);
}

void exit_types_events(const struct exit_types *types, unsigned needs,
		       void (*fn)(const char *system, const char *event, void *arg), void *arg)
{
	struct seen s = {.n = 0};

	for (size_t i = 0; i < types->n; i++) {
		once(&s, types->tables[i].exit_system, types->tables[i].exit_event, fn, arg);
		once(&s, types->tables[i].entry_system, types->tables[i].entry_event, fn, arg);
		once(&s, types->tables[i].entry_system2, types->tables[i].entry_event2, fn, arg);
	}
	if (!(needs & EXIT_NEED_DETAILS))
		return;
	for (size_t i = 0; i < types->n; i++)
		for (size_t j = 0; j < types->tables[i].ndetails; j++) {
			const struct exit_detail *d = &types->tables[i].details[j];

			if ((d->need & needs) == d->need)
				once(&s, d->system, d->event, fn, arg);
		}
}

struct names {
	char **list;
	size_t n;
};

static void add_name(const char *system, const char *event, void *arg)
{
	struct names *nm = arg;
	char buf[256];

	snprintf(buf, sizeof(buf), "%s:%s", system, event);
	nm->list = xrealloc(nm->list, (nm->n + 1) * sizeof(*nm->list));
	nm->list[nm->n++] = xstrdup(buf);
}

char **exit_types_event_names(const struct exit_types *types, unsigned needs, size_t *n)
{
	struct names nm = {NULL, 0};

	exit_types_events(types, needs, add_name, &nm);
	*n = nm.n;
	return nm.list;
}

void exit_types_event_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Does pattern (a `tracepoints` word) cover (system, event)? system NULL: not printed. */
static bool covers(const char *pat, const char *system, const char *event)
{
	size_t n = strlen(pat);
	const char *colon = strchr(pat, ':');

	if (colon)
		return system && strlen(system) == (size_t)(colon - pat) &&
		       !memcmp(pat, system, (size_t)(colon - pat));
	if (system)
		return false;
	if (pat[n - 1] == '*')
		return !strncmp(pat, event, n - 1);
	return !strcmp(pat, event);
}

bool exit_types_is_kvm_event(const struct exit_types *set, const char *system, const char *event)
{
	for (size_t i = 0; set && i < set->n; i++) {
		const struct exit_table *t = &set->tables[i];

		for (size_t j = 0; j < t->ntracepoints; j++)
			if (covers(t->tracepoints[j], system, event))
				return true;
	}
	return false;
}
