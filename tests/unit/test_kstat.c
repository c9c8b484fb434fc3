// SPDX-License-Identifier: GPL-2.0
/*
 * KVM's own statistics without a kernel: the buckets of log and linear
 * histograms (the kernel's fls64() and value / bucket_size, checked value by
 * value), quantiles, deltas (a cleared counter, a VM born since), the view's
 * sums, the snapshot file written and read back (exactly; a file that does
 * not fit its schema refused), the exporter's families; and the in-kernel
 * mode's log2 samples: folded on powers of two, each lands in the bucket
 * the kernel had it in.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "harness.h"
#include "input.h"
#include "kstat.h"
#include "kstatjson.h"
#include "prom.h"
#include "render.h"
#include "stats.h"
#include "serve/serve-local.h"

#define CHECK_EQ(got, want)                                                                        \
	CHECK((uint64_t)(got) == (uint64_t)(want), "got %llu want %llu",                           \
	      (unsigned long long)(got), (unsigned long long)(want))

/* The kernel's own rules (include/linux/kvm_host.h), to check ours against. */
static uint32_t kernel_log_index(uint64_t v, uint32_t size)
{
	uint32_t i = v ? 64 - (uint32_t)__builtin_clzll(v) : 0; /* fls64 */

	return i < size - 1 ? i : size - 1;
}

static void schema(struct kstat_schema *s)
{
	struct kstat_desc d[] = {
	    {.name = "exits", .type = KSTAT_CUMULATIVE, .base = 10, .size = 1, .vcpu = true},
	    {.name = "pages_4k", .type = KSTAT_INSTANT, .base = 10, .size = 1},
	    {.name = "halt_wait_ns", .type = KSTAT_CUMULATIVE, .unit = KSTAT_UNIT_SECONDS,
	     .base = 10, .exponent = -9, .size = 1, .vcpu = true},
	    {.name = "halt_wait_hist", .type = KSTAT_LOG_HIST, .unit = KSTAT_UNIT_SECONDS,
	     .base = 10, .exponent = -9, .size = 32, .vcpu = true},
	    {.name = "lin", .type = KSTAT_LINEAR_HIST, .base = 10, .size = 8, .bucket_size = 10},
	};

	*s = (struct kstat_schema){.described = true};
	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		kstat_schema_add(s, &d[i]);
}

static void test_buckets(const struct kstat_schema *s)
{
	const struct kstat_desc *lg = kstat_schema_find(s, "halt_wait_hist");
	const struct kstat_desc *ln = kstat_schema_find(s, "lin");
	uint64_t vals[] = {0, 1, 2, 3, 4, 7, 8, 1023, 1024, 1025, 1ull << 30, UINT64_MAX};

	for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]); k++) {
		uint32_t i = kernel_log_index(vals[k], lg->size);
		uint64_t lo, hi;

		kstat_bucket_range(lg, i, &lo, &hi);
		CHECK(vals[k] >= lo && vals[k] <= hi, "log value %llu not in bucket %u [%llu, %llu]",
		      (unsigned long long)vals[k], i, (unsigned long long)lo,
		      (unsigned long long)hi);
		i = vals[k] / 10 < ln->size - 1 ? (uint32_t)(vals[k] / 10) : ln->size - 1;
		kstat_bucket_range(ln, i, &lo, &hi);
		CHECK(vals[k] >= lo && vals[k] <= hi, "linear value %llu", (unsigned long long)vals[k]);
	}
	/* quantile: the upper bound of the bucket of the rank */
	uint64_t b[32] = {0};
	b[11] = 98; /* 1024..2047 */
	b[20] = 2;  /* 2^19..2^20-1 */
	CHECK_NEAR(kstat_hist_quantile(lg, b, 0.5), 2047, 0);
	CHECK_NEAR(kstat_hist_quantile(lg, b, 0.99), 1048575, 0);
	CHECK_EQ(kstat_hist_count(lg, b), 100);
	CHECK(isnan(kstat_hist_quantile(lg, (uint64_t[32]){0}, 0.5)), "no samples: NAN");
	char u[32];
	CHECK_STR(kstat_unit_label(lg, u, sizeof(u)), "ns");
}

