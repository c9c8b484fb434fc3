// SPDX-License-Identifier: GPL-2.0
/*
 * input -> decode -> pair -> stats over one input file. The input kind is
 * told by content, never by file name (input/detect.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <traceevent/event-parse.h>
#include "alloc.h"
#include "bucket-map.h"
#include "decode.h"
#include "engine.h"
#include "err.h"
#include "feed.h"
#include "file.h"
#include "input.h"
#include "intern.h"
#include "knobs.h"
#include "kstatjson.h"
#include "pair.h"
#include "pipeline.h"
#include "pipeline-local.h"
#include "peertext.h"
#include "ppctext.h"
#include "procmap.h"
#include "reportjson.h"
#include "text.h"
#include "tracedat.h"

void input_result_init(struct input_result *r)
{
	*r = (struct input_result){.lost_known = true};
	r->exits = stats_table_new();
	r->uexits = stats_table_new();
	r->summary = stats_table_new();
}

void input_result_free(struct input_result *r)
{
	stats_table_free(r->exits);
	stats_table_free(r->uexits);
	stats_table_free(r->summary);
	procmap_free(r->procs);
	free(r->comms);
	free(r->ticks_from);
	free(r->ns_from);
	for (size_t i = 0; i < r->nwarnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	free(r->hosts);
	free(r->files);
	*r = (struct input_result){0};
}

void input_warn(struct input_result *r, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < r->nwarnings; i++)
		if (!strcmp(r->warnings[i], buf))
			return;
	r->warnings = xrealloc(r->warnings, (r->nwarnings + 1) * sizeof(*r->warnings));
	r->warnings[r->nwarnings++] = xstrdup(buf);
}

/*
 * The one open of an input: every stage reads this fd. Only regular files:
 * an input is read more than once (sniff, then load), which a FIFO or a
 * device cannot do, and opening a FIFO without a writer would wait forever
 * (tests/e2e/badinput.sh). Sets errno: ENOENT etc. from open, EISDIR for a
 * directory, EINVAL for anything else that is not a regular file.
 */
/*
 * `-i -`: standard input (a pipe from perf script or trace-cmd report) is
 * copied to an unlinked file first, as every input is read more than once.
 * A regular file on stdin is read as it is.
 */
static int stdin_copy(void)
{
	static char buf[64 * 1024];
	struct stat st;
	FILE *tmp;
	int fd;
	ssize_t n;

	if (fstat(0, &st) == 0 && S_ISREG(st.st_mode))
		return dup(0);
	if (!(tmp = tmpfile()))
		return -1;
	fd = dup(fileno(tmp));
	fclose(tmp);
	if (fd < 0)
		return -1;
	while ((n = read(0, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write(fd, buf, (size_t)n) != n) {
			close(fd);
			return -1;
		}
	}
	return fd;
}

static int open_input(const char *path)
{
	if (!strcmp(path, "-"))
		return stdin_copy();
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		st.st_mode = 0; /* not a regular file either */
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		return -1;
	}
	return fd;
}

struct ctx {
	const struct input_opts *o;
	struct input_result *r;
	struct decoder *d;
	struct engine *en;	    /* the input's event path (input_feed()) */
	struct feed *f;		    /* its feed: the input's events, to pair/ */
	struct feed_counts fc;	    /* what it saw, once it is done */
	struct pair_counts pc;	    /* what its pair saw, finished (input_feed_end()) */
	struct pair_counts split_pc; /* a split's pairs' (split_lanes()), the engine's aside */
	struct tallies tally;	    /* trace.dat: records and page losses per CPU */
	struct filter flt;	    /* --vcpu, --pid, -g (filter.c); its pm is the input's map */
	bool no_map;		    /* the input has no thread map: -p matched thread ids */
	/* trace.dat of a counter clock with --ts-unit: its ticks to ns; NULL: as they are */
	const struct text_ts_unit *dat_unit;
	bool filtered;		    /* --vcpu, --pid or -g: filter_keep() decides */
	bool anatomy;		    /* --anatomy */
	bool has_sched;		    /* the input has scheduler events to split by */
	const char *path;
	char *e; /* input_load()'s caller's buffer, for the one line of a refusal */
	size_t elen;
};

