// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-exitstat serve: options -> serve_run(). The traced set is top's (-p,
 * -g, -a), or recordings (-i FILE: their metrics, made once); where the
 * metrics go is --listen (with --web-config: TLS, basic authentication)
 * and/or --textfile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "bucket-map.h"
#include "cli-local.h"
#include "err.h"
#include "gsym.h"
#include "flight.h"
#include "live.h"
#include "serve.h"
#include "watch.h"

#define DEFAULT_LISTEN "127.0.0.1:9477"

struct serve_args {
	struct serve_opts o;
	struct cli_pids pids;
	const char *guest;
	bool all, interval_set;
	struct cli_types types;
	const char *inputs[16];
	size_t ninputs;
	bool buffer_set;
	bool flight;
	struct flight_opts fo; /* --flight and its options */
	double flight_after;
	const char *guest_syms; /* --guest-kallsyms FILE */
	struct gsym *syms;
	bool guest_top_set;
};

enum {
	O_INTERVAL = 1,
	O_KEEP,
	O_MAX_ROWS,
	O_BUFFER,
	O_INPUT,
	O_FLIGHT,
	O_FLIGHT_AFTER,
	O_FLIGHT_KEEP,
	O_SLOWER,
	O_GUEST_TOP,
	O_RATE,
};

static const struct cli_opt opts[] = {
    CLI_STRING("listen", 'l', "ADDR", struct serve_args, o.listen,
	    "serve HTTP on ADDR (default " DEFAULT_LISTEN " unless --textfile);\n"
	    "IPv4:PORT, [IPv6]:PORT or :PORT (every IPv4 address)"),
    CLI_STRING("textfile", 'T', "DIR", struct serve_args, o.textfile,
	    "write DIR/kvm_exitstat.prom (atomically) each interval"),
    CLI_OPT("interval", 0, "SECS", O_INTERVAL,
	    "fold and render every SECS, 0.1 to 3600 (default 1;\n"
	    "15 with --textfile and no --listen)"),
    CLI_OPT("input", 'i', "FILE", O_INPUT,
	    "no tracing: FILE's metrics (a recording), made once: the\n"
	    "textfile written, then served until a signal; repeatable"),
    CLI_STRING("web-config", 0, "FILE", struct serve_args, o.web_config,
	    "TLS and basic authentication from FILE, in node_exporter's\n"
	    "web config format (tls_server_config, basic_auth_users)"),
    CLI_PIDS(struct serve_args, pids, "only these processes (VMMs) and all their threads; repeatable"),
    CLI_GUEST(struct serve_args, guest, "only the VMs named NAME (QEMU -name, else the process name)"),
    CLI_BOOL("all", 'a', struct serve_args, all, "every VM on the host (the default)"),
    CLI_BOOL("per-vcpu", 0, struct serve_args, o.per_vcpu,
	    "a vcpu label on every row (vcpu id, or tid:N without one)"),
    CLI_BUCKETS(struct serve_args, o.buckets_name,
		"rows are timing buckets (ppc, native or a map file)"),
    CLI_OPT("keep-gone", 0, "SECS", O_KEEP, "keep a gone VM's series this long (default 300)"),
    CLI_OPT("max-rows", 0, "N", O_MAX_ROWS,
	    "at most N label sets, the rest in one overflow row\n(default 4096, 1 to 1000000)"),
    CLI_OPT("buffer", 'b', "KB", O_BUFFER, "per-CPU ring buffer size (default 4096)"),
    CLI_EXIT_TYPES(struct serve_args, types),
    CLI_BOOL("anatomy", 0, struct serve_args, o.anatomy,
	    "trace the exits (as --trace) and the sched and irq events: per\n"
	    "reason, exit time by cause (kvm_exitstat_exit_cause_seconds_total)"),
    CLI_BOOL("trace", 't', struct serve_args, o.trace,
	    "also trace every exit (exits and handling-time histograms\n"
	    "per VM and reason); the default exports KVM's own\n"
	    "statistics only, with no tracing at all"),
    CLI_BOOL("in-kernel", 0, struct serve_args, o.in_kernel,
	    "as --trace, but the kernel counts and times the exits (hist\n"
	    "triggers): no event is streamed; power-of-two buckets"),
    CLI_OPT("flight", 0, "SECS|MB", O_FLIGHT,
	    "a flight recorder beside (record --flight): POST /flight,\n"
	    "SIGUSR1, --slower-than or --rate-over save its window in\n"
	    "--flight-dir; kvm_exitstat_flight_saves_total counts them"),
    CLI_STRING("flight-dir", 0, "DIR", struct serve_args, fo.dir,
	    "where --flight saves (default .)"),
    CLI_OPT("flight-after", 0, "SECS", O_FLIGHT_AFTER,
	    "the window after a trigger saved too (default 1)"),
    CLI_OPT("flight-keep", 0, "N", O_FLIGHT_KEEP, "keep at most N saved files (default 10)"),
    CLI_OPT("slower-than", 0, "USEC", O_SLOWER,
	    "--flight trigger: an exit slower than USEC (seen by the kernel)"),
    CLI_OPT("rate-over", 0, "N", O_RATE,
	    "--flight trigger: a VM making more than N exits per second"),
    CLI_BOOL("by-guest", 0, struct serve_args, o.by_guest,
	    "split the kvm_exit series by the guest function at each exit\n"
	    "(a guest_function label: its symbol, else 0xPC); the first N\n"
	    "functions of each reason keep their own series, the rest count\n"
	    "in guest_function=\"other\" (implies --trace)"),
    CLI_STRING("guest-kallsyms", 0, "FILE", struct serve_args, guest_syms,
	    cli_guest_syms_help),
    CLI_OPT("guest-top", 0, "N", O_GUEST_TOP,
	    "--by-guest: functions per reason with a series of their own\n"
	    "(default 10, 1 to 1000)"),
    {.lng = NULL},
};

