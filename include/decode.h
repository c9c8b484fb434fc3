/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode/: raw tracepoint records -> struct kes_event. Event ids and field
 * offsets are looked up once, from the recording's own format files
 * (libtraceevent), and the exit_types/ tables say which event and field carry
 * an exit. Per event, decoding is a switch on common_type and a few loads.
 */
#ifndef KES_DECODE_H
#define KES_DECODE_H

#include <stdint.h>
#include <stdbool.h>
#include "event.h"
#include "exit-types.h"

struct tep_handle;
struct decoder;

/* Returns NULL (errno set) only on allocation failure; a tep without KVM events gives a decoder
 * that matches nothing. */
struct decoder *decode_new(struct tep_handle *tep, const struct exit_types *types);
void decode_free(struct decoder *d);
/* Does the recording have an event of this role (KES_EXIT: an exit table's exit event)? */
bool decode_binds(const struct decoder *d, enum kes_kind role);
/* How many of the recording's events the decoder knows (0: no KVM events in the format list). */
int decode_nbound(const struct decoder *d);
/*
 * Why the recording's formats cannot be used (an event id beyond 16 bits, two
 * formats with one id, a field outside any record), or NULL. A decoder with
 * an error decodes nothing.
 */
const char *decode_error(const struct decoder *d);
/* Records decoded so far whose event id no format has; *first gets the earliest (ts, cpu) one's id. */
uint64_t decode_unknown_ids(const struct decoder *d, int *first);
/* Records decoded so far shorter than the fields their format says they have. */
uint64_t decode_short_records(const struct decoder *d);
/* Adds the unknown-id and short-record counts of from, a decoder of other lanes of the file. */
void decode_add_counts(struct decoder *d, const struct decoder *from);
/*
 * need false: no view reads a detail event's fields (sub-key, flag, value,
 * vcpu: no --by-sub, --buckets, --slowest or --vcpu), so decode_rec() gives
 * a detail record its kind and place only. Default: true.
 */
void decode_need_details(struct decoder *d, bool need);
/*
 * Decode one raw record (the event payload, starting at common_type).
 * Returns 1 and fills ev when it is an exit/entry/detail event, 0 otherwise.
 */
int decode_rec(struct decoder *d, const void *data, int size, uint64_t ts, int cpu,
	       struct kes_event *ev);
/*
 * For a caller that skips detail events unread (the feed, when no view
 * reads them): size[id], id <= *lim, is the least record size at which
 * decode_rec() takes a record of that id straight to a KES_DETAIL event
 * with nothing else to check, 0 for every other id; the thread id is the
 * 4 bytes at *pid_off. A record it names decodes to exactly that event, so
 * the caller may count it without decode_rec(). NULL (*lim -1): none.
 */
const uint32_t *decode_detail_sizes(const struct decoder *d, int *lim, uint32_t *pid_off);

/*
 * --anatomy: decode the scheduler's and interrupts' events too (KES_SCHED,
 * event.h), with their thread names. Binary: binds those the recording has;
 * returns whether it has sched_switch, without which nothing can be split.
 * Text: reads their lines from now on; returns true (whether the trace has
 * any is known only once it is read).
 */
bool decode_anatomy(struct decoder *d);
/*
 * The tracepoints --anatomy records ("sched:sched_switch", ...), besides the
 * KVM events a recording has anyway; *n of them. Static.
 */
const char *const *decode_anatomy_events(size_t *n);

/*
 * Text traces through the same decoder: the same tables, the same key and
 * name rules (exit_table_compose(), exit_table_display()) as binary records,
 * so a text trace and the trace.dat of the same run give identical events.
 * decode_free() frees it.
 */
struct decoder *decode_new_text(const struct exit_types *types);
/*
 * The input is trace-cmd report output, whose kvm plugin prints kvm_exit
 * with its own names: an aliased name is then shown by its table's name. In
 * other inputs the same shape is an old kernel's own print (its names win,
 * as the binary decoder shows the format file's names).
 */
void decode_text_plugin_names(struct decoder *d, bool on);
/*
 * 1 and ev filled when the line is a KVM exit/entry/detail event the tables
 * know; 0 when it is some other event; -1 when it is a KVM event whose
 * payload did not parse.
 */
int decode_text(struct decoder *d, const struct kes_text_rec *r, struct kes_event *ev);
/* Why the last decode_text() returned -1: one phrase ("no exit reason in its payload"). */
const char *decode_text_why(const struct decoder *d);

/*
 * What an event line is, by its name alone: DECODE_TEXT_NOT_KVM (no KVM
 * tracepoint, by the tables' `tracepoints` lines), DECODE_TEXT_UNUSED (a
 * KVM tracepoint no table reads: kvm_set_irq), or its enum kes_kind. A
 * decode_text() of the very record asked about last (the same struct,
 * unchanged) reuses this look-up.
 */
#define DECODE_TEXT_NOT_KVM (-2)
#define DECODE_TEXT_UNUSED  (-1)
int decode_text_role(struct decoder *d, const struct kes_text_rec *r);
/*
 * Is the word w[0, len) one after which a printed form of r's event goes on
 * with a value ("reason", "rip", "info1")? A record whose text stops there was
 * cut by a mail client's wrap: the reader joins the next line to it.
 */
bool decode_text_label(struct decoder *d, const struct kes_text_rec *r, const char *w, size_t len);

#endif
