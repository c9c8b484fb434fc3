// SPDX-License-Identifier: GPL-2.0
/*
 * A guest's symbol table (include/gsym.h): kallsyms or System.map text, or
 * an ELF file's .symtab/.dynsym, read into one array of code symbols sorted
 * by address, which lookups binary-search. Names live in one string arena
 * owned by the table (offsets while loading: the arena moves as it grows).
 * The file is hostile input to a root process: every line, count and size
 * is bounded, and a malformed one is refused with its line number.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "alloc.h"
#include "err.h"
#include "gsym.h"
#include "sorted.h"

#define READ_BUF (64u << 10) /* > GSYM_MAX_LINE: a whole line always fits */
#define MAX_STR	 (1u << 30)  /* bytes of names: offsets fit in 32 bits */
#define NO_MOD	 UINT32_MAX

struct gsym_ent {
	uint64_t start;
	uint64_t end;  /* while loading: the size, 0 when not known */
	uint32_t name; /* offset in str */
	uint32_t mod;  /* offset in str, NO_MOD: none */
	uint8_t rank;  /* of two symbols at one address the lower rank stays */
};

struct gsym {
	struct gsym_ent *e;
	size_t n, cap;
	char *str;
	size_t slen, scap;
	const char *kind;
};

/* What a load passes around: where errors go. */
struct load {
	const char *path;
	char *errbuf;
	size_t errlen;
	struct gsym *s;
};

void gsym_free(struct gsym *s)
{
	if (!s)
		return;
	free(s->e);
	free(s->str);
	free(s);
}

size_t gsym_count(const struct gsym *s)
{
	return s ? s->n : 0;
}

const char *gsym_kind(const struct gsym *s)
{
	return s ? s->kind : NULL;
}

/* ---- the table ---- */

/* Copies a name into the arena: its offset, or -1 past MAX_STR. */
static int64_t add_str(struct gsym *s, const char *p, size_t len)
{
	size_t off = s->slen;

	if (len + 1 > MAX_STR - s->slen)
		return -1;
	if (s->slen + len + 1 > s->scap) {
		s->scap = s->scap ? s->scap * 2 : 4096;
		while (s->scap < s->slen + len + 1)
			s->scap *= 2;
		s->str = xrealloc(s->str, s->scap);
	}
	memcpy(s->str + off, p, len);
	s->str[off + len] = '\0';
	s->slen += len + 1;
	return (int64_t)off;
}

static int add_sym(struct load *l, uint64_t start, uint64_t size, const char *name, size_t len,
		   uint32_t mod, uint8_t rank)
{
	struct gsym *s = l->s;
	int64_t off = add_str(s, name, len);

	if (off < 0)
		return err_buf(l->errbuf, l->errlen,
			       "%s: too large: more than %u MiB of symbol names", l->path,
			       MAX_STR >> 20);
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 1024;
		s->e = xrealloc(s->e, s->cap * sizeof(*s->e));
	}
	s->e[s->n++] = (struct gsym_ent){start, size, (uint32_t)off, mod, rank};
	return 0;
}

/*
 * By address; at one address the lower rank (a strong symbol before a weak
 * one), then the one read first (names are appended in reading order).
 */
