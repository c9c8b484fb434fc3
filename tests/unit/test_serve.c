// SPDX-License-Identifier: GPL-2.0
/*
 * serve's parts without a kernel: the fold of the log-linear histogram into
 * the fixed le bounds (exact: checked against counting the samples
 * directly), the exposition text (escaping, cumulative buckets, the two
 * formats' names), the store's cap and retention, and the output files
 * (atomic replace; a FIFO or a symlink is refused, not replaced).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"
#include "intern.h"
#include "outfile.h"
#include "prom.h"
#include "stats.h"
#include "serve/serve-local.h"

#define CHECK_EQ(got, want)                                                                        \
	CHECK((uint64_t)(got) == (uint64_t)(want), "got %llu want %llu",                           \
	      (unsigned long long)(got), (unsigned long long)(want))

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void test_fold(void)
{
	struct stats_acc a;
	uint64_t got[SERVE_NLE + 1] = {0}, want[SERVE_NLE + 1] = {0};
	uint64_t odd[] = {100, 5000};

	for (size_t i = 0; i < SERVE_NLE; i++)
		CHECK(stats_hist_is_edge(serve_le_ns[i]), "le %llu",
		      (unsigned long long)serve_le_ns[i]);
	stats_acc_init(&a);
	for (int i = 0; i < 200000; i++) {
		/* log-uniform over 1 ns .. 4 s, and every bound exactly and 1 ns either side */
		uint64_t v = (next() % 2 == 0) ? 1 + (next() >> (next() % 62 + 2)) % 4000000000ULL
					       : serve_le_ns[next() % SERVE_NLE] + next() % 3 - 1;
		size_t b = 0;

		while (b < SERVE_NLE && v >= serve_le_ns[b])
			b++;
		want[b]++;
		stats_acc_add(&a, v);
	}
	CHECK_EQ(stats_acc_fold(&a, serve_le_ns, SERVE_NLE, got), 0);
	for (size_t i = 0; i <= SERVE_NLE; i++)
		CHECK_EQ(got[i], want[i]);
	CHECK_EQ(stats_acc_fold(&a, odd, 2, got), -1); /* 5000 splits a bucket */
	stats_acc_free(&a);
}

static char *render(bool om, void (*fn)(struct prom_w *w))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct prom_w w;

	prom_start(&w, f, om);
	fn(&w);
	prom_end(&w);
	fclose(f);
	return buf;
}

static void families(struct prom_w *w)
{
	struct prom_label l[] = {{"vm", "a\"b\\c\nd"}};
	uint64_t le[] = {1000, 2000}, counts[] = {1, 2, 3};

	prom_family(w, "x_exits", PROM_COUNTER, NULL, "help \\ text");
	prom_sample(w, l, 1, 7);
	prom_family(w, "x_seconds", PROM_HISTOGRAM, "seconds", "h");
	prom_histogram(w, l, 1, le, 2, counts, 1500000000);
	prom_family(w, "x_build", PROM_INFO, NULL, "i");
	prom_sample(w, NULL, 0, 1);
}

/* 0xff and a cut 0xc3 are no UTF-8: written as the text \xNN; "é" and C1 kept. */
static void odd_label(struct prom_w *w)
{
	struct prom_label l[] = {{"vm", "\xff\xc2\x9b\xc3\xa9\\\xc3"}};

	prom_family(w, "x_exits", PROM_COUNTER, NULL, "h\xfe");
	prom_sample(w, l, 1, 1);
}

static bool bytes_ok(void)
{
	char *t = render(false, odd_label);
	bool ok = strstr(t, "# HELP x_exits_total h\\\\xfe\n") &&
		  strstr(t, "x_exits_total{vm=\"\\\\xff\xc2\x9b\xc3\xa9\\\\\\\\xc3\"} 1\n");

	if (!ok)
		fprintf(stderr, "%s", t);
	free(t);
	return ok;
}

