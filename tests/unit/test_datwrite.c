// SPDX-License-Identifier: GPL-2.0
/*
 * The trace.dat v6 writer, checked by an independent reader: libtracecmd
 * must give back every event of a fixture with its cpu, timestamp, pid and
 * field values (small and large records, time extends, page roll-over,
 * several CPUs). Then the CPUSTAT reader: the stored loss counts, and -1
 * for files without them, truncated files and other versions.
 * Runs from the source tree root (make check).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <trace-cmd/trace-cmd.h>
#include "alloc.h"
#include "file.h"
#include "fixture.h"
#include "harness.h"
#include "output.h"
#include "ring.h"
#include "tracedat.h"

#define X86 "tests/fixtures/formats/x86"

static char tmpdir[] = "/tmp/kes-datwrite-XXXXXX";

static const char *tmp(const char *name)
{
	static char buf[8][256];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmpdir, name);
	return buf[i];
}

struct seen {
	struct tep_handle *tep;
	int n;
	int cpu[4096];
	unsigned long long ts[4096];
	int pid[4096];
	char name[4096][32];
	unsigned long long val[4096]; /* the field asked for, or 0 */
	const char *field;
	long long missed;
};

static int collect_one(struct tracecmd_input *h, struct tep_record *r, int cpu, void *arg)
{
	struct seen *s = arg;
	struct tep_event *e = tep_find_event_by_record(s->tep, r);
	unsigned long long v = 0;

	if (s->n >= 4096 || !e)
		return 0;
	if (r->missed_events > 0)
		s->missed += r->missed_events;
	s->cpu[s->n] = cpu;
	s->ts[s->n] = r->ts;
	s->pid[s->n] = tep_data_pid(s->tep, r);
	snprintf(s->name[s->n], sizeof(s->name[0]), "%s", e->name);
	if (s->field && tep_find_any_field(e, s->field))
		tep_get_any_field_val(NULL, e, s->field, r, &v, 0);
	s->val[s->n++] = v;
	return 0;
}

static int read_back(const char *path, struct seen *s, const char *field)
{
	struct tracecmd_input *h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);

	memset(s, 0, sizeof(*s));
	if (!h)
		return -1;
	s->tep = tracecmd_get_tep(h);
	s->field = field;
	tracecmd_iterate_events(h, NULL, 0, collect_one, s);
	tracecmd_close(h);
	return 0;
}

static int build(const char *out, const char *spec, const char *text)
{
	char e[512];
	int ret = datfixture_build(out, &spec, 1, text, e, sizeof(e));

	if (ret)
		fprintf(stderr, "datfixture_build: %s\n", e);
	return ret;
}

static void test_small(void)
{
	static struct seen s;
	const char *text = "# two CPUs, out of order in the text, a 30 s gap (time extend)\n"
			   "1 2000 4102 kvm:kvm_userspace_exit reason=6 errno=0\n"
			   "0 1000 4101 kvm:kvm_userspace_exit reason=2 errno=0\n"
			   "\n"
			   "0 30000001000 4101 kvm:kvm_userspace_exit reason=5 errno=-4\n"
			   "0 1500 4101 kvm:kvm_pio rw=1 port=0x80 size=1 count=1 val=7\n";

	CHECK(build(tmp("small.dat"), X86, text) == 0, "build");
	CHECK(read_back(tmp("small.dat"), &s, "reason") == 0, "libtracecmd opens it");
	CHECK(s.n == 4, "events %d", s.n);
	/* libtracecmd merges CPUs by time */
	CHECK(s.ts[0] == 1000 && s.cpu[0] == 0 && s.pid[0] == 4101, "first %llu", s.ts[0]);
	CHECK_STR(s.name[1], "kvm_pio");
	CHECK(s.ts[2] == 2000 && s.cpu[2] == 1 && s.val[2] == 6, "cpu1 %llu %llu", s.ts[2],
	      s.val[2]);
	CHECK(s.ts[3] == 30000001000ULL && s.val[3] == 5, "time extend %llu", s.ts[3]);
	CHECK(s.missed == 0, "no loss");
}

