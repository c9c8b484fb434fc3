// SPDX-License-Identifier: GPL-2.0
/*
 * The KVM-statistics snapshot (record --stats) read back with json-c:
 * schema first, then each reading's VMs, their values by descriptor name.
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "alloc.h"
#include "err.h"
#include "file.h"
#include "kstatjson.h"

#define KIND	 "kvm-exitstat-kvm-stats"
#define MAX_FILE (256u << 20)

bool kstatjson_sniff(const char *buf, size_t len)
{
	size_t n = len < 512 ? len : 512;

	return n && memmem(buf, n, "\"" KIND "\"", strlen(KIND) + 2) != NULL;
}

struct ctx {
	const char *path;
	char *e;
	size_t n;
};

static int bad(struct ctx *c, const char *what)
{
	return err_buf(c->e, c->n, "'%s': not a kvm-exitstat statistics snapshot: %s", c->path,
		       what);
}

static json_object *member(json_object *o, const char *key, json_type t)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, t))
		return NULL;
	return v;
}

static int get_u64(json_object *v, uint64_t *out)
{
	if (!json_object_is_type(v, json_type_int))
		return -1;
	errno = 0;
	*out = json_object_get_uint64(v);
	return errno || json_object_get_int64(v) < 0 ? -1 : 0;
}

static int get_int(json_object *o, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
	json_object *v = member(o, key, json_type_int);

	if (!v)
		return -1;
	*out = json_object_get_int64(v);
	return *out < lo || *out > hi ? -1 : 0;
}

static const char *get_str(json_object *o, const char *key)
{
	json_object *v = member(o, key, json_type_string);

	return v ? json_object_get_string(v) : NULL;
}

static int one_desc(struct ctx *c, struct kstat_schema *s, json_object *o)
{
	const char *name = get_str(o, "name"), *scope = get_str(o, "scope");
	const char *type = get_str(o, "type"), *unit = get_str(o, "unit");
	int64_t base, exp, size, bsize;
	struct kstat_desc d;

	if (!name || !*name || !scope || !type || !unit || kstat_type_of(type) < 0 ||
	    kstat_unit_of(unit) < 0 || get_int(o, "base", 2, 10, &base) < 0 ||
	    get_int(o, "exponent", -64, 64, &exp) < 0 || get_int(o, "size", 1, 4096, &size) < 0 ||
	    get_int(o, "bucket_size", 0, UINT32_MAX, &bsize) < 0)
		return bad(c, "a schema entry is incomplete");
	if (kstat_schema_find(s, name))
		return bad(c, "a statistic is described twice");
	d = (struct kstat_desc){.name = (char *)name,
				.type = kstat_type_of(type),
				.unit = kstat_unit_of(unit),
				.base = (int)base,
				.exponent = (int)exp,
				.size = (uint32_t)size,
				.bucket_size = (uint32_t)bsize,
				.vcpu = !strcmp(scope, "vcpu")};
	if (kstat_is_hist(&d) != (size > 1) || (d.type == KSTAT_LINEAR_HIST && !bsize))
		return bad(c, "a histogram's size or bucket size does not fit its type");
	kstat_schema_add(s, &d);
	return 0;
}

static int read_schema(struct ctx *c, json_object *root, struct kstatjson *k)
{
	json_object *arr = member(root, "schema", json_type_array), *v;

	if (!arr || !json_object_array_length(arr))
		return bad(c, "no schema");
	for (size_t i = 0; i < json_object_array_length(arr); i++)
		if (one_desc(c, &k->schema, json_object_array_get_idx(arr, i)) < 0)
			return -1;
	v = member(root, "described", json_type_boolean);
	k->schema.described = v && json_object_get_boolean(v);
	return 0;
}

/* "values": {name: u64 | [u64...]}: into v, have[] set. */
static int read_values(struct ctx *c, const struct kstat_schema *s, json_object *o, uint64_t *v,
		       bool *have, bool vcpu)
{
	json_object *vals = member(o, "values", json_type_object);

	if (!vals)
		return bad(c, "a VM without values");
	json_object_object_foreach(vals, key, val)
	{
		const struct kstat_desc *d = kstat_schema_find(s, key);

		if (!d || (vcpu && !d->vcpu))
			return bad(c, "a value of no statistic the schema describes");
		if (!kstat_is_hist(d)) {
			if (get_u64(val, &v[d->off]) < 0)
				return bad(c, "a value is no unsigned integer");
		} else {
			if (!json_object_is_type(val, json_type_array) ||
			    json_object_array_length(val) != d->size)
				return bad(c, "a histogram has other buckets than its descriptor");
			for (uint32_t i = 0; i < d->size; i++)
				if (get_u64(json_object_array_get_idx(val, i), &v[d->off + i]) < 0)
					return bad(c, "a bucket is no unsigned integer");
		}
		if (have)
			have[d - s->d] = true;
	}
	return 0;
}