static int cmp_ent(const void *a, const void *b)
{
	const struct gsym_ent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/*
 * Sorts, keeps the first symbol of each address and turns sizes into ends.
 * A range ends at its size (ELF), or without one GSYM_MAX_RANGE past its
 * start, and never past the next symbol's start, so that ranges do not
 * overlap and the binary search's one candidate is the only one.
 */
static void finish(struct gsym *s)
{
	size_t k = 0;

	qsort(s->e, s->n, sizeof(*s->e), cmp_ent);
	for (size_t i = 0; i < s->n; i++)
		if (k == 0 || s->e[i].start != s->e[k - 1].start)
			s->e[k++] = s->e[i];
	s->n = k;
	for (size_t i = 0; i < s->n; i++) {
		struct gsym_ent *e = &s->e[i];
		uint64_t len = e->end ? e->end : GSYM_MAX_RANGE;
		uint64_t end = e->start > UINT64_MAX - len ? UINT64_MAX : e->start + len;

		if (i + 1 < s->n && s->e[i + 1].start < end)
			end = s->e[i + 1].start;
		e->end = end;
	}
}

SORTED_DEFINE_FIND(find_start, struct gsym_ent, start, uint64_t)

const char *gsym_lookup_module(const struct gsym *s, uint64_t addr, uint64_t *off,
			       const char **module)
{
	const struct gsym_ent *e;
	bool found;
	size_t i;

	if (module)
		*module = NULL;
	if (!s || !s->n)
		return NULL;
	i = find_start(s->e, s->n, addr, &found);
	if (!found) {
		if (i == 0)
			return NULL; /* before the first symbol */
		i--;
	}
	e = &s->e[i];
	/* an end clamped to UINT64_MAX reaches the last address too (fuzz_gsym) */
	if (addr >= e->end && e->end != UINT64_MAX)
		return NULL;
	if (off)
		*off = addr - e->start;
	if (module && e->mod != NO_MOD)
		*module = s->str + e->mod;
	return s->str + e->name;
}

const char *gsym_lookup(const struct gsym *s, uint64_t addr, uint64_t *off)
{
	return gsym_lookup_module(s, addr, off, NULL);
}

/* ---- text: kallsyms and System.map ---- */

/* Lines of an fd, read in blocks: no line is longer than GSYM_MAX_LINE. */
struct reader {
	int fd;
	char *buf;
	size_t len, pos;
	bool eof;
	unsigned long line;
};

static int fill(struct reader *r)
{
	ssize_t got;

	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->len - r->pos);
		r->len -= r->pos;
		r->pos = 0;
	}
	do
		got = read(r->fd, r->buf + r->len, READ_BUF - r->len);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return -1;
	r->eof = got == 0;
	r->len += (size_t)got;
	return 0;
}

/* 1 and the next line (not NUL-terminated), 0 at the end, -1 with errbuf set. */
static int next_line(struct load *l, struct reader *r, const char **line, size_t *len)
{
	for (;;) {
		size_t avail = r->len - r->pos;
		const char *p = r->buf + r->pos, *nl = memchr(p, '\n', avail);

		if (nl || r->eof) {
			if (!nl && !avail)
				return 0;
			*line = p;
			*len = nl ? (size_t)(nl - p) : avail;
			r->pos += *len + (nl != NULL);
			if (++r->line, *len > GSYM_MAX_LINE)
				break;
			return 1;
		}
		if (avail > GSYM_MAX_LINE) {
			r->line++;
			break;
		}
		if (fill(r) < 0)
			return err_buf_errno(l->errbuf, l->errlen, "%s: reading", l->path);
	}
	return err_buf(l->errbuf, l->errlen, "%s:%lu: line longer than %u bytes", l->path, r->line,
		       GSYM_MAX_LINE);
}

/* One "ADDRESS TYPE NAME [\t[MODULE]]" line. */
struct text_sym {
	uint64_t addr;
	char type;
	const char *name, *mod;
	size_t name_len, mod_len;
};

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Names are printable ASCII without blanks: what kernels and nm write, and safe to print. */
static bool name_char(char c)
{
	return c > ' ' && c < 0x7f;
}

static size_t skip_blanks(const char *p, size_t len, size_t i)
{
	while (i < len && blank(p[i]))
		i++;
	return i;
}

static size_t name_end(const char *p, size_t len, size_t i)
{
	while (i < len && name_char(p[i]) && p[i] != ']')
		i++;
	return i;
}

