// SPDX-License-Identifier: GPL-2.0
/*
 * In-kernel aggregation (include/khist.h). The triggers are built with
 * libtracefs (tracefs_hist_*, tracefs_synth_*) and written by us into our
 * instance's event files: libtracefs 1.6.4's tracefs_synth_create() writes
 * the synthetic event's start and end hists into the top level's kvm_exit
 * and kvm_entry (there is no tracefs_synth_set_instance() before 1.7), and
 * its tracefs_hist has no setter for the map size; so we take the strings
 * tracefs_synth_echo_cmd() and tracefs_hist_echo_cmd() print, append the
 * size, and write them into the instance. The flight recorder's snapshot
 * is a plain event trigger on the synthetic event ("snapshot:1 if lat >=
 * T"), for which libtracefs 1.6.4 has no API (tracefs_synth_snapshot()
 * gives onmax().snapshot(): a snapshot at each new maximum, not over a
 * threshold), so it is written by hand.
 *
 * What the kernel does with them (kernel/trace/trace_events_hist.c): a
 * trigger that reads the event needs the record, so the event is reserved
 * in the ring buffer, handed to the triggers and discarded when the event
 * itself is not enabled; set_event_pid filters before that. common_timestamp
 * switches the instance to the global clock (hist_register_trigger()), so
 * the triggers are set before tracing starts.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracefs.h>
#include <traceevent/event-parse.h>
#include "alloc.h"
#include "err.h"
#include "khist.h"
#include "live-local.h"
#include "live.h"

#define COUNT_SIZE 8192	 /* (thread, reason) pairs: a vCPU thread x ~20 reasons */
#define LAT_SIZE   16384 /* (thread, reason, log2) triples */
#define MAX_TRIG   6

struct trig {
	char *sys, *ev, *text;
	int hist_fd; /* its event's hist file, kept open and read again from 0 (-1: none yet) */
};

struct khist {
	struct live *c;
	struct tracefs_instance *inst;
	char synth[64];
	char *synth_def; /* the dynamic_events line, once written */
	struct trig t[MAX_TRIG];
	int nt;
	int count_t, lat_t, snap_t; /* indexes into t, -1: none */
	size_t nfields;
	uint64_t slow_ns;
};

bool khist_supported(const char *exit_sys, const char *exit_ev, char *why, size_t len)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "events/%s/%s/hist", exit_sys, exit_ev);
	if (!tracefs_file_exists(NULL, rel))
		return err_buf(why, len, "this kernel has no hist triggers (CONFIG_HIST_TRIGGERS)"),
		       false;
	if (!tracefs_file_exists(NULL, "synthetic_events"))
		return err_buf(why, len, "this kernel has no synthetic events (CONFIG_SYNTH_EVENTS)"),
		       false;
	return true;
}

/* The quoted string of an "echo '...' >> path" line libtracefs printed. */
static char *quoted(const char *line)
{
	const char *a = strchr(line, '\''), *b = a ? strchr(a + 1, '\'') : NULL;

	char *s;

	if (!a || !b)
		return NULL;
	s = xmalloc((size_t)(b - a));
	memcpy(s, a + 1, (size_t)(b - a - 1));
	s[b - a - 1] = '\0';
	return s;
}

/* The kernel's reason for a refused trigger, from the instance's error_log. */
static void why_refused(struct khist *h, char *errbuf, size_t errlen, const char *what)
{
	char *log = tracefs_instance_file_read(h->inst, "error_log", NULL);
	char *e = NULL, *p = log;

	/* the last "error: ..." of the log (each entry: its error, the command, a caret) */
	while (p && (p = strstr(p, "error: ")))
		e = p++;
	if (e)
		e[strcspn(e, "\n")] = '\0';
	err_buf(errbuf, errlen, "the kernel refused '%s': %s", what, e ? e + 7 : "no reason given");
	free(log);
}

