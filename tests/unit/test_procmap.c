// SPDX-License-Identifier: GPL-2.0
/*
 * The thread map record keeps in its trace.dat (procmap.h): its text round
 * trips (names with newlines and backslashes included), a malformed one is
 * refused, saved_tgids fills only threads not known yet, the vCPU a
 * thread name gives, and the thread names record writes: saved_cmdlines's
 * and those it lost, as /proc named them (this process's threads, named here).
 * Expected values are written out by hand here.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "alloc.h"
#include "harness.h"
#include "fixture.h"
#include "procmap.h"
#include "ring.h"

static void test_round_trip(void)
{
	struct procmap *pm = procmap_new(), *back;
	char e[128];
	size_t len;
	char *text;
	int32_t tid, tgid, pid;
	const char *name;

	procmap_set_thread(pm, 300, 299);
	procmap_set_thread(pm, 17, 16);
	procmap_set_thread(pm, 301, -1);
	procmap_set_vcpu(pm, 300, 3);
	procmap_set_vcpu(pm, 5, 1); /* not a thread of the map: ignored */
	procmap_set_name(pm, 299, "web\\1\nx");
	procmap_set_name(pm, 16, "db");
	procmap_set_name(pm, 16, "later"); /* the first name stays */
	text = procmap_format(pm, &len);
	/* threads by tid, names by pid */
	CHECK_STR(text, "kvm-exitstat procmap 1\nt 17 16 -1\nt 300 299 3\nt 301 -1 -1\n"
			"p 16 db\np 299 web\\\\1\\nx\n");
	CHECK(len == strlen(text), "len %zu", len);
	back = procmap_parse(text, len + 1, e, sizeof(e)); /* with its NUL, as in the file */
	CHECK(back != NULL, "%s", e);
	if (back) {
		CHECK(procmap_nthreads(back) == 3, "%zu threads", procmap_nthreads(back));
		procmap_thread_at(back, 0, &tid, &tgid);
		CHECK(tid == 17 && tgid == 16, "first %d %d", tid, tgid);
		CHECK(procmap_tgid(back, 300) == 299, "300 -> %d", procmap_tgid(back, 300));
		CHECK(procmap_tgid(back, 301) == -1, "301 -> %d", procmap_tgid(back, 301));
		CHECK(procmap_vcpu(back, 300) == 3, "vcpu of 300: %d", procmap_vcpu(back, 300));
		CHECK(procmap_vcpu(back, 17) == -1, "vcpu of 17: %d", procmap_vcpu(back, 17));
		CHECK(procmap_vcpu(back, 5) == -1, "vcpu of 5: %d", procmap_vcpu(back, 5));
		CHECK(procmap_tgid(back, 5) == -1, "5 -> %d", procmap_tgid(back, 5));
		CHECK_STR(procmap_name(back, 299), "web\\1\nx");
		procmap_name_at(back, 0, &pid, &name);
		CHECK(pid == 16, "pid %d", pid);
		CHECK_STR(name, "db");
	}
	procmap_free(back);
	free(text);
	procmap_free(pm);
}

static void test_malformed(void)
{
	static const char *const bad[] = {
	    "kvm-exitstat procmap 2\nt 1 1\n",
	    "kvm-exitstat procmap 1\nt 1\n",
	    "kvm-exitstat procmap 1\nt 1 1\n",
	    "kvm-exitstat procmap 1\nt 1 1 -2\n",
	    "kvm-exitstat procmap 1\nt x 1\n",
	    "kvm-exitstat procmap 1\nt 1 0 0\n",
	    "kvm-exitstat procmap 1\nt 1 2 3 4\n",
	    "kvm-exitstat procmap 1\np 0 name\n",
	    "kvm-exitstat procmap 1\nq 1 1\n",
	    "kvm-exitstat procmap 1\nt 99999999999 1 0\n",
	    "",
	};
	char e[128];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct procmap *pm = procmap_parse(bad[i], strlen(bad[i]), e, sizeof(e));

		CHECK(pm == NULL, "case %zu parsed", i);
		CHECK(pm || e[0], "case %zu: no reason", i);
		procmap_free(pm);
	}
}

/* A recording whose guest made no exit has a map of no lines: an empty map, not an error. */
static void test_empty(void)
{
	static const char text[] = "kvm-exitstat procmap 1\n";
	char e[128] = "";
	struct procmap *pm = procmap_parse(text, sizeof(text), e, sizeof(e));

	CHECK(pm != NULL, "an empty map refused: %s", e);
	CHECK(pm && procmap_nthreads(pm) == 0 && procmap_nnames(pm) == 0, "an empty map has entries");
	procmap_free(pm);
}

static void test_fill_tgids(void)
{
	struct procmap *pm = procmap_new();

	procmap_set_thread(pm, 10, -1);
	procmap_set_thread(pm, 11, 5);
	procmap_fill_tgids(pm, "2 2\n10 9\n11 8\n12 12\ngarbage\n");
	CHECK(procmap_tgid(pm, 10) == 9, "10 -> %d", procmap_tgid(pm, 10));
	CHECK(procmap_tgid(pm, 11) == 5, "a known one stays: %d", procmap_tgid(pm, 11));
	CHECK(!procmap_has_thread(pm, 12), "threads not seen are not added");
	procmap_fill_tgids(pm, NULL);
	procmap_free(pm);
}

