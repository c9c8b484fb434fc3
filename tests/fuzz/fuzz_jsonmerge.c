// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: two JSON reports merged as `report -i a.json -i b.json` does
 * (input_load() twice into one result), with an oracle for what issue 29
 * found (a ticks report merged into a "us" table, an events total that
 * wrapped, a name that reached the terminal raw). The input is report A, a
 * NUL byte, report B (no NUL: A merged with itself). When the merge is
 * taken:
 *
 *   units   A and B, each taken alone, are both in ticks or both not;
 *   sums    the header's events and the main table's counts and sums are
 *           A's plus B's (each loaded alone), added in 128 bits: a total
 *           past 2^64 is never taken, a wrap never passes for a count;
 *   escapes the merged table in ppc, table, csv and json, and its names as
 *           Prometheus labels, hold no raw control byte (C0 but '\n', DEL,
 *           C1), the JSON is what json-c's strict UTF-8 parser takes, and a
 *           name that is valid UTF-8 reads back from it unchanged.
 *
 * A broken rule aborts (libFuzzer saves the input). Half the mutations are
 * structure-aware: a report parsed by json-c and one thing changed (its
 * unit, events, a row's counts or sum near 2^64, a name given controls or
 * bytes that are no UTF-8), then written back.
 */
#include <json-c/json.h>
#include "fuzz.h"
#include "pipeline.h"
#include "prom.h"
#include "reportjson.h"
#include "term.h"

/* One memfd per report: input_load() reads paths. */
static const char *doc_file(int which, const uint8_t *data, size_t size)
{
	static char path[2][64];
	static int fd[2] = {-1, -1};

	if (fd[which] < 0) {
		fd[which] = memfd_create("kes-fuzz-json", MFD_CLOEXEC);
		if (fd[which] < 0)
			abort();
		snprintf(path[which], sizeof(path[which]), "/proc/self/fd/%d", fd[which]);
	}
	if (ftruncate(fd[which], 0) < 0 ||
	    (size && pwrite(fd[which], data, size, 0) != (ssize_t)size))
		abort();
	return path[which];
}

struct totals {
	unsigned __int128 all, sum; /* count + untimed, and the times, over the rows */
};

static void add_row(const struct stats_key *k, const struct stats_acc *a, void *arg)
{
	struct totals *t = arg;

	(void)k;
	t->all += (unsigned __int128)a->count + a->untimed;
	t->sum += a->sum;
}

static struct totals totals_of(const struct input_result *r)
{
	struct totals t = {0};
	const char *note;

	stats_table_foreach(input_main_table(r, &note), add_row, &t);
	return t;
}

/*
 * Is the report in ticks, by its own word (json-c, not the tool's reader):
 * "unit": "ticks", or "ts_unit_known": false.
 */
static bool says_ticks(const uint8_t *d, size_t n)
{
	char *s = strndup((const char *)d, n);
	json_object *o = json_tokener_parse(s), *v;
	bool ticks = false;

	if (o && json_object_object_get_ex(o, "unit", &v) &&
	    json_object_is_type(v, json_type_string))
		ticks = !strcmp(json_object_get_string(v), "ticks");
	if (o && json_object_object_get_ex(o, "ts_unit_known", &v) &&
	    json_object_is_type(v, json_type_boolean) && !json_object_get_boolean(v))
		ticks = true;
	json_object_put(o);
	free(s);
	return ticks;
}

/* One report alone: taken, its ticks, events and totals. */
struct alone {
	bool ok, ticks;
	uint64_t events;
	struct totals t;
	size_t nexits, nuexits;
};

static struct alone load_alone(int which, const uint8_t *d, size_t n)
{
	struct input_opts o = {.types = fuzz_types(), .vcpu = -1};
	struct alone a = {0};
	struct input_result r;

	input_result_init(&r);
	a.ok = fuzz_input_load(doc_file(which, d, n), &o, &r) == 0;
	if (a.ok) {
		a.ticks = says_ticks(d, n);
		a.events = r.events;
		a.t = totals_of(&r);
		a.nexits = stats_table_size(r.exits);
		a.nuexits = stats_table_size(r.uexits);
	}
	input_result_free(&r);
	return a;
}

static bool raw_control(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c < 0x20 && c != '\n') || c == 0x7f ||
		    (c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
		     (unsigned char)s[i + 1] < 0xa0) ||
		    c == 0x9b)
			return true;
	}
	return false;
}

static void fail(const char *what)
{
	fprintf(stderr, "fuzz_jsonmerge: %s\n", what);
	abort();
}

static char *render(const struct stats_table *t, enum render_format fmt, size_t *len)
{
	struct render_meta m = {.inputs = "fuzz", .kind = "fuzz", .source = "fuzz"};
	struct render_opts ro = {.fmt = fmt, .quantiles = true};
	struct stats_view *v = stats_view_new(t, 1, "ns", STATS_SORT_NAME);
	struct render_block b = {.tid = -1, .vcpu = -1, .v = v};
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		abort();
	render_report(f, &ro, &m, &b, 1);
	fclose(f);
	stats_view_free(v);
	return buf;
}

