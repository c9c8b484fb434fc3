// SPDX-License-Identifier: GPL-2.0
/*
 * craftdat: derive a hostile trace.dat from a real v6 recording, the way an
 * attacker (or a bad disk, or a careless tool) would: one header field, one
 * format line, one option or one page changed, everything else kept. The
 * file is parsed section by section (trace-cmd.dat.v6(5)) and written out
 * again with its CPU data page aligned after the header, so a change that
 * alters a section's length still gives a file whose other parts are right.
 *
 *   craftdat IN.dat OUT.dat [MUTATION ARGS...]...
 *
 * Mutations (applied in order; CPU and PAGE count from 0):
 *   field-offset SYS:EVENT FIELD N   the field's "offset:" in the format
 *   field-size SYS:EVENT FIELD N     the field's "size:" in the format
 *   event-id SYS:EVENT N             the format's "ID:"
 *   dup-id SYS:EVENT SYS:OTHER       OTHER's "ID:" := EVENT's
 *   format-replace SYS:EVENT FROM TO the first FROM in the format text -> TO
 *   option-id FROM TO                the first option with id FROM gets id TO
 *   page-size N                      the page size field of the file header
 *   cpu-size CPU DELTA               the CPU's data size += DELTA bytes (< 0: cut)
 *   cpu-alias CPU SRC                CPU's flyrecord entry := SRC's (shared data)
 *   commit-drop-last CPU PAGE        the page's commit ends before its last record
 *   page-commit CPU PAGE N           the page's commit word := N
 *   page-missed CPU PAGE             the page's commit gets the "events missed" flag
 *   record-past-page CPU PAGE        the page's last record claims to run past the page
 *   cmdline-comm PID NAME            the saved_cmdlines name of PID := NAME
 *   option-drop ID                   every option with that id removed (CPUSTAT: 2)
 *   record-pid SYS:EVENT FIELD VALUE N PID
 *                                    the Nth record (from 0, in file order: CPU by
 *                                    CPU, page by page) of EVENT whose FIELD is VALUE
 *                                    gets common_pid := PID (0: the idle task, -1)
 *
 * Host byte order only (the recordings are ours or trace-cmd's on this host); the
 * parsing and writing are tests/tools/datfile.h, shared with the fuzz mutators.
 * Used by tests/e2e/hostile-input.sh; tests/fixtures/bad/PROVENANCE.md
 * lists the fixtures made with it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "err.h"
#include "tools/datfile.h"

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("craftdat: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static struct df_fmt *find_fmt(struct df_file *d, const char *spec)
{
	struct df_fmt *f = df_find_fmt(d, spec);

	if (!f)
		die("no format %s (want SYS:EVENT)", spec);
	return f;
}

static void set_number(struct df_blob *b, const char *anchor, const char *key, const char *v)
{
	if (df_set_number(b, anchor, key, v) < 0)
		die("'%s%s%s' not found in the format", anchor ? anchor : "", anchor ? "..." : "",
		    key);
}

static void field_number(struct df_file *d, const char *ev, const char *field, const char *key,
			 const char *v)
{
	char anchor[256];

	snprintf(anchor, sizeof(anchor), " %s;", field);
	set_number(&find_fmt(d, ev)->text, anchor, key, v);
}

static void dup_id(struct df_file *d, const char *ev, const char *other)
{
	struct df_blob *b = &find_fmt(d, ev)->text;
	size_t len;
	long at = df_number_at(b, NULL, "ID: ", &len);
	char id[32];

	if (at < 0)
		die("%s has no ID", ev);
	snprintf(id, sizeof(id), "%.*s", (int)len, b->p + at);
	set_number(&find_fmt(d, other)->text, NULL, "ID: ", id);
}

static void format_replace(struct df_file *d, const char *ev, const char *from, const char *to)
{
	struct df_blob *b = &find_fmt(d, ev)->text;
	unsigned char *at = memmem(b->p, b->n, from, strlen(from));

	if (!at)
		die("'%s' not in the format of %s", from, ev);
	df_splice(b, (size_t)(at - b->p), strlen(from), to, strlen(to));
}

static void option_id(struct df_file *d, long from, long to)
{
	for (size_t i = 0; i < d->nopts; i++) {
		if (d->opts[i].id == from) {
			d->opts[i].id = (uint16_t)to;
			return;
		}
	}
	die("no option with id %ld", from);
}

static struct df_cpu *cpu_of(struct df_file *d, long cpu)
{
	if (cpu < 0 || (uint32_t)cpu >= d->ncpus)
		die("no cpu %ld", cpu);
	return &d->cpus[cpu];
}

static unsigned char *page_of(struct df_file *d, long cpu, long page)
{
	struct df_cpu *c = cpu_of(d, cpu);

	if (page < 0 || (uint64_t)(page + 1) * d->page_size > c->data.n)
		die("cpu %ld has no page %ld", cpu, page);
	return c->data.p + (size_t)page * d->page_size;
}

static long arg_long(const char *s)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (end == s || *end)
		die("bad number '%s'", s);
	return v;
}

static void cmdline_comm(struct df_file *d, const char *pid, const char *name)
{
	char key[32], *text = xmalloc(d->cmdlines.n + 1), *line, *nl;

	memcpy(text, d->cmdlines.p, d->cmdlines.n);
	text[d->cmdlines.n] = 0;
	snprintf(key, sizeof(key), "%s ", pid);
	for (line = text; *line; line = nl ? nl + 1 : line + strlen(line)) {
		nl = strchr(line, '\n');
		if (!strncmp(line, key, strlen(key))) {
			size_t at = (size_t)(line - text) + strlen(key);
			size_t len = (nl ? (size_t)(nl - line) : strlen(line)) - strlen(key);

			df_splice(&d->cmdlines, at, len, name, strlen(name));
			free(text);
			return;
		}
	}
	die("pid %s not in saved_cmdlines", pid);
}

static void option_drop(struct df_file *d, long id)
{
	size_t kept = 0, n = d->nopts;

	for (size_t i = 0; i < n; i++) {
		if (d->opts[i].id == id)
			free(d->opts[i].data.p);
		else
			d->opts[kept++] = d->opts[i];
	}
	if (kept == n)
		die("no option with id %ld", id);
	d->nopts = kept;
}

/* A field of a format: its offset and size ("offset:N;" and "size:N;" after " NAME;"). */
static void field_at(struct df_fmt *f, const char *field, long *off, long *size)
{
	char anchor[256];
	size_t len;
	long at;

	snprintf(anchor, sizeof(anchor), " %s;", field);
	at = df_number_at(&f->text, anchor, "offset:", &len);
	if (at < 0)
		die("no field %s", field);
	*off = strtol((const char *)f->text.p + at, NULL, 10);
	at = df_number_at(&f->text, anchor, "size:", &len);
	*size = at < 0 ? -1 : strtol((const char *)f->text.p + at, NULL, 10);
	if (*off < 0 || *size < 1 || *size > 8)
		die("field %s: offset %ld size %ld", field, *off, *size);
}

