// SPDX-License-Identifier: GPL-2.0
/*
 * Test fixtures: a v6 trace.dat made from real format files (of any ISA) and
 * events written as text, "cpu ts_ns pid system:event field=value ...".
 * Each event is laid out at the offsets its format file gives, then encoded
 * into ring-buffer pages exactly as the kernel would, so that libtracecmd and
 * `trace-cmd report` read it back. This is how decoders of ISAs the
 * development machines do not have get tested on their real formats.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <traceevent/event-parse.h>
#include "alloc.h"
#include "err.h"
#include "file.h"
#include "fixture.h"
#include "output.h"
#include "ring.h"

struct fmt {
	char *system; /* NULL until known */
	char *name;
	char *text;
	size_t len;
	struct tep_event *event;
};

struct fev {
	int cpu;
	uint64_t ts;
	size_t line; /* input order, for a stable sort */
	unsigned char *data;
	size_t len;
};

struct fixture {
	struct fmt *fmts;
	size_t nfmts;
	char *hpage, *hevent;
	size_t hpage_len, hevent_len;
	struct fev *evs;
	size_t nevs;
	char *err;
	size_t errlen;
};

static int fail(struct fixture *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct fixture *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_buf_v(f->err, f->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* This host's tracefs header_page and header_event, for fixtures that give none. */
static int read_tracefs_headers(char **page, size_t *page_len, char **event, size_t *event_len)
{
	static const char *const dirs[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char p1[128], p2[128];

		snprintf(p1, sizeof(p1), "%s/events/header_page", dirs[i]);
		snprintf(p2, sizeof(p2), "%s/events/header_event", dirs[i]);
		if (file_read_path(p1, page, page_len) == 0) {
			if (file_read_path(p2, event, event_len) == 0)
				return 0;
			free(*page);
		}
	}
	return -1;
}

/* ------------------------------------------------------------------------ */
/* Format files */

static char *format_name(const char *text)
{
	const char *p = strstr(text, "name: ");
	size_t n;

	if (p != text && (!p || p[-1] != '\n'))
		return NULL;
	p += 6;
	n = strcspn(p, "\r\n");
	return n ? strndup(p, n) : NULL;
}

static int add_format(struct fixture *f, const char *system, const char *path)
{
	struct fmt m = {0};

	if (file_read_path(path, &m.text, &m.len))
		return err_buf_errno(f->err, f->errlen, "cannot read format file '%s'", path);
	m.name = format_name(m.text);
	if (!m.name) {
		free(m.text);
		return fail(f, "'%s': no \"name:\" line, not a format file", path);
	}
	m.system = system ? xstrdup(system) : NULL;
	f->fmts = xrealloc(f->fmts, (f->nfmts + 1) * sizeof(*f->fmts));
	f->fmts[f->nfmts++] = m;
	return 0;
}

/* A directory: <event>/format for each event, header_page/header_event if present. */
static int add_dir(struct fixture *f, const char *system, const char *dir)
{
	struct dirent **list;
	char path[4096];
	int n = scandir(dir, &list, NULL, alphasort), ret = 0;

	if (n < 0)
		return err_buf_errno(f->err, f->errlen, "cannot read '%s'", dir);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s/format", dir, list[i]->d_name);
		if (!ret && list[i]->d_name[0] != '.' && access(path, R_OK) == 0)
			ret = add_format(f, system, path);
		free(list[i]);
	}
	free(list);
	snprintf(path, sizeof(path), "%s/header_page", dir);
	if (!ret && !f->hpage && access(path, R_OK) == 0) {
		snprintf(path, sizeof(path), "%s/header_page", dir);
		if (file_read_path(path, &f->hpage, &f->hpage_len))
			return fail(f, "cannot read '%s'", path);
		snprintf(path, sizeof(path), "%s/header_event", dir);
		if (file_read_path(path, &f->hevent, &f->hevent_len))
			return fail(f, "cannot read '%s'", path);
	}
	return ret;
}

/* "SYSTEM:PATH" or "PATH", a format file or a directory of them. */
static int add_spec(struct fixture *f, const char *spec)
{
	const char *colon = strchr(spec, ':'), *path = colon ? colon + 1 : spec;
	char *system = colon ? strndup(spec, (size_t)(colon - spec)) : NULL;
	struct stat st;
	int ret;

	if (stat(path, &st) < 0)
		ret = err_buf_errno(f->err, f->errlen, "cannot read '%s'", path);
	else if (S_ISDIR(st.st_mode))
		ret = add_dir(f, system, path);
	else
		ret = add_format(f, system, path);
	free(system);
	return ret;
}

static struct fmt *find_fmt(struct fixture *f, const char *system, const char *name)
{
	for (size_t i = 0; i < f->nfmts; i++)
		if (!strcmp(f->fmts[i].name, name) &&
		    (!f->fmts[i].system || !strcmp(f->fmts[i].system, system)))
			return &f->fmts[i];
	return NULL;
}

/* ------------------------------------------------------------------------ */
/* Event lines */

/* Next whitespace-separated token; "double quotes" keep spaces. Modifies s. */
static char *token(char **s)
{
	char *p = *s, *start, *out;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p)
		return NULL;
	start = out = p;
	for (bool q = false; *p && (q || (*p != ' ' && *p != '\t')); p++) {
		if (*p == '"')
			q = !q;
		else
			*out++ = *p;
	}
	if (*p)
		p++;
	*out = 0;
	*s = p;
	return start;
}

