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
#include "exittypes.h"

struct tep_handle;
struct decoder;

/* Returns NULL (errno set) only on allocation failure; a tep without KVM events gives a decoder
 * that matches nothing. */
struct decoder *decoder_new(struct tep_handle *tep, const struct exit_types *types);
void decoder_free(struct decoder *d);
/* How many of the recording's events the decoder knows (0: no KVM events in the format list). */
int decoder_nbound(const struct decoder *d);
/*
 * Decode one raw record (the event payload, starting at common_type).
 * Returns 1 and fills ev when it is an exit/entry/detail event, 0 otherwise.
 */
int decoder_decode(struct decoder *d, const void *data, int size, uint64_t ts, int cpu,
		   struct kes_event *ev);

/*
 * Generic detail events (include/trace/events/kvm.h, arch/x86/kvm/trace.h):
 * event -> kind + sub-key field. The flag field, when there is one, is
 * decoded whole into kes_event.value; flags = (value & flag_mask) != 0 when
 * flag_mask is non-zero (0: the field's bits mean different things on
 * different exits, so it has no fixed flag).
 */
struct detail_event {
	const char *system, *event;
	enum kes_detail kind;
	const char *sub_field;
	const char *flag_field; /* optional */
	uint64_t flag_mask;
};
extern const struct detail_event decode_detail_events[];
extern const size_t decode_ndetail_events;
const char *decode_detail_name(enum kes_detail k);

/*
 * The "system:event" names a collector should enable for these tables:
 * exit/entry events of every table, plus the detail events. Calls fn once per
 * distinct name.
 */
void decode_foreach_event(const struct exit_types *types,
			  void (*fn)(const char *system, const char *event, void *arg), void *arg);

#endif
