/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to cli/: the command table, the option tables that drive parsing,
 * --help, bash completion and the man-page sync test (bpftool's
 * test_bpftool_synctypes.py idea), and the helpers commands share.
 */
#ifndef KES_CLI_LOCAL_H
#define KES_CLI_LOCAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "cli-local.h"
#include "exit-types.h"

#define KES_VERSION "0.1"

enum {
	/*
	 * The option selects JSON output: without an argument by being given,
	 * with one when its value is "json". cli_run() looks for it before it
	 * parses anything, so that every error, the first included, is JSON.
	 */
	CLI_OPT_JSON = 1 << 0,
};

/* One option of a command; a table ends with an entry whose lng is NULL. */
struct cli_opt {
	const char *lng;  /* "delay" */
	char shrt;	  /* 'd', 0: none */
	const char *arg;  /* NULL: takes no argument; else its name in --help ("SECS") */
	const char *help; /* --help text; '\n' continues it on the next line */
	int id;		  /* what the command's parse() gets (> 0) */
	unsigned flags;	  /* CLI_OPT_* */
	/*
	 * The words the argument must be one of (NULL-terminated), checked
	 * here ("unknown <noun> 'x': want a, b or c") and offered by the
	 * completion; parse() gets the word's index. NULL: any argument.
	 */
	const char *const *values;
	const char *noun;
	/* This entry is another name of the option whose lng this is: --help shows them together.
	 */
	const char *alias_of;
};

/* A table entry: long name, short letter (0: none), argument name (NULL: none), id, help. */
#define CLI_OPT(lng_, shrt_, arg_, id_, help_, ...)                                                \
	{                                                                                          \
		.lng = lng_, .shrt = shrt_, .arg = arg_, .id = id_, .help = help_, __VA_ARGS__     \
	}

/* What a command needs, checked once before it runs (git's RUN_SETUP idea). */
enum {
	CLI_NEEDS_ROOT = 1 << 0,    /* it traces: tracefs is root's */
	CLI_NEEDS_TRACEFS = 1 << 1, /* mounted (mounting it when it is not) */
	CLI_NEEDS_KVM = 1 << 2,	    /* the kvm tracepoints exist */
	CLI_NEEDS_KVM_HOST = 1 << 3, /* KVM works on this host (refused without) */
};

enum {
	CLI_CMD_OPERANDS_END = 1 << 0, /* the first operand ends the options (record's COMMAND) */
};

struct cli_cmd {
	const char *name;
	const char *usage;   /* what follows "kvm-exitstat NAME"; '\n' starts another usage line */
	const char *summary; /* one line, for kvm-exitstat --help */
	const char *about;   /* the paragraph of NAME --help */
	const struct cli_opt *opts;
	size_t size; /* of the command's options struct, which cli allocates zeroed */
	void (*init)(void *o);
	/* One option: id from the table, arg its argument, value its index in values (else -1). */
	int (*parse)(void *o, int id, const char *arg, int value);
	/* The operands left after the options; 0, or -1 after err(). */
	int (*operands)(void *o, int argc, char **argv);
	int (*run)(void *o); /* the exit status */
	void (*done)(void *o);
	unsigned needs, flags;
	/* When some options need less (top -f help lists names): the needs for o. NULL: needs. */
	unsigned (*needs_for)(const void *o);
};

extern const struct cli_cmd cli_cmd_record, cli_cmd_report, cli_cmd_diff, cli_cmd_top,
    cli_cmd_serve;

/* cli-opts.c: the engine behind the tables. */
/* Does argv (after the command name) ask for JSON output? Parses nothing for real. */
bool cli_opts_json(const struct cli_cmd *c, int argc, char **argv);
/* Parses argv into o; the operands left start at argv[*first]. 0, or -1 after err(). */
int cli_opts_parse(const struct cli_cmd *c, void *o, int argc, char **argv, int *first);
/* CMD --help and `kvm-exitstat help CMD`. */
void cli_opts_help(FILE *f, const struct cli_cmd *c);
/* `kvm-exitstat __options CMD`: one line per option, for the completion and the sync test. */
void cli_opts_dump(FILE *f, const struct cli_cmd *c);