/* libtracecmd's records, one by one: the per-CPU tallies, then the feed. */
static int on_record(void *arg, const void *data, int size, uint64_t ts, int cpu, long long missed)
{
	struct ctx *c = arg;

	tallies_add(&c->tally, cpu, missed);
	feed_record(c->f, data, size, ts, cpu, missed);
	return 0;
}

/* feed_opts.keep: the filters, asked only when some is set. */
static bool keep_event(void *arg, const struct kes_event *ev)
{
	struct ctx *c = arg;

	return filter_keep(&c->flt, ev);
}

/*
 * The input's event path: the report's tables and views; its decoder (a
 * trace.dat's; text's reader decodes its lines itself), the filters through
 * keep_event() when some is set, the ticks of a counter clock, the timelines.
 */
static void input_feed(struct ctx *c, const struct text_ts_unit *unit)
{
	const struct input_opts *o = c->o;
	struct engine_opts eo = {.pair = {.exits = c->r->exits,
					  .uexits = c->r->uexits,
					  .with_sub = o->with_sub,
					  .by_guest = o->by_guest,
					  .nested = o->nested,
					  .namer = o->buckets ? bucket_map_namer : NULL,
					  .namer_arg = (void *)o->buckets,
					  .outliers = {o->outliers[0], o->outliers[1]},
					  .anatomy = {o->anatomy[0], o->anatomy[1]}},
				 .feed = {.d = c->d,
					  .keep = c->filtered ? keep_event : NULL,
					  .keep_arg = c,
					  .ts_unit = unit,
					  .timeline = {o->timeline[0], o->timeline[1]},
					  .pipe = knobs_get()->pipe && feed_two_cpus()},
				 .filter_details = o->vcpu >= 0};

	c->en = engine_new(&eo);
	c->f = engine_feed(c->en);
}

/* What the feed saw (c->fc) into the input's counts (its ISA: merge_isa()). */
static void feed_seen(struct ctx *c)
{
	c->r->kvm_events += c->fc.kvm;
}

/*
 * kvm_exit reasons are the ISA's (x86's "io" is not arm64's "DABT_LOW"; the
 * same number names other exits on VMX and SVM): inputs of two ISAs would
 * merge into one table under the first ISA's name. Refused; userspace exits
 * (KVM_EXIT_*, no ISA) merge across them. 0, or -1 with the reason in e.
 */
static int merge_isa(struct input_result *r, const char *isa, const char *path, char *e,
		     size_t elen)
{
	if (!isa)
		return 0;
	if (r->isa && strcmp(r->isa, isa))
		return err_buf(e, elen,
			       "'%s': its exits are %s's, the inputs' before it %s's: exit reasons "
			       "of two ISAs do not merge (report them apart)",
			       path, isa, r->isa);
	r->isa = isa;
	return 0;
}

/* The host an input was recorded on, once in r->hosts. */
static void add_host(struct input_result *r, const char *host)
{
	host = intern(host);
	for (size_t i = 0; i < r->nhosts; i++)
		if (r->hosts[i] == host)
			return;
	r->hosts = xrealloc(r->hosts, (r->nhosts + 1) * sizeof(*r->hosts));
	r->hosts[r->nhosts++] = host;
}

/* A JSON report's own list of hosts. */
static void add_hosts(struct input_result *r, const char *const *hosts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		add_host(r, hosts[i]);
}

/* The feed done: what it saw, in c->fc and the input's counts. */
static void input_feed_end(struct ctx *c)
{
	engine_finish(c->en);
	engine_counts(c->en, &c->fc, &c->pc);
	feed_seen(c);
	engine_free(c->en);
	c->en = NULL;
	c->f = NULL;
}

