// SPDX-License-Identifier: GPL-2.0
/*
 * serve --web-config FILE: TLS and basic authentication from a file in the
 * format node_exporter and the other Prometheus exporters read
 * (exporter-toolkit's docs/web-configuration.md), so that a fleet's one
 * web config serves this exporter too:
 *
 *   tls_server_config:
 *     cert_file: server.crt      # PEM; relative paths: the config file's directory
 *     key_file: server.key
 *     min_version: TLS12         # TLS10 .. TLS13 (default TLS12), max_version too
 *   basic_auth_users:
 *     alice: $2y$10$...          # bcrypt, as `htpasswd -nBC 10 "" | tr -d ':\n'` prints
 *
 * The file is YAML; what is read here is the block-mapping subset those
 * files use (keys, plain or quoted scalars, comments). Anything else, and
 * every key of the format this server does not implement (client
 * certificates, cipher lists, headers, rate limits), is refused with its
 * line: a setting silently not applied would be a hole the operator
 * believes closed. It is read once, at start (node_exporter rereads it per
 * request; restart serve to change it).
 *
 * Passwords are checked with crypt(3) (libxcrypt: $2a$, $2b$, $2y$), about
 * 70 ms at cost 10, on the connection's own thread; an unknown user costs the
 * same as a wrong password, so a probe cannot tell users from timing.
 */
#include <crypt.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "err.h"
#include "file.h"
#include "serve-local.h"

#define MAX_CONFIG (64 * 1024)
#define MAX_PEM	   (1024 * 1024)

/* A bcrypt hash of a password nobody has: what an unknown user is checked against. */
static const char dummy_hash[] = "$2b$10$CwTycUXWue0Thq9StjUM0uJ8DiJ6/Aw4EdaZ0U7SyHlwJ3C5zgUL.";

struct parse {
	const char *path;
	unsigned line;
	char *e;
	size_t n;
};

static int bad(struct parse *p, const char *fmt, const char *what)
{
	char msg[256];

	snprintf(msg, sizeof(msg), fmt, what);
	return err_buf(p->e, p->n, "web config '%s' line %u: %s", p->path, p->line, msg);
}

/* Ends s at a comment ('#' at its start or after a blank, outside quotes) and trailing blanks. */
static void strip(char *s)
{
	char q = 0;
	size_t n;

	for (char *c = s; *c; c++) {
		if (q) {
			if (*c == q)
				q = 0;
		} else if (*c == '\'' || *c == '"') {
			q = *c;
		} else if (*c == '#' && (c == s || c[-1] == ' ')) {
			*c = 0;
			break;
		}
	}
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\r'))
		s[--n] = 0;
}

/* A scalar: plain, 'single' ('' is a quote) or "double" (\" \\ escapes). In place; NULL: malformed. */
static char *scalar(char *v)
{
	char q = *v, *w, *r;

	if (q != '\'' && q != '"')
		return strchr("{[&*!|>%@`", *v) && strcmp(v, "{}") ? NULL : v;
	for (r = v + 1, w = v; *r; r++) {
		if (q == '\'' && r[0] == '\'' && r[1] == '\'')
			*w++ = *r++;
		else if (q == '"' && r[0] == '\\' && (r[1] == '"' || r[1] == '\\'))
			*w++ = *++r;
		else if (*r == q)
			break;
		else
			*w++ = *r;
	}
	if (*r != q || r[1])
		return NULL;
	*w = 0;
	return v;
}

/* path relative to the config file's directory (as exporter-toolkit resolves them). */
static char *resolve(const char *config, const char *path)
{
	const char *slash = strrchr(config, '/');
	char *out;

	if (path[0] == '/' || !slash)
		return xstrdup(path);
	out = xmalloc((size_t)(slash - config) + strlen(path) + 2);
	sprintf(out, "%.*s/%s", (int)(slash - config), config, path);
	return out;
}

static int tls_version(struct parse *p, const char *v, int *out)
{
	static const char *const names[] = {"TLS10", "TLS11", "TLS12", "TLS13"};

	for (int i = 0; i < 4; i++)
		if (!strcmp(v, names[i])) {
			*out = 10 + i;
			return 0;
		}
	return bad(p, "unknown TLS version '%s': want TLS10, TLS11, TLS12 or TLS13", v);
}