struct pid_edit {
	long id, field_off, field_size, pid_off, nth;
	long long value, pid;
	bool done;
};

static long long read_int(const unsigned char *p, long size)
{
	int64_t v = 0;

	memcpy(&v, p, (size_t)size); /* host byte order, as the file's (see the top) */
	if (size < 8 && (v >> (size * 8 - 1)) & 1)
		v -= (int64_t)1 << (size * 8); /* signed: what the kernel's int fields are */
	return v;
}

static int pid_edit_one(void *arg, unsigned char *payload, uint32_t len)
{
	struct pid_edit *e = arg;
	uint16_t type;
	int32_t pid = (int32_t)e->pid;

	if (len < 8 || (long)len < e->field_off + e->field_size)
		return 0;
	memcpy(&type, payload, 2);
	if (type != e->id || read_int(payload + e->field_off, e->field_size) != e->value)
		return 0;
	if (e->nth-- > 0)
		return 0;
	memcpy(payload + e->pid_off, &pid, 4);
	e->done = true;
	return 1;
}

static void record_pid(struct df_file *d, char **a)
{
	struct df_fmt *f = find_fmt(d, a[1]);
	struct pid_edit e = {
	    .value = strtoll(a[3], NULL, 0), .nth = arg_long(a[4]), .pid = strtoll(a[5], NULL, 0)};
	long pid_size;
	size_t len;
	long at = df_number_at(&f->text, NULL, "ID: ", &len);

	if (at < 0)
		die("%s has no ID", a[1]);
	e.id = strtol((const char *)f->text.p + at, NULL, 10);
	field_at(f, a[2], &e.field_off, &e.field_size);
	field_at(f, "common_pid", &e.pid_off, &pid_size);
	if (pid_size != 4)
		die("common_pid of %s has %ld bytes", a[1], pid_size);
	for (uint32_t c = 0; c < d->ncpus && !e.done; c++)
		for (size_t pg = 0; (pg + 1) * d->page_size <= d->cpus[c].data.n && !e.done; pg++)
			df_each_record(d, d->cpus[c].data.p + pg * d->page_size, d->page_size,
				       pid_edit_one, &e);
	if (!e.done)
		die("no record %s of %s with %s = %s", a[4], a[1], a[2], a[3]);
}

