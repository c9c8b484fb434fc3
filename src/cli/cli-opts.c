// SPDX-License-Identifier: GPL-2.0
/*
 * The option-table engine: one struct cli_opt table per command drives
 * getopt_long, the checking of word arguments, --help, the `__options` dump
 * that the bash completion and tests/e2e/docsync.sh read. So the help, the
 * completion and the man pages (which docsync checks) cannot drift from what
 * the parser accepts.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "bucket-map.h"
#include "cli-local.h"
#include "err.h"

#define LONG_BASE 256 /* getopt_long's val for table entry i is LONG_BASE + i */
#define HELP_ID	  (-1)

/* Every command also takes -h/--help; the engine answers it. */
static const struct cli_opt help_opt = {
    .lng = "help", .shrt = 'h', .help = "this text", .id = HELP_ID};


static size_t count(const struct cli_opt *t)
{
	size_t n = 0;

	while (t[n].lng)
		n++;
	return n;
}

/* Entry i of the command's table, the help option after the last. */
static const struct cli_opt *entry(const struct cli_cmd *c, size_t i)
{
	return i < count(c->opts) ? &c->opts[i] : &help_opt;
}

struct table {
	struct option *lo;
	char *shorts;
	size_t n;
};

static void build(const struct cli_cmd *c, struct table *t)
{
	size_t k = 0;

	t->n = count(c->opts) + 1;
	t->lo = xcalloc(t->n + 1, sizeof(*t->lo));
	t->shorts = xcalloc(3 * t->n + 3, 1);
	/* '+': stop at the first operand; ':': a missing argument is ':' (our message) */
	if (c->flags & CLI_CMD_OPERANDS_END)
		t->shorts[k++] = '+';
	t->shorts[k++] = ':';
	for (size_t i = 0; i < t->n; i++) {
		const struct cli_opt *o = entry(c, i);

		t->lo[i] = (struct option){o->lng, o->arg ? required_argument : no_argument, NULL,
					   (int)(LONG_BASE + i)};
		if (o->shrt) {
			t->shorts[k++] = o->shrt;
			if (o->arg)
				t->shorts[k++] = ':';
		}
	}
}

static void table_free(struct table *t)
{
	free(t->lo);
	free(t->shorts);
}

/* getopt's answer -> the table entry, or NULL for '?' and ':'. */
static const struct cli_opt *which(const struct cli_cmd *c, const struct table *t, int ch)
{
	if (ch >= LONG_BASE && (size_t)(ch - LONG_BASE) < t->n)
		return entry(c, (size_t)(ch - LONG_BASE));
	for (size_t i = 0; ch > 0 && i < t->n; i++)
		if (entry(c, i)->shrt == ch)
			return entry(c, i);
	return NULL;
}

static void want_list(char *buf, size_t len, const char *const *v)
{
	size_t n = 0, k;

	buf[0] = '\0';
	for (k = 0; v[k]; k++)
		;
	for (size_t i = 0; i < k && n < len; i++) {
		int w = snprintf(buf + n, len - n, "%s%s",
				 i == 0	      ? ""
				 : i + 1 == k ? " or "
					      : ", ",
				 v[i]);
		n += w > 0 ? (size_t)w : 0;
	}
}

/* The index of arg in o->values, or -1 after err(). */
static int value_of(const struct cli_opt *o, const char *arg)
{
	char list[256];

	for (int i = 0; o->values[i]; i++)
		if (!strcmp(o->values[i], arg))
			return i;
	want_list(list, sizeof(list), o->values);
	return err("unknown %s '%s': want %s", o->noun ? o->noun : o->lng, arg, list);
}

bool cli_opts_json(const struct cli_cmd *c, int argc, char **argv)
{
	struct table t;
	bool json = false;
	int ch;

	build(c, &t);
	opterr = 0;
	optind = 0; /* glibc: start afresh */
	while ((ch = getopt_long(argc, argv, t.shorts, t.lo, NULL)) != -1) {
		const struct cli_opt *o = which(c, &t, ch);

		if (o && (o->flags & CLI_OPT_JSON))
			json = !o->arg || !strcmp(optarg, "json");
	}
	table_free(&t);
	optind = 0;
	return json;
}

/* The name an error gives the option getopt stopped at. */
static const char *bad_name(char **argv, char *buf, size_t len)
{
	if (optopt && optopt < LONG_BASE)
		snprintf(buf, len, "-%c", optopt);
	else
		snprintf(buf, len, "%s", argv[optind - 1]);
	return buf;
}

/* A bound option (CLI_BOOL, CLI_STRING, CLI_PIDS, ...) sets its field. 0, or -1 after err(). */
static int set_bound(void *opts, const struct cli_opt *o, const char *arg)
{
	char *field = (char *)opts + o->off;

	switch (o->bind) {
	case CLI_BIND_BOOL:
		*(bool *)field = true;
		return 0;
	case CLI_BIND_STRING:
		*(const char **)field = arg;
		return 0;
	case CLI_BIND_PIDS: {
		struct cli_pids *p = (struct cli_pids *)field;

		return cli_add_pids(&p->v, &p->n, arg);
	}
	case CLI_BIND_WIDTH:
		return cli_parse_width(arg, (unsigned *)field);
	default:
		return cli_add_types_file((struct cli_types *)field, arg);
	}
}