/* Each row's name as a label, in both exposition formats. */
static void prom_names(struct prom_w *w, const struct stats_view *v)
{
	prom_family(w, "x_exits", PROM_COUNTER, NULL, "h");
	for (size_t i = 0; i < v->nrows; i++)
		prom_sample(w, (struct prom_label[]){{"reason", v->rows[i].key.name}}, 1, 1);
}

/* Does a name that is valid UTF-8 come back from the JSON output unchanged? */
static bool names_round_trip(const char *json, const struct stats_view *v)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *o, *tables, *rows;
	bool ok = true;

	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, json, (int)strlen(json));
	if (!o || json_tokener_get_error(tok) != json_tokener_success)
		ok = false;
	else if (json_object_object_get_ex(o, "tables", &tables) &&
		 json_object_array_length(tables) &&
		 json_object_object_get_ex(json_object_array_get_idx(tables, 0), "rows", &rows)) {
		for (size_t i = 0; i < v->nrows && i < json_object_array_length(rows); i++) {
			json_object *name;
			const char *want = v->rows[i].key.name;
			bool utf8 = true;

			for (const char *p = want; *p;) {
				uint32_t cp;
				size_t l = term_utf8_len(p, &cp);

				if (!l) {
					utf8 = false;
					break;
				}
				p += l;
			}
			if (utf8 &&
			    json_object_object_get_ex(json_object_array_get_idx(rows, i), "name",
						      &name) &&
			    strcmp(json_object_get_string(name), want))
				ok = false;
		}
	}
	json_object_put(o);
	json_tokener_free(tok);
	return ok;
}

static void check_escapes(const struct stats_table *t)
{
	static const enum render_format fmts[] = {RENDER_PPC, RENDER_TABLE, RENDER_CSV};
	struct stats_view *v;
	char *buf;
	size_t len;

	if (!stats_table_size(t))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(fmts); i++) {
		buf = render(t, fmts[i], &len);
		if (raw_control(buf, len))
			fail(i == 0   ? "a raw control byte in -f ppc"
			     : i == 1 ? "a raw control byte in -f table"
				      : "a raw control byte in -f csv");
		free(buf);
	}
	v = stats_view_new(t, 1, "ns", STATS_SORT_NAME);
	buf = render(t, RENDER_JSON, &len);
	if (raw_control(buf, len))
		fail("a raw control byte in -f json");
	if (!names_round_trip(buf, v))
		fail("-f json: no strict UTF-8 JSON, or a name that does not read back");
	free(buf);
	for (int om = 0; om < 2; om++) {
		struct prom_w w;
		FILE *f = open_memstream(&buf, &len);

		prom_start(&w, f, om);
		prom_names(&w, v);
		prom_end(&w);
		fclose(f);
		if (raw_control(buf, len))
			fail("a raw control byte in a Prometheus label");
		free(buf);
	}
	stats_view_free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	const uint8_t *a = data, *b = nul ? nul + 1 : data;
	size_t na = nul ? (size_t)(nul - data) : size, nb = nul ? size - na - 1 : size;
	struct input_opts o = {.types = fuzz_types(), .vcpu = -1};
	struct alone one = load_alone(0, a, na), two = load_alone(1, b, nb);
	/* each alone, so that the merge's refusals can be told from the reports' own */
	struct input_result r;
	bool ok;

	input_result_init(&r);
	ok = fuzz_input_load(doc_file(0, a, na), &o, &r) == 0 &&
	     fuzz_input_load(doc_file(1, b, nb), &o, &r) == 0;
	if (ok) {
		struct totals t = totals_of(&r);

		if (!one.ok || !two.ok)
			fail("merged, though one of the two alone is refused");
		if (one.ticks != two.ticks)
			fail("merged a report in ticks with one in time units");
		if ((unsigned __int128)one.events + two.events != r.events)
			fail("the merged events are not the sum of the two");
		/* the same main table on both sides: then its totals add (else rows of another) */
		if ((one.nexits > 0) == (two.nexits > 0) &&
		    (one.nuexits > 0) == (two.nuexits > 0) &&
		    (t.all != one.t.all + two.t.all || t.sum != one.t.sum + two.t.sum))
			fail("the merged table's totals are not the sums of the two");
		const char *note;

		check_escapes(input_main_table(&r, &note));
	}
	input_result_free(&r);
	return 0;
}

/* ---- the structure-aware mutator ---- */

static json_object *some_row(json_object *doc, struct rng *r)
{
	json_object *tables, *t, *rows;

	if (!json_object_object_get_ex(doc, "tables", &tables) ||
	    !json_object_is_type(tables, json_type_array) || !json_object_array_length(tables))
		return NULL;
	t = json_object_array_get_idx(tables, pick(r, json_object_array_length(tables)));
	if (!json_object_object_get_ex(t, "rows", &rows) ||
	    !json_object_is_type(rows, json_type_array) || !json_object_array_length(rows))
		return NULL;
	t = json_object_array_get_idx(rows, pick(r, json_object_array_length(rows)));
	/* a mutated report's row may be any value: json-c aborts on adding to a non-object */
	return json_object_is_type(t, json_type_object) ? t : NULL;
}

