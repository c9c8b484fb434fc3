// SPDX-License-Identifier: GPL-2.0
/*
 * serve's parts without a kernel: the fold of the log-linear histogram into
 * the fixed le bounds (exact: checked against counting the samples
 * directly), the exposition text (escaping, cumulative buckets, the two
 * formats' names), the store's cap and retention, the output files
 * (atomic replace; a FIFO or a symlink is refused, not replaced), the
 * HTTP connections' guard (bounds, deadline); the non-integer samples
 * (process_*), the collector-health gauge's host test, the web config's TLS
 * versions and password check.
}

 */
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include "harness.h"
#include "intern.h"
#include "live.h"
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

/*
 * 0xff and a cut 0xc3 are no UTF-8: written as the text \xNN; so are the C1
 * CSI and ESC, which a terminal acts on (they were kept raw); "é" kept.
 */
static void odd_label(struct prom_w *w)
{
	struct prom_label l[] = {{"vm", "\xff\xc2\x9b\xc3\xa9\\\xc3\033[2J"}};

	prom_family(w, "x_exits", PROM_COUNTER, NULL, "h\xfe");
	prom_sample(w, l, 1, 1);
}

static bool bytes_ok(void)
{
	char *t = render(false, odd_label);
	bool ok =
	    strstr(t, "# HELP x_exits_total h\\\\xfe\n") &&
	    strstr(t,
		   "x_exits_total{vm=\"\\\\xff\\\\xc2\\\\x9b\xc3\xa9\\\\\\\\xc3\\\\x1b[2J\"} 1\n");

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

static void render_double(double v, char **buf)
{
	size_t len = 0;
	FILE *f = open_memstream(buf, &len);
	struct prom_w w;

	prom_start(&w, f, false);
	prom_family(&w, "g", PROM_GAUGE, NULL, "h");
	prom_sample_double(&w, NULL, 0, v);
	fclose(f);
}

static void test_prom_double(void)
{
	static const struct {
		double v;
		const char *want;
	} c[] = {{20000, "g 20000\n"},	    {0.01, "g 0.01\n"},
		 {1796560930.41, "g 1796560930.41\n"}, {0, "g 0\n"},
		 {18446744073709551615.0, "g 1.8446744073709552e+19\n"}};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *t = NULL, *l;

		render_double(c[i].v, &t);
		l = t ? strstr(t, "\ng ") : NULL;

		CHECK(l && !strcmp(l + 1, c[i].want), "%.17g: %s", c[i].v, t);
		free(t);
	}
}

/* The gauge's host part: /dev/kvm or the kvm misc device, either will do. */
static void test_health(void)
{
	char d[] = "/tmp/kes-health.XXXXXX", dev[64], mod[64];

	CHECK(mkdtemp(d) != NULL, "mkdtemp");
	snprintf(dev, sizeof(dev), "%s/kvm", d);
	snprintf(mod, sizeof(mod), "%s/misc-kvm", d);
	CHECK(!live_host_has_kvm(dev, mod), "neither: no KVM");
	CHECK(mkdir(mod, 0755) == 0, "mkdir");
	CHECK(live_host_has_kvm(dev, mod), "the misc device only");
	CHECK(rmdir(mod) == 0 && close(open(dev, O_CREAT | O_WRONLY, 0600)) == 0, "a device");
	CHECK(live_host_has_kvm(dev, mod), "/dev/kvm only");
	unlink(dev);
	rmdir(d);
}

