// SPDX-License-Identifier: GPL-2.0
/* The one switch between output formats (bpftool's show_prog() pattern). */
#include "exit-types.h"
#include "render-local.h"

void render_report(FILE *f, const struct render_opts *o, const struct render_meta *m,
		   const struct render_block *b, size_t n)
{
	switch (o->fmt) {
	case RENDER_PPC:
		render_ppc(f, o, m, b, n);
		break;
	case RENDER_TABLE:
		render_table(f, o, m, b, n);
		break;
	case RENDER_CSV:
		render_csv(f, o, m, b, n);
		break;
	case RENDER_JSON:
		render_json(f, o, m, b, n);
		break;
	}
}

const char *render_row_sub(const struct stats_row *r, char *buf, size_t len)
{
	if (!r->key.has_sub)
		return NULL;
	if (r->key.sub == STATS_SUB_OTHER)
		snprintf(buf, len, "other");
	else
		snprintf(buf, len, "0x%llx", (unsigned long long)r->key.sub);
	return buf;
}

/*
 * What a sub-key is, from the detail event that gave it (the row's
 * accumulator keeps its kind); the labels are the built-in detail table's.
 */
const char *render_row_sub_kind(const struct stats_row *r)
{
	if (!r->key.has_sub || !r->acc || !r->acc->sub_kind)
		return NULL;
	return exit_types_sub_label(exit_types_builtin_details(), (enum kes_detail)r->acc->sub_kind);
}

static const char *render_row_label(const struct stats_row *r, char *buf, size_t len)
{
	const char *w = render_row_sub_kind(r);

	if (!r->key.has_sub)
		return NULL;
	if (r->key.sub == STATS_SUB_OTHER)
		snprintf(buf, len, "other%s%s", w ? " " : "", w ? w : "");
	else
		exit_types_sub_text(exit_types_builtin_details(),
				    (enum kes_detail)(r->acc ? r->acc->sub_kind : 0), r->key.sub, buf,
				    len);
	return buf;
}

const char *render_row_name(const struct stats_row *r, char *buf, size_t len)
{
	char s[48];

	if (!render_row_label(r, s, sizeof(s)))
		return r->key.name;
	snprintf(buf, len, "%s@%s", r->key.name, s);
	return buf;
}

static void render_runtime(char *buf, size_t len, double seconds)
{
	unsigned long long s = (unsigned long long)(seconds + 0.5);

	if (s >= 3600)
		snprintf(buf, len, "%llu:%02llu:%02llu", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, len, "%llu:%02llu", s / 60, s % 60);
}

void render_duration(char *buf, size_t len, double seconds)
{
	if (seconds < 59.995)
		snprintf(buf, len, "%.2f s", seconds);
	else
		render_runtime(buf, len, seconds);
}

/*
 * A table's sum of times is vCPU time: with K vCPUs busy it grows K times as
 * fast as the clock, so it is never called a runtime; the wall span is the
 * trace's own (first to last KVM event), when there were events.
 */
void render_times(char *buf, size_t len, const struct stats_view *v, const struct render_meta *m)
{
	char vt[32], wt[32];

	if (m->ticks) {
		snprintf(buf, len, "%.0f ticks of vCPU time (unit unknown)", v->sumsum);
		return;
	}
	render_duration(vt, sizeof(vt), v->runtime_s);
	if (!m->wall_known) {
		snprintf(buf, len, "%s of vCPU time", vt);
		return;
	}
	render_duration(wt, sizeof(wt), (double)m->wall_ns / 1e9);
	snprintf(buf, len, "%s of vCPU time, trace spans %s", vt, wt);
}
