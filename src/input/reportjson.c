// SPDX-License-Identifier: GPL-2.0
/*
 * Reads `report -f json` back (json-c, from Debian): each row's exact state
 * (min_ns, max_ns, sum_ns, the Welford moments as round-trip doubles, the
 * histogram buckets) becomes an accumulator that is merged into the tables
 * like any other input's, so `report -i a.json -i b.json` gives the counts,
 * sums, extremes and percentiles of the combined runs exactly and the
 * variance to double rounding (Chan's merge of the two moments).
 * Everything is checked: a report whose buckets do not add up to its count
 * is refused, not merged, and so is a row whose counts or sum, merged, would
 * pass 2^64, or a table whose rows' sums would (a view's totals); the unit
 * ("ticks" or a time) is said to the caller, which refuses to mix them.
 */
#include <errno.h>
#include <math.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "alloc.h"
#include "err.h"
#include "exit-types.h"
#include "intern.h"
#include "reportjson.h"

/* /2: count is every exit and timed the timed ones; /1: count was the timed ones. */
#define SCHEMA	  "kvm-exitstat-report/2"
#define SCHEMA_V1 "kvm-exitstat-report/1"

bool reportjson_sniff(const char *buf, size_t len)
{
	size_t i = 0;

	while (i < len && strchr(" \t\r\n", buf[i]))
		i++;
	if (i == len || buf[i] != '{')
		return false;
	/* The schema is the first member render/json.c writes. */
	return memmem(buf + i, len - i < 256 ? len - i : 256, "\"" SCHEMA "\"",
		      strlen(SCHEMA) + 2) != NULL ||
	       memmem(buf + i, len - i < 256 ? len - i : 256, "\"" SCHEMA_V1 "\"",
		      strlen(SCHEMA_V1) + 2) != NULL;
}

struct ctx {
	const char *path;
	char *e;
	size_t n;
	int version; /* of the schema: 1 or 2 */
};

static int bad(struct ctx *c, const char *what)
{
	return err_buf(c->e, c->n, "'%s': not a kvm-exitstat JSON report with histograms: %s",
		       c->path, what);
}

static json_object *member(json_object *o, const char *key, json_type t)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, t))
		return NULL;
	return v;
}

static int get_u64(struct ctx *c, json_object *o, const char *key, uint64_t *out)
{
	json_object *v = member(o, key, json_type_int);

	if (!v)
		return bad(c, key);
	/* json-c keeps integers above INT64_MAX as uint64 */
	errno = 0;
	*out = json_object_get_uint64(v);
	if (errno || json_object_get_int64(v) < 0)
		return bad(c, key);
	return 0;
}

static int get_num(struct ctx *c, json_object *o, const char *key, double *out)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return bad(c, key);
	*out = json_object_get_double(v);
	return 0;
}

static int add_buckets(struct ctx *c, json_object *hist, struct stats_acc *a)
{
	size_t n = json_object_array_length(hist);
	uint64_t total = 0;

	for (size_t i = 0; i < n; i++) {
		json_object *b = json_object_array_get_idx(hist, i);
		json_object *lo, *hi, *cnt;

		if (!json_object_is_type(b, json_type_array) || json_object_array_length(b) != 3)
			return bad(c, "a hist bucket is not [lo, hi, count]");
		lo = json_object_array_get_idx(b, 0);
		hi = json_object_array_get_idx(b, 1);
		cnt = json_object_array_get_idx(b, 2);
		if (!json_object_is_type(lo, json_type_int) ||
		    !json_object_is_type(hi, json_type_int) ||
		    !json_object_is_type(cnt, json_type_int) || json_object_get_int64(cnt) <= 0 ||
		    json_object_get_int64(lo) < 0 ||
		    json_object_get_uint64(hi) < json_object_get_uint64(lo))
			return bad(c, "a hist bucket is not [lo, hi, count]");
		if (stats_acc_add_bucket(a, json_object_get_uint64(lo),
					 json_object_get_uint64(cnt)) < 0)
			return bad(c, "a hist bucket does not start where ours do");
		total += json_object_get_uint64(cnt);
	}
	return total == a->count ? 0 : bad(c, "the hist buckets do not add up to count");
}

