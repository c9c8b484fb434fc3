// SPDX-License-Identifier: GPL-2.0
/*
 * How each KVM event prints, as data: a pattern per printed form, written
 * from the event's TP_printk with `%{field:conv}` where a field's value is
 * printed. The decoder then works with field names, exactly as the binary
 * decoder does with the exit_types tables, so nothing per ISA lives in code.
 *
 * conv: u/d decimal, x hex (a "0x" is accepted), s a symbol: a name from the
 * kernel's __print_symbolic() (or the "0x%lx" it prints for an unknown value),
 * resolved to a number through the form's syms when it has them.
 *
 * A capture runs to the next literal of the pattern (the last one to the end
 * of the payload, numbers then taking their leading digits). One blank in a
 * pattern matches any run of blanks. Forms are tried in order; the first that
 * matches the start of the payload wins.
 */
#include <string.h>
#include "text-local.h"

struct text_sym {
	const char *field, *name;
	uint64_t value;
};

struct text_form {
	const char *system, *event;
	const char *pattern;
	const struct text_sym *syms;	  /* NULL-terminated */
	const struct text_alias *aliases; /* NULL-terminated */
	bool kernel_symbols;		  /* symbols are the kernel's own names */
	void (*fixup)(const char *payload, struct text_fields *f);
};

/* ---- symbols printed for non-reason fields ---- */

/* include/trace/events/kvm.h: kvm_fpu, kvm_mmio; arch/x86/kvm/trace.h: kvm_pio, kvm_msr */
/* clang-format off */
static const struct text_sym generic_syms[] = {
	{ "load", "unload", 0 },
	{ "load", "load", 1 },
	{ "type", "unsatisfied-read", 0 },
	{ "type", "read", 1 },
	{ "type", "write", 2 },
	{ "rw", "read", 0 },
	{ "rw", "write", 1 },
	{ "write", "read", 0 },
	{ "write", "write", 1 },
	{ NULL, NULL, 0 },
};
/* clang-format on */

/* arch/arm64/include/asm/kvm_asm.h: kvm_arm_exception_type (HYP_GONE is HVC_STUB_ERR) */
/* clang-format off */
static const struct text_sym arm64_syms[] = {
	{ "ret", "IRQ", 0 }, { "ret", "SERROR", 1 }, { "ret", "TRAP", 2 },
	{ "ret", "ILLEGAL", 3 }, { "ret", "HYP_GONE", 0xbadca11 }, { NULL, NULL, 0 },
};
/* clang-format on */

/*
 * trace-cmd's kvm plugin (libtraceevent plugins/plugin_kvm.c) prints
 * kvm_exit with its own tables: "reason %s" with the names below, or
 * "reason UNKNOWN (%llu)" with the full exit_reason. Where its VMX names are
 * the kernel's they need no alias; its SVM names are SVM_EXIT_* spelled out.
 */
