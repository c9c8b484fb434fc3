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
#include "exit-types.h"
#include "input.h"
#include "stats.h"

struct bucket_map;
struct procmap;
struct text_ts_unit;

struct input_opts {
	const struct exit_types *types;
	/*
	 * Keep only these processes (their threads, by the input's thread map)
	 * and threads; an input without a map: threads only (a warning says so).
	 */
	const int32_t *pids;
	size_t npids;
	int32_t vcpu;  /* keep only this vcpu (-1: all) */
	const char *vm_name; /* -g: keep only the VMs of this name (interned), or NULL */
	bool with_sub; /* key exits by detail sub-key too (MMIO gpa, PIO port, ...), at most STATS_SUB_CAP per reason */
	bool by_guest; /* with with_sub: the sub-key is the guest's pc (pair_set_by_guest()) */
	const struct bucket_map *buckets; /* count exits in timing buckets (NULL: by reason) */
	/* exits over time by reason, [0] kvm_exit, [1] userspace exits; NULL: not kept */
	struct stats_timeline *timeline[2];
	/* single exits (report --slowest), [0] kvm_exit, [1] userspace exits; NULL: not kept */
	struct stats_outliers *outliers[2];
	/* what a text input's integer timestamps are (--ts-unit); NULL: unknown, kept as ticks */
	const struct text_ts_unit *ts_unit;
	/*
	 * --anatomy: each timed exit's split into its parts, [0] kvm_exit,
	 * [1] userspace exits (pair_set_anatomy()); NULL: not made
	 */
	struct stats_anatomy *anatomy[2];
	/* --nested: each kvm_exit's nesting (pair_set_nested()); NULL: not kept */
	struct stats_nested *nested;
};

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
	uint64_t threadless_exits; /* exits of no thread (common_pid 0 or -1): not counted */
	uint64_t sub_folded;   /* with_sub: exits counted in an "other" sub-key row */
	const char *isa;       /* ISA of the exit events seen ("x86_vmx"...), or NULL */
	enum input_kind kind;  /* of the last input loaded */
	/* its kind in words, more precise than input_kind_name() ("perf script text") */
	const char *kind_name;
	unsigned ninputs;
	uint64_t wall_ns;	  /* first to last KVM event, summed over the inputs that have events */
	bool wall_known;	  /* some input had events (not summary-only data) */
	struct input_comm *comms; /* thread names from the recording, when it has them */
	size_t ncomms;
	/* the thread -> process -> VM name maps of the inputs that have one (record's), or NULL */
	struct procmap *procs;
	bool procs_missing; /* some input had none */
	/*
	 * Text inputs: lines naming a KVM tracepoint that could not be read,
	 * the first one's line (1-based, of the first input that had any).
	 */
	unsigned text_inputs;
	/*
	 * KVM records whose timestamps are integers of unknown unit (a counter
	 * clock, --raw-ts) and no --ts-unit: every time of the report is in
	 * ticks, and the trace's span is not known in seconds.
	 */
	uint64_t ts_ticks;
	/* the first input whose times were ticks, and the first in ns (merge.c), or NULL */
	char *ticks_from, *ns_from;
	uint64_t not_understood;
	uint64_t nu_first_line;
	/*
	 * What an input says about itself that does not add up, when the
	 * report can still be made (counts shown as lost, ...): one line each,
	 * "'FILE': ...", in the order found. Shown on stderr, in the report's
	 * header and in JSON "warnings".
	 */
	char **warnings;
	size_t nwarnings;
	/*
	 * input_load() failed, its errbuf empty, because the input is a snapshot
	 * of KVM's statistics (record --stats): report and diff take it apart.
	 */
	bool kstat_snapshot;
	/*
	 * The hosts the inputs were recorded on (a trace.dat's UNAME option, a
	 * JSON report's "hosts"), interned, each once, in the order found.
	 */
	const char **hosts;
	size_t nhosts;
	/* Some input counts exits without timing them (kvm_stat, bcc kvmexit). */
	bool counts_only;
	/* The files loaded (device, inode): the same one twice is refused. */
	struct input_file_id {
		unsigned long long dev, ino;
	} *files;
	size_t nfiles;
	/*
	 * --anatomy: the first input with no scheduler events to split by (a
	 * trace.dat without sched_switch's format, a text without a
	 * sched_switch line), or NULL.
	 */
	const char *no_sched;
};

/* Adds a warning to r (printf format; a duplicate of an earlier one is dropped). */
void input_warn(struct input_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The thread's name from the recording, or NULL. */
const char *input_comm(const struct input_result *r, int32_t tid);
/*
 * The table a report shows: kvm_exit pairs when the input has any, else
 * userspace exits, else summary-only data. *note gets why (or NULL).
 */
const struct stats_table *input_main_table(const struct input_result *r, const char **note);

void input_result_init(struct input_result *r);
void input_result_free(struct input_result *r);
/* input_load()'s errbuf: a reason names two paths at most, each up to PATH_MAX. */
#define INPUT_ERR_MAX (3 * 4096)
/*
 * Load one input into r (merging into what is already there). Returns 0, or
 * -1 with one line in errbuf for the caller to print: missing file, empty,
 * truncated or corrupt, no KVM events (errbuf empty: r->kstat_snapshot).
 * Nothing below cli/ prints (err.h).
 */
int input_load(const char *path, const struct input_opts *o, struct input_result *r, char *errbuf,
	       size_t errlen);

#endif