static int hexval(char c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* The module suffix, "[kvm]", from p[i]; the index after it or 0 when malformed. */
static size_t parse_module(const char *p, size_t len, size_t i, struct text_sym *t)
{
	size_t end = name_end(p, len, i + 1);

	if (end == i + 1 || end >= len || p[end] != ']')
		return 0;
	t->mod = p + i + 1;
	t->mod_len = end - i - 1;
	return end + 1;
}

static int parse_line(const char *p, size_t len, struct text_sym *t)
{
	size_t i = 0, j;

	memset(t, 0, sizeof(*t));
	for (; i < len && isxdigit((unsigned char)p[i]); i++) {
		if (i == 16)
			return -1; /* more than 64 bits */
		t->addr = t->addr << 4 | (uint64_t)hexval(p[i]);
	}
	if (i == 0 || (j = skip_blanks(p, len, i)) == i || j >= len || !name_char(p[j]))
		return -1;
	t->type = p[j];
	if ((i = skip_blanks(p, len, j + 1)) == j + 1)
		return -1;
	t->name = p + i;
	j = name_end(p, len, i);
	t->name_len = j - i;
	if (!t->name_len)
		return -1;
	i = skip_blanks(p, len, j);
	if (i < len && i > j && p[i] == '[' && (i = parse_module(p, len, i, t)) == 0)
		return -1;
	return skip_blanks(p, len, i) == len ? 0 : -1;
}

/* What a text file has shown so far, for its checks at the end. */
struct text_state {
	unsigned long lines, code, zero;
	bool modules;
	uint32_t last_mod; /* kallsyms lists a module's symbols together: one copy each run */
	size_t last_mod_len;
	char last_mod_name[GSYM_MAX_LINE + 1];
};

static int text_module(struct load *l, struct text_state *ts, const struct text_sym *t,
		       uint32_t *mod)
{
	int64_t off;

	*mod = NO_MOD;
	if (!t->mod)
		return 0;
	ts->modules = true;
	if (ts->last_mod != NO_MOD && t->mod_len == ts->last_mod_len &&
	    !memcmp(t->mod, ts->last_mod_name, t->mod_len)) {
		*mod = ts->last_mod;
		return 0;
	}
	off = add_str(l->s, t->mod, t->mod_len);
	if (off < 0)
		return err_buf(l->errbuf, l->errlen,
			       "%s: too large: more than %u MiB of symbol names", l->path,
			       MAX_STR >> 20);
	memcpy(ts->last_mod_name, t->mod, t->mod_len);
	ts->last_mod_len = t->mod_len;
	*mod = ts->last_mod = (uint32_t)off;
	return 0;
}

static int text_symbol(struct load *l, struct text_state *ts, const char *line, size_t len,
		       unsigned long lineno)
{
	struct text_sym t;
	uint32_t mod;

	if (skip_blanks(line, len, 0) == len)
		return 0;
	if (memchr(line, '\0', len) || parse_line(line, len, &t) < 0)
		return err_buf(l->errbuf, l->errlen,
			       "%s:%lu: not a symbol line (ADDRESS TYPE NAME)", l->path, lineno);
	if (++ts->lines > GSYM_MAX_SYMS)
		return err_buf(l->errbuf, l->errlen, "%s: too large: more than %u symbols", l->path,
			       GSYM_MAX_SYMS);
	if (!strchr("tTwW", t.type))
		return 0; /* data, absolute, undefined: no guest pc is in them */
	ts->code++;
	if (text_module(l, ts, &t, &mod) < 0)
		return -1;
	/*
	 * 0 is an undefined weak symbol, or an address kallsyms hid (all zero:
	 * refused at the end); a strong symbol at 0 is real code (a real-mode
	 * guest's, exitgen's x86 one).
	 */
	if (t.addr == 0) {
		ts->zero++;
		if (t.type == 'w' || t.type == 'W')
			return 0;
	}
	return add_sym(l, t.addr, 0, t.name, t.name_len, mod, t.type == 'w' || t.type == 'W');
}

/* kallsyms and System.map differ in modules: a copy of a guest without any is told by its name. */
static const char *text_kind(const char *path, const struct text_state *ts)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return ts->modules || strstr(base, "kallsyms") ? "kallsyms" : "System.map";
}