static void test_prom(void)
{
	char *t = render(false, families), *o = render(true, families);
	char d[40];

	CHECK(strstr(t, "# HELP x_exits_total help \\\\ text\n# TYPE x_exits_total counter\n"),
	      "%s", t);
	CHECK(strstr(t, "x_exits_total{vm=\"a\\\"b\\\\c\\nd\"} 7\n"), "%s", t);
	CHECK(strstr(t, "x_seconds_bucket{vm=\"a\\\"b\\\\c\\nd\",le=\"1e-06\"} 1\n"), "%s", t);
	CHECK(strstr(t, "le=\"2e-06\"} 3\n"), "%s", t);
	CHECK(strstr(t, "le=\"+Inf\"} 6\n"), "%s", t);
	CHECK(strstr(t, "x_seconds_sum{vm=\"a\\\"b\\\\c\\nd\"} 1.5\n"), "%s", t);
	CHECK(strstr(t, "x_seconds_count{vm=\"a\\\"b\\\\c\\nd\"} 6\n"), "%s", t);
	CHECK(strstr(t, "# TYPE x_build_info gauge\nx_build_info 1\n"), "%s", t);
	CHECK(!strstr(t, "# EOF") && !strstr(t, "# UNIT"), "%s", t);
	CHECK(strstr(o, "# TYPE x_exits counter\nx_exits_total{"), "%s", o);
	CHECK(strstr(o, "# TYPE x_seconds histogram\n# UNIT x_seconds seconds\n"), "%s", o);
	CHECK(strstr(o, "# TYPE x_build info\nx_build_info 1\n"), "%s", o);
	CHECK(strlen(o) > 6 && !strcmp(o + strlen(o) - 6, "# EOF\n"), "%s", o);
	prom_fmt_double(d, sizeof(d), 0.1 + 0.2);
	CHECK(bytes_ok(), "a label of bytes that are no UTF-8");
	CHECK(!strcmp(d, "0.30000000000000004"), "%s", d);
	prom_fmt_double(d, sizeof(d), 125e-9);
	CHECK(!strcmp(d, "1.25e-07"), "%s", d);
	free(t);
	free(o);
}

static struct serve_row row(int32_t pid, const char *reason, const struct stats_acc *a)
{
	return (struct serve_row){.source = SERVE_USERSPACE,
				  .pid = pid,
				  .vm = intern("vm"),
				  .tid = pid + 1,
				  .vcpu = -1,
				  .reason = intern(reason),
				  .acc = a};
}

static int32_t dead_pid;

static bool is_gone(void *arg, int32_t pid)
{
	(void)arg;
	return pid == dead_pid;
}

static uint64_t exits_of(struct serve_store *s, int32_t pid, const char *reason)
{
	const struct serve_series *const *r;
	size_t n = serve_store_rows(s, &r);

	for (size_t i = 0; i < n; i++)
		if (r[i]->k.pid == pid && r[i]->k.reason == intern(reason))
			return r[i]->exits;
	return UINT64_MAX;
}

static void test_store(void)
{
	struct serve_store *s = serve_store_new(3, false);
	struct stats_acc a;
	struct serve_row r;
	const struct serve_series *const *rows;

	stats_acc_init(&a);
	stats_acc_add(&a, 5000);
	stats_acc_add(&a, 9000);
	a.untimed = 1;
	r = row(10, "IO", &a);
	serve_store_add(s, &r);
	serve_store_add(s, &r);
	CHECK_EQ(exits_of(s, 10, "IO"), 6); /* 2 timed + 1 untimed, twice */
	r = row(10, "MMIO", &a);
	serve_store_add(s, &r);
	r = row(20, "IO", &a);
	serve_store_add(s, &r);
	r = row(30, "IO", &a); /* a fourth label set: past the cap of 3 */
	serve_store_add(s, &r);
	CHECK_EQ(exits_of(s, 30, "IO"), UINT64_MAX);
	CHECK_EQ(exits_of(s, -2, "OTHER"), 3);
	CHECK_EQ(serve_store_capped(s), 3);
	CHECK_EQ(serve_store_rows(s, &rows), 4);
	CHECK(rows[0]->k.pid == -2 && rows[1]->k.pid == 10 && rows[3]->k.pid == 20,
	      "sorted by pid");
	CHECK_EQ(rows[1]->timed, 4);
	CHECK_EQ(rows[1]->sum_ns, 28000);
	CHECK_EQ(rows[1]->bucket[6] + rows[1]->bucket[7], 4); /* 5 us < 8 us <= 9 us < 16 us */
	CHECK_EQ(rows[1]->bucket[7], 2);
	dead_pid = 10;
	serve_store_retire(s, 100, 300, is_gone, NULL);
	serve_store_retire(s, 399, 300, is_gone, NULL);
	CHECK_EQ(exits_of(s, 10, "IO"), 6); /* kept while younger than keep */
	serve_store_retire(s, 400, 300, is_gone, NULL);
	CHECK_EQ(exits_of(s, 10, "IO"), UINT64_MAX);
	CHECK_EQ(exits_of(s, 20, "IO"), 3);
	CHECK_EQ(serve_store_rows(s, &rows), 2);
	r = row(40, "IO", &a); /* room again under the cap */
	serve_store_add(s, &r);
	CHECK_EQ(exits_of(s, 40, "IO"), 3);
	stats_acc_free(&a);
	serve_store_free(s);
}