static void reading(const struct kstat_schema *s, struct kstat_reading *r, double t, uint64_t exits,
		    uint64_t bucket11, int32_t pid)
{
	struct kstat_vm vm;
	const struct kstat_desc *e = kstat_schema_find(s, "exits");
	const struct kstat_desc *h = kstat_schema_find(s, "halt_wait_hist");

	*r = (struct kstat_reading){.t = t, .wall_ns = 1};
	kstat_vm_init(&vm, s, pid, "100-4", "vm1");
	vm.source = strdup("debugfs");
	for (size_t i = 0; i < s->n; i++)
		vm.have[i] = true;
	vm.v[e->off] = exits;
	vm.v[h->off + 11] = bucket11;
	vm.v[kstat_schema_find(s, "pages_4k")->off] = 7;
	kstat_reading_add(r, &vm);
}

static void test_view(const struct kstat_schema *s)
{
	struct kstat_reading a, b, c;
	struct kstat_view *v;

	reading(s, &a, 10.0, 1000, 5, 100);
	reading(s, &b, 12.0, 1600, 9, 100);
	v = kstat_view_new(s, &a, &b, KSTAT_VIEW_TOTAL, NULL, NULL);
	CHECK_EQ(v->nb, 2);
	CHECK_NEAR(v->dt, 2.0, 0);
	for (size_t i = 0; i < v->b[0].nrows; i++) {
		const struct kstat_row *r = &v->b[0].rows[i];

		if (!strcmp(r->d->name, "exits")) {
			CHECK_EQ(r->delta, 600);
			CHECK_NEAR(r->rate, 300, 0);
			CHECK_EQ(r->value, 1600);
		} else if (!strcmp(r->d->name, "pages_4k")) {
			CHECK_EQ(r->delta, 7); /* instant: the value */
			CHECK(isnan(r->rate), "no rate of an instant");
		} else if (!strcmp(r->d->name, "halt_wait_hist")) {
			CHECK_EQ(r->samples, 4);
			CHECK_EQ(r->b[11], 4);
		}
	}
	kstat_view_free(v);
	/* a cleared counter (debugfs write of 0): its new value; a VM of another pid: from 0 */
	reading(s, &c, 13.0, 50, 9, 100);
	v = kstat_view_new(s, &b, &c, 0, NULL, NULL);
	CHECK_EQ(v->b[0].rows[0].delta, 50);
	kstat_view_free(v);
	kstat_reading_free(&c);
	reading(s, &c, 13.0, 70, 0, 222);
	v = kstat_view_new(s, &b, &c, 0, NULL, NULL);
	CHECK_EQ(v->b[0].rows[0].delta, 70);
	CHECK(v->b[0].born, "a VM of another pid under the same id is born");
	kstat_view_free(v);
	kstat_reading_free(&a);
	kstat_reading_free(&b);
	kstat_reading_free(&c);
}