static int add_trig(struct khist *h, const char *sys, const char *ev, const char *text,
		    char *errbuf, size_t errlen)
{
	if (h->nt == MAX_TRIG)
		return err_buf(errbuf, errlen, "too many triggers");
	if (tracefs_event_file_append(h->inst, sys, ev, "trigger", text) < 0) {
		why_refused(h, errbuf, errlen, text);
		return -1;
	}
	h->t[h->nt++] = (struct trig){xstrdup(sys), xstrdup(ev), xstrdup(text), -1};
	return h->nt - 1;
}

/* "hist:keys=...:vals=..." of a libtracefs hist, with the map size appended. */
static char *hist_text(struct tracefs_hist *hist, size_t size)
{
	struct trace_seq seq;
	char *q, *out = NULL;

	trace_seq_init(&seq);
	if (tracefs_hist_echo_cmd(&seq, NULL, hist, TRACEFS_HIST_CMD_START) == 0) {
		trace_seq_terminate(&seq);
		q = quoted(seq.buffer);
		if (q && asprintf(&out, "%s:size=%zu", q, size) < 0)
			out = NULL;
		free(q);
	}
	trace_seq_destroy(&seq);
	return out;
}

static struct tep_handle *formats(const char *sys, const char *ev1, const char *ev2)
{
	struct tep_handle *tep = tep_alloc();
	const char *evs[2] = {ev1, ev2};

	for (int i = 0; tep && i < 2; i++) {
		int len = 0;
		char *buf = evs[i] ? tracefs_event_file_read(NULL, sys, evs[i], "format", &len)
				   : NULL;

		if (evs[i] && (!buf || tep_parse_event(tep, buf, (unsigned long)len, sys) != 0)) {
			free(buf);
			tep_free(tep);
			return NULL;
		}
		free(buf);
	}
	return tep;
}

/* The counts: hist:keys=common_pid,F0[,F1] on the exit event. */
static int set_counts(struct khist *h, const struct khist_opts *o, char *errbuf, size_t errlen)
{
	struct tep_handle *tep = formats(o->exit_sys, o->exit_ev, NULL);
	struct tracefs_hist_axis ax[KHIST_MAX_FIELDS + 2] = {{"common_pid", TRACEFS_HIST_KEY_NORMAL}};
	struct tracefs_hist *hist;
	char *text;

	for (size_t i = 0; i < o->nfields; i++)
		ax[i + 1] = (struct tracefs_hist_axis){o->fields[i], TRACEFS_HIST_KEY_NORMAL};
	hist = tep ? tracefs_hist_alloc_nd(tep, o->exit_sys, o->exit_ev, ax) : NULL;
	text = hist ? hist_text(hist, COUNT_SIZE) : NULL;
	tracefs_hist_free(hist);
	if (tep)
		tep_free(tep);
	if (!text)
		return err_buf(errbuf, errlen, "cannot build the hist of %s:%s", o->exit_sys,
			       o->exit_ev);
	h->count_t = add_trig(h, o->exit_sys, o->exit_ev, text, errbuf, errlen);
	free(text);
	return h->count_t < 0 ? -1 : 0;
}

/*
 * The synthetic event (exit -> entry of one thread: lat, r0[, r1]) from the
 * three lines tracefs_synth_echo_cmd() prints: its definition, the start
 * hist, the end hist.
 */