static uint64_t big(struct rng *r)
{
	static const uint64_t v[] = {UINT64_MAX,
				     UINT64_MAX - 1,
				     UINT64_MAX - 765,
				     1ULL << 63,
				     (1ULL << 63) - 1,
				     1ULL << 62,
				     0,
				     1};
	return v[pick(r, ARRAY_SIZE(v))];
}

static void mutate_doc(json_object *doc, struct rng *r)
{
	static const char *const bad[] = {
	    "\033[2J", "\033]0;pwn\007", "\302\233", "\xff", "\342\200\256", "\n", "\177", "\xc3"};
	json_object *row;

	if (!json_object_is_type(doc, json_type_object)) /* a report mutated into an array, say */
		return;
	row = some_row(doc, r);
	switch (pick(r, 5)) {
	case 0: /* the unit: ticks, or the two fields disagreeing */
		json_object_object_add(doc, "unit",
				       json_object_new_string(pick(r, 2) ? "ticks" : "us"));
		if (pick(r, 2))
			json_object_object_add(doc, "ts_unit_known",
					       json_object_new_boolean(pick(r, 2)));
		break;
	case 1:
		json_object_object_add(doc, "events", json_object_new_uint64(big(r)));
		break;
	case 2: /* a row's count: all timed, in one bucket, right in itself */
		if (row) {
			uint64_t n = big(r);
			json_object *hist = json_object_new_array(), *bk = json_object_new_array();

			json_object_object_add(row, "count", json_object_new_uint64(n));
			json_object_object_add(row, "timed", json_object_new_uint64(n));
			json_object_object_add(row, "untimed", json_object_new_uint64(0));
			json_object_object_add(row, "min_ns", json_object_new_uint64(1024));
			json_object_object_add(row, "max_ns", json_object_new_uint64(1024));
			json_object_object_add(row, "sum_ns",
					       json_object_new_uint64(big(r) | 1024));
			json_object_array_add(bk, json_object_new_uint64(1024));
			json_object_array_add(bk, json_object_new_uint64(1031));
			json_object_array_add(bk, json_object_new_uint64(n));
			json_object_array_add(hist, bk);
			json_object_object_add(row, "hist", n ? hist : NULL);
			if (!n)
				json_object_put(hist);
		}
		break;
	case 3: /* a row's untimed or sum alone */
		if (row)
			json_object_object_add(row, pick(r, 2) ? "untimed" : "sum_ns",
					       json_object_new_uint64(big(r)));
		break;
	default: /* a name with controls or bytes that are no UTF-8 */
		if (row) {
			json_object *name;
			char buf[256];

			if (json_object_object_get_ex(row, "name", &name)) {
				snprintf(buf, sizeof(buf), "%s%.200s",
					 bad[pick(r, ARRAY_SIZE(bad))],
					 json_object_get_string(name));
				json_object_object_add(row, "name", json_object_new_string(buf));
			}
		}
		break;
	}
}

static size_t put_doc(uint8_t *out, size_t max, json_object *doc)
{
	const char *s = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN);
	size_t n = strlen(s);

	if (n > max)
		return 0;
	memcpy(out, s, n);
	return n;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	struct rng r = {((uint64_t)seed << 1 | 1) * 0x9E3779B97F4A7C15ULL};
	uint8_t *nul = memchr(data, '\0', size);
	size_t na = nul ? (size_t)(nul - data) : size;
	json_object *docs[2];
	uint8_t *out;
	size_t n = 0, k;

	if (!(rnd(&r) & 1))
		return LLVMFuzzerMutate(data, size, max_size);
	{
		char *sa = strndup((const char *)data, na);
		char *sb = nul ? strndup((const char *)nul + 1, size - na - 1) : strdup(sa);

		docs[0] = json_tokener_parse(sa);
		docs[1] = json_tokener_parse(sb);
		free(sa);
		free(sb);
	}
	if (!docs[0] || !docs[1]) {
		json_object_put(docs[0]);
		json_object_put(docs[1]);
		return LLVMFuzzerMutate(data, size, max_size);
	}
	k = pick(&r, 2);
	mutate_doc(docs[k], &r);
	out = malloc(max_size);
	n = put_doc(out, max_size, docs[0]);
	if (n && n < max_size) {
		size_t m;

		out[n] = '\0';
		m = put_doc(out + n + 1, max_size - n - 1, docs[1]);
		n = m ? n + 1 + m : 0;
	}
	if (n)
		memcpy(data, out, n);
	free(out);
	json_object_put(docs[0]);
	json_object_put(docs[1]);
	return n ? n : LLVMFuzzerMutate(data, size, max_size);
}
