// SPDX-License-Identifier: GPL-2.0
/*
 * Which process a thread is in and what its VM is called, from /proc, for
 * record's thread map (procmap.h): QEMU's `-name` when the command line has
 * one (what kvm_stat shows), else the process name (comm).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "alloc.h"
#include "live.h"
#include "live-local.h"

/* Up to len-1 bytes of a /proc file, NUL-terminated; its length, or -1. */
static ssize_t read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return n;
}

int32_t live_tgid_of(int32_t tid)
{
	char path[64], buf[2048];
	const char *p;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "\nTgid:");
	return p ? (int32_t)strtol(p + 6, NULL, 10) : -1;
}

/* QEMU's -name argument value -> the guest name ("guest=a,,b,debug-threads=on" -> "a,b"). */
static void parse_qemu_name(const char *arg, char *out, size_t len)
{
	/* QEMU: -name [guest=]NAME[,process=P][,debug-threads=on]; ",," is a comma. */
	char cur[256];
	size_t n = 0;
	bool named = false;

	out[0] = 0;
	for (const char *p = arg;; p++) {
		if (*p == ',' && p[1] == ',') {
			if (n + 1 < sizeof(cur))
				cur[n++] = ',';
			p++;
			continue;
		}
		if (*p && *p != ',') {
			if (n + 1 < sizeof(cur))
				cur[n++] = *p;
			continue;
		}
		cur[n] = 0;
		/* A plain NAME wins over guest=NAME, as in QEMU. */
		if (!strchr(cur, '=') && n) {
			snprintf(out, len, "%s", cur);
			return;
		}
		if (!named && !strncmp(cur, "guest=", 6)) {
			snprintf(out, len, "%s", cur + 6);
			named = true;
		}
		n = 0;
		if (!*p)
			return;
	}
}

bool live_qemu_name(char *const *argv, int argc, char *out, size_t len)
{
	if (!len)
		return false;
	out[0] = 0;
	for (int i = 0; i + 1 < argc; i++)
		if (!strcmp(argv[i], "-name") || !strcmp(argv[i], "--name")) {
			parse_qemu_name(argv[i + 1], out, len);
			return out[0] != 0;
		}
	return false;
}

/* /proc/PID/cmdline as an argv (pointers into buf); argc. */
static int cmdline_of(int32_t pid, char *buf, size_t len, char **argv, int max)
{
	char path[64];
	ssize_t n;
	int argc = 0;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if ((n = read_small(path, buf, len)) < 0)
		return 0;
	for (char *a = buf; a < buf + n && argc < max; a += strlen(a) + 1)
		argv[argc++] = a;
	return argc;
}

bool live_vm_name(int32_t pid, char *out, size_t len)
{
	char buf[8192], *argv[256];
	int argc = cmdline_of(pid, buf, sizeof(buf), argv, 256);

	if (live_qemu_name(argv, argc, out, len))
		return true;
	return live_comm_of(pid, out, len);
}

bool live_comm_of(int32_t tid, char *out, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	if (len < 2 || read_small(path, out, len) < 0)
		return false;
	out[strcspn(out, "\n")] = 0;
	return out[0] != 0;
}

/*
 * A thread blocked in KVM_RUN shows it in /proc/TID/syscall ("NR FD REQUEST
 * ..."): FD's link names the vCPU (anon_inode:kvm-vcpu:ID, KVM_CREATE_VCPU's
 * id, the vcpu_id of kvm_exit). REQUEST's low 16 bits are KVM_RUN's
 * _IO(KVMIO, 0x80) on every ISA (the direction bits above differ); the
 * syscall number is not looked at (ioctl's differs by ISA). A thread that
 * is running, or in userspace, says nothing now: the caller tries again.
 */
int32_t live_vcpu_of_thread(int32_t tid)
{
	char path[96], buf[512], link[64];
	unsigned long long nr, fd, req;
	unsigned id;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)tid);
	if (read_small(path, buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%llu %llx %llx", &nr, &fd, &req) != 3 || (req & 0xffff) != 0xae80 ||
	    fd > INT32_MAX)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/fd/%llu", (int)tid, fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return -1;
	link[n] = 0;
	return sscanf(link, "anon_inode:kvm-vcpu:%u", &id) == 1 && id <= INT32_MAX ? (int32_t)id : -1;
}

struct vcpu_ids {
	int32_t *ids;
	size_t n;
};

static void vcpu_id_of(void *arg, int fd, const char *target)
{
	struct vcpu_ids *v = arg;
	unsigned id;

	(void)fd;
	if (sscanf(target, "anon_inode:kvm-vcpu:%u", &id) == 1 && id <= INT32_MAX) {
		v->ids = xrealloc(v->ids, (v->n + 1) * sizeof(*v->ids));
		v->ids[v->n++] = (int32_t)id;
	}
}

size_t live_vcpu_ids(int32_t pid, int32_t **ids)
{
	struct vcpu_ids v = {0};

	live_each_fd(pid, vcpu_id_of, &v);
	*ids = v.ids;
	return v.n;
}