static int tls_key(struct parse *p, struct serve_webconfig *w, const char *k, const char *v)
{
	if (!strcmp(k, "cert_file") || !strcmp(k, "key_file")) {
		char **dst = k[0] == 'c' ? &w->cert_file : &w->key_file;

		if (*dst)
			return bad(p, "tls_server_config.%s given twice", k);
		*dst = resolve(p->path, v);
		return 0;
	}
	if (!strcmp(k, "min_version"))
		return tls_version(p, v, &w->min_version);
	if (!strcmp(k, "max_version"))
		return tls_version(p, v, &w->max_version);
	if (!strcmp(k, "client_auth_type") && !strcmp(v, "NoClientCert"))
		return 0;
	if (!strcmp(k, "cert") || !strcmp(k, "key"))
		return bad(p, "tls_server_config.%s (inline PEM) is not supported: give cert_file "
			      "and key_file",
			   k);
	return bad(p, "tls_server_config.%s is not supported by kvm-exitstat serve", k);
}

static int user_key(struct parse *p, struct serve_webconfig *w, const char *user, const char *hash)
{
	if (strncmp(hash, "$2a$", 4) && strncmp(hash, "$2b$", 4) && strncmp(hash, "$2y$", 4))
		return bad(p, "basic_auth_users.%s: not a bcrypt hash ($2a$, $2b$ or $2y$)", user);
	if (crypt_checksalt(hash) != CRYPT_SALT_OK || strlen(hash) != 60)
		return bad(p, "basic_auth_users.%s: a malformed bcrypt hash", user);
	for (size_t i = 0; i < w->nusers; i++)
		if (!strcmp(w->users[i].name, user))
			return bad(p, "basic_auth_users.%s given twice", user);
	w->users = xrealloc(w->users, (w->nusers + 1) * sizeof(*w->users));
	w->users[w->nusers].name = xstrdup(user);
	w->users[w->nusers++].hash = xstrdup(hash);
	return 0;
}

enum section { S_NONE, S_TLS, S_USERS, S_HTTP };

/* One top-level key: the section it opens. */
static int section(struct parse *p, const char *k, const char *v, enum section *s, unsigned *seen)
{
	static const char *const names[] = {"tls_server_config", "basic_auth_users",
					    "http_server_config"};

	for (unsigned i = 0; i < 3; i++) {
		if (strcmp(k, names[i]))
			continue;
		if (*seen & (1u << i))
			return bad(p, "%s given twice", k);
		*seen |= 1u << i;
		if (*v && strcmp(v, "{}") && strcmp(v, "null") && strcmp(v, "~"))
			return bad(p, "%s: want its keys on the lines below, indented", k);
		*s = (enum section)(S_TLS + i);
		return 0;
	}
	return bad(p, "unknown key '%s' (or one kvm-exitstat serve does not support)", k);
}

static int line(struct parse *p, struct serve_webconfig *w, char *s, enum section *sec,
		unsigned *seen)
{
	size_t ind = strspn(s, " ");
	char *k = s + ind, *colon, *v;

	if (s[ind] == '\t')
		return bad(p, "%s", "a tab in the indentation (YAML allows spaces only)");
	if (!strcmp(k, "---"))
		return 0;
	colon = strstr(k, ": ");
	if (!colon && k[strlen(k) - 1] == ':')
		colon = k + strlen(k) - 1;
	if (!colon || *k == '-')
		return bad(p, "%s", "want 'key: value' (lists, flow style and the like are not read)");
	*colon = 0;
	v = colon + 1 + strspn(colon + 1, " ");
	if (!(k = scalar(k)) || (*v && !(v = scalar(v))))
		return bad(p, "%s", "a key or value this reader does not take (quoting, anchors, "
				    "block scalars)");
	if (ind == 0)
		return section(p, k, v, sec, seen);
	if (*sec == S_NONE)
		return bad(p, "%s", "an indented key under no section");
	if (!*v)
		return bad(p, "%s: a nested mapping here is not supported", k);
	if (*sec == S_TLS)
		return tls_key(p, w, k, v);
	if (*sec == S_USERS)
		return user_key(p, w, k, v);
	/* http_server_config: http2 has no meaning here (libmicrohttpd serves HTTP/1.1) */
	if (!strcmp(k, "http2"))
		return 0;
	return bad(p, "http_server_config.%s is not supported by kvm-exitstat serve", k);
}