/* "4101,4202" -> array (malloc'd). 0 or -1 after err(). */
int cli_parse_pids(const char *s, int32_t **pids, size_t *n);
/* Collects one --exit-types FILE into files[] (cap entries). 0 or -1 after err(). */
int cli_add_types_file(const char **files, size_t *n, size_t cap, const char *path);
/* Built-in tables plus --exit-types files. 0 or -1 after err(). */
int cli_load_exit_types(struct exit_types *set, const char *const *files, size_t nfiles);
/* cli-targets.c: -p PID,... appended to *pids; -g NAME: the VMs of that name appended. */
int cli_add_pids(int32_t **pids, size_t *n, const char *s);
int cli_add_guest(int32_t **pids, size_t *n, const char *name);
struct bucket_map;
/* --buckets NAME|FILE, checked against the exit tables; *name its display name. 0 or -1 after
 * err(). */
int cli_load_buckets(const char *arg, const struct exit_types *types, struct bucket_map **map,
		     const char **name);
struct input_result;
/* The inputs' warnings on stderr, "kvm-exitstat: warning: ..." (not in JSON mode). */
void cli_print_warnings(const struct input_result *r);
/* --source's values (report, diff): which table of an input to show. */
extern const char *const cli_sources[];
/*
 * The table of r that --source SRC ("auto", "exits", "userspace") names: auto is
 * the one a report shows by itself (input_main_table(), *note saying why where it
 * fell back). *name: "kvm_exit", "userspace" or "summary".
 */
const struct stats_table *cli_pick_table(const char *src, const struct input_result *r,
					 const char **name, const char **note);

/*
 * cli-width.c: the columns a table may use: opt (--width) when not 0, else
 * COLUMNS, else the terminal's when stdout is one, else 80 (pipes, files).
 */
unsigned cli_out_width(unsigned opt);
/* --width N: 40 to 4000. 0 or -1 after err(). */
int cli_parse_width(const char *s, unsigned *w);

/*
 * cli-num.c: an option's number, lo to hi inclusive; "what" names it in the
 * one-line refusal ("bad WHAT 'S': want LO to HI"). 0 or -1 after err().
 */
int cli_parse_ulong(const char *s, unsigned long lo, unsigned long hi, unsigned long *out,
		    const char *what);
int cli_parse_secs(const char *s, double lo, double hi, double *out, const char *what);
/* -b KB: a per-CPU ring buffer size, 4 to 4194304 KB. */
int cli_parse_buffer_kb(const char *s, unsigned *kb);

/* record-stats.c: record --stats, a snapshot of KVM's own statistics (no tracing). */
struct cli_record_stats {
	const char *output;
	const int32_t *pids; /* -p; NULL with cmd NULL: every VM (-a) */
	size_t npids;
	char **cmd;
	double duration; /* -d, 0: none */
	bool quiet;
};
/* The exit status: the command's (as record's), 1 after err(). */
int cli_record_stats(const struct cli_record_stats *o);

/* record-flight.c: record --flight, the flight recorder. */
struct cli_record_flight {
	const char *dir; /* -o DIR */
	const int32_t *pids;
	size_t npids;
	char **cmd;
	double duration;
	unsigned buffer_kb;
	double window_s, after_s;
	uint64_t slow_ns;
	double rate;
	unsigned keep;
	const char *const *types;
	size_t ntypes;
	bool quiet;
};
/* --flight SECONDS (30, 30s) or MB (64MB): one of *secs and *kb set. 0, or -1 after err(). */
int cli_parse_flight(const char *s, double *secs, unsigned *kb);
/* The exit status: the command's, 1 after err(). */
int cli_record_flight(const struct cli_record_flight *o);

/* record-khist.c: record --in-kernel FILE, the kernel's hists of the recording's own events. */
struct live;
struct khist;
/* The triggers in c's instance (before live_start()); fields[2] get their key fields. NULL after err(). */
struct khist *cli_khist_attach(struct live *c, const char *const *types, size_t ntypes,
			       const char **fields, size_t *nfields);
/* Reads the hists into FILE (JSON). 0, or -1 after err(). */
int cli_khist_write(struct khist *h, const char *path, const char *const *fields, size_t nfields);

/* cli-kstat.c: report and diff of record --stats snapshots. */
struct render_opts;
/* Is this input a snapshot (report/diff take the statistics path)? */
bool cli_kstat_is(const char *path);
/* report of one snapshot: table (default), json; per vCPU; --svg FILE. 0, or -1 after err(). */
int cli_kstat_report(const char *path, bool json, bool per_vcpu, const char *svg);
/* diff of two snapshots: every VM summed in each, side by side. 0, or -1 after err(). */
int cli_kstat_diff(const char *a, const char *b, bool json);

#endif