static void put_int(unsigned char *dst, int size, uint64_t v)
{
	uint8_t v1 = (uint8_t)v;
	uint16_t v2 = (uint16_t)v;
	uint32_t v4 = (uint32_t)v;

	switch (size) {
	case 1:
		memcpy(dst, &v1, 1);
		break;
	case 2:
		memcpy(dst, &v2, 2);
		break;
	case 4:
		memcpy(dst, &v4, 4);
		break;
	case 8:
		memcpy(dst, &v, 8);
		break;
	}
}

static int parse_int(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = *s == '-' ? (uint64_t)strtoll(s, &end, 0) : strtoull(s, &end, 0);
	return errno || end == s || *end ? -1 : 0;
}

/* Record payload under construction: fixed part, then __data_loc strings. */
struct payload {
	unsigned char *p;
	size_t fixed, len;
};

static int set_field(struct fixture *f, size_t line, struct payload *pl,
		     const struct tep_format_field *fld, const char *val)
{
	uint64_t v;

	if (fld->flags & TEP_FIELD_IS_DYNAMIC) {
		size_t n = strlen(val) + 1, at = pl->len;
		uint32_t loc;

		/* __rel_loc offsets count from the end of the field itself */
		if (fld->flags & TEP_FIELD_IS_RELATIVE)
			at -= (size_t)(fld->offset + fld->size);
		if (n > 0xffff || at > 0xffff)
			return fail(f, "line %zu: %s: string too long", line, fld->name);
		loc = (uint32_t)at | (uint32_t)n << 16;
		pl->p = xrealloc(pl->p, pl->len + n);
		memcpy(pl->p + pl->len, val, n);
		pl->len += n;
		put_int(pl->p + fld->offset, 4, loc);
		return 0;
	}
	if ((fld->flags & TEP_FIELD_IS_ARRAY) && fld->elementsize == 1 && parse_int(val, &v)) {
		strncpy((char *)pl->p + fld->offset, val, (size_t)fld->size - 1);
		return 0;
	}
	if (parse_int(val, &v))
		return fail(f, "line %zu: %s=%s: not a number", line, fld->name, val);
	if (fld->size != 1 && fld->size != 2 && fld->size != 4 && fld->size != 8)
		return fail(f, "line %zu: %s: a %d-byte field takes no number", line, fld->name,
			    fld->size);
	put_int(pl->p + fld->offset, fld->size, v);
	return 0;
}

static size_t fixed_size(struct tep_event *ev)
{
	struct tep_format_field **all[2] = {tep_event_common_fields(ev), tep_event_fields(ev)};
	size_t end = 0;

	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; all[k] && all[k][i]; i++) {
			size_t e = (size_t)(all[k][i]->offset + all[k][i]->size);

			if (e > end)
				end = e;
		}
		free(all[k]);
	}
	return end;
}

static int encode_fields(struct fixture *f, size_t line, struct tep_event *ev, int pid, char *rest,
			 struct payload *pl)
{
	struct tep_format_field *fld;
	char *tok;