static void init(void *arg)
{
	struct serve_args *a = arg;

	*a = (struct serve_args){
	    .o = {.interval = 1.0, .keep_gone = 300, .max_rows = 4096, .version = cli_version},
	    .fo = {.dir = ".", .keep = 10},
	    .flight_after = -1};
}

static int parse(void *arg, int id, const char *val, int value)
{
	struct serve_args *a = arg;
	unsigned long v;

	switch (id) {
	case O_INTERVAL:
		a->interval_set = true;
		return cli_parse_secs(val, 0.1, 3600, &a->o.interval, "interval");
	case O_GUEST_TOP:
		if (cli_parse_ulong(val, 1, 1000, &v, "--guest-top") < 0)
			return -1;
		a->o.guest_top = (unsigned)v;
		a->guest_top_set = true;
		return 0;
	case O_KEEP:
		return cli_parse_secs(val, 1, 86400, &a->o.keep_gone, "--keep-gone");
	case O_MAX_ROWS:
		if (cli_parse_ulong(val, 1, 1000000, &v, "--max-rows") < 0)
			return -1;
		a->o.max_rows = v;
		return 0;
	case O_BUFFER:
		a->buffer_set = true;
		return cli_parse_buffer_kb(val, &a->o.buffer_kb);
	case O_INPUT:
		if (a->ninputs == ARRAY_SIZE(a->inputs))
			return err("too many -i files (at most %zu)", ARRAY_SIZE(a->inputs));
		a->inputs[a->ninputs++] = val;
		return 0;
	case O_FLIGHT:
		a->flight = true;
		return cli_parse_flight(val, &a->fo.window_s, &a->fo.buffer_kb);
	case O_FLIGHT_AFTER:
		return cli_parse_secs(val, 0, 3600, &a->flight_after, "--flight-after");
	case O_FLIGHT_KEEP:
		if (cli_parse_ulong(val, 1, 100000, &v, "--flight-keep") < 0)
			return -1;
		a->fo.keep = (unsigned)v;
		return 0;
	case O_SLOWER:
		if (cli_parse_ulong(val, 1, 3600000000ul, &v, "--slower-than (us)") < 0)
			return -1;
		a->fo.slow_ns = (uint64_t)v * 1000;
		return 0;
	case O_RATE:
		if (cli_parse_ulong(val, 1, 1000000000ul, &v, "--rate-over") < 0)
			return -1;
		a->fo.rate = (double)v;
		return 0;
	}
	return -1;
}

static int operands(void *arg, int argc, char **argv)
{
	struct serve_args *a = arg;

	if (argc > 0)
		return err("unexpected argument '%s' (see 'serve --help')", argv[0]);
	if (a->all && (a->pids.n || a->guest))
		return err("give -a or -p/-g, not both");
	if (a->ninputs && (a->guest || a->buffer_set || a->interval_set))
		return err("-i FILE is read once: -g, --buffer and --interval are for tracing");
	if (a->o.web_config && !a->o.listen && a->o.textfile)
		return err("--web-config is for --listen (the textfile is a file)");
	if (a->o.trace && a->o.in_kernel)
		return err("give --trace or --in-kernel, not both");
	if (a->o.anatomy && a->o.in_kernel)
		return err("--anatomy splits each streamed exit: give --trace, not --in-kernel");
	if ((a->guest_syms || a->guest_top_set) && !a->o.by_guest)
		return err("--guest-kallsyms and --guest-top go with --by-guest");
	if (a->o.by_guest && (a->o.in_kernel || a->o.buckets_name || a->ninputs))
		return err("--by-guest keys each streamed exit by the guest's pc: not with "
			   "--in-kernel, --buckets or -i (report --by-guest reads recordings)");
	if (a->o.by_guest && !a->guest_top_set)
		a->o.guest_top = 10;
	/* the anatomy and the guest's pcs are of traced exits: they trace them */
	if (a->o.anatomy || a->o.by_guest)
		a->o.trace = true;
	if (!a->flight && (a->fo.slow_ns || a->fo.rate > 0 || a->flight_after >= 0))
		return err("--slower-than, --rate-over and --flight-after go with --flight");
	if (!a->o.trace && !a->o.in_kernel && a->o.buckets_name)
		return err("--buckets is about traced exits: give --trace");
	if (a->o.in_kernel && a->o.buckets_name)
		return err("--buckets needs the detail events streamed: give --trace");
	if (a->ninputs && (a->o.trace || a->o.in_kernel || a->flight))
		return err("-i FILE is read once: --trace, --in-kernel and --flight are for live hosts");
	if (!a->o.listen && !a->o.textfile)
		a->o.listen = DEFAULT_LISTEN;
	if (!a->interval_set && !a->o.listen)
		a->o.interval = 15;
	return 0;
}