static int load_text(struct load *l, struct reader *r)
{
	struct text_state *ts = xcalloc(1, sizeof(*ts));
	const char *line = NULL;
	size_t len = 0;
	int got, ret = -1;

	ts->last_mod = NO_MOD;
	while ((got = next_line(l, r, &line, &len)) > 0)
		if (text_symbol(l, ts, line, len, r->line) < 0)
			goto out;
	if (got < 0)
		goto out;
	if (!ts->lines)
		err_buf(l->errbuf, l->errlen, "%s: empty: not a symbol file", l->path);
	else if (ts->code && ts->zero == ts->code)
		err_buf(l->errbuf, l->errlen,
			"%s: addresses are all zero (read /proc/kallsyms as root)", l->path);
	else if (!l->s->n)
		err_buf(l->errbuf, l->errlen, "%s: no code symbols (types t T w W) in %lu lines",
			l->path, ts->lines);
	else
		ret = 0;
	l->s->kind = text_kind(l->path, ts);
out:
	free(ts);
	return ret;
}

/* ---- ELF, through libelf ---- */

/*
 * libelf is opened at run time (dlopen), as serve opens libmicrohttpd
 * (src/serve/mhd.c), and declared here rather than through <libelf.h>:
 * only a `--guest-kallsyms` of an ELF file needs it, and the cross-build
 * sysroots (tools/cross/sysroot.sh) have no libelf-dev to compile or link
 * against. The declarations follow libelf's ABI (elfutils 0.188): Elf,
 * Elf_Scn and Elf_Data stay opaque, enums are passed as ints, GElf_Shdr and
 * GElf_Sym are <elf.h>'s Elf64_Shdr and Elf64_Sym.
 */
#define ELF_SONAME "libelf.so.1"
#define ELF_C_READ 1 /* Elf_Cmd */
#define ELF_K_ELF  3 /* Elf_Kind */

typedef struct Elf Elf;
typedef struct Elf_Scn Elf_Scn;
typedef struct Elf_Data Elf_Data;

struct libelf {
	unsigned (*version)(unsigned);
	Elf *(*begin)(int, int, Elf *);
	int (*kind)(Elf *);
	Elf_Scn *(*nextscn)(Elf *, Elf_Scn *);
	Elf_Scn *(*getscn)(Elf *, size_t);
	Elf64_Shdr *(*getshdr)(Elf_Scn *, Elf64_Shdr *);
	Elf_Data *(*getdata)(Elf_Scn *, Elf_Data *);
	Elf64_Sym *(*getsym)(Elf_Data *, int, Elf64_Sym *);
	char *(*strptr)(Elf *, size_t, size_t);
	int (*end)(Elf *);
	const char *(*errmsg)(int);
};

static struct libelf fns;
static bool elf_loaded;