/* 3000 events: many pages, and the timestamps must stay exact across them. */
static void test_pages(void)
{
	static struct seen s;
	size_t cap = 3000 * 80, len = 0;
	char *text = xmalloc(cap);
	int ok = 1;

	for (int i = 0; i < 3000; i++)
		len += (size_t)snprintf(text + len, cap - len,
					"%d %d 77 kvm:kvm_userspace_exit reason=%d errno=0\n",
					i % 2, 1000 + i * 333, i % 30);
	CHECK(build(tmp("pages.dat"), X86, text) == 0, "build");
	CHECK(read_back(tmp("pages.dat"), &s, "reason") == 0, "open");
	CHECK(s.n == 3000, "events %d", s.n);
	for (int i = 0; i < s.n && i < 3000; i++)
		ok &= s.ts[i] == (unsigned long long)(1000 + i * 333) &&
		      s.val[i] == (unsigned)(i % 30) && s.cpu[i] == i % 2;
	CHECK(ok, "every timestamp, value and cpu");
	free(text);
}

/* A record over 112 bytes takes the type_len 0 header; strings and __data_loc. */
static void test_large(void)
{
	static const char fmt[] =
	    "name: big\nID: 9001\nformat:\n"
	    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	    "\tfield:char name[200];\toffset:8;\tsize:200;\tsigned:0;\n"
	    "\tfield:u64 nr;\toffset:208;\tsize:8;\tsigned:0;\n"
	    "\tfield:__data_loc char[] msg;\toffset:216;\tsize:4;\tsigned:0;\n\n"
	    "print fmt: \"%s %llu %s\", REC->name, REC->nr, __get_str(msg)\n";
	static struct seen s;
	char spec[300];
	FILE *f = fopen(tmp("big.format"), "w");

	fputs(fmt, f);
	fclose(f);
	snprintf(spec, sizeof(spec), "test:%s", tmp("big.format"));
	CHECK(build(tmp("big.dat"), spec,
		    "0 10 1 test:big name=\"hello world\" nr=0xfffffffffffffffe msg=abc\n"
		    "0 20 1 test:big nr=3\n") == 0,
	      "build");
	CHECK(read_back(tmp("big.dat"), &s, "nr") == 0, "open");
	CHECK(s.n == 2 && s.val[0] == 0xfffffffffffffffeULL && s.val[1] == 3, "n %d", s.n);
	CHECK(build(tmp("bad.dat"), spec, "0 10 1 test:big nosuch=1\n") < 0, "unknown field");
	CHECK(build(tmp("bad.dat"), spec, "0 10 1 test:nosuch\n") < 0, "unknown event");
	CHECK(build(tmp("bad.dat"), spec, "zero 10 1 test:big\n") < 0, "bad cpu");
	CHECK(access(tmp("bad.dat"), F_OK) != 0, "no file left after a failure");
}