/* --flight: what it records (every table's exit and entry events) and its triggers. */
static int setup_flight(struct serve_args *a, const struct exit_types *types)
{
	struct flight_opts *f = &a->fo;
	size_t n;

	f->events = (const char *const *)exit_types_event_names(types, 0, &n);
	f->nevents = n;
	f->pids = a->o.pids;
	f->npids = a->o.npids;
	f->after_s = a->flight_after >= 0 ? a->flight_after : 1;
	if (!f->buffer_kb)
		f->buffer_kb = a->o.buffer_kb ? a->o.buffer_kb : 16384;
	f->tag = "flight";
	if (f->slow_ns && !(f->nfields = watch_in_kernel_fields(types, f->fields)))
		return err("--slower-than: no exit table names this kernel's kvm:kvm_exit fields");
	a->o.flight = f;
	return 0;
}

static int run(void *arg)
{
	struct serve_args *a = arg;
	struct exit_types types = {0};
	int ret = 1;

	if (cli_load_exit_types(&types, a->types.files, a->types.n) < 0)
		goto out;
	if (a->o.buckets_name &&
	    cli_load_buckets(a->o.buckets_name, &types, &a->o.buckets, &a->o.buckets_name) < 0)
		goto out;
	if (a->guest && cli_add_guest(&a->pids.v, &a->pids.n, a->guest) < 0)
		goto out;
	a->o.pids = a->pids.n ? a->pids.v : NULL;
	a->o.npids = a->pids.n;
	a->o.types = &types;
	a->o.inputs = a->inputs;
	a->o.ninputs = a->ninputs;
	if (cli_guest_syms(a->guest_syms, &a->syms) < 0)
		goto out;
	a->o.syms = a->syms;
	if (a->flight && setup_flight(a, &types) < 0)
		goto out;
	/* --in-kernel where the kernel cannot: one line, and every exit streamed instead */
	if (a->o.in_kernel) {
		char why[256];

		if (!watch_in_kernel_ok(why, sizeof(why))) {
			err_info("kvm-exitstat: --in-kernel: %s; streaming every exit instead\n", why);
			a->o.in_kernel = false;
			a->o.trace = true;
		}
	}
	/* A fleet's exporter keeps serving on such a host (its scrapes say so too), but not silently. */
	if (!a->ninputs && !live_kvm_host()) {
		char e[400];

		live_no_kvm_reason("serve", e, sizeof(e));
		err_info("kvm-exitstat: %s\n", e);
	}
	ret = serve_run(&a->o);
out:
	exit_types_event_names_free((char **)a->fo.events, a->fo.nevents);
	a->fo.events = NULL;
	exit_types_free(&types);
	gsym_free(a->syms);
	return ret;
}

/* Reading recordings needs nothing of tracing; KVM's own statistics alone: debugfs is
 * root's, no tracefs, no tracepoints. */
static unsigned needs_for(const void *arg)
{
	const struct serve_args *a = arg;

	if (a->ninputs)
		return 0;
	return a->o.trace || a->o.in_kernel || a->flight ? cli_cmd_serve.needs : CLI_NEEDS_ROOT;
}

static void done(void *arg)
{
	struct serve_args *a = arg;

	bucket_map_free(a->o.buckets);
	free(a->pids.v);
}

const struct cli_cmd cli_cmd_serve = {
    .name = "serve",
    .usage = "[--listen ADDR] [--textfile DIR] [options]\n-i FILE [--listen ADDR] [--textfile DIR] [options]",
    .summary = "Prometheus exporter: exits and handling times per VM, over HTTP or a textfile",
    .about = "A Prometheus exporter: KVM's own statistics per VM (debugfs, no tracing: the\n"
	     "default), and with --trace or --in-kernel exits, handling-time and time-in-guest\n"
	     "histograms per VM (VMM process) and exit reason, on GET /metrics (Prometheus\n"
	     "text or OpenMetrics) and/or in DIR/kvm_exitstat.prom for node_exporter's\n"
	     "textfile collector. Needs root; traces in a private tracefs instance. With\n"
	     "-i FILE: a recording's metrics, made once, without tracing. Metrics:\n"
	     "kvm-exitstat-serve(1).",
    .opts = opts,
    .size = sizeof(struct serve_args),
    .init = init,
    .parse = parse,
    .operands = operands,
    .run = run,
    .done = done,
    .needs = CLI_NEEDS_ROOT | CLI_NEEDS_TRACEFS | CLI_NEEDS_KVM,
    .needs_for = needs_for,
};