/* The fast path's lanes; the per-CPU tallies from them. */
static int feed_lanes(struct ctx *c, struct ring_lane **lanes, size_t n, char *e, size_t elen)
{
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++)
		if (feed_add_lane(c->f, lanes[i]) < 0)
			ret = err_buf(e, elen, "more than %d CPUs", FEED_MAX_LANES);
	if (!ret)
		ret = feed_run(c->f, e, elen);
	for (size_t i = 0; i < n && i < FEED_MAX_LANES; i++) {
		struct feed_lane_counts lc;

		feed_lane_counts(c->f, i, &lc);
		tallies_put(&c->tally, lc.cpu, lc.records, lc.missed, lc.missed_unknown);
	}
	return ret;
}

/* Does a view read detail events' fields that a split cannot merge (split.c)? */
static bool details_unmerged(const struct input_opts *o)
{
	return o->with_sub || o->buckets || o->vcpu >= 0 || o->nested;
}

static bool anatomy_of(const struct input_opts *o)
{
	return o->anatomy[0] || o->anatomy[1];
}

/*
 * The lanes on two threads (split.c), for a view that filters nothing and
 * reads details for --slowest at most: 1 done, 0 not tried, -1 given up
 * (the lanes used up).
 */
static int split(struct ctx *c, struct tracedat *td, struct ring_lane **lanes, size_t n)
{
	const struct input_opts *o = c->o;
	struct split_in in = {tracedat_tep(td), o->types, c->dat_unit, c->d,
			      c->r->exits, c->r->uexits, &c->tally, td,
			      {o->outliers[0], o->outliers[1]}};
	struct split_out out;

	/* the anatomy follows a thread across CPUs: only one feed over all of them can */
	if (c->filtered || details_unmerged(o) || o->timeline[0] || o->timeline[1] || c->anatomy)
		return 0;
	int s = split_lanes(&in, lanes, n, &out);

	if (s <= 0)
		return s;
	c->fc = out.fc;
	c->split_pc = out.pc;
	feed_seen(c);
	return 1;
}

/* The records, through the feed: the fast path's lanes, else libtracecmd's one by one. */
static int read_tracedat(struct tracedat *td, struct ctx *c, char *e, size_t elen)
{
	struct ring_lane **lanes;
	size_t n;
	int ret = tracedat_lanes(td, &lanes, &n, e, elen);
	int s = ret > 0 ? split(c, td, lanes, n) : 0;

	if (s > 0) {
		c->r->events += c->fc.records;
		return 0;
	}
	if (s < 0) /* fresh lanes for the one feed */
		ret = tracedat_lanes(td, &lanes, &n, e, elen);
	input_feed(c, c->dat_unit);
	if (ret > 0)
		ret = feed_lanes(c, lanes, n, e, elen);
	else if (ret == 0)
		ret = tracedat_iterate(td, on_record, c, e, elen);
	input_feed_end(c);
	c->r->events += c->fc.records;
	return ret < 0 ? -1 : 0;
}

static void add_comm(struct input_result *r, int32_t tid, const char *comm)
{
	if (!comm || input_comm(r, tid))
		return;
	r->comms = xrealloc(r->comms, (r->ncomms + 1) * sizeof(*r->comms));
	r->comms[r->ncomms++] = (struct input_comm){tid, intern(comm)};
}

struct comm_walk {
	struct input_result *r;
	struct tep_handle *tep;
};

static void comm_of_row(const struct stats_key *k, const struct stats_acc *a, void *arg)
{
	struct comm_walk *w = arg;

	if (k->tid > 0 && tep_is_pid_registered(w->tep, k->tid))
		add_comm(w->r, k->tid, tep_data_comm_from_pid(w->tep, k->tid));
}

/* The decoder for td's formats, or NULL with the reason in c->e. */
static struct decoder *tracedat_decoder(struct tracedat *td, const char *path, struct ctx *c)
{
	struct decoder *d = decode_new(tracedat_tep(td), c->o->types);

	if (decode_error(d)) {
		err_buf(c->e, c->elen, "'%s': %s", path, decode_error(d));
	} else if (decode_nbound(d) == 0) {
		err_buf(c->e, c->elen,
			"'%s': no KVM events in this trace.dat (recorded without -e kvm?)", path);
	} else {
		return d;
	}
	decode_free(d);
	return NULL;
}

