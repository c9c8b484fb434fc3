// SPDX-License-Identifier: GPL-2.0
/*
 * Matching the printed forms of events: the patterns themselves are
 * exit_types data (`form` lines: the event's TP_printk with `%{field:conv}`
 * where a field's value is printed, `sym` for the names of symbolic values,
 * `alias` for other printers' reason names), so nothing per ISA lives in
 * code. The decoder then works with field names, exactly as the binary
 * decoder does with the exit_types tables.
 *
 * conv: u/d decimal, x hex (a "0x" is accepted), s a symbol: a name from the
 * kernel's __print_symbolic() (or the "0x%lx" it prints for an unknown value),
 * resolved to a number through the form's syms when it has them; w a symbol
 * of one word (it ends at a blank or ','): the last capture of a form for
 * lines an author trimmed ("reason HLT", "reason DR_ACCESS info1 ..."),
 * whatever follows it is not read.
 *
 * A capture runs to the next literal of the pattern (the last one to the end
 * of the payload, numbers then taking their leading digits). One blank in a
 * pattern matches any run of blanks. Forms are tried in order; the first that
 * matches the start of the payload wins.
 */
#include <string.h>
#include "decode-local.h"
#include "intern.h"
#include "num.h"

/* ---- fixups: what a pattern cannot say ---- */

static struct text_field *field_find(const struct text_fields *f, const char *name, size_t len)
{
	for (int i = 0; i < f->n; i++)
		if (f->v[i].name_len == len && memcmp(f->v[i].name, name, len) == 0)
			return (struct text_field *)&f->v[i];
	return NULL;
}

static struct text_field *field_mut(struct text_fields *f, const char *name, size_t len)
{
	struct text_field *x = field_find(f, name, len);

	if (x || f->n == TEXT_MAX_FIELDS)
		return x;
	f->v[f->n] = (struct text_field){.name = name, .name_len = len};
	return &f->v[f->n++];
}

/*
 * text_field_get() for a name that is not a form's own pointer: a C string
 * from elsewhere, compared, its first byte ruling out most.
 */
const struct text_field *text_field_named(const struct text_fields *f, const char *name)
{
	for (int i = 0; name && i < f->n; i++) {
		const struct text_field *x = &f->v[i];
		if (x->name[0] == name[0] && !strncmp(x->name, name, x->name_len) &&
		    !name[x->name_len])
			return x;
	}
	return NULL;
}

/*
 * kvm_userspace_exit: "reason %s (%d)" prints, when errno < 0, "restart"
 * (-EINTR) or "error" and -errno; else the KVM_EXIT_* name and the reason.
 */
static void fix_userspace(const char *payload, struct text_fields *f)
{
	struct text_field *r = field_mut(f, "reason", 6), *e = field_mut(f, "errno", 5);

	if (!r || !e || !e->has_num)
		return;
	if (r->text && ((r->text_len == 7 && memcmp(r->text, "restart", 7) == 0) ||
			(r->text_len == 5 && memcmp(r->text, "error", 5) == 0))) {
		e->num = 0 - e->num;
		*r = (struct text_field){.name = r->name, .name_len = r->name_len, .has_num = true};
		return;
	}
	/* errno >= 0: the number is the reason ("reason 0x63 (99)" too) */
	r->has_num = true;
	r->num = e->num;
	e->num = 0;
}

/* kvm_emulate_insn: the kernel appends " failed", trace-cmd's plugin " FAIL". */
static void fix_emulate(const char *payload, struct text_fields *f)
{
	size_t n = strlen(payload);
	struct text_field *x = field_mut(f, "failed", 6);

	while (n && (payload[n - 1] == ' ' || payload[n - 1] == '\t'))
		n--;
	if (!x)
		return;
	x->has_num = true;
	x->num = (n >= 7 && memcmp(payload + n - 7, " failed", 7) == 0) ||
		 (n >= 5 && memcmp(payload + n - 5, " FAIL", 5) == 0);
}