#define SYM(field, name)                                                                           \
	do {                                                                                       \
		*(void **)&fns.field = dlsym(lib, #name);                                          \
		if (!fns.field)                                                                    \
			return elf_fail(lib, #name, errbuf, errlen);                               \
	} while (0)

static const struct libelf *elf_fail(void *lib, const char *sym, char *errbuf, size_t errlen)
{
	err_buf(errbuf, errlen, "reading an ELF file needs %s: it lacks %s", ELF_SONAME, sym);
	dlclose(lib);
	return NULL;
}

static const struct libelf *libelf(char *errbuf, size_t errlen)
{
	void *lib;

	if (elf_loaded)
		return &fns;
	lib = dlopen(ELF_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		err_buf(errbuf, errlen, "reading an ELF file needs %s (Debian: libelf1): %s",
			ELF_SONAME, dlerror());
		return NULL;
	}
	SYM(version, elf_version);
	SYM(begin, elf_begin);
	SYM(kind, elf_kind);
	SYM(nextscn, elf_nextscn);
	SYM(getscn, elf_getscn);
	SYM(getshdr, gelf_getshdr);
	SYM(getdata, elf_getdata);
	SYM(getsym, gelf_getsym);
	SYM(strptr, elf_strptr);
	SYM(end, elf_end);
	SYM(errmsg, elf_errmsg);
	if (fns.version(EV_CURRENT) == EV_NONE) {
		err_buf(errbuf, errlen, "%s: does not support ELF version %d", ELF_SONAME,
			EV_CURRENT);
		dlclose(lib);
		return NULL;
	}
	elf_loaded = true; /* kept open for the process, as libmicrohttpd */
	return &fns;
}

static const char *elf_msg(const struct libelf *lf)
{
	const char *m = lf->errmsg(-1);

	return m ? m : "unknown error";
}

/* The symbol table: .symtab, else .dynsym (a stripped file's); NULL when none. */
static Elf_Scn *find_symtab(const struct libelf *lf, Elf *elf, Elf64_Shdr *sh)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	Elf64_Shdr dsh;

	while ((scn = lf->nextscn(elf, scn))) {
		if (!lf->getshdr(scn, sh))
			continue;
		if (sh->sh_type == SHT_SYMTAB)
			return scn;
		if (sh->sh_type == SHT_DYNSYM && !dyn) {
			dyn = scn;
			dsh = *sh;
		}
	}
	if (dyn)
		*sh = dsh;
	return dyn;
}

/* A symbol without a type (an assembler label) is code when its section is. */
static bool in_code(const struct libelf *lf, Elf *elf, const Elf64_Sym *sym)
{
	Elf_Scn *scn;
	Elf64_Shdr sh;

	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE)
		return false;
	scn = lf->getscn(elf, sym->st_shndx);
	return scn && lf->getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

static bool elf_code(const struct libelf *lf, Elf *elf, const Elf64_Sym *sym)
{
	int type = ELF64_ST_TYPE(sym->st_info);

	/* an object file's (ET_REL) first function is at 0: only undefined ones are skipped */
	if (sym->st_shndx == SHN_UNDEF)
		return false;
	return type == STT_FUNC || type == STT_GNU_IFUNC ||
	       (type == STT_NOTYPE && in_code(lf, elf, sym));
}

/* Names as text names are ("name_char"); ARM's mapping symbols ($x, $d) mark no function. */
static size_t elf_name_len(const char *name)
{
	size_t len;

	if (!name || !*name || *name == '$')
		return 0;
	len = strnlen(name, GSYM_MAX_LINE + 1);
	for (size_t i = 0; i < len; i++)
		if (!name_char(name[i]))
			return 0;
	return len > GSYM_MAX_LINE ? 0 : len;
}

static int elf_symbols(struct load *l, const struct libelf *lf, Elf *elf, Elf_Scn *scn,
		       const Elf64_Shdr *sh)
{
	Elf_Data *data;
	uint64_t count;

	if (sh->sh_entsize != sizeof(Elf32_Sym) && sh->sh_entsize != sizeof(Elf64_Sym))
		return err_buf(l->errbuf, l->errlen, "%s: symbol table entries of %llu bytes",
			       l->path, (unsigned long long)sh->sh_entsize);
	count = sh->sh_size / sh->sh_entsize;
	if (count > GSYM_MAX_SYMS)
		return err_buf(l->errbuf, l->errlen, "%s: too large: more than %u symbols", l->path,
			       GSYM_MAX_SYMS);
	data = lf->getdata(scn, NULL);
	if (!data)
		return err_buf(l->errbuf, l->errlen, "%s: symbol table: %s", l->path, elf_msg(lf));
	for (uint64_t i = 1; i < count; i++) { /* 0 is the null symbol */
		Elf64_Sym sym;
		const char *name;
		size_t len;

		if (!lf->getsym(data, (int)i, &sym))
			return err_buf(l->errbuf, l->errlen, "%s: symbol %llu: %s", l->path,
				       (unsigned long long)i, elf_msg(lf));
		if (!elf_code(lf, elf, &sym))
			continue;
		name = lf->strptr(elf, sh->sh_link, sym.st_name);
		if (!(len = elf_name_len(name)))
			continue;
		if (add_sym(l, sym.st_value, sym.st_size, name, len, NO_MOD,
			    ELF64_ST_BIND(sym.st_info) == STB_WEAK ||
				ELF64_ST_TYPE(sym.st_info) == STT_NOTYPE) < 0)
			return -1;
	}
	return 0;
}

static int load_elf(struct load *l, int fd)
{
	const struct libelf *lf = libelf(l->errbuf, l->errlen);
	Elf_Scn *scn;
	Elf64_Shdr sh;
	Elf *elf;
	int ret = -1;

	if (!lf)
		return -1;
	l->s->kind = "ELF";
	if (lseek(fd, 0, SEEK_SET) < 0)
		return err_buf_errno(l->errbuf, l->errlen, "%s: seeking", l->path);
	elf = lf->begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return err_buf(l->errbuf, l->errlen, "%s: %s", l->path, elf_msg(lf));
	if (lf->kind(elf) != ELF_K_ELF)
		err_buf(l->errbuf, l->errlen, "%s: not an ELF file libelf reads", l->path);
	else if (!(scn = find_symtab(lf, elf, &sh)))
		err_buf(l->errbuf, l->errlen, "%s: no symbol table (.symtab or .dynsym)", l->path);
	else if (elf_symbols(l, lf, elf, scn, &sh) < 0)
		; /* errbuf says why */
	else if (!l->s->n)
		err_buf(l->errbuf, l->errlen, "%s: no code symbols in its symbol table", l->path);
	else
		ret = 0;
	lf->end(elf);
	return ret;
}

/* ---- the file ---- */

/*
 * Any regular file (a symlink is followed: this is an input the user
 * names); a FIFO would block and a device could be endless, so neither is
 * opened for reading (O_NONBLOCK: a FIFO's open does not wait for a writer).
 */
static int open_regular(struct load *l)
{
	int fd = open(l->path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return err_buf_errno(l->errbuf, l->errlen, "%s", l->path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		err_buf(l->errbuf, l->errlen, "%s: %s", l->path,
			S_ISDIR(st.st_mode)
			    ? "a directory, not a symbol file"
			    : "not a regular file (a FIFO or device is no symbol file)");
		close(fd);
		return -1;
	}
	return fd;
}

static int load_fd(struct load *l, int fd)
{
	struct reader r = {.fd = fd, .buf = xmalloc(READ_BUF)};
	int ret = 0;

	/* the first bytes tell ELF from text */
	while (!r.eof && r.len < SELFMAG && ret == 0)
		ret = fill(&r);
	if (ret < 0)
		ret = err_buf_errno(l->errbuf, l->errlen, "%s: reading", l->path);
	else if (r.len >= SELFMAG && !memcmp(r.buf, ELFMAG, SELFMAG))
		ret = load_elf(l, fd);
	else
		ret = load_text(l, &r);
	free(r.buf);
	return ret;
}

struct gsym *gsym_load(const char *path, char *errbuf, size_t errlen)
{
	struct load l = {path, errbuf, errlen, xcalloc(1, sizeof(struct gsym))};
	int fd = open_regular(&l), ret;

	if (fd < 0) {
		gsym_free(l.s);
		return NULL;
	}
	ret = load_fd(&l, fd);
	close(fd);
	if (ret < 0) {
		gsym_free(l.s);
		return NULL;
	}
	finish(l.s);
	return l.s;
}