/* After the records: what the file's own counts say, and the thread names. */
static int tracedat_after(struct tracedat *td, const char *path, struct ctx *c)
{
	struct tracedat_info info;
	int first;
	uint64_t unknown = decode_unknown_ids(c->d, &first);

	uint64_t shorter = decode_short_records(c->d);

	if (unknown)
		input_warn(c->r,
			   "'%s': %llu record%s of event ids no format describes (the first: %d)",
			   path, (unsigned long long)unknown, unknown == 1 ? "" : "s", first);
	if (shorter)
		input_warn(
		    c->r,
		    "'%s': %llu record%s shorter than %s format says (fields past the end read "
		    "as 0)",
		    path, (unsigned long long)shorter, shorter == 1 ? "" : "s",
		    shorter == 1 ? "its" : "their");
	struct comm_walk w = {c->r, tracedat_tep(td)};
	stats_table_foreach(c->r->exits, comm_of_row, &w);
	stats_table_foreach(c->r->uexits, comm_of_row, &w);
	tracedat_get_info(td, &info);
	if (info.host)
		add_host(c->r, info.host);
	return tallies_check(&c->tally, &info, path, c->r, c->e, c->elen);
}

/* This input's map into the merged one (report --per-vm names VMs from it). */
static void merge_procmap(struct input_result *r, const struct procmap *pm)
{
	if (!r->procs)
		r->procs = procmap_new();
	for (size_t i = 0; i < procmap_nthreads(pm); i++) {
		int32_t tid, tgid;

		procmap_thread_at(pm, i, &tid, &tgid);
		procmap_set_thread(r->procs, tid, tgid);
	}
	for (size_t i = 0; i < procmap_nnames(pm); i++) {
		int32_t pid;
		const char *name;

		procmap_name_at(pm, i, &pid, &name);
		procmap_set_name(r->procs, pid, name);
	}
}

/*
 * The thread map record kept in the file (NULL: none, an older recording or
 * trace-cmd's): --pid then matches thread ids only, which is said once; -g
 * cannot work without it. Returns 0, or -1 with the reason in c->e.
 */
static int use_procmap(struct ctx *c, const char *path, const char *text, size_t len,
		       struct procmap **pm)
{
	char e[256];

	*pm = NULL;
	if (text && !(*pm = procmap_parse(text, len, e, sizeof(e))))
		input_warn(c->r, "'%s': %s, not used", path, e);
	if (*pm) {
		merge_procmap(c->r, *pm);
	} else {
		c->r->procs_missing = true;
		if (c->o->vm_name)
			return err_buf(
			    c->e, c->elen,
			    "'%s': -g needs the VM names kvm-exitstat record keeps; this "
			    "input has none (use --pid with a thread id)",
			    path);
		if (c->o->npids)
			input_warn(c->r,
				   "'%s' has no thread->process map (trace-cmd's files, older "
				   "kvm-exitstat recordings, text have none): --pid matches thread "
				   "ids only",
				   path);
	}
	c->flt.pm = *pm;
	c->no_map = !*pm;
	return 0;
}

/*
 * A trace.dat recorded with a counter clock (trace-cmd record -C x86-tsc,
 * counter) and no TSC2NSEC conversion holds ticks: as text's integer
 * timestamps, shown as ticks unless --ts-unit says what one is.
 */
static void dat_clock(struct ctx *c, const char *path, const struct tracedat_info *info)
{
	c->dat_unit = NULL;
	if (!info->clock_ticks)
		return;
	if (c->o->ts_unit) {
		c->dat_unit = c->o->ts_unit;
		return;
	}
	c->r->ts_ticks++;
	input_warn(c->r,
		   "'%s': recorded with the trace clock %s, which does not count ns (and no "
		   "TSC2NSEC conversion): times are in ticks; --ts-unit says what one is (ns, "
		   "us, 2100MHz, ...)",
		   path, info->clock);
}