static void test_vcpu_of_comm(void)
{
	static const struct {
		const char *comm;
		int32_t vcpu;
	} t[] = {
	    {"CPU 0/KVM", 0},	     {"CPU 13/KVM", 13},    {"exitgen-vcpu31", 31},
	    {"fc_vcpu 2", 2},	     {"crosvm_vcpu7", 7},   {"vcpu0", 0},
	    {"qemu-system-x86", -1}, {"CPU 1/TCG", -1},	    {"CPU 1/KVMx", -1},
	    {"worker-12", -1},	     {"vcpu", -1},	    {"", -1},
	    {"vcpu99999999999", -1},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		CHECK(procmap_vcpu_of_comm(t[i].comm) == t[i].vcpu, "'%s' -> %d, want %d", t[i].comm,
		      procmap_vcpu_of_comm(t[i].comm), t[i].vcpu);
	CHECK(procmap_vcpu_of_comm(NULL) == -1, "NULL");
}

/*
 * A hostile file chooses the map's size and order: 300,000 threads and names
 * in descending order, each given twice. One insert at a time took a memmove
 * and a scan per line (quadratic: over a minute); sorted first, a fraction of
 * a second. A hang guard of 30 s of CPU, not a speed test (make bench).
 */
static void test_large_reversed(void)
{
	const size_t n = 300000;
	size_t cap = 64 + 2 * n * 48, o = 0, len;
	char *text = xmalloc(cap), e[128];
	struct procmap *pm;
	double t0, dt;

	o += (size_t)snprintf(text, cap, "kvm-exitstat procmap 1\n");
	for (size_t k = 0; k < 2; k++)
		for (size_t i = n; i > 0; i--) {
			o += (size_t)snprintf(text + o, cap - o, "t %zu %zu %zu\n", i + 1000,
					      k ? i : i + 1, k);
			o += (size_t)snprintf(text + o, cap - o, "p %zu %s%zu\n", i, k ? "late" : "vm",
					      i);
		}
	len = o;
	t0 = test_cpu_seconds();
	pm = procmap_parse(text, len, e, sizeof(e));
	dt = test_cpu_seconds() - t0;
	printf("test_procmap: %zu lines parsed in %.3f s of CPU\n", 4 * n, dt);
	CHECK(pm != NULL, "%s", e);
	if (pm) {
		int32_t tid, tgid, pid;
		const char *name;
		bool sorted = true;

		CHECK(procmap_nthreads(pm) == n && procmap_nnames(pm) == n, "%zu threads, %zu names",
		      procmap_nthreads(pm), procmap_nnames(pm));
		for (size_t i = 0; i < procmap_nthreads(pm); i++) {
			procmap_thread_at(pm, i, &tid, &tgid);
			sorted &= tid == (int32_t)(i + 1001) && tgid == (int32_t)(i + 2);
		}
		CHECK(sorted, "threads in tid order, the first tgid given kept");
		CHECK(procmap_vcpu(pm, 1001) == 1, "vcpu: the last given (%d)", procmap_vcpu(pm, 1001));
		procmap_name_at(pm, 0, &pid, &name);
		CHECK(pid == 1 && !strcmp(name, "vm1"), "first name %d %s", pid, name);
		CHECK_STR(procmap_name(pm, 300000), "vm300000");
	}
	CHECK(dt < 30.0 * TEST_SLOW, "parsed in %.3f s (bound %d s)", dt, 30 * TEST_SLOW);
	procmap_free(pm);
	free(text);
}

/* How many lines of text are exactly line. */
static int lines_equal(const char *text, const char *line)
{
	int n = 0;
	size_t len = strlen(line);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += strncmp(p, line, len) == 0 && (p[len] == '\n' || !p[len]);
	return n;
}

/*
 * record -p PID learns its threads' names at the start: a short run's vCPU
 * thread may be gone, and out of the kernel's saved_cmdlines, by the end.
 * The file names only the recording's threads: the kernel's saved_cmdlines
 * holds thousands of other lines on recent kernels, which every report parsed.
 */
static void test_learned_comms(void)
{
	struct procmap_learner *l = procmap_learn_new(8);
	char self[32], other[32], *names, saved[96];
	int32_t tid;

	pthread_setname_np(pthread_self(), "kes-main");
	tid = (int32_t)gettid();
	snprintf(self, sizeof(self), "%d kes-main", (int)tid);
	snprintf(other, sizeof(other), "%d someone-else", (int)tid);
	procmap_learn_process(l, (int32_t)getpid());
	names = procmap_learn_cmdlines(l, "1 init\n2 kthreadd");
	CHECK(lines_equal(names, "1 init") == 0 && lines_equal(names, "2 kthreadd") == 0,
	      "the kernel's lines of threads not learned: left out: '%s'", names);
	CHECK(lines_equal(names, self) == 1, "a thread the kernel lost, from /proc: '%s'", names);
	free(names);
	procmap_learn_process(l, (int32_t)getpid()); /* seen twice: still one line */
	names = procmap_learn_cmdlines(l, NULL);
	CHECK(lines_equal(names, self) == 1, "without saved_cmdlines, once: '%s'", names);
	free(names);
	snprintf(saved, sizeof(saved), "1 init\n%s\n%d first-of-two\n", other, (int)tid + 1);
	names = procmap_learn_cmdlines(l, saved);
	CHECK(lines_equal(names, other) == 1 && lines_equal(names, self) == 0,
	      "a thread the kernel still has: its line, not a second: '%s'", names);
	CHECK(lines_equal(names, "1 init") == 0, "and not the others: '%s'", names);
	free(names);
	procmap_learn_free(l);
}

/*
 * The threads of a page's events and their processes are named, each once,
 * from saved_cmdlines where it has them (the first line of a pid); a thread
 * gone from /proc and from saved_cmdlines gets no line. The tids are above
 * the kernel's PID_MAX_LIMIT (4,194,304): no thread of this host has them.
 */
static void test_recorded_names(void)
{
	struct procmap_learner *l = procmap_learn_new(8);
	unsigned char page[4096], rec[16] = {0};
	struct ring_info info;
	struct ringenc e;
	char *names, *text;
	size_t len;

	ringenc_init(&e, page, sizeof(page), 8);
	for (int32_t tid = 5000001; tid <= 5000003; tid++) {
		memcpy(rec + 4, &tid, sizeof(tid)); /* common_pid */
		CHECK(ringenc_add(&e, 1000 + (uint64_t)tid, rec, sizeof(rec)) == 0, "add %d", tid);
	}
	CHECK(procmap_learn_page(l, page, sizeof(page), &info) == 0 && info.events == 3,
	      "the page: %llu events", (unsigned long long)info.events);
	text = procmap_learn_finish(l, "5000001 5000000\n5000002 5000000\n", NULL, -1, NULL, &len);
	free(text);
	names = procmap_learn_cmdlines(l, "9 other\n5000002 vcpu1\n5000001 vcpu0\n"
					  "5000000 qemu\n5000002 stale\nbad line\n");
	CHECK(names && !strcmp(names, "5000000 qemu\n5000001 vcpu0\n5000002 vcpu1\n"),
	      "by tid, each once, only the recording's: '%s'", names ? names : "(null)");
	free(names);
	names = procmap_learn_cmdlines(l, NULL);
	CHECK(names && !*names, "gone threads without saved_cmdlines: no line: '%s'",
	      names ? names : "(null)");
	free(names);
	procmap_learn_free(l);
}

/*
 * A raw page's walk: its threads learned from common_pid, and in the same
 * walk the counts record prints (what the page was built with: 7 records,
 * 42 lost before it); a malformed page: -1.
 */
static void test_learn_page(void)
{
	struct procmap_learner *l = procmap_learn_new(8);
	unsigned char page[4096], rec[16] = {0};
	int32_t tid = (int32_t)gettid();
	uint64_t commit, lost = 42;
	struct ring_info info;
	struct ringenc e;
	char *text, want[32];
	size_t len;

	memcpy(rec + 4, &tid, sizeof(tid)); /* common_pid */
	ringenc_init(&e, page, sizeof(page), 8);
	for (int i = 0; i < 7; i++)
		CHECK(ringenc_add(&e, 1000 + (uint64_t)i, rec, sizeof(rec)) == 0, "add %d", i);
	memcpy(&commit, page + 8, 8);
	memcpy(page + 16 + commit, &lost, 8);
	commit |= 3ULL << 30; /* MISSING_EVENTS | MISSING_STORED, the count after the data */
	memcpy(page + 8, &commit, 8);
	CHECK(procmap_learn_page(l, page, sizeof(page), &info) == 0 && info.events == 7 &&
		  info.flagged && info.missed_known && info.missed == 42,
	      "counts: %llu events, missed %llu", (unsigned long long)info.events,
	      (unsigned long long)info.missed);
	commit = 5000; /* more than the page holds */
	memcpy(page + 8, &commit, 8);
	CHECK(procmap_learn_page(l, page, sizeof(page), &info) < 0 && info.events == 0,
	      "a malformed page: -1, no events");
	text = procmap_learn_finish(l, NULL, NULL, -1, NULL, &len);
	snprintf(want, sizeof(want), "\nt %d %d ", (int)tid, (int)getpid());
	CHECK(text && strstr(text, want), "the page's thread learned: '%s' in '%s'", want,
	      text ? text : "(null)");
	free(text);
	procmap_learn_free(l);
}

int main(void)
{
	test_large_reversed();
	test_round_trip();
	test_malformed();
	test_empty();
	test_fill_tgids();
	test_vcpu_of_comm();
	test_learned_comms();
	test_recorded_names();
	test_learn_page();
	return test_summary("test_procmap");
}
