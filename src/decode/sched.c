// SPDX-License-Identifier: GPL-2.0
/*
 * The events --anatomy reads besides KVM's own: what the scheduler did to a
 * vCPU thread (include/trace/events/sched.h: sched_switch, sched_wakeup,
 * sched_wakeup_new, sched_migrate_task) and which interrupt handlers ran on
 * its CPU while it held it (include/trace/events/irq.h: irq_handler_entry/
 * exit, softirq_entry/exit). They are the same on every ISA, so they are a
 * table here, not exit_types/ data: their fields are the kernel's generic
 * ones since 2.6.3x. The halt's own event, kvm_vcpu_wakeup, is a detail
 * event of exit_types/detail.types (sub ns, flag waited).
 *
 * Both sides of the decoder read them through this file: the binary one
 * binds the fields named here (decoder.c), the text one parses the two ways
 * they are printed: the kernel's TP_printk (tracefs text, perf script) and
 * trace-cmd's sched_switch/sched_wakeup plugin.
 */
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "decode-local.h"
#include "decode.h"
#include "intern.h"

static const struct sched_event events[] = {
    {"sched", "sched_switch", KES_S_SWITCH, "prev_pid", "next_pid", "prev_state", "next_comm",
     "prev_comm"},
    {"sched", "sched_wakeup", KES_S_WAKEUP, "pid", NULL, NULL, "comm", NULL},
    {"sched", "sched_wakeup_new", KES_S_WAKEUP, "pid", NULL, NULL, "comm", NULL},
    {"sched", "sched_migrate_task", KES_S_MIGRATE, "pid", "orig_cpu", "dest_cpu", "comm", NULL},
    {"irq", "irq_handler_entry", KES_S_IRQ_ENTRY, NULL, "irq", NULL, NULL, NULL},
    {"irq", "irq_handler_exit", KES_S_IRQ_EXIT, NULL, "irq", NULL, NULL, NULL},
    {"irq", "softirq_entry", KES_S_SOFT_ENTRY, NULL, "vec", NULL, NULL, NULL},
    {"irq", "softirq_exit", KES_S_SOFT_EXIT, NULL, "vec", NULL, NULL, NULL},
};

/*
 * What record --anatomy enables: the events above, and kvm_halt_poll_ns (the
 * halt-polling window growing and shrinking, for the reader of the file: no
 * view reads it). kvm_vcpu_wakeup is recorded anyway (a detail event).
 */
static const char *const recorded[] = {
    "sched:sched_switch",      "sched:sched_wakeup",	 "sched:sched_wakeup_new",
    "sched:sched_migrate_task", "irq:irq_handler_entry", "irq:irq_handler_exit",
    "irq:softirq_entry",	"irq:softirq_exit",	 "kvm:kvm_halt_poll_ns",
};

const char *const *decode_anatomy_events(size_t *n)
{
	*n = ARRAY_SIZE(recorded);
	return recorded;
}

const struct sched_event *sched_event_find(const char *sys, const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(events); i++)
		if (!strcmp(events[i].name, name) && (!sys || !strcmp(events[i].sys, sys)))
			return &events[i];
	return NULL;
}

const struct sched_event *sched_event_at(size_t i)
{
	return i < ARRAY_SIZE(events) ? &events[i] : NULL;
}

/* ---- thread names ---- */

/*
 * Names seen, each interned once: a trace names a few hundred threads, but
 * a hostile one could name millions, and interned strings live until the
 * process exits. Past SCHED_COMMS distinct names, a new one reads "?".
 */
#define SCHED_COMMS 4096

struct sched_comms {
	const char *v[2 * SCHED_COMMS]; /* open addressing, at most half full */
	size_t n;
};

struct sched_comms *sched_comms_new(void)
{
	return xcalloc(1, sizeof(struct sched_comms));
}

void sched_comms_free(struct sched_comms *c)
{
	free(c);
}

const char *sched_comm(struct sched_comms *c, const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	len = strnlen(s, len);
	for (size_t k = 0; k < len; k++)
		h = (h ^ (uint8_t)s[k]) * 16777619u;
	for (i = h % (2 * SCHED_COMMS); c->v[i]; i = (i + 1) % (2 * SCHED_COMMS))
		if (!strncmp(c->v[i], s, len) && !c->v[i][len])
			return c->v[i];
	if (c->n == SCHED_COMMS)
		return intern("?");
	c->n++;
	return c->v[i] = intern_n(s, len);
}

/* ---- text ---- */

static const char *after(const char *s, const char *key)
{
	const char *p = strstr(s, key);

	return p ? p + strlen(key) : NULL;
}

static bool num_at(const char *s, int64_t *v)
{
	char *end;

	if (!s)
		return false;
	*v = strtoll(s, &end, 10);
	return end != s;
}

