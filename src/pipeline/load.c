// SPDX-License-Identifier: GPL-2.0
/*
 * source -> decode -> pair -> stats over one input file. The input kind is
 * told by content, never by file name.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <traceevent/event-parse.h>
#include "buckets.h"
#include "common.h"
#include "collect.h"
#include "decode.h"
#include "pair.h"
#include "pipeline.h"
#include "ppctext.h"
#include "source.h"

#define TRACEDAT_MAGIC "\027\010\104tracing"

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
	free(r->comms);
	*r = (struct input_result){0};
}

const char *input_kind_name(enum input_kind k)
{
	switch (k) {
	case INPUT_TRACEDAT:
		return "trace.dat";
	case INPUT_FTRACE_TXT:
		return "ftrace text";
	case INPUT_PPC_REPORT:
		return "PPC timing report";
	case INPUT_PPC_DEBUGFS:
		return "KVM-PPC exit-timing dump";
	default:
		return "unknown";
	}
}

/*
 * Sniffs up to 64 KiB: a mailed report may carry a page of prose before its
 * first row. Sets errno: ENOENT etc. from open, ENODATA for an empty file,
 * EISDIR for a directory, EINVAL for anything else that is not a regular
 * file: inputs are read twice (sniff, then load), which a FIFO or a device
 * cannot do, and the second open of a FIFO whose writer is gone would wait
 * forever (tests/e2e/badinput.sh).
 */
enum input_kind input_detect(const char *path)
{
	static char buf[64 * 1024];
	enum input_kind k = INPUT_UNKNOWN;
	int fd = open(path, O_RDONLY | O_NONBLOCK);
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return INPUT_UNKNOWN;
	if (fstat(fd, &st) < 0)
		st.st_mode = 0; /* not a regular file either */
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		return INPUT_UNKNOWN;
	}
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0) {
		errno = n == 0 ? ENODATA : errno;
		return INPUT_UNKNOWN;
	}
	errno = 0;
	if ((size_t)n >= sizeof(TRACEDAT_MAGIC) - 1 &&
	    memcmp(buf, TRACEDAT_MAGIC, sizeof(TRACEDAT_MAGIC) - 1) == 0)
		return INPUT_TRACEDAT;
	if (memchr(buf, '\0', (size_t)n))
		return INPUT_UNKNOWN; /* binary, and not a trace.dat */
	if (ppctext_sniff(buf, (size_t)n, &k))
		return k;
	if (text_sniff(buf, (size_t)n))
		return INPUT_FTRACE_TXT;
	return INPUT_UNKNOWN;
}

struct ctx {
	const struct input_opts *o;
	struct input_result *r;
	struct decoder *d;
	struct pair *p;
	uint64_t page_lost;	/* losses the pages carry a count for */
	bool page_lost_unknown; /* a page flagged a loss without room for its count */
};

static bool wanted(const struct input_opts *o, const struct kes_event *ev)
{
	if (o->vcpu >= 0 && ev->vcpu >= 0 && ev->vcpu != o->vcpu)
		return false;
	if (!o->npids)
		return true;
	for (size_t i = 0; i < o->npids; i++)
		if (o->pids[i] == ev->tid)
			return true;
	return false;
}

static int on_event(void *arg, const struct kes_event *ev)
{
	struct ctx *c = arg;

	if (!wanted(c->o, ev))
		return 0;
	c->r->kvm_events++;
	if (ev->kind == KES_EXIT && !c->r->isa)
		c->r->isa = ev->isa;
	pair_event(c->p, ev);
	return 0;
}

