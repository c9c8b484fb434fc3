// SPDX-License-Identifier: GPL-2.0
/*
 * The difference oracle: a file that contradicts itself must be refused or
 * reported with a warning, never turned into another table with status 0.
 * Each seed (a real recording or text) is reported as it is; then copies of
 * it get one visible structure-aware mutation each (tests/fuzz/mutate.h:
 * something a reader can tell from the file itself) and are reported the way
 * `report` does (input_load). Every outcome must be one of
 *
 *   refused    input_load() failed (one line, fuzz_input_load())
 *   warned     a warning the seed had not, or other losses (the header says so)
 *   same       the same table (CSV of every row) as the seed's
 *
 * and nothing else: a different table with no word is a silent difference,
 * saved under OUTDIR (with what the mutation did) and counted. So is, for a
 * trace.dat, a report with no new word whose events are not the records an
 * independent page walker finds in the mutated file (pagewalk.h: v6, v7 and
 * its zstd chunks decompressed by libzstd itself), or one that took a page
 * or chunk the walker finds broken (issue 29). The rendered
 * table and ppc outputs must hold no raw control byte either, and the JSON
 * output must be what json-c's strict parser, checking UTF-8, accepts (a
 * name with a byte that is no UTF-8 once made it no JSON). Built with
 * ASan + UBSan, so a crash or overread is a failure too.
 *
 *   oracle [-s SECONDS] [-n MUTATIONS] [-o OUTDIR] [-r SEED] FILE...
 *
 * Prints "oracle: N executions ..." per seed kind and exits 1 on any silent
 * difference, raw escape or invalid JSON. tests/fuzz/run.sh runs it with `make fuzz`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>
#include "fuzz.h"
#include "mutate.h"
#include "pagewalk.h"
#include "pipeline.h"

#define MAX_FILE (4u << 20)

struct outcome {
	bool ok;	  /* input_load() succeeded */
	size_t nwarnings; /* what the header says about the input... */
	uint64_t said;	  /* ... a hash of its warnings' text ... */
	bool lost_known;
	uint64_t lost;
	uint64_t events; /* records read */
	char *table; /* CSV of the main table, malloc'd */
	bool raw;    /* a raw control byte in the table or ppc output */
	bool badjson; /* the JSON output does not parse */
};

/*
 * The header says something the seed's did not: a warning, another warning
 * (the seed's "1 line not understood" now says 2), or other losses.
 */
static bool said_so(const struct outcome *got, const struct outcome *base)
{
	return got->nwarnings > base->nwarnings || (got->nwarnings && got->said != base->said) ||
	       got->lost_known != base->lost_known || got->lost != base->lost;
}

static uint64_t warnings_hash(const struct input_result *r)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < r->nwarnings; i++)
		for (const char *c = r->warnings[i]; *c; c++)
			h = (h ^ (uint8_t)*c) * 1099511628211ULL;
	return h;
}

struct tally {
	unsigned long long runs, refused, warned, same, silent, raw, badjson;
	unsigned long long walked, walker; /* compared with the page walker; silent there */
};

static char *render(const struct stats_table *t, enum render_format fmt)
{
	struct render_meta m = {.inputs = "oracle", .kind = "oracle", .source = "oracle"};
	struct render_opts ro = {.fmt = fmt};
	struct stats_view *v = stats_view_new(t, 1, "ns", STATS_SORT_NAME);
	struct render_block b = {.tid = -1, .vcpu = -1, .v = v};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	render_report(f, &ro, &m, &b, 1);
	fclose(f);
	stats_view_free(v);
	return buf;
}

/* Bytes a terminal would act on, outside what the renderers print themselves. */
static bool has_raw(const char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\n') || (unsigned char)*s == 0x7f ||
		    (unsigned char)*s == 0x9b)
			return true;
	return false;
}

/* Does json-c, strict and checking UTF-8, take s as one JSON document? */
static bool json_ok(const char *s)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o;
	bool ok;

	if (!tok)
		abort();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, s, (int)strlen(s));
	ok = o && json_tokener_get_error(tok) == json_tokener_success;
	json_object_put(o);
	json_tokener_free(tok);
	return ok;
}

static struct outcome report(const uint8_t *data, size_t size)
{
	struct input_opts o = {.types = fuzz_types(), .vcpu = -1};
	const char *path = fuzz_file(data, size);
	struct outcome out = {0};
	struct input_result r;
	const char *note;

	input_result_init(&r);
	out.ok = fuzz_input_load(path, &o, &r) == 0;
	if (out.ok) {
		const struct stats_table *t = input_main_table(&r, &note);

		out.nwarnings = r.nwarnings;
		out.said = warnings_hash(&r);
		out.lost_known = r.lost_known;
		out.lost = r.lost;
		out.events = r.events;
		if (stats_table_size(t)) {
			char *ppc = render(t, RENDER_PPC), *tab = render(t, RENDER_TABLE);
			char *json = render(t, RENDER_JSON);

			out.raw = has_raw(ppc) || has_raw(tab);
			out.badjson = !json_ok(json);
			free(ppc);
			free(tab);
			free(json);
			out.table = render(t, RENDER_CSV);
		}
	}
	input_result_free(&r);
	if (!out.table)
		out.table = strdup("");
	return out;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = malloc(MAX_FILE);

	if (!f || !buf) {
		fprintf(stderr, "oracle: cannot read '%s': %s\n", path, strerror(errno));
		exit(2);
	}
	*len = fread(buf, 1, MAX_FILE, f);
	fclose(f);
	return buf;
}