static int read_vm(struct ctx *c, const struct kstat_schema *s, json_object *o,
		   struct kstat_vm *vm)
{
	json_object *vc = member(o, "vcpus", json_type_array), *b;
	int64_t pid;

	if (get_int(o, "pid", 0, INT32_MAX, &pid) < 0 || !get_str(o, "id"))
		return bad(c, "a VM without pid or id");
	kstat_vm_init(vm, s, (int32_t)pid, get_str(o, "id"), get_str(o, "vm"));
	vm->source = xstrdup(get_str(o, "source") ? get_str(o, "source") : "?");
	b = member(o, "created_within", json_type_boolean);
	vm->born = b && json_object_get_boolean(b);
	if (read_values(c, s, o, vm->v, vm->have, false) < 0)
		return -1;
	for (size_t i = 0; vc && i < json_object_array_length(vc); i++) {
		json_object *x = json_object_array_get_idx(vc, i);
		int64_t id;

		if (get_int(x, "vcpu", 0, INT32_MAX, &id) < 0)
			return bad(c, "a vCPU without its id");
		if (read_values(c, s, x, kstat_vm_vcpu(vm, s, (int32_t)id)->v, NULL, true) < 0)
			return -1;
	}
	return 0;
}

static int read_reading(struct ctx *c, const struct kstat_schema *s, json_object *o,
			struct kstat_reading *r)
{
	json_object *t = member(o, "t", json_type_double), *vms = member(o, "vms", json_type_array);
	int64_t wall;

	if (!t) /* a time that happened to be whole is written as an integer */
		t = member(o, "t", json_type_int);
	if (!t || !vms || get_int(o, "wall_ns", INT64_MIN, INT64_MAX, &wall) < 0)
		return bad(c, "a reading without t, wall_ns or vms");
	r->t = json_object_get_double(t);
	r->wall_ns = wall;
	for (size_t i = 0; i < json_object_array_length(vms); i++) {
		struct kstat_vm vm;

		if (read_vm(c, s, json_object_array_get_idx(vms, i), &vm) < 0) {
			kstat_vm_free(&vm);
			return -1;
		}
		kstat_reading_add(r, &vm);
	}
	return 0;
}

static int parse(struct ctx *c, json_object *root, struct kstatjson *k)
{
	json_object *rs = member(root, "readings", json_type_array);
	const char *kind = get_str(root, "kind");

	if (!kind || strcmp(kind, KIND))
		return bad(c, "its kind");
	if (read_schema(c, root, k) < 0)
		return -1;
	if (!rs || !json_object_array_length(rs))
		return bad(c, "no readings");
	k->host = xstrdup(get_str(root, "host") ? get_str(root, "host") : "?");
	k->kernel = xstrdup(get_str(root, "kernel") ? get_str(root, "kernel") : "?");
	k->readings = xcalloc(json_object_array_length(rs), sizeof(*k->readings));
	for (size_t i = 0; i < json_object_array_length(rs); i++) {
		if (read_reading(c, &k->schema, json_object_array_get_idx(rs, i),
				 &k->readings[i]) < 0) {
			k->nreadings = i + 1;
			return -1;
		}
		k->nreadings = i + 1;
	}
	return 0;
}

int kstatjson_load(const char *path, struct kstatjson *out, char *errbuf, size_t errlen)
{
	struct ctx c = {path, errbuf, errlen};
	json_tokener *tok;
	json_object *root;
	size_t len;
	char *buf;
	int ret;

	*out = (struct kstatjson){0};
	if (file_read_regular(path, MAX_FILE, &buf, &len) < 0)
		return err_buf(errbuf, errlen, "cannot read '%s': %s", path,
			       file_read_error(errno));
	tok = json_tokener_new();
	root = json_tokener_parse_ex(tok, buf, (int)len);
	if (!root || json_tokener_get_error(tok) != json_tokener_success)
		ret = bad(&c, "not JSON");
	else
		ret = parse(&c, root, out);
	json_object_put(root);
	json_tokener_free(tok);
	free(buf);
	if (ret < 0)
		kstatjson_free(out);
	return ret;
}

void kstatjson_free(struct kstatjson *k)
{
	for (size_t i = 0; i < k->nreadings; i++)
		kstat_reading_free(&k->readings[i]);
	free(k->readings);
	kstat_schema_free(&k->schema);
	free(k->host);
	free(k->kernel);
	*k = (struct kstatjson){0};
}