/* One row -> an accumulator (initialised by the caller). */
static int row_acc(struct ctx *c, json_object *row, struct stats_acc *a)
{
	json_object *hist;
	uint64_t count, untimed, min, max, sum;
	double m2 = NAN;
	json_object *v;

	if (get_u64(c, row, "count", &count) < 0 || get_u64(c, row, "untimed", &untimed) < 0 ||
	    get_u64(c, row, "min_ns", &min) < 0 || get_u64(c, row, "max_ns", &max) < 0 ||
	    get_u64(c, row, "sum_ns", &sum) < 0)
		return -1;
	if (c->version >= 2) { /* count: every exit; the accumulator's count: the timed ones */
		uint64_t timed;

		if (get_u64(c, row, "timed", &timed) < 0)
			return -1;
		if (timed > count || count - timed != untimed)
			return bad(c, "count is not timed + untimed");
		count = timed;
	}
	/* null: a saved report that did not know the spread */
	if (!(json_object_object_get_ex(row, "m2_ns2", &v) &&
	      json_object_is_type(v, json_type_null)) &&
	    get_num(c, row, "m2_ns2", &m2) < 0)
		return -1;
	if (count && (min > max || sum < min || m2 < 0))
		return bad(c, "min_ns, max_ns, sum_ns and m2_ns2 disagree");
	hist = member(row, "hist", json_type_array);
	if (!hist) {
		/* Summary-only rows (a saved PPC report's): no histogram, no percentiles. */
		stats_acc_set_summary(a, count, min, max, sum, m2);
		a->untimed = untimed;
		return 0;
	}
	struct stats_acc s = {.count = count,
			      .untimed = untimed,
			      .min = count ? min : UINT64_MAX,
			      .max = max,
			      .sum = sum,
			      /* the spread as a double: merged with others as summary data */
			      .summary = true,
			      .m2 = m2};
	stats_acc_restore(a, &s);
	return add_buckets(c, hist, a);
}

/* sub and sub_kind: the key, and what the sub-key is (its detail kind, for the accumulator). */
static int parse_sub(struct ctx *c, json_object *row, struct stats_key *k, uint8_t *kind)
{
	json_object *v;
	const char *s;
	char *end;

	if (!json_object_object_get_ex(row, "sub", &v) || json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return bad(c, "sub");
	s = json_object_get_string(v);
	k->has_sub = true;
	if (json_object_object_get_ex(row, "sub_kind", &v) && json_object_is_type(v, json_type_string))
		*kind = (uint8_t)exit_types_sub_kind_of(exit_types_builtin_details(),
							json_object_get_string(v));
	if (!strcmp(s, "other")) {
		k->sub = STATS_SUB_OTHER;
		return 0;
	}
	errno = 0;
	k->sub = strtoull(s, &end, 16);
	return errno || end == s || *end ? bad(c, "sub") : 0;
}

static int id_of(json_object *block, const char *key, int32_t *out)
{
	json_object *v;

	*out = -1;
	if (!json_object_object_get_ex(block, key, &v) || json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_int))
		return -1;
	int64_t x = json_object_get_int64(v);
	if (x < 0 || x > INT32_MAX)
		return -1;
	*out = (int32_t)x;
	return 0;
}

static int load_block(struct ctx *c, json_object *block, struct stats_table *t)
{
	json_object *rows = member(block, "rows", json_type_array);
	int32_t tid, vcpu;

	if (!rows || id_of(block, "tid", &tid) < 0 || id_of(block, "vcpu", &vcpu) < 0)
		return bad(c, "tables[].rows, tid, vcpu");
	for (size_t i = 0; i < json_object_array_length(rows); i++) {
		json_object *row = json_object_array_get_idx(rows, i);
		json_object *name = member(row, "name", json_type_string);
		struct stats_key k = {.tid = tid, .vcpu = vcpu};
		struct stats_acc a;
		int ret;

		if (!name || !json_object_get_string_len(name))
			return bad(c, "a row without a name");
		k.name = intern(json_object_get_string(name));
		uint8_t kind = 0;

		if (parse_sub(c, row, &k, &kind) < 0)
			return -1;
		stats_acc_init(&a);
		ret = row_acc(c, row, &a);
		a.sub_kind = kind;
		struct stats_acc *into = ret == 0 ? stats_table_get(t, &k) : NULL;

		if (into && !stats_acc_merge_fits(into, &a))
			ret =
			    err_buf(c->e, c->n,
				    "'%s': row '%s': its counts or sum, added to the same row's of "
				    "the inputs before it, pass 2^64: not merged",
				    c->path, k.name);
		if (ret == 0)
			stats_acc_merge(into, &a);
		stats_acc_free(&a);
		if (ret < 0)
			return -1;
	}
	return 0;
}