/* clang-format off */
#define VMX(n, v) { n, v, "isa", 1 }
#define SVM(n, v) { n, v, "isa", 2 }
static const struct text_alias kvm_plugin_aliases[] = {
	VMX("PENDING_INTERRUPT", 7),
	SVM("EXIT_READ_CR0", 0x000),
	SVM("EXIT_READ_CR3", 0x003),
	SVM("EXIT_READ_CR4", 0x004),
	SVM("EXIT_READ_CR8", 0x008),
	SVM("EXIT_WRITE_CR0", 0x010),
	SVM("EXIT_WRITE_CR3", 0x013),
	SVM("EXIT_WRITE_CR4", 0x014),
	SVM("EXIT_WRITE_CR8", 0x018),
	SVM("EXIT_READ_DR0", 0x020),
	SVM("EXIT_READ_DR1", 0x021),
	SVM("EXIT_READ_DR2", 0x022),
	SVM("EXIT_READ_DR3", 0x023),
	SVM("EXIT_READ_DR4", 0x024),
	SVM("EXIT_READ_DR5", 0x025),
	SVM("EXIT_READ_DR6", 0x026),
	SVM("EXIT_READ_DR7", 0x027),
	SVM("EXIT_WRITE_DR0", 0x030),
	SVM("EXIT_WRITE_DR1", 0x031),
	SVM("EXIT_WRITE_DR2", 0x032),
	SVM("EXIT_WRITE_DR3", 0x033),
	SVM("EXIT_WRITE_DR4", 0x034),
	SVM("EXIT_WRITE_DR5", 0x035),
	SVM("EXIT_WRITE_DR6", 0x036),
	SVM("EXIT_WRITE_DR7", 0x037),
	SVM("EXIT_EXCP_DE", 0x040),
	SVM("EXIT_EXCP_DB", 0x041),
	SVM("EXIT_EXCP_BP", 0x043),
	SVM("EXIT_EXCP_OF", 0x044),
	SVM("EXIT_EXCP_BR", 0x045),
	SVM("EXIT_EXCP_UD", 0x046),
	SVM("EXIT_EXCP_NM", 0x047),
	SVM("EXIT_EXCP_DF", 0x048),
	SVM("EXIT_EXCP_TS", 0x04a),
	SVM("EXIT_EXCP_NP", 0x04b),
	SVM("EXIT_EXCP_SS", 0x04c),
	SVM("EXIT_EXCP_GP", 0x04d),
	SVM("EXIT_EXCP_PF", 0x04e),
	SVM("EXIT_EXCP_MF", 0x050),
	SVM("EXIT_EXCP_AC", 0x051),
	SVM("EXIT_EXCP_MC", 0x052),
	SVM("EXIT_EXCP_XF", 0x053),
	SVM("EXIT_INTR", 0x060),
	SVM("EXIT_NMI", 0x061),
	SVM("EXIT_SMI", 0x062),
	SVM("EXIT_INIT", 0x063),
	SVM("EXIT_VINTR", 0x064),
	SVM("EXIT_CR0_SEL_WRITE", 0x065),
	SVM("EXIT_IDTR_READ", 0x066),
	SVM("EXIT_GDTR_READ", 0x067),
	SVM("EXIT_LDTR_READ", 0x068),
	SVM("EXIT_TR_READ", 0x069),
	SVM("EXIT_IDTR_WRITE", 0x06a),
	SVM("EXIT_GDTR_WRITE", 0x06b),
	SVM("EXIT_LDTR_WRITE", 0x06c),
	SVM("EXIT_TR_WRITE", 0x06d),
	SVM("EXIT_RDTSC", 0x06e),
	SVM("EXIT_RDPMC", 0x06f),
	SVM("EXIT_PUSHF", 0x070),
	SVM("EXIT_POPF", 0x071),
	SVM("EXIT_CPUID", 0x072),
	SVM("EXIT_RSM", 0x073),
	SVM("EXIT_IRET", 0x074),
	SVM("EXIT_SWINT", 0x075),
	SVM("EXIT_INVD", 0x076),
	SVM("EXIT_PAUSE", 0x077),
	SVM("EXIT_HLT", 0x078),
	SVM("EXIT_INVLPG", 0x079),
	SVM("EXIT_INVLPGA", 0x07a),
	SVM("EXIT_IOIO", 0x07b),
	SVM("EXIT_MSR", 0x07c),
	SVM("EXIT_TASK_SWITCH", 0x07d),
	SVM("EXIT_FERR_FREEZE", 0x07e),
	SVM("EXIT_SHUTDOWN", 0x07f),
	SVM("EXIT_VMRUN", 0x080),
	SVM("EXIT_VMMCALL", 0x081),
	SVM("EXIT_VMLOAD", 0x082),
	SVM("EXIT_VMSAVE", 0x083),
	SVM("EXIT_STGI", 0x084),
	SVM("EXIT_CLGI", 0x085),
	SVM("EXIT_SKINIT", 0x086),
	SVM("EXIT_RDTSCP", 0x087),
	SVM("EXIT_ICEBP", 0x088),
	SVM("EXIT_WBINVD", 0x089),
	SVM("EXIT_MONITOR", 0x08a),
	SVM("EXIT_MWAIT", 0x08b),
	SVM("EXIT_MWAIT_COND", 0x08c),
	SVM("EXIT_XSETBV", 0x08d),
	SVM("EXIT_NPF", 0x400),
	SVM("EXIT_AVIC_INCOMPLETE_IPI", 0x401),
	SVM("EXIT_AVIC_UNACCELERATED_ACCESS", 0x402),
	SVM("EXIT_ERR", 0xffffffff),
	{ NULL, 0, NULL, 0 },
};
/* clang-format on */

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

