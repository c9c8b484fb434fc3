// SPDX-License-Identifier: GPL-2.0
/*
 * What the live commands (top, serve) share: the processes to trace (-p
 * lists, -g VM names) and the timing-bucket map.
 */
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "bucket-map.h"
#include "cli-local.h"
#include "err.h"
#include "ui.h"
#include "watch.h"

int cli_add_pids(int32_t **pids, size_t *n, const char *s)
{
	int32_t *p;
	size_t k;

	if (cli_parse_pids(s, &p, &k) < 0)
		return -1;
	*pids = xrealloc(*pids, (*n + k) * sizeof(**pids));
	memcpy(*pids + *n, p, k * sizeof(*p));
	*n += k;
	free(p);
	return 0;
}

int cli_add_guest(int32_t **pids, size_t *n, const char *name)
{
	int32_t *p;
	size_t k;

	if (watch_vm_find(name, &p, &k) < 0)
		return err("cannot read /proc");
	if (!k)
		return err("no VM named '%s' (QEMU -name, or process name)", name);
	*pids = xrealloc(*pids, (*n + k) * sizeof(**pids));
	memcpy(*pids + *n, p, k * sizeof(*p));
	*n += k;
	free(p);
	return 0;
}

int cli_load_buckets(const char *arg, const struct exit_types *types, struct bucket_map **map,
		     const char **name)
{
	char e[512];

	*map = bucket_map_open(arg, e, sizeof(e));
	if (!*map || bucket_map_check(*map, types, e, sizeof(e)) < 0)
		return err("%s", e);
	if (name)
		*name = bucket_map_name(*map) ? bucket_map_name(*map) : arg;
	return 0;
}