static int load_tracedat(int fd, const char *path, struct ctx *c)
{
	char e[256];
	int sfd = input_stable_fd(fd, e, sizeof(e)), ret = -1;
	struct tracedat *td = sfd < 0 ? NULL : tracedat_open_fd(sfd, e, sizeof(e));
	struct tracedat_info info;
	struct procmap *pm = NULL;

	if (!td) {
		if (sfd >= 0)
			close(sfd);
		return err_buf(c->e, c->elen, "'%s': %s", path, e);
	}
	c->d = tracedat_decoder(td, path, c);
	if (c->d && c->anatomy)
		c->has_sched = decode_anatomy(c->d);
	tracedat_get_info(td, &info);
	dat_clock(c, path, &info);
	c->flt.tep = tracedat_tep(td);
	if (c->d && use_procmap(c, path, info.procmap, info.procmap_len, &pm) < 0) {
		decode_free(c->d);
		c->d = NULL;
	}
	if (c->d) {
		ret = read_tracedat(td, c, e, sizeof(e));
		if (ret < 0)
			err_buf(c->e, c->elen, "'%s': %s", path, e);
		else
			ret = tracedat_after(td, path, c);
	}
	decode_free(c->d);
	tallies_free(&c->tally);
	procmap_free(pm);
	c->flt.pm = NULL;
	c->flt.tep = NULL;
	tracedat_close(td);
	close(sfd);
	return ret;
}

static int text_event(void *arg, const struct kes_event *ev)
{
	struct ctx *c = arg;

	if (ev->kind == KES_SCHED && ev->detail == KES_S_SWITCH)
		c->has_sched = true;
	feed_event(c->f, ev);
	return 0;
}

static int text_lost(void *arg, int cpu, long long missed)
{
	struct ctx *c = arg;

	feed_lost(c->f);
	if (missed > 0)
		c->r->lost += (uint64_t)missed;
	else
		c->r->lost_known = false;
	return 0;
}

static void text_comm(void *arg, int32_t tid, const char *comm)
{
	add_comm(((struct ctx *)arg)->r, tid, comm);
}

static void text_break(void *arg, int32_t tid)
{
	struct ctx *c = arg;

	if (tid < 0)
		pair_segment(engine_pair(c->en));
	else
		pair_end_thread(engine_pair(c->en), tid);
}

/*
 * Integer timestamps carry no unit: the report is then in ticks unless
 * --ts-unit says what one is; a unit given for times printed in seconds is
 * not applied, and said so.
 */
static void ts_unit_check(struct ctx *c, const char *path, const struct text_counts *n)
{
	if (n->ts_int && !c->o->ts_unit) {
		c->r->ts_ticks += n->ts_int;
		input_warn(c->r,
			   "'%s': its timestamps are integers of unknown unit (a counter clock such "
			   "as x86-tsc, or trace-cmd report --raw-ts): times are in ticks; --ts-unit "
			   "says what one is (ns, us, 2100MHz, ...)",
			   path);
	}
	if (n->ts_int && n->ts_frac)
		input_warn(c->r,
			   "'%s': %llu KVM record%s with integer timestamps (the first at line %llu) "
			   "among %llu in seconds: %s",
			   path, (unsigned long long)n->ts_int, n->ts_int == 1 ? "" : "s",
			   (unsigned long long)n->first_ts_int_line,
			   (unsigned long long)n->ts_frac,
			   c->o->ts_unit ? "those converted with --ts-unit"
					 : "their times are ticks, the others ns");
	if (c->o->ts_unit && !n->ts_int && n->ts_frac)
		input_warn(c->r,
			   "'%s': --ts-unit not applied: its timestamps are in seconds, not integers",
			   path);
}

