// SPDX-License-Identifier: GPL-2.0
/*
 * The sub-key cap of stats tables (stats_table_set_sub_cap): a trace with
 * millions of distinct MMIO addresses must not use up memory under --by-sub.
 */
#include "harness.h"
#include "intern.h"
#include "stats.h"

#define CHECK_EQ(got, want)                                                                        \
	CHECK((uint64_t)(got) == (uint64_t)(want), "got %llu want %llu",                           \
	      (unsigned long long)(got), (unsigned long long)(want))

static struct stats_key key(const char *name, uint64_t sub)
{
	return (struct stats_key){
	    .name = intern(name), .tid = 7, .vcpu = 0, .sub = sub, .has_sub = true};
}

static uint64_t count_of(struct stats_table *t, const char *name, uint64_t sub)
{
	struct stats_key k = key(name, sub);
	struct stats_acc *a = stats_table_find(t, &k);

	return a ? a->count : 0;
}

static void test_cap(void)
{
	struct stats_table *t = stats_table_new();
	struct stats_key plain = {.name = intern("HLT"), .tid = 7, .vcpu = 0};

	stats_table_set_sub_cap(t, 3);
	for (uint64_t gpa = 1; gpa <= 10; gpa++) {
		struct stats_key k = key("MMIO", gpa * 0x1000);
		stats_acc_add(stats_table_get(t, &k), 100);
	}
	CHECK_EQ(stats_table_size(t), 4); /* 3 sub-keys + other */
	CHECK_EQ(count_of(t, "MMIO", 0x1000), 1);
	CHECK_EQ(count_of(t, "MMIO", 0x3000), 1);
	CHECK_EQ(count_of(t, "MMIO", 0x4000), 0);
	CHECK_EQ(count_of(t, "MMIO", STATS_SUB_OTHER), 7);
	CHECK_EQ(stats_table_folded(t), 7);

	/* A sub-key the table has keeps its own row after the cap is reached. */
	struct stats_key k2 = key("MMIO", 0x2000);
	stats_acc_add(stats_table_get(t, &k2), 100);
	CHECK_EQ(count_of(t, "MMIO", 0x2000), 2);
	CHECK_EQ(stats_table_folded(t), 7);

	/* Another name has its own budget; keys without a sub-key are not capped. */
	for (uint64_t port = 0; port < 3; port++) {
		struct stats_key k = key("IO", port);
		stats_table_get(t, &k);
	}
	for (int i = 0; i < 5; i++)
		stats_acc_add(stats_table_get(t, &plain), 10);
	CHECK_EQ(count_of(t, "IO", 2), 0); /* created, no sample */
	CHECK(stats_table_find(
		  t,
		  &(struct stats_key){.name = intern("IO"), .tid = 7, .sub = 2, .has_sub = true}) !=
		  NULL,
	      "IO sub 2 has no row");
	CHECK_EQ(stats_table_size(t), 4 + 3 + 1);
	CHECK_EQ(stats_table_folded(t), 7);

	/* The "other" row itself never counts against the cap. */
	struct stats_key o = key("IO", STATS_SUB_OTHER);
	stats_table_get(t, &o);
	struct stats_key k4 = key("IO", 99);
	stats_table_get(t, &k4);
	CHECK_EQ(stats_table_folded(t), 8);

	/* clear() starts the budgets again. */
	stats_table_clear(t);
	struct stats_key k5 = key("MMIO", 0x9000);
	stats_acc_add(stats_table_get(t, &k5), 1);
	CHECK_EQ(count_of(t, "MMIO", 0x9000), 1);
	CHECK_EQ(stats_table_folded(t), 0);
	stats_table_free(t);
}

static void test_no_cap(void)
{
	struct stats_table *t = stats_table_new();

	for (uint64_t gpa = 0; gpa < 10000; gpa++) {
		struct stats_key k = key("MMIO", gpa);
		stats_acc_add(stats_table_get(t, &k), 1);
	}
	CHECK_EQ(stats_table_size(t), 10000);
	CHECK_EQ(stats_table_folded(t), 0);
	stats_table_free(t);
}

/* Many names past their cap, through growth of both tables. */
static void test_many_names(void)
{
	struct stats_table *t = stats_table_new();
	char name[32];

	stats_table_set_sub_cap(t, 2);
	for (int n = 0; n < 100; n++) {
		snprintf(name, sizeof(name), "R%d", n);
		for (uint64_t sub = 0; sub < 5; sub++) {
			struct stats_key k = key(name, sub);
			stats_acc_add(stats_table_get(t, &k), 1);
		}
	}
	CHECK_EQ(stats_table_size(t), 100 * 3);
	CHECK_EQ(stats_table_folded(t), 100 * 3);
	CHECK_EQ(count_of(t, "R42", STATS_SUB_OTHER), 3);
	CHECK_EQ(count_of(t, "R99", 1), 1);
	stats_table_free(t);
}

int main(void)
{
	test_cap();
	test_no_cap();
	test_many_names();
	return test_summary("stats_subcap");
}