const struct text_field *text_field_get(const struct text_fields *f, const char *name)
{
	return name ? field_find(f, name, strlen(name)) : NULL;
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

/* ---- the forms ---- */

/* A form of the kernel's own TP_printk: its symbols are the kernel's names. */
#define KFORM(sys, ev, pat, ...)                                                                   \
	{                                                                                          \
		.system = sys, .event = ev, .pattern = pat, .kernel_symbols = true, __VA_ARGS__    \
	}

/* clang-format off */
static const struct text_form forms[] = {
	/* arch/x86/kvm/trace.h, v5.14+: "vcpu %u reason %s%s%s rip 0x%lx ..." */
	KFORM("kvm", "kvm_exit", "vcpu %{vcpu_id:u} reason %{exit_reason:s} rip "),
	/*
	 * Kernels before v5.14, and trace-cmd's kvm plugin: "reason %s rip 0x%lx
	 * info %llx %llx". The same shape; the plugin's names are resolved
	 * through its aliases (text_decoder_set_plugin_names()).
	 */
	KFORM("kvm", "kvm_exit", "reason %{exit_reason:s} rip ", .aliases = kvm_plugin_aliases),
	/* kernel "vcpu %u, rip 0x%lx ..." (before v5.14 "vcpu %u"); plugin " vcpu %u rip 0x%llx" */
	KFORM("kvm", "kvm_entry", "vcpu %{vcpu_id:u}"),
	/* arch/arm64/kvm/trace_arm.h */
	KFORM("kvm", "kvm_exit", "%{ret:s}: HSR_EC: 0x%{esr_ec:x} (", .syms = arm64_syms),
	/* arm64 and riscv kvm_entry: "PC: 0x%016lx" (no vcpu id) */
	KFORM("kvm", "kvm_entry", "PC: 0x%{vcpu_pc:x}"),
	/* arch/riscv/kvm/trace.h */
	KFORM("kvm", "kvm_exit", "SEPC:0x%{sepc:x}, SCAUSE:0x%{scause:x},"),
	/* arch/s390/kvm/trace.h: VCPU_TP_PRINTK "%02d[%016lx-%016lx]: " + ... */
	KFORM("kvm", "kvm_s390_sie_exit",
	      "%{id:d}[%{pswmask:x}-%{pswaddr:x}]: exit sie icptcode %{icptcode:d} (%{icptcode:s})"),
	KFORM("kvm", "kvm_s390_sie_enter", "%{id:d}[%{pswmask:x}-%{pswaddr:x}]: entering sie"),
	/* arch/powerpc/kvm/trace_hv.h */
	KFORM("kvm_hv", "kvm_guest_exit", "VCPU %{vcpu_id:d}: trap=%{trap:s} pc=0x"),
	KFORM("kvm_hv", "kvm_guest_enter", "VCPU %{vcpu_id:d}: pc=0x"),
	/* arch/powerpc/kvm/trace_pr.h (srr1 tells it from booke's) */
	KFORM("kvm_pr", "kvm_exit",
	      "exit=%{exit_nr:s} | pc=0x%{pc:x} | msr=0x%{msr:x} | dar=0x%{dar:x} | srr1="),
	KFORM("kvm_pr", "kvm_book3s_reenter", "reentry r=%{r:d} | pc=0x"),
	/* arch/powerpc/kvm/trace_booke.h */
	KFORM("kvm_booke", "kvm_exit",
	      "exit=%{exit_nr:s} | pc=0x%{pc:x} | msr=0x%{msr:x} | dar=0x%{dar:x} | last_inst="),
	/* include/trace/events/kvm.h */
	KFORM("kvm", "kvm_userspace_exit", "reason %{reason:s} (%{errno:d})",
	      .fixup = fix_userspace),
	KFORM("kvm", "kvm_fpu", "%{load:s}", .syms = generic_syms),
	KFORM("kvm", "kvm_mmio", "mmio %{type:s} len %{len:u} gpa 0x%{gpa:x} val",
	      .syms = generic_syms),
	KFORM("kvm", "kvm_fast_mmio", "fast mmio at gpa 0x%{gpa:x}"),
	/* arch/x86/kvm/trace.h */
	KFORM("kvm", "kvm_pio", "pio_%{rw:s} at 0x%{port:x} size", .syms = generic_syms),
	/* kernel "%x:%llx:%s (%s)%s"; plugin "%llx:%llx: %s%s" */
	KFORM("kvm", "kvm_emulate_insn", "%{csbase:x}:%{rip:x}:", .fixup = fix_emulate),
	KFORM("kvm", "kvm_hypercall", "nr 0x%{nr:x} a0"),
	KFORM("kvm", "kvm_msr", "msr_%{write:s} %{ecx:x} = 0x", .syms = generic_syms),
	/* "vcpu %u rip 0x%lx address 0x%016llx error_code 0x%llx"; older: "address %lx error_code %x" */
	KFORM("kvm", "kvm_page_fault",
	      "vcpu %{vcpu_id:u} rip 0x%{guest_rip:x} address 0x%{fault_address:x} "
	      "error_code 0x%{error_code:x}"),
	KFORM("kvm", "kvm_page_fault", "address %{fault_address:x} error_code %{error_code:x}"),
};
/* clang-format on */

void text_forms_find(const char *system, const char *event, const struct text_form **out,
		     size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]) && n + 1 < max; i++)
		if (strcmp(forms[i].event, event) == 0 &&
		    (!system || strcmp(forms[i].system, system) == 0))
			out[n++] = &forms[i];
	if (max)
		out[n] = NULL;
}