static int load_text(int fd, const char *path, struct ctx *c)
{
	struct text_ops ops = {.event = text_event,
			       .lost = text_lost,
			       .comm = text_comm,
			       .brk = text_break,
			       .ts_unit = c->o->ts_unit,
			       .anatomy = c->anatomy,
			       .arg = c};
	struct text_counts n = {0};
	struct procmap *none;
	char e[256];

	if (use_procmap(c, path, NULL, 0, &none) < 0)
		return -1;
	input_feed(c, NULL); /* the reader converts --ts-unit itself */
	int rc = text_read_fd(fd, c->o->types, &ops, &n, e, sizeof(e));
	input_feed_end(c);
	if (rc < 0)
		return err_buf(c->e, c->elen, "'%s': %s", path, e);
	c->r->events += n.events;
	c->r->text_inputs++;
	/* what printed it: the header named all text "ftrace text", perf script's too */
	c->r->kind_name = n.flavor == TEXT_PERF	      ? "perf script text"
			  : n.flavor == TEXT_TRACECMD ? "trace-cmd report text"
						      : "ftrace text";
	if (n.not_understood && !c->r->not_understood)
		c->r->nu_first_line = n.first_bad_line;
	c->r->not_understood += n.not_understood;
	if (n.not_understood && !c->fc.exits)
		return err_buf(
		    c->e, c->elen,
		    "'%s': no exit could be read, %llu line%s not understood: the first, "
		    "line %llu: %s",
		    path, (unsigned long long)n.not_understood, n.not_understood == 1 ? "" : "s",
		    (unsigned long long)n.first_bad_line, n.why);
	if (n.not_understood)
		input_warn(c->r, "'%s': %llu line%s not understood, the first at line %llu: %s",
			   path, (unsigned long long)n.not_understood, n.not_understood == 1 ? "" : "s",
			   (unsigned long long)n.first_bad_line, n.why);
	if (n.long_lines)
		input_warn(c->r,
			   "'%s': %llu line%s longer than 4096 bytes, read up to there (the first at "
			   "line %llu)",
			   path, (unsigned long long)n.long_lines, n.long_lines == 1 ? "" : "s",
			   (unsigned long long)n.first_long_line);
	if (n.restarts)
		input_warn(c->r,
			   "'%s': %llu event%s went back in time (the first at line %llu): read as "
			   "%llu traces pasted one after another, no exit timed across",
			   path, (unsigned long long)n.restarts, n.restarts == 1 ? "" : "s",
			   (unsigned long long)n.first_restart_line,
			   (unsigned long long)n.restarts + 1);
	ts_unit_check(c, path, &n);
	/* perf script shows losses only when asked to: no LOST lines is no proof of none. */
	if (!n.lost_reported)
		c->r->lost_known = false;
	return 0;
}

static int load_perfdata(int fd, const char *path, struct ctx *c)
{
	char e[512];
	int tfd = input_perfdata_text(fd, path, e, sizeof(e)), ret;

	if (tfd < 0)
		return err_buf(c->e, c->elen, "'%s': %s", path, e);
	ret = load_text(tfd, path, c);
	close(tfd);
	return ret;
}

/* Other tools' reports (peertext.c): their rows into the summary table. */
static int load_peer(int fd, const char *path, struct ctx *c)
{
	struct peertext_info info;
	char e[256], *text;
	size_t len;
	int ret;

	if (c->o->npids || c->o->vcpu >= 0 || c->o->vm_name || c->o->buckets)
		return err_buf(c->e, c->elen,
			       "'%s': -p, -g, --vcpu and --buckets do not apply to another tool's "
			       "report",
			       path);
	if (lseek(fd, 0, SEEK_SET) < 0 || file_read_fd(fd, &text, &len) < 0)
		return err_buf_errno(c->e, c->elen, "cannot read '%s'", path);
	ret = peertext_parse(text, len, c->o->types, c->r->summary, &info, e, sizeof(e));
	free(text);
	if (ret < 0)
		return err_buf(c->e, c->elen, "'%s': %s", path, e);
	c->r->kind_name = peertext_form_name(info.form);
	c->r->lost_known = false;
	c->r->counts_only |= info.form != PEERTEXT_PERF_KVM_STAT || info.times_unknown;
	if (info.times_unknown)
		input_warn(c->r, "'%s': %u row%s without min and max (%s prints %s): %s counted, "
				 "not timed",
			   path, info.times_unknown, info.times_unknown == 1 ? "" : "s",
			   peertext_form_name(info.form),
			   info.form == PEERTEXT_BCC_KVMEXIT ? "an average at most" : "no time",
			   info.times_unknown == 1 ? "it is" : "they are");
	return 0;
}