	pl->fixed = pl->len = fixed_size(ev);
	pl->p = xcalloc(1, pl->len);
	if ((fld = tep_find_common_field(ev, "common_type")))
		put_int(pl->p + fld->offset, fld->size, (uint64_t)ev->id);
	if ((fld = tep_find_common_field(ev, "common_pid")))
		put_int(pl->p + fld->offset, fld->size, (uint64_t)(int64_t)pid);
	while ((tok = token(&rest))) {
		char *eq = strchr(tok, '=');

		if (!eq)
			return fail(f, "line %zu: '%s': expected field=value", line, tok);
		*eq = 0;
		fld = tep_find_any_field(ev, tok);
		if (!fld)
			return fail(f, "line %zu: %s:%s has no field '%s'", line, ev->system,
				    ev->name, tok);
		if (set_field(f, line, pl, fld, eq + 1))
			return -1;
	}
	return 0;
}

static int add_event_line(struct fixture *f, struct tep_handle *tep, size_t line, char *s)
{
	char *cpu_s = token(&s), *ts_s = token(&s), *pid_s = token(&s), *name = token(&s);
	uint64_t cpu, ts, pid;
	struct payload pl = {0};
	struct tep_event *ev;
	char *colon;

	if (!cpu_s)
		return 0;
	if (!name || parse_int(cpu_s, &cpu) || cpu > 4095 || parse_int(ts_s, &ts) ||
	    parse_int(pid_s, &pid) || !(colon = strchr(name, ':')))
		return fail(f, "line %zu: expected \"cpu ts_ns pid system:event field=value ...\"",
			    line);
	*colon = 0;
	ev = tep_find_event_by_name(tep, name, colon + 1);
	if (!ev)
		return fail(f, "line %zu: no format file for %s:%s", line, name, colon + 1);
	if (encode_fields(f, line, ev, (int)pid, s, &pl)) {
		free(pl.p);
		return -1;
	}
	f->evs = xrealloc(f->evs, (f->nevs + 1) * sizeof(*f->evs));
	f->evs[f->nevs++] = (struct fev){(int)cpu, ts, line, pl.p, pl.len};
	return 0;
}

/* First pass: events name their formats' systems. */
static void assign_systems(struct fixture *f, const char *text)
{
	char *copy = xstrdup(text), *save = NULL, *l;

	for (l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *s = l, *name = NULL, *colon;
		struct fmt *m;

		for (int i = 0; i < 4; i++)
			name = token(&s);
		if (*l == '#' || !name || !(colon = strchr(name, ':')))
			continue;
		*colon = 0;
		m = find_fmt(f, name, colon + 1);
		if (m && !m->system)
			m->system = xstrdup(name);
	}
	free(copy);
	for (size_t i = 0; i < f->nfmts; i++)
		if (!f->fmts[i].system)
			f->fmts[i].system = xstrdup("kvm");
}

/* ------------------------------------------------------------------------ */
/* Build */

static int load_headers(struct fixture *f, size_t *page_size, int *long_size)
{
	if (!f->hpage && read_tracefs_headers(&f->hpage, &f->hpage_len, &f->hevent, &f->hevent_len))
		return fail(f, "no header_page given and none readable from tracefs");
	if (ring_header_parse(f->hpage, f->hpage_len, page_size, long_size))
		return fail(f, "cannot parse header_page");
	return 0;
}

static struct tep_handle *parse_formats(struct fixture *f, int long_size)
{
	struct tep_handle *tep = tep_alloc();

	tep_set_long_size(tep, long_size);
	tep_parse_header_page(tep, f->hpage, (unsigned long)f->hpage_len, long_size);
	for (size_t i = 0; i < f->nfmts; i++) {
		struct fmt *m = &f->fmts[i];

		if (tep_parse_event(tep, m->text, m->len, m->system)) {
			fail(f, "cannot parse the format of %s:%s", m->system, m->name);
			tep_free(tep);
			return NULL;
		}
		m->event = tep_find_event_by_name(tep, m->system, m->name);
		for (size_t j = 0; j < i && m->event; j++)
			if (f->fmts[j].event && f->fmts[j].event->id == m->event->id) {
				fail(f, "%s:%s and %s:%s share the event id %d", m->system, m->name,
				     f->fmts[j].system, f->fmts[j].name, m->event->id);
				tep_free(tep);
				return NULL;
			}
	}
	return tep;
}