static int set_synth(struct khist *h, const struct khist_opts *o, char *errbuf, size_t errlen)
{
	struct tep_handle *tep = strcmp(o->exit_sys, o->entry_sys)
					 ? NULL
					 : formats(o->exit_sys, o->exit_ev, o->entry_ev);
	struct tracefs_synth *s = NULL;
	struct trace_seq seq;
	char *line[3] = {0}, *save = NULL, *p;
	int ret = -1, n = 0;

	if (tep)
		s = tracefs_synth_alloc(tep, h->synth, o->exit_sys, o->exit_ev, o->entry_sys,
					o->entry_ev, "common_pid", "common_pid", NULL);
	if (!s || tracefs_synth_add_compare_field(s, TRACEFS_TIMESTAMP, TRACEFS_TIMESTAMP,
						  TRACEFS_SYNTH_DELTA_END, "lat") < 0)
		goto out;
	for (size_t i = 0; i < o->nfields; i++)
		if (tracefs_synth_add_start_field(s, o->fields[i], i ? "r1" : "r0") < 0)
			goto out;
	trace_seq_init(&seq);
	if (tracefs_synth_echo_cmd(&seq, s) == 0) {
		trace_seq_terminate(&seq);
		for (p = strtok_r(seq.buffer, "\n", &save); p && n < 3; p = strtok_r(NULL, "\n", &save))
			line[n++] = quoted(p);
	}
	trace_seq_destroy(&seq);
	if (n != 3 || !line[0] || !line[1] || !line[2])
		goto out;
	/* the one host-wide part: the definition (dynamic_events) */
	if (tracefs_instance_file_append(NULL, "dynamic_events", line[0]) < 0) {
		err_buf_errno(errbuf, errlen, "cannot define the synthetic event %s", h->synth);
		goto done;
	}
	h->synth_def = xstrdup(line[0]);
	if (add_trig(h, o->exit_sys, o->exit_ev, line[1], errbuf, errlen) < 0 ||
	    add_trig(h, o->entry_sys, o->entry_ev, line[2], errbuf, errlen) < 0)
		goto done;
	ret = 0;
	goto done;
out:
	err_buf(errbuf, errlen, "cannot build the synthetic event %s:%s -> %s:%s", o->exit_sys,
		o->exit_ev, o->entry_sys, o->entry_ev);
done:
	for (int i = 0; i < 3; i++)
		free(line[i]);
	tracefs_synth_free(s);
	if (tep)
		tep_free(tep);
	return ret;
}

/* The latency hist on the synthetic event: keys=common_pid,r0,lat.log2 vals=lat. */
static int set_latency(struct khist *h, char *errbuf, size_t errlen)
{
	struct tep_handle *tep = formats("synthetic", h->synth, NULL);
	struct tracefs_hist_axis ax[] = {{"common_pid", TRACEFS_HIST_KEY_NORMAL},
					 {"r0", TRACEFS_HIST_KEY_NORMAL},
					 {"lat", TRACEFS_HIST_KEY_LOG},
					 {NULL, 0}};
	struct tracefs_hist *hist = tep ? tracefs_hist_alloc_nd(tep, "synthetic", h->synth, ax)
					: NULL;
	char *text = NULL;

	if (hist && tracefs_hist_add_value(hist, "lat") == 0)
		text = hist_text(hist, LAT_SIZE);
	tracefs_hist_free(hist);
	if (tep)
		tep_free(tep);
	if (!text)
		return err_buf(errbuf, errlen, "cannot build the latency hist of %s", h->synth);
	h->lat_t = add_trig(h, "synthetic", h->synth, text, errbuf, errlen);
	free(text);
	return h->lat_t < 0 ? -1 : 0;
}

/* slow_ns: "snapshot:1 if lat >= N" on the synthetic event (see the top: by hand). */
static int set_snapshot(struct khist *h, char *errbuf, size_t errlen)
{
	char text[96];

	snprintf(text, sizeof(text), "snapshot:1 if lat >= %llu", (unsigned long long)h->slow_ns);
	h->snap_t = add_trig(h, "synthetic", h->synth, text, errbuf, errlen);
	return h->snap_t < 0 ? -1 : 0;
}

/* ------------------------------------------------------------------------ */
/* Synthetic events a dead process left: "s:synthetic/kes_<pid>..." */