static int load_summary(int fd, const char *path, struct ctx *c)
{
	char e[256];

	if (ppctext_load_fd(fd, path, NULL, c->r->summary, NULL, e, sizeof(e)) < 0)
		return err_buf(c->e, c->elen, "'%s': %s", path, e);
	return 0;
}

/* A report's rows are already what the filters would select from: they cannot apply. */
static int load_json(int fd, const char *path, const struct ctx *c)
{
	const struct input_opts *o = c->o;
	struct input_result *r = c->r;
	struct reportjson_meta m;

	if (o->npids || o->vcpu >= 0 || o->vm_name || o->buckets)
		return err_buf(c->e, c->elen,
			       "'%s': -p, -g, --vcpu and --buckets do not apply to a JSON report",
			       path);
	r->procs_missing = true;
	if (reportjson_load(fd, path, r->exits, r->uexits, r->summary, &m, c->e, c->elen) < 0)
		return -1;
	if (merge_json_meta(r, &m, path, c->e, c->elen) < 0) {
		free(m.hosts);
		return -1;
	}
	add_hosts(r, m.hosts, m.nhosts);
	free(m.hosts);
	return merge_isa(r, m.isa, path, c->e, c->elen);
}

static int no_input(const char *path, char *e, size_t elen)
{
	if (errno == ENODATA)
		return err_buf(e, elen, "'%s': empty file", path);
	if (errno == EINVAL)
		return err_buf(e, elen,
			       "'%s': not a regular file (a FIFO or device cannot be read)", path);
	if (errno)
		return err_buf_errno(e, elen, "cannot open '%s'", path);
	return err_buf(e, elen, "'%s': not a trace.dat, ftrace/perf text, or PPC timing report",
		       path);
}

static int load_fd(int fd, const char *path, const struct input_opts *o, struct input_result *r,
		   char *e, size_t elen)
{
	enum input_kind k = input_detect(fd);
	struct ctx c = {.o = o, .r = r, .flt = {.o = o, .r = r}, .e = e, .elen = elen};

	c.filtered = filter_on(o);
	c.anatomy = anatomy_of(o);
	uint64_t before = r->kvm_events;
	struct pair_counts pc;
	int ret;

	if (k == INPUT_UNKNOWN)
		return no_input(path, e, elen);
	if (k == INPUT_KSTAT_JSON) {
		r->kstat_snapshot = true;
		return -1;
	}
	r->kind = k;
	r->kind_name = input_kind_name(k);
	r->ninputs++;
	if (k == INPUT_PPC_REPORT || k == INPUT_PPC_DEBUGFS)
		return load_summary(fd, path, &c);
	if (k == INPUT_PEER_REPORT)
		return load_peer(fd, path, &c);
	uint64_t ticks_before = r->ts_ticks;

	if (k == INPUT_REPORT_JSON)
		return load_json(fd, path, &c) < 0
			   ? -1
			   : merge_units_check(r, path, r->ts_ticks > ticks_before, e, elen);
	if (k == INPUT_TRACEDAT)
		ret = load_tracedat(fd, path, &c);
	else if (k == INPUT_PERF_DATA)
		ret = load_perfdata(fd, path, &c);
	else
		ret = load_text(fd, path, &c);
	pc = c.pc;
	pair_counts_add(&pc, &c.split_pc);
	r->unpaired += pc.untimed;
	r->ts_backwards += pc.backwards;
	r->threadless_exits += pc.threadless_exits;
	if (pc.threadless)
		input_warn(r,
			   "'%s': %llu event%s of no thread (common_pid 0 or -1) skipped, %llu of "
			   "them exits: not counted",
			   path, (unsigned long long)pc.threadless, pc.threadless == 1 ? "" : "s",
			   (unsigned long long)pc.threadless_exits);
	if (pc.backwards)
		input_warn(r, "'%s': %llu event%s skipped: %s timestamp went back on %s thread",
			   path, (unsigned long long)pc.backwards, pc.backwards == 1 ? "" : "s",
			   pc.backwards == 1 ? "its" : "their",
			   pc.backwards == 1 ? "its" : "their");
	r->sub_folded = stats_table_folded(r->exits) + stats_table_folded(r->uexits);
	if (c.fc.kvm) {
		r->wall_ns += c.fc.ts_last - c.fc.ts_first;
		r->wall_known = true;
	}
	filter_free(&c.flt);
	if (ret == 0 && c.anatomy && !c.has_sched && !r->no_sched)
		r->no_sched = intern(path);
	if (c.flt.unplaced)
		input_warn(r,
			   "'%s': the process of %zu thread%s is not known: -p and -g left %s out",
			   path, c.flt.unplaced, c.flt.unplaced == 1 ? "" : "s",
			   c.flt.unplaced == 1 ? "it" : "them");
	if (ret == 0 && o->vcpu >= 0)
		ret = filter_check_vcpu(&c.flt, path, c.no_map, e, elen);
	if (ret == 0)
		ret = merge_isa(r, c.fc.isa, path, e, elen);
	if (ret == 0 && r->kvm_events == before)
		return err_buf(e, elen, "'%s': no KVM exit events%s%s", path,
			       o->npids || o->vm_name ? " for the selected processes" : "",
			       o->npids && c.no_map ? " (it has no thread->process map: -p matched "
						      "thread ids only)"
						    : "");
	return ret < 0 ? ret : merge_units_check(r, path, r->ts_ticks > ticks_before, e, elen);
}