/*
 * prev_state as printed: "R", "R+" (preempted), or the letters of a sleep
 * ("S", "D", "D|K", trace-cmd's plugin's "W" for an idle kthread): only the
 * running ones matter here, the rest is "a sleep".
 */
static uint64_t state_of(const char *s)
{
	if (*s == 'R')
		return s[1] == '+' ? 0x100 : 0;
	return 1;
}

/* "comm:pid [prio] STATE" or "comm:pid [prio]" (trace-cmd's plugin), comm up to the last ':'. */
static bool plugin_task(struct sched_comms *c, const char *s, const char *end, const char **comm,
			int64_t *pid, const char **rest)
{
	const char *br = NULL, *colon = NULL;

	for (const char *p = s; p < end; p++)
		if (p[0] == ' ' && p[1] == '[')
			br = p;
	if (!br)
		return false;
	for (const char *p = s; p < br; p++)
		if (*p == ':')
			colon = p;
	if (!colon || !num_at(colon + 1, pid))
		return false;
	*comm = sched_comm(c, s, (size_t)(colon - s));
	*rest = strchr(br, ']');
	if (*rest)
		*rest += 1 + ((*rest)[1] == ' ');
	return true;
}

/* "KEY=comm KEY2=": the comm between them (it may hold blanks: QEMU's "CPU 0/KVM"). */
static const char *kernel_comm(struct sched_comms *c, const char *s, const char *key,
			       const char *next)
{
	const char *v = after(s, key), *e = v ? strstr(v, next) : NULL;

	return e ? sched_comm(c, v, (size_t)(e - v)) : NULL;
}

static int switch_text(struct sched_comms *c, const char *p, struct kes_event *ev)
{
	const char *arrow = strstr(p, " ==> "), *rest;
	int64_t prev, next;

	if (!arrow)
		return -1;
	if (!strncmp(p, "prev_comm=", 10)) {
		const char *pc = kernel_comm(c, p, "prev_comm=", " prev_pid=");
		const char *nc = kernel_comm(c, arrow, "next_comm=", " next_pid=");
		const char *st = after(p, " prev_state=");

		if (!pc || !nc || !st || !num_at(after(p, " prev_pid="), &prev) ||
		    !num_at(after(arrow, " next_pid="), &next))
			return -1;
		ev->isa = pc;
		ev->reason = nc;
		ev->value = state_of(st);
	} else {
		const char *st;

		if (!plugin_task(c, p, arrow, &ev->isa, &prev, &st) || !st ||
		    !plugin_task(c, arrow + 5, arrow + strlen(arrow), &ev->reason, &next, &rest))
			return -1;
		ev->value = state_of(st);
	}
	ev->tid = (int32_t)prev;
	ev->sub = (uint64_t)next;
	return 1;
}

/* sched_wakeup(_new), sched_migrate_task: "comm=%s pid=%d ..." or the plugin's "comm:pid [prio] ...". */
static int task_text(struct sched_comms *c, const struct sched_event *e, const char *p,
		     struct kes_event *ev)
{
	int64_t pid, a, b;
	const char *rest;

	if (!strncmp(p, "comm=", 5)) {
		ev->reason = kernel_comm(c, p, "comm=", " pid=");
		if (!ev->reason || !num_at(after(p, " pid="), &pid))
			return -1;
	} else if (!plugin_task(c, p, p + strlen(p), &ev->reason, &pid, &rest)) {
		return -1;
	}
	ev->tid = (int32_t)pid;
	if (e->what == KES_S_MIGRATE) {
		if (!num_at(after(p, "orig_cpu="), &a) || !num_at(after(p, "dest_cpu="), &b))
			return -1;
		ev->sub = (uint64_t)a;
		ev->value = (uint64_t)b;
	}
	return 1;
}

int sched_text(struct sched_comms *c, const struct sched_event *e, const char *payload,
	       struct kes_event *ev)
{
	int64_t v;

	ev->kind = KES_SCHED;
	ev->detail = (uint16_t)e->what;
	ev->reason = ev->isa = NULL;
	switch (e->what) {
	case KES_S_SWITCH:
		return switch_text(c, payload, ev);
	case KES_S_WAKEUP:
	case KES_S_MIGRATE:
		return task_text(c, e, payload, ev);
	case KES_S_IRQ_ENTRY:
	case KES_S_IRQ_EXIT:
		if (!num_at(after(payload, "irq="), &v))
			return -1;
		ev->sub = (uint64_t)v;
		return 1;
	default:
		if (!num_at(after(payload, "vec="), &v))
			return -1;
		ev->sub = (uint64_t)v;
		return 1;
	}
}