/* --anatomy: a row's time by cause, added up over intervals, exposed in seconds per cause. */
static void test_causes(void)
{
	struct serve_store *s = serve_store_new(10, false);
	struct serve_meta m = {.version = "t", .anatomy = true};
	struct stats_acc a;
	struct serve_row r;
	char *page = NULL;
	size_t len = 0;

	stats_acc_init(&a);
	stats_acc_add(&a, 5000);
	r = row(10, "IO", &a);
	r.has_parts = true;
	r.part_ns[STATS_PART_HANDLING] = 1000;
	r.part_ns[STATS_PART_RUNNABLE] = 4000;
	serve_store_add(s, &r);
	serve_store_add(s, &r);
	r = row(10, "MMIO", &a); /* not split: no cause counters */
	serve_store_add(s, &r);
	CHECK_EQ(serve_expose(s, &m, false, &page, &len), 0);
	CHECK(page && strstr(page, "# TYPE kvm_exitstat_exit_cause_seconds_total counter"),
	      "the family");
	CHECK(page && strstr(page, "reason=\"IO\",cause=\"runnable\"} 8e-06\n"), "runnable: %s",
	      page ? strstr(page, "cause_seconds") : "");
	CHECK(page && strstr(page, "reason=\"IO\",cause=\"handling\"} 2e-06\n"), "handling");
	CHECK(page && strstr(page, "reason=\"IO\",cause=\"softirq\"} 0\n"), "every part");
	CHECK(page && !strstr(page, "reason=\"MMIO\",cause="), "an unsplit row has none");
	free(page);
	m.anatomy = false;
	CHECK_EQ(serve_expose(s, &m, false, &page, &len), 0);
	CHECK(page && !strstr(page, "cause_seconds"), "without --anatomy: no such family");
	free(page);
	stats_acc_free(&a);
	serve_store_free(s);
}

/* write_one PATH TEXT MODE: TEXT through an outfile (committed); 0 or -1 with e set. */
static int write_one(const char *path, const char *text, enum outfile_mode mode, char *e,
		     size_t elen)
{
	struct outfile *of = outfile_open(path, mode, e, elen);
	FILE *f = of ? outfile_stdio(of, mode == OUTFILE_APPEND ? "a" : "w", e, elen) : NULL;
	int ret = -1;

	if (f && fputs(text, f) >= 0 && fclose(f) == 0)
		ret = outfile_commit(of, e, elen);
	else if (f)
		fclose(f);
	outfile_free(of);
	return ret;
}

static void test_outfile(void)
{
	char dir[] = "/tmp/kes-outfile.XXXXXX", path[128], fifo[128], link[128], e[256];
	struct stat st;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof(path), "%s/out", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	CHECK_EQ(write_one(path, "v0\n", OUTFILE_REPLACE, e, sizeof(e)), 0);
	CHECK_EQ(write_one(path, "v1\n", OUTFILE_REPLACE, e, sizeof(e)), 0);
	f = fopen(path, "r");
	CHECK(f && fgets(e, sizeof(e), f) && !strcmp(e, "v1\n"), "the second version");
	if (f)
		fclose(f);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == (0644 & ~0022), "mode 0644");
	CHECK_EQ(write_one(path, "v2\n", OUTFILE_APPEND, e, sizeof(e)), 0);
	CHECK(stat(path, &st) == 0 && st.st_size == 6, "appended: %lld bytes", (long long)st.st_size);
	mkfifo(fifo, 0600);
	CHECK(write_one(fifo, "x", OUTFILE_REPLACE, e, sizeof(e)) < 0 && strstr(e, "FIFO"),
	      "a FIFO nobody reads: %s", e);
	/* in a directory others can write (as /tmp) a planted symlink is refused */
	CHECK(symlink(path, link) == 0 && chmod(dir, 01777) == 0, "symlink");
	CHECK(write_one(link, "x", OUTFILE_REPLACE, e, sizeof(e)) < 0 && strstr(e, "symbolic link"),
	      "replace through a symlink: %s", e);
	CHECK(write_one(link, "x", OUTFILE_APPEND, e, sizeof(e)) < 0, "append through a symlink");
	CHECK(stat(path, &st) == 0 && st.st_size == 6, "the link's target untouched");
	struct outfile *of = outfile_open(path, OUTFILE_REPLACE, e, sizeof(e));
	outfile_free(of);
	/* only out, fifo and link are left: no temporary file */
	snprintf(e, sizeof(e), "test $(ls -A %s | wc -l) -eq 3", dir);
	CHECK(of && system(e) == 0, "a temporary file was left");
	snprintf(e, sizeof(e), "rm -rf %s", dir);
	CHECK(system(e) == 0, "cleanup");
}

int main(void)
{
	test_fold();
	test_prom();
	test_store();
	test_causes();
	test_outfile();
	printf("%d passed, %d failed\n", t_pass, t_fail);
	return t_fail != 0;
}