/*
 * A file given twice would be counted twice (report -i a.json -i a.json
 * summed silently): refused, whatever names it went by. Standard input is a
 * copy of its own each time, and a pipe can be read once anyway.
 */
static int once(int fd, const char *path, struct input_result *r, char *e, size_t elen)
{
	struct stat st;

	if (!strcmp(path, "-") || fstat(fd, &st) < 0)
		return 0;
	for (size_t i = 0; i < r->nfiles; i++)
		if (r->files[i].dev == (unsigned long long)st.st_dev &&
		    r->files[i].ino == (unsigned long long)st.st_ino)
			return err_buf(
			    e, elen,
			    "'%s' is an input already (the same file): its exits would be "
			    "counted twice",
			    path);
	r->files = xrealloc(r->files, (r->nfiles + 1) * sizeof(*r->files));
	r->files[r->nfiles++] = (struct input_file_id){st.st_dev, st.st_ino};
	return 0;
}

int input_load(const char *path, const struct input_opts *o, struct input_result *r, char *errbuf,
	       size_t errlen)
{
	int fd = open_input(path), ret;

	if (errbuf && errlen)
		*errbuf = '\0';
	if (fd < 0)
		return no_input(path, errbuf, errlen);
	ret = once(fd, path, r, errbuf, errlen) < 0 ? -1 : load_fd(fd, path, o, r, errbuf, errlen);
	close(fd);
	return ret;
}

const char *input_comm(const struct input_result *r, int32_t tid)
{
	for (size_t i = 0; i < r->ncomms; i++)
		if (r->comms[i].tid == tid)
			return r->comms[i].comm;
	return NULL;
}

const struct stats_table *input_main_table(const struct input_result *r, const char **note)
{
	*note = NULL;
	/* TIMEINGUEST needs an exit after an entry, so a non-empty table has exits. */
	if (stats_table_size(r->exits))
		return r->exits;
	if (stats_table_size(r->uexits)) {
		*note =
		    "kvm_exit never fired in this input: these are userspace exits (KVM_EXIT_*), "
		    "each timed until its thread called KVM_RUN again";
		return r->uexits;
	}
	return r->summary;
}