/* The TLS versions a web config allows, as GnuTLS priorities; bcrypt checks (cost 4). */
static void test_webconfig(void)
{
	/* python3 -c 'import crypt; print(crypt.crypt("pw", "$2b$04$" + 22 * "a"))' */
	static const char hash[] = "$2b$04$aaaaaaaaaaaaaaaaaaaaaOqgHHdKuqfi7AP.TwHblFR2ASFq1GtMe";
	char path[] = "/tmp/kes-web.XXXXXX", e[256], prio[128];
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	struct serve_webconfig *w;

	CHECK(f != NULL, "mkstemp");
	fprintf(f, "---\nbasic_auth_users:   # users\n  'al''ice': \"%s\"\n", hash);
	fclose(f);
	w = serve_webconfig_load(path, e, sizeof(e));
	CHECK(w && w->nusers == 1 && !strcmp(w->users[0].name, "al'ice"), "%s", w ? "" : e);
	if (w) {
		CHECK(serve_webconfig_check(w, "al'ice", "pw"), "the password");
		CHECK(!serve_webconfig_check(w, "al'ice", "pW"), "another password");
		CHECK(!serve_webconfig_check(w, "bob", "pw"), "an unknown user");
		CHECK(!serve_webconfig_check(w, NULL, NULL), "no user");
		CHECK_STR(serve_webconfig_priorities(w, prio, sizeof(prio)),
			  "NORMAL:-VERS-ALL:+VERS-TLS1.2:+VERS-TLS1.3");
		w->min_version = 13;
		CHECK_STR(serve_webconfig_priorities(w, prio, sizeof(prio)),
			  "NORMAL:-VERS-ALL:+VERS-TLS1.3");
		w->min_version = 10;
		w->max_version = 11;
		CHECK_STR(serve_webconfig_priorities(w, prio, sizeof(prio)),
			  "NORMAL:-VERS-ALL:+VERS-TLS1.0:+VERS-TLS1.1");
	}
	serve_webconfig_free(w);
	unlink(path);
}

/* A connection of address 127.0.0.`host`: our end for the guard, the client's in *peer. */
static struct serve_conn *guard_conn(struct serve_guard *g, int host, int *peer)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_addr.s_addr = htonl(0x7f000000u | host)};
	int sv[2];

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	*peer = sv[1];
	return serve_guard_open(g, sv[0], (struct sockaddr *)&a);
}

/* The client's end sees its connection shut down (end of stream at once). */
static bool was_dropped(int peer)
{
	struct pollfd p = {.fd = peer, .events = POLLIN};
	char c;

	return poll(&p, 1, 0) == 1 && recv(peer, &c, 1, MSG_DONTWAIT) == 0;
}

/*
 * guard.c: a newcomer makes room (the slowest of its address, then of all),
 * a request being answered is kept, a trickling one is dropped at its
 * deadline. Unix sockets stand in for TCP ones: shutdown() is the same.
 */
static void test_guard(void)
{
	struct serve_guard *g = serve_guard_new(8, 2, 3, 0.3);
	struct serve_conn *c[5];
	int p[5];

	CHECK(g != NULL, "the guard starts");
	if (!g)
		return;
	c[0] = guard_conn(g, 10, &p[0]);
	usleep(2000);
	c[1] = guard_conn(g, 10, &p[1]);
	usleep(2000);
	CHECK(!was_dropped(p[0]) && !was_dropped(p[1]), "two of one address are kept");
	c[2] = guard_conn(g, 10, &p[2]);
	CHECK(was_dropped(p[0]), "a third of that address drops its oldest");
	CHECK(!was_dropped(p[1]) && !was_dropped(p[2]), "the others of that address are kept");
	serve_guard_answering(g, c[1]);
	usleep(2000);
	c[3] = guard_conn(g, 11, &p[3]);
	CHECK(!was_dropped(p[1]) && !was_dropped(p[2]) && !was_dropped(p[3]), "three in all");
	c[4] = guard_conn(g, 12, &p[4]);
	CHECK(was_dropped(p[2]), "a fourth drops the one waiting longest for its request");
	CHECK(!was_dropped(p[1]), "not the one being answered, older as it is");
	CHECK_EQ(serve_guard_dropped(g, SERVE_DROP_ADDRESS), 1);
	CHECK_EQ(serve_guard_dropped(g, SERVE_DROP_FULL), 1);
	usleep(600000);
	CHECK(was_dropped(p[3]) && was_dropped(p[4]),
	      "requests not ended by the deadline are dropped");
	CHECK(!was_dropped(p[1]), "a request being answered has no deadline");
	CHECK_EQ(serve_guard_dropped(g, SERVE_DROP_DEADLINE), 2);
	serve_guard_answered(g, c[1]);
	usleep(600000);
	CHECK(was_dropped(p[1]),
	      "after its answer, a kept-alive connection's next request has one");
	for (int i = 0; i < 5; i++) {
		serve_guard_close(g, c[i]);
		close(p[i]);
	}
	serve_guard_free(g);
}

int main(void)
{
	test_prom_double();
	test_health();
	test_webconfig();
	test_fold();
	test_prom();
	test_store();
	test_causes();
	test_outfile();
	test_guard();
	printf("%d passed, %d failed\n", t_pass, t_fail);
	return t_fail != 0;
}