static int mutate(struct df_file *d, char **a)
{
	const char *m = a[0];

	if (!strcmp(m, "field-offset"))
		return field_number(d, a[1], a[2], "offset:", a[3]), 4;
	if (!strcmp(m, "field-size"))
		return field_number(d, a[1], a[2], "size:", a[3]), 4;
	if (!strcmp(m, "event-id"))
		return set_number(&find_fmt(d, a[1])->text, NULL, "ID: ", a[2]), 3;
	if (!strcmp(m, "dup-id"))
		return dup_id(d, a[1], a[2]), 3;
	if (!strcmp(m, "format-replace"))
		return format_replace(d, a[1], a[2], a[3]), 4;
	if (!strcmp(m, "option-id"))
		return option_id(d, arg_long(a[1]), arg_long(a[2])), 3;
	if (!strcmp(m, "page-size")) {
		/* The data stays where the real page size put it. */
		d->page_size = (uint32_t)arg_long(a[1]);
		return 2;
	}
	if (!strcmp(m, "cpu-size")) {
		struct df_cpu *c = cpu_of(d, arg_long(a[1]));
		long delta = arg_long(a[2]);

		if (delta < 0 && (uint64_t)-delta > c->size)
			die("cpu %s has only %llu bytes", a[1], (unsigned long long)c->size);
		c->size += (uint64_t)delta;
		return 3;
	}
	if (!strcmp(m, "cpu-alias")) {
		struct df_cpu *c = cpu_of(d, arg_long(a[1]));

		cpu_of(d, arg_long(a[2]));
		c->alias_of = (int)arg_long(a[2]); /* its place is known once laid out: df_emit() */
		return 3;
	}
	if (!strcmp(m, "commit-drop-last")) {
		unsigned char *p = page_of(d, arg_long(a[1]), arg_long(a[2]));
		uint64_t flags = df_commit(d, p) & ~(uint64_t)((1u << 27) - 1);
		uint32_t last = df_last_record(d, p, d->page_size);

		if (!last)
			die("page has fewer than two records");
		df_set_commit(d, p, flags | last);
		return 3;
	}
	if (!strcmp(m, "page-commit"))
		return df_set_commit(d, page_of(d, arg_long(a[1]), arg_long(a[2])),
				     (uint64_t)arg_long(a[3])),
		       4;
	if (!strcmp(m, "page-missed")) {
		unsigned char *p = page_of(d, arg_long(a[1]), arg_long(a[2]));

		df_set_commit(d, p, df_commit(d, p) | 1ULL << 31);
		return 3;
	}
	if (!strcmp(m, "record-past-page")) {
		unsigned char *p = page_of(d, arg_long(a[1]), arg_long(a[2]));
		uint32_t last = df_last_record(d, p, d->page_size), head = 0, len;
		size_t hdr = 8 + (d->long_size == 4 ? 4 : 8);

		if (!last)
			die("page has fewer than two records");
		/* type_len 0: the length is in array[0]; a page's worth runs far past it */
		len = d->page_size;
		memcpy(p + hdr + last, &head, 4);
		memcpy(p + hdr + last + 4, &len, 4);
		return 3;
	}
	if (!strcmp(m, "cmdline-comm"))
		return cmdline_comm(d, a[1], a[2]), 3;
	if (!strcmp(m, "option-drop"))
		return option_drop(d, arg_long(a[1])), 2;
	if (!strcmp(m, "record-pid"))
		return record_pid(d, a), 6;
	die("unknown mutation '%s'", m);
}

static int arity(const char *m)
{
	static const struct {
		const char *name;
		int n;
	} t[] = {
	    {"field-offset", 3},   {"field-size", 3},	    {"event-id", 2},	{"dup-id", 2},
	    {"format-replace", 3}, {"option-id", 2},	    {"page-size", 1},	{"cpu-size", 2},
	    {"cpu-alias", 2},	   {"commit-drop-last", 2}, {"page-commit", 3}, {"page-missed", 2},
	    {"cmdline-comm", 2},   {"record-past-page", 2}, {"option-drop", 1}, {"record-pid", 5}};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (!strcmp(t[i].name, m))
			return t[i].n;
	die("unknown mutation '%s'", m);
}

int main(int argc, char **argv)
{
	struct df_blob file = {0};
	struct df_file d;
	unsigned char *out;
	size_t len;
	FILE *f;

	if (argc < 3)
		die("usage: craftdat IN.dat OUT.dat [MUTATION ARGS...]...");
	f = fopen(argv[1], "rb");
	if (!f)
		die("cannot open '%s': %s", argv[1], strerror(errno));
	for (size_t cap = 0;;) {
		if (file.n == cap)
			file.p = xrealloc(file.p, cap = cap * 2 + 65536);
		size_t r = fread(file.p + file.n, 1, cap - file.n, f);
		if (!r)
			break;
		file.n += r;
	}
	fclose(f);
	if (df_parse(file.p, file.n, &d) < 0)
		die("'%s' is not a little-endian v6 flyrecord trace.dat", argv[1]);
	for (int i = 3; i < argc;) {
		if (argc - i - 1 < arity(argv[i]))
			die("'%s' needs %d arguments", argv[i], arity(argv[i]));
		i += mutate(&d, argv + i);
	}
	df_emit(&d, &out, &len);
	f = fopen(argv[2], "wb");
	if (!f || fwrite(out, 1, len, f) != len || fclose(f))
		die("cannot write '%s': %s", argv[2], strerror(errno));
	free(out);
	df_free(&d);
	free(file.p);
	return 0;
}