static bool per_vcpu_block(json_object *b)
{
	int32_t tid, vcpu;

	return id_of(b, "tid", &tid) == 0 && id_of(b, "vcpu", &vcpu) == 0 &&
	       (tid >= 0 || vcpu >= 0);
}

/* A --per-vm table: its threads are not in it, the whole run's table (also there) is read. */
static bool per_vm_block(json_object *b)
{
	json_object *v;

	return json_object_object_get_ex(b, "pid", &v) && !json_object_is_type(v, json_type_null);
}

/* The per-vCPU tables when there are any (the last, "all vCPUs", is their sum), else the one. */
static int load_tables(struct ctx *c, json_object *tables, struct stats_table *t)
{
	size_t n = json_object_array_length(tables);
	bool split = false;

	for (size_t i = 0; i < n; i++)
		split |= per_vcpu_block(json_object_array_get_idx(tables, i));
	for (size_t i = 0; i < n; i++) {
		json_object *b = json_object_array_get_idx(tables, i);

		if ((split && !per_vcpu_block(b)) || per_vm_block(b))
			continue;
		if (load_block(c, b, t) < 0)
			return -1;
	}
	return 0;
}

/* "hosts": the hosts the report's inputs were recorded on (absent from older reports). */
static int load_hosts(struct ctx *c, json_object *root, struct reportjson_meta *m)
{
	json_object *h;

	if (!json_object_object_get_ex(root, "hosts", &h) || json_object_is_type(h, json_type_null))
		return 0;
	if (!json_object_is_type(h, json_type_array))
		return bad(c, "hosts");
	for (size_t i = 0; i < json_object_array_length(h); i++) {
		json_object *s = json_object_array_get_idx(h, i);

		if (!json_object_is_type(s, json_type_string))
			return bad(c, "hosts");
		m->hosts = xrealloc(m->hosts, (m->nhosts + 1) * sizeof(*m->hosts));
		m->hosts[m->nhosts++] = intern(json_object_get_string(s));
	}
	return 0;
}

/*
 * "unit" "ticks" and "ts_unit_known" false say the same (integer timestamps
 * of unknown unit: every *_ns is then in ticks); they must agree. Reports of
 * before ts_unit_known: the unit alone.
 */
static int load_unit(struct ctx *c, json_object *root, struct reportjson_meta *m)
{
	json_object *unit = member(root, "unit", json_type_string), *known;
	bool ticks = unit && !strcmp(json_object_get_string(unit), "ticks");

	if (json_object_object_get_ex(root, "ts_unit_known", &known)) {
		if (!json_object_is_type(known, json_type_boolean))
			return bad(c, "ts_unit_known");
		if (json_object_get_boolean(known) == ticks)
			return bad(c, "unit and ts_unit_known disagree");
	}
	m->ticks = ticks;
	return 0;
}

static int load_meta(struct ctx *c, json_object *root, struct reportjson_meta *m)
{
	json_object *src = member(root, "source", json_type_string);
	json_object *isa = member(root, "isa", json_type_string), *lost;
	uint64_t v;

	if (!src)
		return bad(c, "source");
	m->source = intern(json_object_get_string(src));
	if (isa)
		m->isa = intern(json_object_get_string(isa));
	if (load_hosts(c, root, m) < 0)
		return -1;
	if (get_u64(c, root, "events", &v) < 0)
		return -1;
	m->events += v;
	if (get_u64(c, root, "untimed", &v) < 0)
		return -1;
	m->untimed += v;
	if (get_u64(c, root, "ts_backwards", &v) < 0)
		return -1;
	m->backwards += v;
	if (get_u64(c, root, "sub_folded", &v) < 0)
		return -1;
	m->sub_folded += v;
	/* exits_no_thread: added with issue 29; absent from older reports */
	if (json_object_object_get_ex(root, "exits_no_thread", &lost)) {
		if (get_u64(c, root, "exits_no_thread", &v) < 0)
			return -1;
		m->threadless_exits = v;
	}
	if (load_unit(c, root, m) < 0)
		return -1;
	/* wall_ns: added with the vCPU-time wording; absent from older reports */
	if (json_object_object_get_ex(root, "wall_ns", &lost) &&
	    !json_object_is_type(lost, json_type_null)) {
		if (get_u64(c, root, "wall_ns", &v) < 0)
			return -1;
		m->wall_ns += v;
		m->wall_known = true;
	}
	if (json_object_object_get_ex(root, "lost", &lost) &&
	    json_object_is_type(lost, json_type_null)) {
		m->lost_known = false;
		return 0;
	}
	if (get_u64(c, root, "lost", &v) < 0)
		return -1;
	m->lost += v;
	return 0;
}

