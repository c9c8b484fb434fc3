// SPDX-License-Identifier: GPL-2.0
/*
 * libmicrohttpd, opened when serve starts rather than linked: it brings
 * GnuTLS and eight more libraries (p11-kit, nettle, gmp, ...) whose loading
 * and relocation cost every process about 1.6 ms of CPU (perf stat of an
 * empty program linked with and without them, 2026-12-03: 2.6 vs 1.0 ms),
 * 7 % of a report of 1 M events, for a server only `serve` runs.
 */
#include <dlfcn.h>
#include "err.h"
#include "serve-local.h"

/* The soname of the library the header comes from (Debian 12: libmicrohttpd12 0.9.75). */
#define MHD_SONAME "libmicrohttpd.so.12"

static struct serve_mhd fns;
static bool loaded;

#define SYM(field, name)                                          \
	do {                                                      \
		*(void **)&fns.field = dlsym(lib, #name);         \
		if (!fns.field)                                   \
			return fail(lib, #name, errbuf, errlen); \
	} while (0)

static const struct serve_mhd *fail(void *lib, const char *sym, char *errbuf, size_t errlen)
{
	err_buf(errbuf, errlen, "serve needs %s: it lacks %s", MHD_SONAME, sym);
	dlclose(lib);
	return NULL;
}

const struct serve_mhd *serve_mhd(char *errbuf, size_t errlen)
{
	void *lib;

	if (loaded)
		return &fns;
	lib = dlopen(MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		err_buf(errbuf, errlen, "serve needs %s (Debian: libmicrohttpd12): %s", MHD_SONAME,
			dlerror());
		return NULL;
	}
	SYM(start_daemon, MHD_start_daemon);
	SYM(stop_daemon, MHD_stop_daemon);
	SYM(get_daemon_info, MHD_get_daemon_info);
	SYM(lookup_connection_value, MHD_lookup_connection_value);
	SYM(get_connection_info, MHD_get_connection_info);
	SYM(create_response_from_buffer, MHD_create_response_from_buffer);
	SYM(create_response_from_buffer_with_free_callback_cls,
	    MHD_create_response_from_buffer_with_free_callback_cls);
	SYM(add_response_header, MHD_add_response_header);
	SYM(queue_response, MHD_queue_response);
	SYM(destroy_response, MHD_destroy_response);
	SYM(is_feature_supported, MHD_is_feature_supported);
	SYM(basic_auth_get_username_password, MHD_basic_auth_get_username_password);
	SYM(queue_basic_auth_fail_response, MHD_queue_basic_auth_fail_response);
	SYM(free, MHD_free);
	SYM(suspend_connection, MHD_suspend_connection);
	SYM(resume_connection, MHD_resume_connection);
	loaded = true; /* kept open for the process: its threads may still run its code */
	return &fns;
}