static int on_record(void *arg, const void *data, int size, uint64_t ts, int cpu, long long missed)
{
	struct ctx *c = arg;
	struct kes_event ev;

	c->r->events++;
	if (missed) {
		/* A gap: whatever was open on any thread may have lost its entry. */
		pair_lost(c->p);
		if (missed > 0)
			c->page_lost += (uint64_t)missed;
		else
			c->page_lost_unknown = true;
	}
	if (!decoder_decode(c->d, data, size, ts, cpu, &ev))
		return 0;
	return on_event(arg, &ev);
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

static int load_tracedat(const char *path, struct ctx *c)
{
	char e[256];
	struct tracedat *td = tracedat_open(path, e, sizeof(e));
	uint64_t lost;

	if (!td)
		return err("%s", e);
	c->d = decoder_new(tracedat_tep(td), c->o->types);
	if (decoder_nbound(c->d) == 0) {
		decoder_free(c->d);
		tracedat_close(td);
		return err("'%s': no KVM events in this trace.dat (recorded without -e kvm?)",
			   path);
	}
	int ret = tracedat_iterate(td, on_record, c, e, sizeof(e));
	if (ret < 0)
		err("'%s': %s", path, e);
	struct comm_walk w = {c->r, tracedat_tep(td)};
	stats_table_foreach(c->r->exits, comm_of_row, &w);
	stats_table_foreach(c->r->uexits, comm_of_row, &w);
	/*
	 * The per-CPU stats that record stores are complete (drops with
	 * overwrite off never show in the pages); the pages' own counts are the
	 * fallback for files from other writers.
	 */
	if (datfile_lost_events(path, &lost) == 0) {
		c->r->lost += lost;
	} else {
		/* Other writers' files: pages show overwrites, never drops. */
		c->r->lost += c->page_lost;
		c->r->lost_known = false;
	}
	decoder_free(c->d);
	tracedat_close(td);
	return ret;
}

static int text_lost(void *arg, int cpu, long long missed)
{
	struct ctx *c = arg;

	pair_lost(c->p);
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

static int load_text(const char *path, struct ctx *c)
{
	struct text_ops ops = {.event = on_event, .lost = text_lost, .comm = text_comm, .arg = c};
	struct text_counts n = {0};
	char e[256];

	if (text_read(path, c->o->types, &ops, &n, e, sizeof(e)) < 0)
		return err("'%s': %s", path, e);
	c->r->events += n.events;
	/* perf script shows losses only when asked to: no LOST lines is no proof of none. */
	if (!n.lost_reported)
		c->r->lost_known = false;
	return 0;
}

static int load_summary(const char *path, struct ctx *c)
{
	char e[256];

	if (ppctext_load(path, NULL, c->r->summary, NULL, e, sizeof(e)) < 0)
		return err("'%s': %s", path, e);
	return 0;
}

static int no_input(const char *path)
{
	if (errno == ENODATA)
		return err("'%s': empty file", path);
	if (errno == EINVAL)
		return err("'%s': not a regular file (a FIFO or device cannot be read)", path);
	if (errno)
		return err("cannot open '%s': %s", path, strerror(errno));
	return err("'%s': not a trace.dat, ftrace/perf text, or PPC timing report", path);
}

int input_load(const char *path, const struct input_opts *o, struct input_result *r)
{
	enum input_kind k = input_detect(path);
	struct ctx c = {.o = o, .r = r};
	uint64_t before = r->kvm_events;
	struct pair_counts pc;
	int ret;

	if (k == INPUT_UNKNOWN)
		return no_input(path);
	r->kind = k;
	r->ninputs++;
	if (k == INPUT_PPC_REPORT || k == INPUT_PPC_DEBUGFS)
		return load_summary(path, &c);
	if (o->with_sub) {
		stats_table_set_sub_cap(r->exits, INPUT_SUB_CAP);
		stats_table_set_sub_cap(r->uexits, INPUT_SUB_CAP);
	}
	c.p = pair_new(r->exits, r->uexits, o->with_sub);
	if (o->buckets)
		pair_set_namer(c.p, bucket_namer, (void *)o->buckets);
	ret = k == INPUT_TRACEDAT ? load_tracedat(path, &c) : load_text(path, &c);
	pair_finish(c.p);
	pair_get_counts(c.p, &pc);
	r->unpaired += pc.untimed;
	r->ts_backwards += pc.backwards;
	r->sub_folded = stats_table_folded(r->exits) + stats_table_folded(r->uexits);
	pair_free(c.p);
	if (ret == 0 && r->kvm_events == before)
		return err("'%s': no KVM exit events%s", path,
			   o->npids || o->vcpu >= 0 ? " for the selected pids/vcpu" : "");
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
