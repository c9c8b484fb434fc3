// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace/perf text input: tracefs `trace` and `trace_pipe`, `trace-cmd
 * report` (plain, -l, -t, -N, with buffer-instance prefixes) and `perf
 * script` of kvm tracepoints, told apart by content, line by line.
 *
 * Lines are read through a fixed buffer: a line longer than TEXT_MAX_LINE is
 * cut (the context and the fields read come first), so memory does not grow
 * with the input. A NUL byte means binary data, not text: an error.
 *
 * Losses are reported where the input says so, in stream order:
 *   tracefs    "# entries-in-buffer/entries-written: A/B" (B - A overwritten,
 *              kernel/trace/trace.c print_event_info()), "CPU:N [LOST N EVENTS]"
 *   trace-cmd  "CPU:N [N EVENTS DROPPED]", "CPU:N [EVENTS DROPPED]"
 *   perf       "PERF_RECORD_LOST ... lost N" (perf script --show-lost-events)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"
#include "text-local.h"

#define READ_CHUNK (64 * 1024)
#define COMM_SLOTS 1024

struct reader {
	const struct text_ops *ops;
	struct text_counts c;
	struct text_decoder *dec;
	char line[TEXT_MAX_LINE + 1];
	size_t len;
	bool stop;
	bool binary;
	bool saw_tracecmd; /* "cpus=N" header */
	bool have_instance;
	char instance[TEXT_MAX_NAME + 1]; /* the buffer whose events are read ("" top level) */
	int32_t comm_tid[COMM_SLOTS];	  /* tids whose name was handed out (direct-mapped) */
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static const char *skip_blanks(const char *s)
{
	while (is_blank(*s))
		s++;
	return s;
}

/* Decimal at s: 0 and *v, -1 when there is none or it overflows. */
static int dec_at(const char *s, const char **end, uint64_t *v)
{
	const char *p = s;

	*v = 0;
	while (*p >= '0' && *p <= '9') {
		if (*v > (UINT64_MAX - 9) / 10)
			return -1;
		*v = *v * 10 + (uint64_t)(*p++ - '0');
	}
	if (end)
		*end = p;
	return p == s ? -1 : 0;
}

static void lost(struct reader *r, int cpu, long long missed)
{
	if (missed > 0)
		r->c.lost += (uint64_t)missed;
	else
		r->c.lost_unknown = true;
	if (r->ops->lost && r->ops->lost(r->ops->arg, cpu, missed))
		r->stop = true;
}

/* "CPU:N [LOST N EVENTS]" or "[LOST EVENTS]" (tracefs), "[N EVENTS DROPPED]" or "[EVENTS DROPPED]"
 */
static bool loss_line(struct reader *r, const char *s)
{
	const char *p = strstr(s, "CPU:"), *q;
	uint64_t cpu, n;

	if (!p || dec_at(p + 4, &q, &cpu) < 0 || strncmp(q, " [", 2) != 0)
		return false;
	q += 2;
	if (strncmp(q, "LOST ", 5) == 0)
		q += 5;
	if (strncmp(q, "EVENTS", 6) == 0) {
		lost(r, cpu > INT32_MAX ? -1 : (int)cpu, -1);
		return true;
	}
	if (dec_at(q, &q, &n) < 0 || strncmp(q, " EVENTS", 7) != 0)
		return false;
	lost(r, cpu > INT32_MAX ? -1 : (int)cpu, n > INT64_MAX ? -1 : (long long)n);
	return true;
}

/* perf script --show-lost-events: "... PERF_RECORD_LOST ... lost 123" */
static bool perf_loss_line(struct reader *r, const char *s)
{
	const char *p = strstr(s, "PERF_RECORD_LOST"), *q;
	uint64_t n;

	if (!p || !(q = strstr(p, "lost ")) || dec_at(q + 5, NULL, &n) < 0)
		return false;
	lost(r, -1, n == 0 || n > INT64_MAX ? -1 : (long long)n);
	return true;
}

/* Comment and header lines of the three printers. */
static bool header_line(struct reader *r, const char *s)
{
	const char *p;
	uint64_t in, written;

	if (s[0] == '#') {
		p = strstr(s, "entries-in-buffer/entries-written:");
		if (p && dec_at(skip_blanks(p + 34), &p, &in) == 0 && *p == '/' &&
		    dec_at(p + 1, NULL, &written) == 0 && written > in)
			lost(r, -1, written - in > INT64_MAX ? -1 : (long long)(written - in));
		return true;
	}
	if (strncmp(s, "cpus=", 5) == 0) {
		r->saw_tracecmd = true;
		return true;
	}
	return strncmp(s, "version = ", 10) == 0 ||
	       (strncmp(s, "CPU ", 4) == 0 && strstr(s, " is empty"));
}

static void comm_of(struct reader *r, const struct text_line *l)
{
	char name[TEXT_MAX_NAME + 1];
	int32_t *slot = &r->comm_tid[(uint32_t)l->tid % COMM_SLOTS];

	if (!r->ops->comm || !l->comm || *slot == l->tid)
		return;
	*slot = l->tid;
	memcpy(name, l->comm, l->comm_len);
	name[l->comm_len] = '\0';
	r->ops->comm(r->ops->arg, l->tid, name);
}

/* trace-cmd prefixes each line with its buffer's name when the file has several: read one. */
static bool same_instance(struct reader *r, const struct text_line *l)
{
	size_t n = l->instance ? l->instance_len : 0;

	if (!r->have_instance) {
		if (n)
			memcpy(r->instance, l->instance, n);
		r->instance[n] = '\0';
		r->have_instance = true;
		return true;
	}
	return strlen(r->instance) == n && (!n || memcmp(r->instance, l->instance, n) == 0);
}

static void flavor_of(struct reader *r, const struct text_line *l)
{
	if (r->c.flavor != TEXT_UNKNOWN)
		return;
	if (l->shape == TEXT_SHAPE_PERF)
		r->c.flavor = TEXT_PERF;
	else if (r->saw_tracecmd || l->shape == TEXT_SHAPE_LATENCY || l->instance)
		r->c.flavor = TEXT_TRACECMD;
	else
		r->c.flavor = TEXT_TRACEFS;
	r->c.lost_reported = r->c.flavor != TEXT_PERF;
	/* only trace-cmd report loads libtraceevent's kvm plugin (perf script does not) */
	text_decoder_set_plugin_names(r->dec, r->c.flavor == TEXT_TRACECMD);
}

static void event_line(struct reader *r, const struct text_line *l)
{
	struct kes_event ev;
	int rc;

	r->c.events++;
	flavor_of(r, l);
	if (!same_instance(r, l)) {
		r->c.other_instance++;
		return;
	}
	comm_of(r, l);
	rc = text_decode(r->dec, l, &ev);
	if (rc < 0) {
		r->c.undecoded++;
	} else if (rc > 0) {
		r->c.kvm++;
		if (r->ops->event && r->ops->event(r->ops->arg, &ev))
			r->stop = true;
	}
}

static void one_line(struct reader *r)
{
	struct text_line l;
	char *s = r->line;
	size_t len = r->len;

	r->c.nlines++;
	r->len = 0;
	while (len && (s[len - 1] == '\r' || is_blank(s[len - 1])))
		len--;
	s[len] = '\0';
	if (!len)
		return;
	if (text_parse_line(s, len, &l) == 0)
		event_line(r, &l);
	else if (!header_line(r, s) && !loss_line(r, s) && !perf_loss_line(r, s))
		r->c.skipped++;
}

/* Splits a chunk into lines; a line's bytes past TEXT_MAX_LINE are dropped. */
static void feed(struct reader *r, const char *buf, size_t n)
{
	if (memchr(buf, '\0', n)) {
		r->binary = true;
		return;
	}
	while (n && !r->stop) {
		const char *nl = memchr(buf, '\n', n);
		size_t take = nl ? (size_t)(nl - buf) : n;
		size_t room = TEXT_MAX_LINE - r->len;

		memcpy(r->line + r->len, buf, take < room ? take : room);
		r->len += take < room ? take : room;
		if (!nl)
			return;
		one_line(r);
		buf = nl + 1;
		n -= take + 1;
	}
}

static void finish(struct reader *r)
{
	if (r->len && !r->stop && !r->binary)
		one_line(r);
}

static int result(struct reader *r, struct text_counts *c, char *errbuf, size_t errlen)
{
	int ret = 0;

	if (r->binary) {
		snprintf(errbuf, errlen, "binary data after line %llu: not ftrace or perf text",
			 (unsigned long long)r->c.nlines);
		ret = -1;
	} else if (!r->c.events) {
		snprintf(errbuf, errlen,
			 "no trace event lines (expected tracefs trace, trace-cmd report "
			 "or perf script output)");
		ret = -1;
	}
	if (c)
		*c = r->c;
	text_decoder_free(r->dec);
	free(r);
	return ret;
}

static struct reader *reader_new(const struct exit_types *types, const struct text_ops *ops)
{
	struct reader *r = xcalloc(1, sizeof(*r));

	r->ops = ops;
	r->dec = text_decoder_new(types);
	for (size_t i = 0; i < COMM_SLOTS; i++)
		r->comm_tid[i] = -1;
	return r;
}

int text_read_mem(const char *buf, size_t len, const struct exit_types *types,
		  const struct text_ops *ops, struct text_counts *c, char *errbuf, size_t errlen)
{
	struct reader *r = reader_new(types, ops);

	feed(r, buf, len);
	finish(r);
	return result(r, c, errbuf, errlen);
}

int text_read(const char *path, const struct exit_types *types, const struct text_ops *ops,
	      struct text_counts *c, char *errbuf, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct reader *r;
	char *chunk;
	ssize_t n;

	if (fd < 0) {
		snprintf(errbuf, errlen, "cannot open: %s", strerror(errno));
		return -1;
	}
	r = reader_new(types, ops);
	chunk = xmalloc(READ_CHUNK);
	while (!r->stop && !r->binary && (n = read(fd, chunk, READ_CHUNK)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			snprintf(errbuf, errlen, "read error: %s", strerror(errno));
			free(chunk);
			close(fd);
			result(r, NULL, NULL, 0);
			return -1;
		}
		feed(r, chunk, (size_t)n);
	}
	free(chunk);
	close(fd);
	finish(r);
	return result(r, c, errbuf, errlen);
}

int text_iterate(const char *path, const struct exit_types *types, source_event_fn fn, void *arg,
		 uint64_t *nlines_kvm, char *errbuf, size_t errlen)
{
	struct text_ops ops = {.event = fn, .arg = arg};
	struct text_counts c;
	int ret = text_read(path, types, &ops, &c, errbuf, errlen);

	if (nlines_kvm)
		*nlines_kvm = ret == 0 ? c.kvm : 0;
	return ret;
}

/*
 * The first bytes of a file (input_detect() passes 4 KiB): text when a
 * complete line parses as a trace event. The last line may be cut, so it
 * counts only when the buffer holds no newline at all.
 */
int text_sniff(const char *buf, size_t len)
{
	char line[TEXT_MAX_LINE + 1];
	struct text_line l;
	bool any_nl = false;

	if (!buf || memchr(buf, '\0', len))
		return 0;
	while (len) {
		const char *nl = memchr(buf, '\n', len);
		size_t n = nl ? (size_t)(nl - buf) : len;
		size_t k = n < TEXT_MAX_LINE ? n : TEXT_MAX_LINE;

		if (!nl && any_nl)
			break; /* maybe cut short by the caller's buffer */
		memcpy(line, buf, k);
		while (k && (line[k - 1] == '\r' || is_blank(line[k - 1])))
			k--;
		line[k] = '\0';
		if (text_parse_line(line, k, &l) == 0)
			return 1;
		if (!nl)
			break;
		any_nl = true;
		buf = nl + 1;
		len -= n + 1;
	}
	return 0;
}