static void test_snapshot(const struct kstat_schema *s)
{
	char path[] = "/tmp/kes-kstat-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct kstat_reading r[2];
	struct kstatjson k;
	char e[512];

	reading(s, &r[0], 1.5, 1, 2, 77);
	reading(s, &r[1], 3.25, 12345678901234ull, 3, 77);
	kstat_vm_vcpu(&r[1].vms[0], s, 0)->v[0] = 99;
	struct render_kstat_snap m = {s, "test", r, 2, "host", "6.1"};
	render_kstat_snapshot(f, &m);
	fclose(f);
	fd = open(path, O_RDONLY);
	CHECK(input_detect(fd) == INPUT_KSTAT_JSON, "sniffed as a snapshot (input_detect)");
	close(fd);
	CHECK(kstatjson_load(path, &k, e, sizeof(e)) == 0, "load: %s", e);
	CHECK_EQ(k.nreadings, 2);
	CHECK_EQ(k.schema.n, s->n);
	CHECK_EQ(k.readings[1].vms[0].v[kstat_schema_find(&k.schema, "exits")->off],
		 12345678901234ull);
	CHECK_EQ(k.readings[1].vms[0].v[kstat_schema_find(&k.schema, "halt_wait_hist")->off + 11],
		 3);
	CHECK_EQ(k.readings[1].vms[0].nvcpus, 1);
	CHECK_EQ(k.readings[1].vms[0].vcpus[0].v[0], 99);
	CHECK_NEAR(k.readings[1].t, 3.25, 0);
	kstatjson_free(&k);
	/* a histogram with another number of buckets than its descriptor: refused */
	f = fopen(path, "w");
	fputs("{\"kind\": \"kvm-exitstat-kvm-stats\", \"schema\": [{\"name\": \"h\", \"scope\": "
	      "\"vm\", \"type\": \"log-hist\", \"unit\": \"seconds\", \"base\": 10, \"exponent\": "
	      "-9, \"size\": 4, \"bucket_size\": 0}], \"readings\": [{\"t\": 1.5, \"wall_ns\": 1, "
	      "\"vms\": [{\"pid\": 1, \"id\": \"1-2\", \"values\": {\"h\": [1, 2]}}]}]}",
	      f);
	fclose(f);
	CHECK(kstatjson_load(path, &k, e, sizeof(e)) < 0 && strstr(e, "buckets"), "refused: %s", e);
	CHECK(kstatjson_sniff("{\"kind\": \"kvm-exitstat-kvm-stats\"}", 34), "sniff");
	CHECK(!kstatjson_sniff("{\"schema\": \"kvm-exitstat-report/2\"}", 35), "not a report");
	unlink(path);
	kstat_reading_free(&r[0]);
	kstat_reading_free(&r[1]);
}

static void test_prom(const struct kstat_schema *s)
{
	struct kstat_reading r;
	struct kstat_view *v;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct prom_w w;

	reading(s, &r, 1, 42, 6, 55);
	v = kstat_view_new(s, NULL, &r, 0, NULL, NULL);
	prom_start(&w, f, false);
	serve_expose_kstat(&w, v);
	prom_end(&w);
	fclose(f);
	CHECK(strstr(buf, "kvm_exitstat_kvm_exits_total{pid=\"55\",vm=\"vm1\"} 42\n"), "%s", buf);
	CHECK(strstr(buf, "# TYPE kvm_exitstat_kvm_pages_4k gauge\n"), "gauge");
	/* bucket 11 holds 1024..2047 ns: le = 2.047e-06 s, cumulative */
	CHECK(strstr(buf, "kvm_exitstat_kvm_halt_wait_hist_seconds_bucket{pid=\"55\",vm=\"vm1\","
			  "le=\"2.047e-06\"} 6\n"),
	      "bucket");
	CHECK(strstr(buf, "kvm_exitstat_kvm_halt_wait_hist_seconds_count{pid=\"55\",vm=\"vm1\"} 6\n"),
	      "count");
	CHECK(!strstr(buf, "halt_wait_hist_seconds_sum"), "no sum");
	/* halt_wait_ns in seconds: its _ns dropped */
	CHECK(strstr(buf, "# TYPE kvm_exitstat_kvm_halt_wait_seconds_total counter\n"), "ns dropped");
	free(buf);
	kstat_view_free(v);
	kstat_reading_free(&r);
}

/* --in-kernel: n samples of the kernel's bucket 2^k, folded on 2^j bounds: all in le = 2^k. */
static void test_log2(void)
{
	for (int k = 8; k <= 30; k++) {
		struct stats_acc a;
		uint64_t got[SERVE_NLE + 1] = {0};

		stats_acc_init(&a);
		stats_acc_add_log2(&a, k, 3, 3 * (1ull << (k - 1)) + 3);
		stats_acc_add_log2(&a, k, 2, 2 * (1ull << k));
		CHECK_EQ(a.count, 5);
		CHECK_EQ(a.sum, 3 * (1ull << (k - 1)) + 3 + 2 * (1ull << k));
		CHECK_EQ(a.max, 1ull << k);
		CHECK(stats_acc_fold(&a, serve_le_log2_ns, SERVE_NLE, got) == 0, "fold");
		CHECK_EQ(got[k - 7], 5);
		stats_acc_free(&a);
	}
}

int main(void)
{
	struct kstat_schema s;

	schema(&s);
	test_buckets(&s);
	test_view(&s);
	test_snapshot(&s);
	test_prom(&s);
	test_log2();
	kstat_schema_free(&s);
	return test_summary("kstat");
}