int cli_opts_parse(const struct cli_cmd *c, void *opts, int argc, char **argv, int *first)
{
	struct table t;
	char name[128];
	int ch, ret = 0;

	build(c, &t);
	opterr = 0;
	optind = 0;
	while (!ret && (ch = getopt_long(argc, argv, t.shorts, t.lo, NULL)) != -1) {
		const struct cli_opt *o = which(c, &t, ch);
		int value = -1;

		if (ch == ':')
			ret = err("%s: %s needs an argument (see 'kvm-exitstat %s --help')",
				  c->name, bad_name(argv, name, sizeof(name)), c->name);
		else if (!o)
			ret = err("%s: unknown option '%s' (see 'kvm-exitstat %s --help')", c->name,
				  bad_name(argv, name, sizeof(name)), c->name);
		else if (o->id == HELP_ID) {
			cli_opts_help(stdout, c);
			table_free(&t);
			exit(0);
		} else if (o->values && (value = value_of(o, optarg)) < 0)
			ret = -1;
		else if (o->bind)
			ret = set_bound(opts, o, optarg);
		else
			ret = c->parse(opts, o->id, optarg, value) < 0 ? -1 : 0;
	}
	table_free(&t);
	*first = optind;
	return ret;
}

/* "-d, -s, --delay, --set-delay SECS": an option with its aliases. */
static void left_column(const struct cli_cmd *c, size_t i, char *buf, size_t len)
{
	const struct cli_opt *o = entry(c, i), *a;
	size_t n = (size_t)snprintf(buf, len, "  ");
	size_t nt = count(c->opts) + 1;

	if (o->shrt)
		n += (size_t)snprintf(buf + n, len - n, "-%c, ", o->shrt);
	for (size_t j = 0; j < nt && n < len; j++)
		if ((a = entry(c, j))->alias_of && !strcmp(a->alias_of, o->lng) && a->shrt)
			n += (size_t)snprintf(buf + n, len - n, "-%c, ", a->shrt);
	if (n == 2)
		n += (size_t)snprintf(buf + n, len - n, "    ");
	n += (size_t)snprintf(buf + n, len - n, "--%s", o->lng);
	for (size_t j = 0; j < nt && n < len; j++)
		if ((a = entry(c, j))->alias_of && !strcmp(a->alias_of, o->lng))
			n += (size_t)snprintf(buf + n, len - n, ", --%s", a->lng);
	if (o->arg && n < len)
		snprintf(buf + n, len - n, " %s", o->arg);
}

#define MAX_LEFT 30

/* CMD --help: the usage lines, the paragraph, the options with their aliases. */
void cli_opts_help(FILE *f, const struct cli_cmd *c)
{
	size_t nt = count(c->opts) + 1, w = 0;
	const char *u = c->usage;
	char left[160];

	for (bool firstline = true; u; firstline = false) {
		const char *nl = strchr(u, '\n');
		int n = nl ? (int)(nl - u) : (int)strlen(u);

		fprintf(f, "%s kvm-exitstat %s %.*s\n", firstline ? "usage:" : "      ", c->name, n,
			u);
		u = nl ? nl + 1 : NULL;
	}
	fprintf(f, "\n%s\n\n", c->about);
	for (size_t i = 0; i < nt; i++) {
		left_column(c, i, left, sizeof(left));
		if (!entry(c, i)->alias_of && strlen(left) > w && strlen(left) <= MAX_LEFT)
			w = strlen(left);
	}
	for (size_t i = 0; i < nt; i++) {
		const struct cli_opt *o = entry(c, i);
		const char *h = o->help;

		if (o->alias_of)
			continue;
		left_column(c, i, left, sizeof(left));
		if (strlen(left) > w)
			fprintf(f, "%s\n%*s", left, (int)w, "");
		else
			fprintf(f, "%-*s", (int)w, left);
		while (h) {
			const char *nl = strchr(h, '\n');
			int n = nl ? (int)(nl - h) : (int)strlen(h);

			fprintf(f, "  %.*s\n", n, h);
			h = nl ? nl + 1 : NULL;
			if (h)
				fprintf(f, "%*s", (int)w, "");
		}
	}
}

/*
 * What the completion offers for an option's argument, by the argument's
 * name in the row: its words when it has some; a FILE any file, a DIR a
 * directory, a MAP the built-in bucket maps' names or a file. "@file" and
 * "@dir" stand for the file system; "-": nothing.
 */
static void dump_completes(FILE *f, const struct cli_opt *o)
{
	if (o->values) {
		for (size_t k = 0; o->values[k]; k++)
			fprintf(f, "%s%s", k ? "," : "", o->values[k]);
	} else if (!o->arg) {
		fputc('-', f);
	} else if (!strcmp(o->arg, "FILE")) {
		fputs("@file", f);
	} else if (!strcmp(o->arg, "DIR")) {
		fputs("@dir", f);
	} else if (!strcmp(o->arg, "MAP")) {
		for (size_t k = 0; k < bucket_map_nfiles; k++)
			fprintf(f, "%.*s,", (int)strcspn(bucket_map_files[k].file, "."),
				bucket_map_files[k].file);
		fputs("@file", f);
	} else {
		fputc('-', f);
	}
}

void cli_opts_dump(FILE *f, const struct cli_cmd *c)
{
	size_t nt = count(c->opts) + 1;

	for (size_t i = 0; i < nt; i++) {
		const struct cli_opt *o = entry(c, i);

		fprintf(f, "--%s\t%s%c\t%s\t", o->lng, o->shrt ? "-" : "", o->shrt ? o->shrt : '-',
			o->arg ? o->arg : "-");
		for (size_t k = 0; o->values && o->values[k]; k++)
			fprintf(f, "%s%s", k ? "," : "", o->values[k]);
		fprintf(f, "%s\t%s%s\t", o->values ? "" : "-", o->alias_of ? "--" : "",
			o->alias_of ? o->alias_of : "-");
		dump_completes(f, o);
		fputc('\n', f);
	}
}