static void test_ringpage(void)
{
	unsigned char page[4096];
	struct ring_info info;
	struct ringenc e;
	uint64_t commit, lost = 42;
	unsigned char rec[16] = {1};
	size_t psize;
	int lsize;
	static const char hp[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
				 "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
				 "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
				 "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

	CHECK(ring_header_parse(hp, sizeof(hp) - 1, &psize, &lsize) == 0 && psize == 4096 &&
		  lsize == 8,
	      "header %zu %d", psize, lsize);
	ringenc_init(&e, page, sizeof(page), 8);
	for (int i = 0; i < 10; i++)
		CHECK(ringenc_add(&e, 100 + (uint64_t)i * (1ULL << 28), rec, sizeof(rec)) == 0,
		      "add %d", i);
	CHECK(ringenc_count(page, sizeof(page), 8, &info) == 0 && info.events == 10 &&
		  !info.flagged,
	      "count %llu", (unsigned long long)info.events);
	/* the kernel's loss flags: MISSING_EVENTS | MISSING_STORED, count after the data */
	memcpy(&commit, page + 8, 8);
	memcpy(page + 16 + commit, &lost, 8);
	commit |= 3ULL << 30;
	memcpy(page + 8, &commit, 8);
	CHECK(ringenc_count(page, sizeof(page), 8, &info) == 0 && info.missed_known &&
		  info.missed == 42 && info.events == 10,
	      "missed %llu", (unsigned long long)info.missed);
	commit = 5000; /* more than the page holds */
	memcpy(page + 8, &commit, 8);
	CHECK(ringenc_count(page, sizeof(page), 8, &info) < 0, "oversized commit rejected");
}

static void test_cpustats(void)
{
	static const char st[] = "entries: 0\noverrun: 7\ncommit overrun: 100\nbytes: 0\n"
				 "dropped events: 5\nread events: 1\n";
	uint64_t v = 0;

	CHECK(ring_stats_field(st, "overrun", &v) == 0 && v == 7, "overrun %llu",
	      (unsigned long long)v);
	CHECK(ring_stats_field(st, "commit overrun", &v) == 0 && v == 100, "commit overrun");
	CHECK(ring_stats_field(st, "nothere", &v) < 0, "absent key");
	CHECK(ring_stats_lost(st) == 12, "lost %llu", (unsigned long long)ring_stats_lost(st));
	CHECK(ring_stats_lost(NULL) == 0, "NULL");
}

static int write_with_stats(const char *path, char *const *stats, const char *hp, size_t hplen)
{
	unsigned char page[4096] = {0};
	struct dat_writer_meta m = {.header_page = hp,
				    .header_page_len = hplen,
				    .header_event = "",
				    .cpustats = stats,
				    .uname = true,
				    .trace_clock = "[local] global\n"};
	char e[256];
	struct dat_writer *w = dat_writer_new(path, 2, 4096, e, sizeof(e));
	int ret;

	if (!w)
		return -1;
	dat_writer_page(w, 1, page, 100); /* an empty, short page: padded to 4096 */
	ret = dat_writer_finish(w, &m, e, sizeof(e));
	dat_writer_free(w);
	return ret;
}

/*
 * Pages of a CPU are written in runs (up to 16 of one CPU in a row): runs
 * longer than that, broken by the other CPU, short pages. The file ends with
 * CPU 0's pages then CPU 1's (the v6 layout), so each page's place is known
 * from the file's size alone: every page must be there, in its CPU's order,
 * its short tail zeroed.
 */
static void test_runs(void)
{
	static const int plan[][2] = {{0, 20}, {1, 3}, {0, 1}, {1, 17}, {0, 16}, {1, 1}, {0, 2}};
	struct dat_writer_meta m = {.header_page = "", .header_event = ""};
	unsigned char page[4096], back[4096];
	int n[2] = {0, 0}, ok = 1;
	char e[256];
	struct dat_writer *w = dat_writer_new(tmp("runs.dat"), 2, 4096, e, sizeof(e));
	FILE *f;
	long size;

	CHECK(w != NULL, "writer: %s", e);
	if (!w)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(plan); i++)
		for (int k = 0; k < plan[i][1]; k++) {
			int cpu = plan[i][0], seq = n[cpu]++;
			size_t len = seq % 5 == 4 ? 100 : sizeof(page);

			memset(page, 0xa0 + cpu, sizeof(page));
			memcpy(page, &seq, sizeof(seq));
			CHECK(dat_writer_page(w, cpu, page, len) == 0, "page %d of cpu %d", seq, cpu);
			if (i == 3 && k == 5) /* in the middle of a run, as record does after a read */
				CHECK(dat_writer_flush(w) == 0, "flush");
		}
	CHECK(dat_writer_finish(w, &m, e, sizeof(e)) == 0, "finish: %s", e);
	dat_writer_free(w);
	f = fopen(tmp("runs.dat"), "rb");
	CHECK(f && fseek(f, 0, SEEK_END) == 0, "open");
	if (!f)
		return;
	size = ftell(f);
	for (int cpu = 0; cpu < 2; cpu++)
		for (int seq = 0; seq < n[cpu]; seq++) {
			long at = size - (long)(n[0] + n[1] - (cpu ? n[0] : 0) - seq) * 4096;
			size_t len = seq % 5 == 4 ? 100 : sizeof(page);
			int got;

			ok &= fseek(f, at, SEEK_SET) == 0 && fread(back, 1, 4096, f) == 4096;
			memcpy(&got, back, sizeof(got));
			ok &= got == seq && back[len - 1] == 0xa0 + cpu && back[4095] == (len < 4096 ? 0 : 0xa0 + cpu);
		}
	fclose(f);
	CHECK(n[0] == 39 && n[1] == 21, "plan %d %d", n[0], n[1]);
	CHECK(ok, "every page in its CPU's order, short ones zero-filled");
}

