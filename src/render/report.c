// SPDX-License-Identifier: GPL-2.0
/* The one switch between output formats (bpftool's show_prog() pattern). */
#include <string.h>
#include "render.h"

int render_format_parse(const char *name, enum render_format *f)
{
	static const struct {
		const char *name;
		enum render_format f;
	} names[] = {
	    {"ppc", RENDER_PPC},
	    {"table", RENDER_TABLE},
	    {"csv", RENDER_CSV},
	    {"json", RENDER_JSON},
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(name, names[i].name) == 0) {
			*f = names[i].f;
			return 0;
		}
	}
	return -1;
}

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

const char *render_row_name(const struct stats_row *r, char *buf, size_t len)
{
	char s[32];

	if (!render_row_sub(r, s, sizeof(s)))
		return r->key.name;
	snprintf(buf, len, "%s@%s", r->key.name, s);
	return buf;
}

void render_runtime(char *buf, size_t len, double seconds)
{
	unsigned long long s = (unsigned long long)(seconds + 0.5);

	if (s >= 3600)
		snprintf(buf, len, "%llu:%02llu:%02llu", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, len, "%llu:%02llu", s / 60, s % 60);
}