/* ---- the forms: exit_types data ---- */

static const struct {
	const char *name;
	void (*fn)(const char *payload, struct text_fields *f);
} fixups[] = {
    {"userspace-errno", fix_userspace},
    {"emulate-failed", fix_emulate},
};

/* The pattern literal at p: up to the next capture or the end. */
static size_t literal_len(const char *p)
{
	size_t n = 0;

	while (p[n] && (p[n] != '%' || p[n + 1] != '{'))
		n++;
	return n;
}

/* The capture at p ("%{name:c}"): its name's end, or NULL for a bad one. */
static const char *capture_colon(const char *p)
{
	const char *colon = strchr(p + 2, ':');

	return !colon || colon[1] == '\0' || colon[2] != '}' ? NULL : colon;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static uint8_t lit_shape(const char *s, size_t n)
{
	bool blanks = false, runs = false;

	for (size_t i = 0; i < n; i++) {
		if (is_blank(s[i])) {
			runs |= i && is_blank(s[i - 1]);
			blanks = true;
		}
	}
	return runs ? TEXT_LIT_RUNS : blanks ? TEXT_LIT_BLANKS : TEXT_LIT_PLAIN;
}

/* The field slot of a capture named name: the one of an earlier capture of it, else a new one. */
static int cap_slot(const struct text_form *form, const char *name, uint8_t *nfields)
{
	for (size_t i = 0; i < form->ncap; i++)
		if (form->cap[i].name == name)
			return form->cap[i].slot;
	return *nfields < TEXT_MAX_FIELDS ? (*nfields)++ : -1;
}

/*
 * The pattern taken apart once: the literal before the first capture, then
 * each capture with the literal after it. A pattern this reader cannot take
 * (a bad capture, too many, a literal past 64 KiB) is marked bad: as before
 * it was compiled, it matches no line.
 */
static void form_compile(struct text_form *form)
{
	const char *pat = form->f->pattern, *p = pat, *colon;
	uint8_t nfields = 0;
	size_t n = literal_len(p);

	form->bad = true;
	if (n > UINT16_MAX)
		return;
	form->lit0_len = (uint16_t)n;
	form->shape0 = lit_shape(p, n);
	for (p += n; *p; p += n) {
		if (form->ncap == TEXT_FORM_CAPS || !(colon = capture_colon(p)) ||
		    colon - (p + 2) > UINT8_MAX)
			return;
		size_t name_len = (size_t)(colon - (p + 2));
		const char *name = intern_n(p + 2, name_len);
		int slot = cap_slot(form, name, &nfields);
		p = colon + 3;
		n = literal_len(p);
		if (slot < 0 || n > UINT16_MAX || (size_t)(p - pat) > UINT16_MAX)
			return;
		form->cap[form->ncap] = (struct text_cap){.name = name,
							  .lit_at = (uint16_t)(p - pat),
							  .lit_len = (uint16_t)n,
							  .name_len = (uint8_t)name_len,
							  .conv = colon[1],
							  .slot = (uint8_t)slot,
							  .shape = lit_shape(p, n)};
		form->ncap++;
	}
	for (size_t i = 0; form->f->fixup && i < sizeof(fixups) / sizeof(fixups[0]); i++)
		if (!strcmp(fixups[i].name, form->f->fixup))
			form->fixup = fixups[i].fn;
	form->bad = false;
}

size_t text_forms_find(const struct exit_types *types, const char *system, const char *event,
		       struct text_form *out, size_t max)
{
	const struct exit_form *f[TEXT_MAX_FORMS];
	const struct exit_table *t[TEXT_MAX_FORMS];
	size_t n = exit_types_forms(types, system, event, f, t,
				    max < TEXT_MAX_FORMS ? max : TEXT_MAX_FORMS);

	for (size_t i = 0; i < n; i++) {
		out[i] = (struct text_form){.f = f[i], .t = t[i]};
		form_compile(&out[i]);
	}
	return n;
}

/* ---- matching ---- */

/*
 * A number of conv 'u', 'd' or 'x' at s[0, len): 0 and *v, or -1. With
 * prefix, trailing text after the digits is allowed. Overflow: -1.
 */
static int parse_num(const char *s, size_t len, char conv, bool prefix, uint64_t *v)
{
	size_t i = 0, used;
	bool neg = false;
	unsigned base = conv == 'x' ? 16 : 10;

	if (conv == 'd' && i < len && s[i] == '-') {
		neg = true;
		i++;
	}
	if (i + 1 < len && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		base = 16;
		i += 2;
	}
	if (num_digits(s + i, len - i, base, v, &used) < 0 || !used ||
	    (!prefix && i + used != len))
		return -1;
	if (neg)
		*v = 0 - *v;
	return 0;
}

/*
 * A symbol's number: from the form's syms, the kernel's "0x%lx" for a value
 * it has no name for, or the kvm plugin's "UNKNOWN (%llu)". The latter two
 * are no names: the text is dropped. A number printed beside the symbol
 * (s390: "icptcode %d (%s)") was captured first and stays. Field names are
 * interned on both sides: the pointer is the name.
 */
static void symbol_value(const struct text_form *form, struct text_field *x)
{
	uint64_t v;
	bool is_num = false;

	for (size_t i = 0; i < form->t->nsyms; i++) {
		const struct exit_sym *s = &form->t->syms[i];

		if (s->field == x->name && !strncmp(s->name, x->text, x->text_len) &&
		    !s->name[x->text_len]) {
			if (!x->has_num)
				x->num = s->value;
			x->has_num = true;
			return;
		}
	}
	if (x->text_len > 2 && x->text[0] == '0' && x->text[1] == 'x')
		is_num = parse_num(x->text, x->text_len, 'x', false, &v) == 0;
	else if (x->text_len > 10 && memcmp(x->text, "UNKNOWN (", 9) == 0 &&
		 x->text[x->text_len - 1] == ')')
		is_num = parse_num(x->text + 9, x->text_len - 10, 'u', false, &v) == 0;
	if (!is_num)
		return;
	if (!x->has_num)
		x->num = v;
	x->has_num = true;
	x->text = NULL;
	x->text_len = 0;
}

/*
 * Does lit[0, n) start s (a blank in lit matches a run of blanks)? Its
 * length in s, or -1. Byte for byte first: when that matches a literal
 * without blanks in a row, and no run of blanks goes on after a blank at
 * its end, it is the answer; one without blanks has no other. s ends at its
 * NUL, which no literal byte matches.
 */
static long literal_at(const char *s, const char *lit, size_t n, uint8_t shape)
{
	const char *a = s;

	if (shape != TEXT_LIT_RUNS) {
		size_t i = 0;
		while (i < n && s[i] == lit[i])
			i++;
		if (i == n && (!n || !is_blank(lit[n - 1]) || !is_blank(s[n])))
			return (long)n;
		if (shape == TEXT_LIT_PLAIN)
			return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (is_blank(lit[i])) {
			if (!is_blank(*a))
				return -1;
			while (is_blank(*a))
				a++;
		} else if (*a == lit[i]) {
			a++;
		} else {
			return -1;
		}
	}
	return a - s;
}

/*
 * Where literal lit[0, n) next occurs in s, and its length there. libc's
 * strchr()/strcspn() skip to where it can start: to its first byte, or for
 * a literal that starts with a blank to the next run of blanks, tried once
 * (the run's later blanks would match the same way).
 */
static const char *find_literal(const char *s, const char *lit, size_t n, uint8_t shape,
				size_t *matched)
{
	bool blank = is_blank(lit[0]);

	while (*s) {
		s = blank ? s + strcspn(s, " \t") : strchr(s, lit[0]);
		if (!s || !*s)
			return NULL;
		long m = literal_at(s, lit, n, shape);
		if (m >= 0) {
			*matched = (size_t)m;
			return s;
		}
		if (!blank)
			s++;
		else
			while (is_blank(*s))
				s++;
	}
	return NULL;
}

/*
 * The capture c of s[0, len) into its field; a field's first capture makes
 * the field. A number that ends the pattern may have text after its digits.
 */
static int capture(const struct text_form *form, const struct text_cap *c, const char *s,
		   size_t len, struct text_fields *f)
{
	struct text_field *x = &f->v[c->slot];
	uint64_t v;

	if (c->slot == f->n) {
		*x = (struct text_field){.name = c->name, .name_len = c->name_len};
		f->n++;
	}
	while (len && is_blank(s[len - 1]))
		len--;
	if (!len)
		return -1;
	if (c->conv == 's' || c->conv == 'w') {
		x->text = s;
		x->text_len = len;
		x->word = c->conv == 'w';
		symbol_value(form, x);
		return 0;
	}
	if (parse_num(s, len, c->conv, c->lit_len == 0, &v) < 0)
		return -1;
	x->has_num = true;
	x->num = v;
	return 0;
}

int text_form_match(const struct text_form *form, const char *payload, struct text_fields *f)
{
	const char *pat = form->f->pattern, *s = payload;
	long m0;

	/*
	 * every form is a kernel TP_printk: its symbols are the kernel's own
	 * names. Only the fields in use are set (a field's first capture sets
	 * it whole): zeroing all eight for each form tried cost as much again.
	 */
	f->n = 0;
	f->kernel_symbols = true;
	f->aliases = form->f->aliases;
	if (form->bad)
		return -1;
	if (form->lit0_len) {
		/* most forms tried and missed differ at the first byte: no call for those */
		if ((!is_blank(*pat) && *s != *pat) ||
		    (m0 = literal_at(s, pat, form->lit0_len, form->shape0)) < 0)
			return -1;
		s += m0;
	}
	for (size_t i = 0; i < form->ncap; i++) {
		const struct text_cap *c = &form->cap[i];
		const char *lit = pat + c->lit_at, *end;
		size_t m = 0;

		if (c->lit_len)
			end = find_literal(s, lit, c->lit_len, c->shape, &m);
		else if (c->conv == 'w')
			end = s + strcspn(s, " \t,");
		else
			end = s + strlen(s);
		if (!end || capture(form, c, s, (size_t)(end - s), f) < 0)
			return -1;
		/* find_literal() matched the literal after it (m bytes): past both */
		s = end + m;
	}
	if (form->fixup)
		form->fixup(payload, f);
	return 0;
}

/* A word boundary before s (start, blank or punctuation). */
static bool word_start(const char *payload, const char *s)
{
	return s == payload || !(((s[-1] | 0x20) >= 'a' && (s[-1] | 0x20) <= 'z') ||
				 (s[-1] >= '0' && s[-1] <= '9') || s[-1] == '_');
}

/*
 * "name=value" pairs, as libtraceevent prints an event whose print fmt it
 * could not parse ("[FAILED TO PARSE] exit_reason=30 isa=1 ..."), and as many
 * TP_printk()s look. Values are decimal, or hex with 0x.
 */
void text_fields_generic(const char *payload, const char *const *names, size_t n,
			 struct text_fields *f)
{
	*f = (struct text_fields){0};
	for (size_t i = 0; i < n; i++) {
		size_t len = names[i] ? strlen(names[i]) : 0;
		if (!len || field_find(f, names[i], len))
			continue;
		for (const char *s = strstr(payload, names[i]); s; s = strstr(s + 1, names[i])) {
			const char *v = s + len;
			uint64_t num;
			size_t vl = 0;
			if (!word_start(payload, s) || *v != '=')
				continue;
			v++;
			while (v[vl] && !is_blank(v[vl]) && v[vl] != ',')
				vl++;
			if (parse_num(v, vl, 'd', false, &num) < 0)
				continue;
			struct text_field *x = field_mut(f, names[i], len);
			if (x) {
				x->has_num = true;
				x->num = num;
			}
			break;
		}
	}
}