static int cmp_fev(const void *a, const void *b)
{
	const struct fev *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int write_pages(struct fixture *f, struct dat_writer *w, size_t page_size, int long_size)
{
	unsigned char *page = xmalloc(page_size);
	struct ringenc e;
	int ret = 0, cpu = -1;

	if (f->nevs)
		qsort(f->evs, f->nevs, sizeof(*f->evs), cmp_fev);
	for (size_t i = 0; i < f->nevs && !ret; i++) {
		int r;

		if (f->evs[i].cpu != cpu) {
			if (cpu >= 0 && e.used)
				ret = dat_writer_page(w, cpu, page, page_size);
			cpu = f->evs[i].cpu;
			ringenc_init(&e, page, page_size, long_size);
		}
		r = ringenc_add(&e, f->evs[i].ts, f->evs[i].data, f->evs[i].len);
		if (r == 1) {
			ret = dat_writer_page(w, cpu, page, page_size);
			ringenc_init(&e, page, page_size, long_size);
			r = ringenc_add(&e, f->evs[i].ts, f->evs[i].data, f->evs[i].len);
		}
		if (r)
			ret = fail(f, "line %zu: event does not fit in a page", f->evs[i].line);
	}
	if (!ret && cpu >= 0 && e.used)
		ret = dat_writer_page(w, cpu, page, page_size);
	free(page);
	return ret;
}

static int build(struct fixture *f, const char *out, const char *text)
{
	struct dat_writer_format *forms;
	struct dat_writer_meta m = {0};
	struct tep_handle *tep;
	struct dat_writer *w = NULL;
	char *copy, *l;
	size_t page_size, line = 0;
	int long_size, ncpus = 1, ret = -1;

	if (load_headers(f, &page_size, &long_size))
		return -1;
	assign_systems(f, text);
	tep = parse_formats(f, long_size);
	if (!tep)
		return -1;
	copy = xstrdup(text);
	/* strsep, not strtok: empty lines must still count for line numbers */
	for (char *rest = copy; (l = strsep(&rest, "\n"));) {
		line++;
		if (*l != '#' && add_event_line(f, tep, line, l))
			goto out;
	}
	for (size_t i = 0; i < f->nevs; i++)
		if (f->evs[i].cpu + 1 > ncpus)
			ncpus = f->evs[i].cpu + 1;
	w = dat_writer_new(out, ncpus, page_size, f->err, f->errlen);
	if (!w || write_pages(f, w, page_size, long_size))
		goto out;
	forms = xcalloc(f->nfmts + 1, sizeof(*forms));
	for (size_t i = 0; i < f->nfmts; i++)
		forms[i] =
		    (struct dat_writer_format){f->fmts[i].system, f->fmts[i].text, f->fmts[i].len};
	m.header_page = f->hpage;
	m.header_page_len = f->hpage_len;
	m.header_event = f->hevent;
	m.header_event_len = f->hevent_len;
	m.formats = forms;
	m.nformats = f->nfmts;
	ret = dat_writer_finish(w, &m, f->err, f->errlen);
	free(forms);
out:
	dat_writer_free(w);
	free(copy);
	tep_free(tep);
	return ret;
}

int datfixture_build(const char *out, const char *const *format_specs, size_t nspecs,
		     const char *events_text, char *errbuf, size_t errlen)
{
	struct fixture f = {.err = errbuf, .errlen = errlen};
	int ret = 0;

	for (size_t i = 0; i < nspecs && !ret; i++)
		ret = add_spec(&f, format_specs[i]);
	if (!ret && !f.nfmts)
		ret = fail(&f, "no format files given");
	if (!ret)
		ret = build(&f, out, events_text);
	for (size_t i = 0; i < f.nfmts; i++) {
		free(f.fmts[i].system);
		free(f.fmts[i].name);
		free(f.fmts[i].text);
	}
	for (size_t i = 0; i < f.nevs; i++)
		free(f.evs[i].data);
	free(f.fmts);
	free(f.evs);
	free(f.hpage);
	free(f.hevent);
	return ret;
}