static void save(const char *outdir, const char *kind, unsigned long long n, const uint8_t *data,
		 size_t size, const struct mut_desc *m, const char *seed)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s-%llu", outdir, kind, n);
	f = fopen(path, "wb");
	if (f) {
		fwrite(data, 1, size, f);
		fclose(f);
	}
	printf("oracle: %s: %s (from %s), saved as %s\n", kind, m->what, seed, path);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The seed as it is must report cleanly, or nothing can be compared to it. */
static bool usable(const struct outcome *base, const char *path)
{
	if (base->ok && *base->table)
		return true;
	printf("oracle: %s is no seed (it does not report cleanly as it is)\n", path);
	return false;
}

/*
 * A report taken with no new word must have read what the page walker finds:
 * the same records, and no page or chunk it finds broken (texts and files it
 * does not follow: nothing to compare).
 */
static bool walker_agrees(const uint8_t *data, size_t size, const struct outcome *got,
			  struct tally *t)
{
	struct pw_count c;
	enum pw_verdict v = pagewalk(data, size, &c);

	if (v == PW_SKIP)
		return true;
	t->walked++;
	return v == PW_OK && c.records == got->events;
}

static void one(const uint8_t *seed, size_t size, const struct outcome *base, struct rng *r,
		const char *name, const char *outdir, struct tally *t)
{
	static uint8_t *buf;
	struct mut_desc m = {""};
	size_t n;
	struct outcome got;

	if (!buf)
		buf = malloc(
		    MAX_FILE); /* once: a 4 MiB allocation per run costs ASan more than the run */
	memcpy(buf, seed, size);
	n = mutate_any(buf, size, MAX_FILE, r, true, &m);
	if (!n || (n == size && !memcmp(buf, seed, size)))
		return;
	got = report(buf, n);
	t->runs++;
	if (got.raw) {
		t->raw++;
		save(outdir, "raw-escape", t->raw, buf, n, &m, name);
	}
	if (got.badjson) {
		t->badjson++;
		save(outdir, "bad-json", t->badjson, buf, n, &m, name);
	}
	if (!got.ok)
		t->refused++;
	else if (said_so(&got, base))
		t->warned++;
	else if (!walker_agrees(buf, n, &got, t)) {
		t->silent++;
		t->walker++;
		save(outdir, "silent-walker", t->walker, buf, n, &m, name);
	} else if (!strcmp(got.table, base->table))
		t->same++;
	else {
		t->silent++;
		save(outdir, "silent", t->silent, buf, n, &m, name);
	}
	free(got.table);
}

int main(int argc, char **argv)
{
	double seconds = 10, t0;
	unsigned long long limit = 0, seed = 1;
	const char *outdir = ".";
	struct tally t = {0};
	int c, quiet;

	while ((c = getopt(argc, argv, "s:n:o:r:")) != -1) {
		switch (c) {
		case 's':
			seconds = atof(optarg);
			break;
		case 'n':
			limit = strtoull(optarg, NULL, 10);
			break;
		case 'o':
			outdir = optarg;
			break;
		case 'r':
			seed = strtoull(optarg, NULL, 10);
			break;
		default:
			fputs("usage: oracle [-s SECONDS] [-n MUTATIONS] [-o OUTDIR] [-r SEED] "
			      "FILE...\n",
			      stderr);
			return 2;
		}
	}
	/* a line at a time: LeakSanitizer ends the process without flushing stdio */
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* the readers' one-line errors are expected by the thousand: not on the terminal */
	quiet = open("/dev/null", O_WRONLY);
	if (quiet >= 0)
		dup2(quiet, STDERR_FILENO);
	struct rng r = {seed * 0x9E3779B97F4A7C15ULL + 1};
	size_t nseeds = 0, *sizes = calloc((size_t)argc, sizeof(*sizes));
	uint8_t **seeds = calloc((size_t)argc, sizeof(*seeds));
	struct outcome *base = calloc((size_t)argc, sizeof(*base));
	const char **names = calloc((size_t)argc, sizeof(*names));

	for (int i = optind; i < argc; i++) {
		seeds[nseeds] = slurp(argv[i], &sizes[nseeds]);
		base[nseeds] = report(seeds[nseeds], sizes[nseeds]);
		names[nseeds] = argv[i];
		if (usable(&base[nseeds], argv[i])) {
			nseeds++;
		} else {
			free(base[nseeds].table);
			free(seeds[nseeds]);
		}
	}
	if (!nseeds) {
		puts("oracle: no usable seed");
		return 2;
	}
	t0 = now();
	while ((limit ? t.runs < limit : now() - t0 < seconds)) {
		size_t i = pick(&r, nseeds);

		one(seeds[i], sizes[i], &base[i], &r, names[i], outdir, &t);
	}
	printf("oracle: %llu executions in %.0f s over %zu seeds: %llu refused, %llu warned, %llu "
	       "the same table, %llu silent differences (%llu of them against the page walker, "
	       "which checked %llu), %llu raw escapes, %llu invalid JSON\n",
	       t.runs, now() - t0, nseeds, t.refused, t.warned, t.same, t.silent, t.walker,
	       t.walked, t.raw, t.badjson);
	for (size_t i = 0; i < nseeds; i++) {
		free(seeds[i]);
		free(base[i].table);
	}
	free(seeds);
	free(sizes);
	free(base);
	free(names);
	return t.silent || t.raw || t.badjson ? 1 : 0;
}