static int parse(struct parse *p, struct serve_webconfig *w, char *text)
{
	enum section sec = S_NONE;
	unsigned seen = 0;

	for (char *s = text, *nl; s; s = nl) {
		nl = strchr(s, '\n');
		if (nl)
			*nl++ = 0;
		p->line++;
		strip(s);
		if (!s[strspn(s, " ")])
			continue;
		if (line(p, w, s, &sec, &seen) < 0)
			return -1;
	}
	if ((seen & 1) && !w->cert_file)
		return err_buf(p->e, p->n, "web config '%s': tls_server_config without cert_file",
			       p->path);
	if ((seen & 1) && !w->key_file)
		return err_buf(p->e, p->n, "web config '%s': tls_server_config without key_file",
			       p->path);
	if (w->min_version && w->max_version && w->min_version > w->max_version)
		return err_buf(p->e, p->n, "web config '%s': min_version above max_version",
			       p->path);
	return 0;
}

static char *read_pem(const char *path, const char *what, char *e, size_t n)
{
	size_t len;
	char *s;

	if (file_read_regular(path, MAX_PEM, &s, &len) < 0) {
		err_buf(e, n, "cannot read the TLS %s '%s': %s", what, path, file_read_error(errno));
		return NULL;
	}
	if (!strstr(s, "-----BEGIN ")) {
		err_buf(e, n, "the TLS %s '%s' is not PEM", what, path);
		free(s);
		return NULL;
	}
	return s;
}

struct serve_webconfig *serve_webconfig_load(const char *path, char *errbuf, size_t errlen)
{
	struct parse p = {.path = path, .e = errbuf, .n = errlen};
	struct serve_webconfig *w = xcalloc(1, sizeof(*w));
	size_t len;
	char *text;

	if (file_read_regular(path, MAX_CONFIG, &text, &len) < 0) {
		err_buf(errbuf, errlen, "cannot read the web config '%s': %s", path,
			file_read_error(errno));
		free(w);
		return NULL;
	}
	if (strlen(text) != len)
		err_buf(errbuf, errlen, "web config '%s': a NUL byte in it", path);
	if (strlen(text) != len || parse(&p, w, text) < 0 ||
	    (w->cert_file && (!(w->cert_pem = read_pem(w->cert_file, "certificate", errbuf, errlen)) ||
			      !(w->key_pem = read_pem(w->key_file, "key", errbuf, errlen))))) {
		free(text);
		serve_webconfig_free(w);
		return NULL;
	}
	free(text);
	return w;
}

/* GnuTLS's priority string of the versions allowed: TLS 1.2 and up unless the file says. */
const char *serve_webconfig_priorities(const struct serve_webconfig *w, char *buf, size_t len)
{
	int lo = w->min_version ? w->min_version : 12, hi = w->max_version ? w->max_version : 13;
	size_t n = (size_t)snprintf(buf, len, "NORMAL:-VERS-ALL");

	for (int v = lo; v <= hi && n < len; v++)
		n += (size_t)snprintf(buf + n, len - n, ":+VERS-TLS1.%d", v - 10);
	return buf;
}

/* Equal-time comparison: how many bytes match must not show in the time taken. */
static bool same(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	unsigned char d = (unsigned char)(na != nb);

	for (size_t i = 0; i < na && i < nb; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

bool serve_webconfig_check(const struct serve_webconfig *w, const char *user, const char *pass)
{
	const char *hash = dummy_hash;
	struct crypt_data *cd;
	bool known = false, ok;

	for (size_t i = 0; user && i < w->nusers; i++)
		if (!strcmp(w->users[i].name, user)) {
			hash = w->users[i].hash;
			known = true;
		}
	cd = xcalloc(1, sizeof(*cd)); /* 32 KiB: not on a connection thread's stack */
	ok = crypt_rn(pass ? pass : "", hash, cd, (int)sizeof(*cd)) && same(cd->output, hash);
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return known && ok;
}

void serve_webconfig_free(struct serve_webconfig *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->nusers; i++) {
		free(w->users[i].name);
		free(w->users[i].hash);
	}
	free(w->users);
	free(w->cert_file);
	free(w->key_file);
	free(w->cert_pem);
	if (w->key_pem) {
		explicit_bzero(w->key_pem, strlen(w->key_pem));
		free(w->key_pem);
	}
	free(w);
}
