/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The driver that runs source -> decode -> pair -> aggregate over one input
 * file, whatever its kind (trace.dat, ftrace text, perf script, saved PPC
 * report, KVM-PPC debugfs timing dump). report and diff use it; top uses the
 * live collector instead.
 */
#ifndef KES_PIPELINE_H
#define KES_PIPELINE_H

#include <stdint.h>
#include <stdbool.h>
#include "stats.h"
#include "exittypes.h"

struct bucket_map;

enum input_kind {
	INPUT_UNKNOWN,
	INPUT_TRACEDAT,	   /* trace-cmd's trace.dat, v6 or v7 */
	INPUT_FTRACE_TXT,  /* tracefs trace / trace_pipe, trace-cmd report, perf script */
	INPUT_PPC_REPORT,  /* saved "NAME count N min ..." report, one-line or wrapped */
	INPUT_PPC_DEBUGFS, /* kernel exit-timing dump: type count min max sum sum_squared */
};

struct input_opts {
	const struct exit_types *types;
	const int32_t *pids; /* keep only these tids/pids (NULL: all) */
	size_t npids;
	int32_t vcpu;  /* keep only this vcpu (-1: all) */
	bool with_sub; /* key exits by detail sub-key too (MMIO gpa, PIO port, ...) */
	const struct bucket_map *buckets; /* count exits in timing buckets (NULL: by reason) */
};

/*
 * with_sub: at most this many sub-keys per exit reason (MMIO gpa, PIO port,
 * ...); the rest are counted in one "other" row (sub = STATS_SUB_OTHER) per
 * reason, thread and vcpu, so memory stays bounded whatever the trace holds
 * (a key costs about 1 KiB; 10 M distinct gpas would need ~11 GB).
 */
#define INPUT_SUB_CAP 4096

struct input_comm {
	int32_t tid;
	const char *comm; /* interned */
};

/* What one or more loaded inputs produced. */
struct input_result {
	/* kvm_exit/kvm_entry pairs (+ TIMEINGUEST), by reason, tid, vcpu */
	struct stats_table *exits;
	/* userspace exits (KVM_EXIT_*): time until KVM_RUN again, + TIMEINGUEST */
	struct stats_table *uexits;
	/* summary-only data (saved reports, debugfs dumps) */
	struct stats_table *summary;
	uint64_t events;       /* raw events read */
	uint64_t kvm_events;   /* of which decoded as KVM */
	uint64_t lost;	       /* events the kernel dropped, when the input says */
	bool lost_known;       /* false: the input cannot tell */
	uint64_t unpaired;     /* exits counted at the edges, not timed */
	uint64_t ts_backwards; /* timestamps that went back on a thread: ignored */
	uint64_t sub_folded;   /* with_sub: exits counted in an "other" sub-key row */
	const char *isa;       /* ISA of the exit events seen ("x86_vmx"...), or NULL */
	enum input_kind kind;  /* of the last input loaded */
	unsigned ninputs;
	struct input_comm *comms; /* thread names from the recording, when it has them */
	size_t ncomms;
};

/* The thread's name from the recording, or NULL. */
const char *input_comm(const struct input_result *r, int32_t tid);
/*
 * The table a report shows: kvm_exit pairs when the input has any, else
 * userspace exits, else summary-only data. *note gets why (or NULL).
 */
const struct stats_table *input_main_table(const struct input_result *r, const char **note);

void input_result_init(struct input_result *r);
void input_result_free(struct input_result *r);
enum input_kind input_detect(const char *path);
const char *input_kind_name(enum input_kind k);
/*
 * Load one input into r (merging into what is already there). Returns 0, or
 * -1 after printing one line with err(): missing file, empty, truncated or
 * corrupt, no KVM events.
 */
int input_load(const char *path, const struct input_opts *o, struct input_result *r);

#endif
