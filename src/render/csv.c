// SPDX-License-Identifier: GPL-2.0
/*
 * CSV: one header line, one line per row of every block. Columns never
 * change order; new ones are only ever appended.
 */
#include <math.h>
#include <string.h>
#include "render-local.h"
#include "term.h"

/*
 * RFC 4180: quote a cell only when it holds a comma or a quote. A name is
 * written as a terminal would show it (term.h): controls (line breaks, ESC,
 * BEL, C1), invisible reorderings and bytes that are no UTF-8 as the text
 * \xNN. CSV kept every byte once, for programs, and `cat` of the CSV of a
 * hostile file then reached the terminal raw (ESC[2J, an OSC title); a
 * program reading it still gets one line per row.
 */
void csv_quote(FILE *f, const char *s)
{
	bool quote = strpbrk(s, ",\"") != NULL;

	if (quote)
		fputc('"', f);
	while (*s) {
		size_t n = term_char_len(s);

		if (!n) {
			fprintf(f, "\\x%02x", (unsigned char)*s++);
			continue;
		}
		if (*s == '"')
			fputc('"', f);
		fwrite(s, 1, n, f);
		s += n;
	}
	if (quote)
		fputc('"', f);
}

static void num(FILE *f, double x)
{
	if (isnan(x))
		fputs(",", f);
	else
		fprintf(f, ",%.4f", x);
}

void render_csv(FILE *f, const struct render_opts *o, const struct render_meta *m,
		const struct render_block *b, size_t n)
{
	fputs("name,tid,vcpu,count,untimed,min,max,sum,avg,stddev,pct,p50,p90,p99,p999,unit,sub,"
	      "timed,sub_kind\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		const struct stats_view *v = b[i].v;
		for (size_t j = 0; j < v->nrows; j++) {
			const struct stats_row *r = &v->rows[j];
			csv_quote(f, r->key.name);
			fprintf(f, ",%d,%d,%llu,%llu", b[i].tid, b[i].vcpu,
				(unsigned long long)r->count, (unsigned long long)r->untimed);
			num(f, r->min);
			num(f, r->max);
			num(f, r->sum);
			num(f, r->avg);
			num(f, r->stddev);
			num(f, r->pct);
			num(f, r->p50);
			num(f, r->p90);
			num(f, r->p99);
			num(f, r->p999);
			char s[32];
			const char *sk = render_row_sub(r, s, sizeof(s));
			fprintf(f, ",%s,%s,%llu,%s\n", v->unit, sk ? sk : "", (unsigned long long)r->timed,
				render_row_sub_kind(r) ? render_row_sub_kind(r) : "");
		}
	}
}