const char *text_form_system(const struct text_form *form)
{
	return form->system;
}

/* ---- matching ---- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * A number of conv 'u', 'd' or 'x' at s[0, len): 0 and *v, or -1. With
 * prefix, trailing text after the digits is allowed. Overflow: -1.
 */
static int parse_num(const char *s, size_t len, char conv, bool prefix, uint64_t *v)
{
	size_t i = 0, start;
	bool neg = false;
	unsigned base = conv == 'x' ? 16 : 10;

	*v = 0;
	if (conv == 'd' && i < len && s[i] == '-') {
		neg = true;
		i++;
	}
	if (i + 1 < len && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
		base = 16;
		i += 2;
	}
	for (start = i; i < len; i++) {
		int d = hexval(s[i]);
		if (d < 0 || (unsigned)d >= base)
			break;
		if (*v > (UINT64_MAX - (unsigned)d) / base)
			return -1;
		*v = *v * base + (unsigned)d;
	}
	if (i == start || (!prefix && i != len))
		return -1;
	if (neg)
		*v = 0 - *v;
	return 0;
}

/*
 * A symbol's number: from the form's syms, the kernel's "0x%lx" for a value
 * it has no name for, or the kvm plugin's "UNKNOWN (%llu)". The latter two
 * are no names: the text is dropped. A number printed beside the symbol
 * (s390: "icptcode %d (%s)") was captured first and stays.
 */
static void symbol_value(const struct text_form *form, struct text_field *x)
{
	uint64_t v;
	bool is_num = false;

	for (const struct text_sym *s = form->syms; s && s->field; s++) {
		if (strlen(s->field) == x->name_len &&
		    memcmp(s->field, x->name, x->name_len) == 0 && strlen(s->name) == x->text_len &&
		    memcmp(s->name, x->text, x->text_len) == 0) {
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

/* The pattern literal at p: up to the next capture or the end. */
static size_t literal_len(const char *p)
{
	const char *c = strstr(p, "%{");

	return c ? (size_t)(c - p) : strlen(p);
}

/* Does lit[0, n) start s (a blank in lit matches a run of blanks)? Its length in s, or -1. */
static long literal_at(const char *s, const char *lit, size_t n)
{
	const char *a = s;

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

/* Where literal lit[0, n) next occurs in s, and its length there. */
static const char *find_literal(const char *s, const char *lit, size_t n, size_t *matched)
{
	for (; *s; s++) {
		long m = literal_at(s, lit, n);
		if (m >= 0) {
			*matched = (size_t)m;
			return s;
		}
	}
	return NULL;
}

static int capture(const struct text_form *form, const char *name, size_t name_len, char conv,
		   const char *s, size_t len, bool last, struct text_fields *f)
{
	struct text_field *x = field_mut(f, name, name_len);
	uint64_t v;

	while (len && is_blank(s[len - 1]))
		len--;
	if (!x || !len)
		return -1;
	if (conv == 's') {
		x->text = s;
		x->text_len = len;
		symbol_value(form, x);
		return 0;
	}
	if (parse_num(s, len, conv, last, &v) < 0)
		return -1;
	x->has_num = true;
	x->num = v;
	return 0;
}

int text_form_match(const struct text_form *form, const char *payload, struct text_fields *f)
{
	const char *p = form->pattern, *s = payload;

	*f = (struct text_fields){.kernel_symbols = form->kernel_symbols, .aliases = form->aliases};
	while (*p) {
		if (p[0] != '%' || p[1] != '{') {
			size_t n = literal_len(p);
			long m = literal_at(s, p, n);
			if (m < 0)
				return -1;
			s += m;
			p += n;
			continue;
		}
		/* %{name:c} */
		const char *name = p + 2, *colon = strchr(name, ':');
		if (!colon || colon[1] == '\0' || colon[2] != '}')
			return -1; /* a bad pattern: a bug here, not in the input */
		char conv = colon[1];
		p = colon + 3;
		size_t n = literal_len(p), m = 0;
		const char *end = n ? find_literal(s, p, n, &m) : s + strlen(s);
		if (!end || capture(form, name, (size_t)(colon - name), conv, s, (size_t)(end - s),
				    n == 0, f) < 0)
			return -1;
		s = end;
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