/* The parse and the merge, from memory (the file reader's and the fuzzer's). */
static int load_root(struct ctx *c, json_object *root, struct stats_table *exits,
		     struct stats_table *uexits, struct stats_table *summary,
		     struct reportjson_meta *m)
{
	json_object *schema = member(root, "schema", json_type_string);
	json_object *tables = member(root, "tables", json_type_array);
	struct stats_table *t;

	if (!schema || !tables)
		return bad(c, "schema, tables");
	if (!strcmp(json_object_get_string(schema), SCHEMA))
		c->version = 2;
	else if (!strcmp(json_object_get_string(schema), SCHEMA_V1))
		c->version = 1;
	else
		return bad(c, "schema");
	m->lost_known = true;
	if (load_meta(c, root, m) < 0)
		return -1;
	t = !strcmp(m->source, "kvm_exit")    ? exits
	    : !strcmp(m->source, "userspace") ? uexits
	    : !strcmp(m->source, "summary")   ? summary
					      : NULL;
	if (!t)
		return bad(c, "source is none of kvm_exit, userspace, summary");
	if (load_tables(c, tables, t) < 0)
		return -1;
	if (!stats_table_sums_fit(t))
		return err_buf(
		    c->e, c->n,
		    "'%s': its rows' counts or sums, with those of the inputs before it, "
		    "add up past 2^64: not merged",
		    c->path);
	return 0;
}

int reportjson_parse(const char *buf, size_t len, const char *origin, struct stats_table *exits,
		     struct stats_table *uexits, struct stats_table *summary,
		     struct reportjson_meta *m, char *errbuf, size_t errlen)
{
	struct ctx c = {origin, errbuf, errlen, 0};
	struct json_tokener *tok = json_tokener_new();
	json_object *root;
	int ret;

	*m = (struct reportjson_meta){0};
	if (!tok || len > INT32_MAX)
		return err_buf(errbuf, errlen, "'%s': too large", origin);
	root = json_tokener_parse_ex(tok, buf, (int)len);
	size_t end = root ? json_tokener_get_parse_end(tok) : 0;
	while (root && end < len && strchr(" \t\r\n", buf[end]) && buf[end])
		end++;
	if (!root || end < len) {
		enum json_tokener_error je = json_tokener_get_error(tok);

		json_object_put(root);
		json_tokener_free(tok);
		return err_buf(errbuf, errlen, "'%s': not valid JSON (%s)", origin,
			       je == json_tokener_continue  ? "it ends too soon"
			       : je == json_tokener_success ? "more after the report"
							    : json_tokener_error_desc(je));
	}
	json_tokener_free(tok);
	ret = load_root(&c, root, exits, uexits, summary, m);
	json_object_put(root);
	if (ret < 0) { /* nothing of a refused report is the caller's */
		free(m->hosts);
		m->hosts = NULL;
		m->nhosts = 0;
	}
	return ret;
}

/* Reports are a few MiB at most (every row of every VM); more is not one of ours. */
#define REPORTJSON_MAX (256 << 20)

int reportjson_load(int fd, const char *path, struct stats_table *exits,
		    struct stats_table *uexits, struct stats_table *summary,
		    struct reportjson_meta *m, char *errbuf, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;
	int ret;

	/* the fd the input was detected on: read from its start, never reopened by name */
	do {
		if (len == cap) {
			if (cap >= REPORTJSON_MAX) {
				free(buf);
				return err_buf(errbuf, errlen, "'%s': a JSON report larger than %d MiB",
						  path, REPORTJSON_MAX >> 20);
			}
			cap = cap ? 2 * cap : 1 << 16;
			buf = xrealloc(buf, cap);
		}
		n = pread(fd, buf + len, cap - len, (off_t)len);
		if (n > 0)
			len += (size_t)n;
	} while (n > 0 || (n < 0 && errno == EINTR));
	ret = n < 0 ? err_buf_errno(errbuf, errlen, "cannot read '%s'", path)
		    : reportjson_parse(buf, len, path, exits, uexits, summary, m, errbuf, errlen);
	free(buf);
	return ret;
}
