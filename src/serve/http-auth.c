// SPDX-License-Identifier: GPL-2.0
/*
 * Basic authentication of a request (--web-config's basic_auth_users),
 * before anything else is looked at: an unauthenticated client learns
 * nothing of the paths or methods served. A refusal is 401 with
 * WWW-Authenticate: Basic, as node_exporter answers.
 */
#include <string.h>
#include "serve-local.h"

#define REALM "kvm-exitstat"

static const char denied[] = "unauthorized\n";

/* user:password of the request's Authorization header, checked; both wiped after. */
static bool authorized(const struct serve_mhd *m, const struct serve_webconfig *wc,
		       struct MHD_Connection *c)
{
	char *pass = NULL, *user = m->basic_auth_get_username_password(c, &pass);
	bool ok = user && serve_webconfig_check(wc, user, pass);

	if (pass) {
		explicit_bzero(pass, strlen(pass));
		m->free(pass);
	}
	if (user)
		m->free(user);
	return ok;
}

int serve_http_auth(const struct serve_mhd *m, const struct serve_webconfig *wc,
		    struct MHD_Connection *c, enum MHD_Result *ret)
{
	struct MHD_Response *r;

	if (!wc || !wc->nusers || authorized(m, wc, c))
		return 0;
	r = m->create_response_from_buffer(strlen(denied), (void *)denied, MHD_RESPMEM_PERSISTENT);
	if (!r) {
		*ret = MHD_NO;
		return -1;
	}
	m->add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	*ret = m->queue_basic_auth_fail_response(c, REALM, r);
	m->destroy_response(r);
	return -1;
}