/* le BYTES of v at p */
static size_t le(unsigned char *p, uint64_t v, size_t bytes)
{
	for (size_t i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
	return bytes;
}

/* One v7 OPTIONS section at *n: a CPUSTAT, then DONE naming the next section. */
static size_t v7_section(unsigned char *b, size_t n, int flags, const char *stat, uint64_t next)
{
	size_t size_at;

	n += le(b + n, 0, 2);	  /* id: OPTIONS (0) */
	n += le(b + n, flags, 2); /* bit 0: compressed */
	n += le(b + n, 0, 4);	  /* string id */
	size_at = n;
	n += 8;
	n += le(b + n, 2, 2); /* CPUSTAT */
	n += le(b + n, strlen(stat) + 1, 4);
	memcpy(b + n, stat, strlen(stat) + 1);
	n += strlen(stat) + 1;
	n += le(b + n, 0, 2); /* DONE: size 8, the next section */
	n += le(b + n, 8, 4);
	n += le(b + n, next, 8);
	le(b + size_at, n - size_at - 8, 8);
	return n;
}

/* A v7 file as far as tracedat_lost_events() reads: two chained OPTIONS sections. */
static int write_v7(const char *path, int flags)
{
	unsigned char b[1024];
	size_t n = 0, first, second;
	FILE *f;

	memcpy(b, "\x17\x08\x44tracing7\0\0\x08", 14); /* magic, "7", little endian, long 8 */
	n = 14;
	n += le(b + n, 4096, 4);
	memcpy(b + n, "zstd\0001.5.4", 11); /* compression and its version, each NUL-ended */
	n += 11;
	first = n + 8 + 64; /* some metadata between, as in a real file */
	n += le(b + n, first, 8);
	memset(b + n, 0xee, first - n);
	second = v7_section(b, first, 0, "CPU: 0\noverrun: 5\ndropped events: 2\n", 0);
	le(b + second - 8, second, 8); /* the first section's DONE names the second */
	n = v7_section(b, second, flags, "CPU: 1\noverrun: 7\ndropped events: 0\n", 0);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fwrite(b, 1, n, f);
	return fclose(f);
}

static void test_lost(void)
{
	char *stats[2] = {"overrun: 3\ndropped events: 0\n", "overrun: 0\ndropped events: 9\n"};
	char *hp, buf[64];
	size_t hplen;
	uint64_t lost = 1;
	struct tracecmd_input *h;
	FILE *f;
	long size;

	CHECK(file_read_path(X86 "/header_page", &hp, &hplen) == 0, "header_page");
	CHECK(write_with_stats(tmp("st.dat"), stats, hp, hplen) == 0, "write");
	CHECK(tracedat_lost_events(tmp("st.dat"), &lost) == 0 && lost == 12, "lost %llu",
	      (unsigned long long)lost);
	h = tracecmd_open(tmp("st.dat"), TRACECMD_FL_LOAD_NO_PLUGINS);
	CHECK(h != NULL, "libtracecmd opens a file with options and trace_clock");
	if (h)
		tracecmd_close(h);
	CHECK(write_with_stats(tmp("nost.dat"), NULL, hp, hplen) == 0, "write");
	CHECK(tracedat_lost_events(tmp("nost.dat"), &lost) < 0, "no CPUSTAT: -1");
	CHECK(tracedat_lost_events(tmp("nothere.dat"), &lost) < 0, "missing file: -1");
	/* truncated inside the options */
	f = fopen(tmp("st.dat"), "r+");
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	CHECK(size > 4096, "size %ld", size);
	CHECK(truncate(tmp("st.dat"), 330) == 0, "truncate");
	CHECK(tracedat_lost_events(tmp("st.dat"), &lost) < 0, "truncated: -1");
	/*
	 * v7 keeps the stats in OPTIONS sections, chained through their DONE
	 * option; the stats are believed only from a file whose whole layout
	 * checks (datfile_layout): options with no header, formats or CPU data
	 * are no trace.dat (real v7 files: tests/e2e/tracedat-versions.sh).
	 */
	CHECK(write_v7(tmp("v7.dat"), 0) == 0, "v7 written");
	CHECK(tracedat_lost_events(tmp("v7.dat"), &lost) < 0 && lost == 0,
	      "v7: CPUSTATs of a file with no layout: -1, lost %llu", (unsigned long long)lost);
	CHECK(write_v7(tmp("v7c.dat"), 1) == 0, "v7 (compressed options) written");
	CHECK(tracedat_lost_events(tmp("v7c.dat"), &lost) < 0, "v7 with compressed options: -1");
	f = fopen(tmp("v7t.dat"), "w");
	fwrite("\x17\x08\x44tracing7\0\0\x08", 1, 13, f);
	fclose(f);
	CHECK(tracedat_lost_events(tmp("v7t.dat"), &lost) < 0, "v7 cut after its start: -1");
	f = fopen(tmp("junk.dat"), "w");
	memset(buf, 0xff, sizeof(buf));
	fwrite(buf, 1, sizeof(buf), f);
	fclose(f);
	CHECK(tracedat_lost_events(tmp("junk.dat"), &lost) < 0, "junk: -1");
	free(hp);
}

/*
 * The TRACECLOCK option holds the trace_clock text, NUL included, as trace-cmd
 * record writes it. Read back by walking the v6 options here, not through
 * libtracecmd: 3.1.6 read an empty one out of a malloc(0) buffer and then
 * printed raw timestamps now and then (valgrind: invalid read in strtok_r).
 */
static void test_traceclock_option(void)
{
	char *stats[2] = {"overrun: 0\n", "overrun: 0\n"}, *hp, *file, *o;
	size_t hplen, len;
	uint32_t size = 0;
	uint16_t id;
	bool found = false;

	CHECK(file_read_path(X86 "/header_page", &hp, &hplen) == 0, "header_page");
	CHECK(write_with_stats(tmp("clock.dat"), stats, hp, hplen) == 0, "write");
	CHECK(file_read_path(tmp("clock.dat"), &file, &len) == 0, "read back");
	o = memmem(file, len, "options  ", 10);
	CHECK(o != NULL, "an options section");
	for (o = o ? o + 10 : NULL; o && o + 6 <= file + len; o += 6 + size) {
		memcpy(&id, o, 2);
		if (id == 0)
			break;
		memcpy(&size, o + 2, 4);
		if (id == 4) {
			found = true;
			break;
		}
	}
	CHECK(found, "a TRACECLOCK option (id 4)");
	CHECK(found && size == sizeof("[local] global\n") && o + 6 + size <= file + len &&
		  !memcmp(o + 6, "[local] global\n", size),
	      "TRACECLOCK holds the trace_clock text and its NUL (size %u)", size);
	free(file);
	free(hp);
}

int main(void)
{
	char cmd[300];

	if (!mkdtemp(tmpdir))
		return 1;
	test_small();
	test_pages();
	test_runs();
	test_large();
	test_ringpage();
	test_cpustats();
	test_lost();
	test_traceclock_option();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		return 1;
	return test_summary("test_datwrite");
}