static void reap_synthetic(void)
{
	char *all = tracefs_instance_file_read(NULL, "dynamic_events", NULL), *save = NULL, *l;

	for (l = all ? strtok_r(all, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
		char name[64], cmd[80];
		int pid;

		if (sscanf(l, "s:synthetic/%63s", name) != 1 &&
		    sscanf(l, "s:%63s", name) != 1)
			continue;
		if (sscanf(name, "kes_%d_", &pid) != 1 || pid <= 0 ||
		    pid == (int)live_kernel_self() || live_kernel_pid_exists(pid))
			continue;
		snprintf(cmd, sizeof(cmd), "-:%s", name);
		tracefs_instance_file_append(NULL, "dynamic_events", cmd);
	}
	free(all);
}

struct khist *khist_new(struct live *c, const struct khist_opts *o, char *errbuf, size_t errlen)
{
	struct khist *h = xcalloc(1, sizeof(*h));
	const char *iname = live_instance_name(c);
	const char *tag = strchr(iname + strlen(LIVE_INSTANCE_PREFIX), '-');

	*h = (struct khist){.c = c,
			    .inst = live_tracefs_instance(c),
			    .count_t = -1,
			    .lat_t = -1,
			    .snap_t = -1,
			    .nfields = o->nfields,
			    .slow_ns = o->slow_ns};
	/* "kvm-exitstat-123" -> kes_123_lat, "kvm-exitstat-123-flight" -> kes_123_flight_lat */
	snprintf(h->synth, sizeof(h->synth), "kes_%d%s%s_lat", (int)live_kernel_self(),
		 tag ? "_" : "", tag ? tag + 1 : "");
	reap_synthetic();
	if (!o->nfields || o->nfields > KHIST_MAX_FIELDS || set_counts(h, o, errbuf, errlen) < 0 ||
	    set_synth(h, o, errbuf, errlen) < 0 || set_latency(h, errbuf, errlen) < 0 ||
	    (o->slow_ns && set_snapshot(h, errbuf, errlen) < 0)) {
		if (!o->nfields || o->nfields > KHIST_MAX_FIELDS)
			err_buf(errbuf, errlen, "in-kernel aggregation: 1 or 2 reason fields");
		khist_free(h);
		return NULL;
	}
	return h;
}

/* ------------------------------------------------------------------------ */
/* Reading: "{ common_pid: 158, exit_reason: 123 } hitcount: 301  lat: 9931234" */

/* One "name: value" of a key: the value, or log2 for "~ 2^15". */
static const char *key_value(const char *p, uint64_t *v, int *log2)
{
	p = strchr(p, ':');
	if (!p)
		return NULL;
	p++;
	while (*p == ' ')
		p++;
	if (p[0] == '~') {
		char *end;

		p += 2; /* "~ " */
		if (strncmp(p, "2^", 2))
			return NULL;
		*log2 = (int)strtol(p + 2, &end, 10);
		return end;
	}
	char *end;
	*v = strtoull(p, &end, 10);
	return end == p ? NULL : end;
}

static int parse_line(const char *l, struct khist_entry *e, size_t nkeys, bool lat)
{
	const char *p = l + 1, *close = strchr(l, '}');
	uint64_t keys[KHIST_MAX_FIELDS + 2] = {0};
	size_t k = 0;

	if (!close)
		return -1;
	*e = (struct khist_entry){.log2 = -1};
	while (p && p < close && k < nkeys) {
		p = key_value(p, &keys[k], &e->log2);
		if (!p)
			return -1;
		k++;
		p = strchr(p, ',') && strchr(p, ',') < close ? strchr(p, ',') + 1 : close;
	}
	if (k != nkeys)
		return -1;
	e->tid = (int32_t)keys[0];
	for (size_t i = 1; i < nkeys - lat; i++)
		e->f[i - 1] = keys[i];
	p = strstr(close, "hitcount:");
	if (!p || !key_value(p, &e->n, &e->log2))
		return -1;
	if (lat && (!(p = strstr(close, "lat:")) || !key_value(p, &e->sum, &e->log2)))
		return -1;
	return 0;
}

/*
 * The hist file, whole: kept open (a seq_file read from offset 0 again makes
 * the text anew), read with pread into a buffer that grows: two syscalls a
 * read where libtracefs's open/read.../close took six.
 */
static char *hist_read(struct khist *h, struct trig *t)
{
	size_t cap = 65536, len = 0;
	char *buf;
	ssize_t n;

	if (t->hist_fd < 0) {
		char rel[256];

		snprintf(rel, sizeof(rel), "events/%s/%s/hist", t->sys, t->ev);
		t->hist_fd = tracefs_instance_file_open(h->inst, rel, O_RDONLY);
		if (t->hist_fd < 0)
			return NULL;
	}
	buf = xmalloc(cap + 1);
	while ((n = pread(t->hist_fd, buf + len, cap - len, (off_t)len)) > 0) {
		len += (size_t)n;
		if (len == cap)
			buf = xrealloc(buf, (cap *= 2) + 1);
	}
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

static int read_hist(struct khist *h, int t, size_t nkeys, bool lat, struct khist_entry **out,
		     size_t *n, uint64_t *dropped)
{
	char *text = hist_read(h, &h->t[t]);
	char *save = NULL, *l, *d;

	*out = NULL;
	*n = 0;
	if (!text)
		return -1;
	/*
	 * Several hists on one event: ours is the one whose trigger info has
	 * its keys ("hist:keys=common_pid,exit_reason,isa:"); the kernel writes
	 * the rest of it its own way (vals, sort, size).
	 */
	const char *colon = strchr(h->t[t].text + 10, ':');
	char keys[256];

	snprintf(keys, sizeof(keys), "trigger info: %.*s:",
		 colon ? (int)(colon - h->t[t].text) : 0, h->t[t].text);
	d = strstr(text, keys);
	for (l = d ? strtok_r(d, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
		struct khist_entry e;

		if (!strncmp(l, "# event histogram", 17))
			break; /* the next hist's */
		if (!strncmp(l, "    Dropped:", 12))
			*dropped += strtoull(l + 12, NULL, 10);
		if (l[0] != '{' || parse_line(l, &e, nkeys, lat) < 0)
			continue;
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		(*out)[(*n)++] = e;
	}
	free(text);
	return 0;
}

int khist_read(struct khist *h, struct khist_data *d)
{
	*d = (struct khist_data){0};
	if (read_hist(h, h->count_t, 1 + h->nfields, false, &d->counts, &d->ncounts,
		      &d->dropped) < 0 ||
	    read_hist(h, h->lat_t, 3, true, &d->lat, &d->nlat, &d->dropped) < 0) {
		khist_data_free(d);
		return -1;
	}
	return 0;
}

void khist_data_free(struct khist_data *d)
{
	free(d->counts);
	free(d->lat);
	*d = (struct khist_data){0};
}

bool khist_snapshot_taken(struct khist *h)
{
	char *text;
	bool taken;

	if (h->snap_t < 0)
		return false;
	/* the count left in the trigger file: "snapshot:count=0 if ..." once fired */
	text = tracefs_event_file_read(h->inst, "synthetic", h->synth, "trigger", NULL);
	taken = text && strstr(text, "snapshot:count=0");
	free(text);
	return taken;
}

int khist_rearm(struct khist *h)
{
	struct trig *t;

	if (h->snap_t < 0)
		return 0;
	t = &h->t[h->snap_t];
	/* "!snapshot" removes the snapshot trigger whatever its count; then it is armed anew */
	tracefs_event_file_append(h->inst, t->sys, t->ev, "trigger", "!snapshot");
	return tracefs_event_file_append(h->inst, t->sys, t->ev, "trigger", t->text) < 0 ? -1 : 0;
}

void khist_free(struct khist *h)
{
	if (!h)
		return;
	/* the users of the synthetic event first (its hists), then those that make it */
	for (int i = h->nt - 1; i >= 0; i--) {
		char *undo = NULL;

		if (i == h->snap_t)
			undo = xstrdup("!snapshot");
		else if (asprintf(&undo, "!%s", h->t[i].text) < 0)
			undo = NULL;
		if (h->t[i].hist_fd >= 0)
			close(h->t[i].hist_fd);
		if (undo)
			tracefs_event_file_append(h->inst, h->t[i].sys, h->t[i].ev, "trigger", undo);
		free(undo);
		free(h->t[i].sys);
		free(h->t[i].ev);
		free(h->t[i].text);
	}
	if (h->synth_def) {
		char cmd[80];

		snprintf(cmd, sizeof(cmd), "-:%s", h->synth);
		tracefs_instance_file_append(NULL, "dynamic_events", cmd);
		free(h->synth_def);
	}
	free(h);
}
