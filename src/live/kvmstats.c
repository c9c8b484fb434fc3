// SPDX-License-Identifier: GPL-2.0
/*
 * KVM's statistics per VM and per vCPU, without tracing (include/kvmstats.h
 * says what the kernel allows and why each source is used where it is).
 *
 * Cost: a VM read through debugfs is one open/read/close per statistic (60
 * files on a 6.1 x86 host, kvm_stat -d's way); through statistics fds, one
 * pread per fd. debugfs files are never held open outside pin mode: an
 * open one holds a reference on the VM (kvm_debugfs_open()), which would
 * keep a dead VM's memory and directory until the next reading.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/kcmp.h>
#include <linux/kvm.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "alloc.h"
#include "err.h"
#include "kvmstats.h"
#include "live.h"
#include "live-local.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

#define KVM_DIR KVMSTATS_DEBUGFS "/kvm"

/* A statistics fd (ours, or a VMM's through pidfd_getfd): its layout and our names. */
struct sfd {
	int fd;
	int src;	/* the VMM's fd number it is a copy of (-1: ours) */
	int32_t vcpu;	/* -1: the VM's */
	uint64_t data_off;
	size_t nvals;	/* u64s in its data block */
	int32_t *map;	/* per value of its data block: our value index, -1: unknown */
	uint64_t *buf;
};

/* A VM we have seen. */
struct vmst {
	char *id; /* "<pid>-<fd>" */
	int32_t pid;
	char *name;
	bool born;     /* first seen after the first reading */
	bool tried;    /* statistics fds looked for, and every vCPU had one */
	bool seen;     /* in this reading's directory listing */
	bool partial;  /* no debugfs: read without its vCPUs' statistics (counted in k->partial) */
	int pin_fd;    /* pin mode: a debugfs file held open (a reference on the VM) */
	unsigned looks; /* at its statistics fds */
	struct sfd *sfds;
	size_t nsfds;
	size_t nvcpu_fds; /* the VMM's vCPU fds: all of them need a statistics fd */
};

struct kvmstats {
	struct kvmstats_opts o;
	int32_t *pids; /* o.pids points here once set_pids() was called */
	struct kstat_schema schema;
	const char *schema_src;
	struct vmst *vms;
	size_t nvms;
	bool first_done;
	size_t unread;	/* no_debugfs: VMs let go whose VMM never held a statistics fd */
	size_t partial; /* no_debugfs: VMs read without their vCPUs' statistics */
	/*
	 * This kernel has no debugfs (riscv64's lab kernel: no CONFIG_DEBUG_FS),
	 * or refuses it: VMs are the kvm-vm fds of /proc, read through the
	 * statistics fds their VMMs hold alone.
	 */
	bool no_debugfs;
};

/* ------------------------------------------------------------------------ */
/* Statistics fds: header, descriptors, data (api.rst 4.130 KVM_GET_STATS_FD) */

/* The descriptors of fd, as read: each calls fn(desc, index of its first value). */
static int read_descs(int fd, void (*fn)(void *arg, const struct kvm_stats_desc *d, size_t v),
		      void *arg, struct kvm_stats_header *h)
{
	size_t stride, len, v = 0;
	char *buf;

	if (pread(fd, h, sizeof(*h), 0) != (ssize_t)sizeof(*h))
		return -1;
	stride = sizeof(struct kvm_stats_desc) + h->name_size;
	if (h->num_desc > 4096 || h->name_size > 4096)
		return errno = EPROTO, -1;
	len = stride * h->num_desc;
	buf = xmalloc(len + 1);
	if (pread(fd, buf, len, h->desc_offset) != (ssize_t)len) {
		free(buf);
		return -1;
	}
	for (uint32_t i = 0; i < h->num_desc; i++) {
		struct kvm_stats_desc *d = (struct kvm_stats_desc *)(buf + i * stride);

		d->name[h->name_size - 1] = '\0';
		fn(arg, d, v);
		v += d->size ? d->size : 1;
	}
	free(buf);
	return (int)v;
}

static void desc_of(struct kstat_desc *out, const struct kvm_stats_desc *d, bool vcpu)
{
	unsigned type = (d->flags & KVM_STATS_TYPE_MASK) >> KVM_STATS_TYPE_SHIFT;
	unsigned unit = (d->flags & KVM_STATS_UNIT_MASK) >> KVM_STATS_UNIT_SHIFT;
	unsigned base = (d->flags & KVM_STATS_BASE_MASK) >> KVM_STATS_BASE_SHIFT;

	*out = (struct kstat_desc){.name = (char *)d->name,
				   .type = type <= KSTAT_LOG_HIST ? type : KSTAT_UNKNOWN,
				   .unit = unit <= KSTAT_UNIT_BOOLEAN ? unit : KSTAT_UNIT_NONE,
				   .base = base == 1 ? 2 : 10,
				   .exponent = d->exponent,
				   .size = d->size,
				   .bucket_size = d->bucket_size,
				   .vcpu = vcpu};
}

struct learn {
	struct kstat_schema *s;
	bool vcpu;
};

static void learn_one(void *arg, const struct kvm_stats_desc *d, size_t v)
{
	struct learn *l = arg;
	struct kstat_desc k;

	(void)v;
	desc_of(&k, d, l->vcpu);
	if (!kstat_schema_find(l->s, k.name))
		kstat_schema_add(l->s, &k);
}

static int learn_fd(struct kstat_schema *s, int fd, bool vcpu)
{
	struct learn l = {s, vcpu};
	struct kvm_stats_header h;

	return read_descs(fd, learn_one, &l, &h) < 0 ? -1 : 0;
}

/*
 * The descriptors from a VM of our own: they are the kernel's tables
 * (kvm_vm_stats_desc, kvm_vcpu_stats_desc), the same for every VM. It is
 * made, read and closed here, before any reading.
 */
static int schema_from_own_vm(struct kstat_schema *s)
{
	int kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC), vm = -1, vcpu = -1, fd;
	int ret = -1;

	if (kvm < 0 || ioctl(kvm, KVM_CHECK_EXTENSION, KVM_CAP_BINARY_STATS_FD) <= 0)
		goto out;
	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0 || (fd = ioctl(vm, KVM_GET_STATS_FD, NULL)) < 0)
		goto out;
	ret = learn_fd(s, fd, false);
	close(fd);
	vcpu = ret < 0 ? -1 : ioctl(vm, KVM_CREATE_VCPU, 0);
	if (vcpu >= 0 && (fd = ioctl(vcpu, KVM_GET_STATS_FD, NULL)) >= 0) {
		ret = learn_fd(s, fd, true);
		close(fd);
	} else {
		ret = -1;
	}
out:
	if (vcpu >= 0)
		close(vcpu);
	if (vm >= 0)
		close(vm);
	if (kvm >= 0)
		close(kvm);
	return ret;
}

/* No descriptors: every regular file of a VM directory is a counter of unknown type. */
static int schema_from_names(struct kstat_schema *s)
{
	DIR *d = opendir(KVM_DIR);
	struct dirent *de;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		struct kstat_desc k = {.name = de->d_name, .type = KSTAT_UNKNOWN, .base = 10, .size = 1};

		/* the top-level files are the host-wide sums of the same statistics */
		if (de->d_type == DT_REG && !kstat_schema_find(s, de->d_name))
			kstat_schema_add(s, &k);
	}
	closedir(d);
	return s->n ? 0 : -1;
}

/* Maps each value of fd's data block to our index (by descriptor name). */
static void map_one(void *arg, const struct kvm_stats_desc *d, size_t v)
{
	struct sfd *f = ((void **)arg)[0];
	const struct kstat_schema *s = ((void **)arg)[1];
	const struct kstat_desc *k = kstat_schema_find(s, d->name);
	uint32_t n = d->size ? d->size : 1;

	f->map = xrealloc(f->map, (v + n) * sizeof(*f->map));
	for (uint32_t i = 0; i < n; i++)
		f->map[v + i] = k && i < k->size ? (int32_t)(k->off + i) : -1;
}

static int sfd_open(struct sfd *f, int fd, int32_t vcpu, const struct kstat_schema *s)
{
	struct kvm_stats_header h;
	void *arg[2] = {f, (void *)s};
	int n;

	*f = (struct sfd){.fd = fd, .src = -1, .vcpu = vcpu};
	n = read_descs(fd, map_one, arg, &h);
	if (n < 0)
		return -1;
	f->nvals = (size_t)n;
	f->data_off = h.data_offset;
	f->buf = xcalloc(f->nvals + 1, sizeof(uint64_t));
	return 0;
}

static void sfd_close(struct sfd *f)
{
	if (f->fd >= 0)
		close(f->fd);
	free(f->map);
	free(f->buf);
}

/* One pread of the data block, into v (our indexes). */
static int sfd_read(struct sfd *f, uint64_t *v)
{
	size_t len = f->nvals * sizeof(uint64_t);

	if (pread(f->fd, f->buf, len, (off_t)f->data_off) != (ssize_t)len)
		return -1;
	for (size_t i = 0; i < f->nvals; i++)
		if (f->map[i] >= 0)
			v[f->map[i]] = f->buf[i];
	return 0;
}

/* ------------------------------------------------------------------------ */
/* A VMM's statistics fds, through pidfd_getfd() */

/* "anon_inode:kvm-vcpu-stats:3" -> 3; "anon_inode:kvm-vm-stats" -> -1; else -2. */
static int32_t stats_target(const char *t, bool *vcpu_fd)
{
	int id;

	*vcpu_fd = sscanf(t, "anon_inode:kvm-vcpu:%d", &id) == 1;
	if (!strcmp(t, "anon_inode:kvm-vm-stats"))
		return -1;
	if (sscanf(t, "anon_inode:kvm-vcpu-stats:%d", &id) == 1 && id >= 0)
		return id;
	return -2;
}

static void take_fd(struct vmst *m, int pidfd, int fd, int32_t vcpu, const struct kstat_schema *s)
{
	int mine;
	struct sfd f;

	for (size_t i = 0; i < m->nsfds; i++)
		if (m->sfds[i].src == fd)
			return; /* taken at an earlier look */
	mine = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (mine < 0)
		return; /* EPERM without CAP_SYS_PTRACE over it: debugfs only */
	fcntl(mine, F_SETFD, FD_CLOEXEC);
	if (sfd_open(&f, mine, vcpu, s) < 0) {
		close(mine);
		return;
	}
	f.src = fd;
	m->sfds = xrealloc(m->sfds, (m->nsfds + 1) * sizeof(*m->sfds));
	m->sfds[m->nsfds++] = f;
}

/*
 * The statistics fds the VMM holds. Looked for again at each reading (and
 * each pin-mode scan) until every vCPU fd of the VMM has its statistics fd:
 * a VMM makes them one after the other, and a VMM that has exited has none
 * to take. A process with several VMs cannot say which VM a statistics fd is
 * of: those keep to debugfs.
 */
struct look {
	struct vmst *m;
	const struct kstat_schema *s;
	int pidfd;
};

/* One fd of the VMM: a vCPU fd is counted, a statistics fd taken. */
static void look_at(void *arg, int fd, const char *t)
{
	struct look *l = arg;
	bool vcpu_fd;
	int32_t target = stats_target(t, &vcpu_fd);

	l->m->nvcpu_fds += vcpu_fd;
	if (target >= -1)
		take_fd(l->m, l->pidfd, fd, target, l->s);
}

static void find_stats_fds(struct vmst *m, const struct kstat_schema *s, size_t vms_of_pid,
			   bool only_source)
{
	struct look l = {m, s, -1};
	int listed = -1;

	if (vms_of_pid != 1 || !s->described) {
		m->tried = true;
		return;
	}
	m->nvcpu_fds = 0;
	l.pidfd = (int)syscall(SYS_pidfd_open, m->pid, 0);
	if (l.pidfd >= 0) {
		listed = live_each_fd(m->pid, look_at, &l);
		close(l.pidfd);
	}
	/*
	 * Looked for while the VMM lives: "each vCPU fd has its statistics fd"
	 * held between two vCPUs' creation too (a look after vCPU 0's and before
	 * vCPU 1's: a snapshot then had vCPU 0 alone, its VM's sums half the
	 * run's, seen under ASan in the lab). An fd taken once is not taken
	 * again (take_fd()); a VMM that holds none after ten looks (a second of
	 * pin-mode scans, ten readings) is not asked again, unless they are the
	 * only source (no debugfs): then a VMM that makes them late is still
	 * read, for the price of a look at its fds per scan.
	 */
	m->looks++;
	m->tried = listed < 0 || (!m->nsfds && m->looks >= 10 && !only_source);
}

/* ------------------------------------------------------------------------ */
/* debugfs */

/*
 * Is debugfs's kvm/ there? Else debugfs is mounted in a mount namespace of
 * our own. 1: this kernel has no debugfs (no mount point: not built in; not
 * a known filesystem; refused: debugfs=off).
 */
static int mount_debugfs(char *errbuf, size_t errlen)
{
	struct stat st;

	if (stat(KVM_DIR, &st) == 0)
		return 0;
	if (stat(KVMSTATS_DEBUGFS "/tracing", &st) == 0 || errno != ENOENT)
		return err_buf(errbuf, errlen, "no KVM in %s (is the kvm module loaded?)",
			       KVMSTATS_DEBUGFS);
	/* Not mounted: mounted for us alone, the host's mount table is left as it is. */
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
		return err_buf_errno(errbuf, errlen, "cannot mount debugfs on %s",
				     KVMSTATS_DEBUGFS);
	if (mount("debugfs", KVMSTATS_DEBUGFS, "debugfs", 0, NULL) < 0) {
		if (errno == ENOENT || errno == ENODEV || errno == EPERM)
			return 1;
		return err_buf_errno(errbuf, errlen, "cannot mount debugfs on %s",
				     KVMSTATS_DEBUGFS);
	}
	if (stat(KVM_DIR, &st) < 0)
		return err_buf(errbuf, errlen, "no KVM in %s (is the kvm module loaded?)",
			       KVMSTATS_DEBUGFS);
	return 0;
}

/* One debugfs value ("123\n"); -1 with errno. */
static int read_value(int dfd, const char *name, uint64_t *v)
{
	char buf[32];
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n == 0 ? (errno = EIO, -1) : -1;
	buf[n] = '\0';
	*v = strtoull(buf, NULL, 10);
	return 0;
}

/*
 * The VM's values from its debugfs directory, but for those skip[] says
 * the statistics fds gave. A histogram's file holds its first bucket only:
 * not read. -1 (errno) when the directory or every file failed.
 */
static int read_debugfs(const struct kstat_schema *s, const char *id, struct kstat_vm *vm,
			const bool *skip)
{
	char path[512];
	int dfd, got = 0, tried = 0, e = 0;

	snprintf(path, sizeof(path), "%s/%s", KVM_DIR, id);
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		const struct kstat_desc *d = &s->d[i];

		if (skip[i] || kstat_is_hist(d))
			continue;
		tried++;
		if (read_value(dfd, d->name, &vm->v[d->off]) == 0) {
			vm->have[i] = true;
			got++;
		} else if (errno != ENOENT) {
			e = errno;
		}
	}
	close(dfd);
	if (tried && !got)
		return errno = e ? e : ENOENT, -1;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The VMs */

static bool wanted(const struct kvmstats *k, int32_t pid)
{
	if (pid == (int32_t)getpid())
		return false; /* our own descriptor probe's VM, should one still be listed */
	if (!k->o.pids)
		return true;
	for (size_t i = 0; i < k->o.npids; i++)
		if (k->o.pids[i] == pid)
			return true;
	return false;
}

static struct vmst *vm_find(struct kvmstats *k, const char *id)
{
	for (size_t i = 0; i < k->nvms; i++)
		if (!strcmp(k->vms[i].id, id))
			return &k->vms[i];
	return NULL;
}

static struct vmst *vm_track(struct kvmstats *k, const char *id, int32_t pid)
{
	char name[256];
	struct vmst *m = vm_find(k, id);

	if (m)
		return m;
	k->vms = xrealloc(k->vms, (k->nvms + 1) * sizeof(*k->vms));
	k->vms[k->nvms] = (struct vmst){.id = xstrdup(id),
					.pid = pid,
					.name = xstrdup(live_vm_name(pid, name, sizeof(name)) ? name : "?"),
					.born = k->first_done,
					.pin_fd = -1};
	return &k->vms[k->nvms++];
}

static void vm_release(struct vmst *m)
{
	for (size_t i = 0; i < m->nsfds; i++)
		sfd_close(&m->sfds[i]);
	free(m->sfds);
	if (m->pin_fd >= 0)
		close(m->pin_fd);
	free(m->id);
	free(m->name);
}

/* Pin mode: a file of the VM's directory held open keeps the VM until we let go. */
static void pin(struct kvmstats *k, struct vmst *m)
{
	char path[512];

	if (!k->o.pin || m->pin_fd >= 0 || !k->schema.n || k->no_debugfs)
		return;
	snprintf(path, sizeof(path), "%s/%s/%s", KVM_DIR, m->id, k->schema.d[0].name);
	m->pin_fd = open(path, O_RDONLY | O_CLOEXEC);
}

struct proc_vms {
	struct kvmstats *k;
	int32_t pid;
};

/*
 * The VM tracked already whose open file fd of pid is (kcmp(2) KCMP_FILE),
 * or NULL: a task that shares the VMM's descriptors (LeakSanitizer's tracer
 * at an ASan-built VMM's exit: "2 VMs not in the snapshot" for one, in 2 of
 * 4 lab runs) or a child forked with the VM's fd holds the same VM, which
 * without debugfs has no name but "<pid>-<fd>". Where kcmp() is refused
 * (seccomp, no CONFIG_KCMP) each stays a VM of its own, as before.
 */
static struct vmst *same_vm(struct kvmstats *k, int32_t pid, int fd)
{
	for (size_t i = 0; i < k->nvms; i++) {
		struct vmst *m = &k->vms[i];
		int mine;

		if (m->pid != pid && sscanf(m->id, "%*d-%d", &mine) == 1 &&
		    syscall(SYS_kcmp, (pid_t)pid, (pid_t)m->pid, KCMP_FILE, fd, mine) == 0)
			return m;
	}
	return NULL;
}

/* A VM fd of a process, named "<pid>-<fd>" as debugfs names its directory. */
static void proc_vm(void *arg, int fd, const char *target)
{
	struct proc_vms *p = arg;
	struct vmst *m;
	char id[32];

	if (strcmp(target, "anon_inode:kvm-vm"))
		return;
	snprintf(id, sizeof(id), "%d-%d", (int)p->pid, fd);
	/* a VM seen before under this name needs no kcmp() (each look, every 100 ms) */
	if (!(m = vm_find(p->k, id)) && !(m = same_vm(p->k, p->pid, fd)))
		m = vm_track(p->k, id, p->pid);
	m->seen = true;
}

/* Without debugfs: the VMs the processes hold now. */
static int list_vms_proc(struct kvmstats *k)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		int pid;
		char c;

		if (sscanf(de->d_name, "%d%c", &pid, &c) == 1 && pid > 0 && wanted(k, pid))
			live_each_fd(pid, proc_vm, &(struct proc_vms){k, pid});
	}
	closedir(d);
	return 0;
}

/* The VMs debugfs (or /proc) lists now: tracked, marked seen. */
static int list_vms(struct kvmstats *k)
{
	DIR *d;
	struct dirent *de;

	for (size_t i = 0; i < k->nvms; i++)
		k->vms[i].seen = false;
	if (k->no_debugfs)
		return list_vms_proc(k);
	d = opendir(KVM_DIR);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		int pid, fdn;
		char c;

		if (sscanf(de->d_name, "%d-%d%c", &pid, &fdn, &c) != 2 || pid <= 0 ||
		    !wanted(k, pid))
			continue;
		struct vmst *m = vm_track(k, de->d_name, pid);

		m->seen = true;
		pin(k, m);
	}
	closedir(d);
	return 0;
}

static size_t vms_of(const struct kvmstats *k, int32_t pid)
{
	size_t n = 0;

	for (size_t i = 0; i < k->nvms; i++)
		n += k->vms[i].pid == pid && k->vms[i].seen;
	return n;
}

/*
 * A VM's values: the statistics fds first, debugfs for the rest. vCPU
 * statistics come from the fds only when every vCPU has one (their sum is
 * then the VM's value, as debugfs would give it).
 */
static int read_vm(struct kvmstats *k, struct vmst *m, struct kstat_vm *vm)
{
	const struct kstat_schema *s = &k->schema;
	size_t vcpu_sfds = 0;
	bool vm_sfd = false, *skip = xcalloc(s->n + 1, sizeof(bool));
	int ret;

	for (size_t i = 0; i < m->nsfds; i++)
		m->sfds[i].vcpu >= 0 ? vcpu_sfds++ : (vm_sfd = true);
	/* without debugfs, a VM without vCPUs (yet) has all of its vCPUs' fds */
	bool vcpus_all = (vcpu_sfds || k->no_debugfs) && vcpu_sfds >= m->nvcpu_fds;

	for (size_t i = 0; i < m->nsfds; i++) {
		struct sfd *f = &m->sfds[i];

		if (f->vcpu < 0 && sfd_read(f, vm->v) == 0)
			continue;
		if (f->vcpu < 0 || !vcpus_all)
			continue;
		struct kstat_vcpu *c = kstat_vm_vcpu(vm, s, f->vcpu);

		if (sfd_read(f, c->v) == 0)
			for (size_t j = 0; j < s->n; j++)
				if (s->d[j].vcpu)
					for (uint32_t b = 0; b < s->d[j].size; b++)
						vm->v[s->d[j].off + b] += c->v[s->d[j].off + b];
	}
	for (size_t j = 0; j < s->n; j++) {
		skip[j] = s->d[j].vcpu ? vcpus_all : vm_sfd;
		vm->have[j] = skip[j];
	}
	ret = k->no_debugfs ? (errno = ENOENT, -1) : read_debugfs(s, m->id, vm, skip);
	vm->source = xstrdup(!m->nsfds ? "debugfs" : ret < 0 ? "stats-fd" : "debugfs+stats-fd");
	free(skip);
	/*
	 * Without debugfs, a VMM gone before all its vCPUs' fds were found
	 * (riscv64's exitgen under TCG lived 0.1 s, one look): the VM's own
	 * statistics, its vCPUs' left out (not had), and counted as partial.
	 */
	if (k->no_debugfs) {
		k->partial += vm_sfd && !vcpus_all && !m->partial;
		m->partial |= vm_sfd && !vcpus_all;
		return vm_sfd ? 0 : -1;
	}
	/* debugfs refused (lockdown) but the fds gave everything: fine */
	return ret < 0 && !(vm_sfd && vcpus_all) ? -1 : 0;
}

/*
 * Held past its VMM: a debugfs file open, or without debugfs the
 * statistics fds (each holds a reference on the VM, as a debugfs file does).
 */
static bool pinned(const struct kvmstats *k, const struct vmst *m)
{
	return m->pin_fd >= 0 || (k->no_debugfs && k->o.pin && m->nsfds);
}

/* Outside pin mode, VMs no longer listed, or whose VMM is gone, are let go. */
static void forget_gone(struct kvmstats *k)
{
	size_t w = 0;

	for (size_t i = 0; i < k->nvms; i++) {
		struct vmst *m = &k->vms[i];

		if (!k->o.pin && (!m->seen || !live_pid_alive(m->pid))) {
			k->unread += k->no_debugfs && !m->nsfds;
			vm_release(m);
		}
		else
			k->vms[w++] = *m;
	}
	k->nvms = w;
}

static double now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int64_t now_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int kvmstats_read(struct kvmstats *k, struct kstat_reading *r, char *errbuf, size_t errlen)
{
	int fail = 0, e = 0;

	kstat_reading_free(r);
	if (list_vms(k) < 0)
		return err_buf_errno(errbuf, errlen, "cannot list %s", k->no_debugfs ? "/proc" : KVM_DIR);
	r->t = now_mono();
	r->wall_ns = now_wall();
	for (size_t i = 0; i < k->nvms; i++) {
		struct vmst *m = &k->vms[i];
		struct kstat_vm vm;

		/* pinned VMs stay readable after they left the listing's view: read them too */
		if (!m->seen && !pinned(k, m))
			continue;
		if (!m->tried)
			find_stats_fds(m, &k->schema, vms_of(k, m->pid), k->no_debugfs);
		kstat_vm_init(&vm, &k->schema, m->pid, m->id, m->name);
		vm.born = m->born;
		if (read_vm(k, m, &vm) < 0) {
			e = errno;
			fail++;
			kstat_vm_free(&vm);
			continue;
		}
		kstat_reading_add(r, &vm);
	}
	k->first_done = true;
	forget_gone(k);
	if (fail && !r->nvms) {
		errno = e;
		return err_buf_errno(errbuf, errlen,
				     "cannot read KVM's statistics in %s%s",
				     k->no_debugfs ? "the VMMs' statistics fds (no debugfs)" : KVM_DIR,
				     e == EPERM ? " (kernel lockdown?)" : "");
	}
	return 0;
}

struct kvmstats *kvmstats_new(const struct kvmstats_opts *o, char *errbuf, size_t errlen)
{
	struct kvmstats *k;
	int mounted = mount_debugfs(errbuf, errlen);

	if (mounted < 0)
		return NULL;
	k = xcalloc(1, sizeof(*k));
	k->o = *o;
	k->no_debugfs = mounted == 1;
	if (schema_from_own_vm(&k->schema) == 0) {
		k->schema.described = true;
		k->schema_src = k->no_debugfs ? "the descriptors of a VM of our own (no debugfs: "
						"the VMMs' statistics fds alone)"
					      : "the descriptors of a VM of our own";
	} else {
		kstat_schema_free(&k->schema);
		if (k->no_debugfs) {
			err_buf(errbuf, errlen, "no debugfs on %s and no usable /dev/kvm: "
				"nothing to read KVM's statistics from", KVMSTATS_DEBUGFS);
			free(k);
			return NULL;
		}
		if (schema_from_names(&k->schema) < 0) {
			err_buf(errbuf, errlen, "no KVM statistics in %s", KVM_DIR);
			free(k);
			return NULL;
		}
		k->schema_src = "debugfs file names (no descriptors: /dev/kvm not usable)";
	}
	return k;
}

void kvmstats_set_pids(struct kvmstats *k, const int32_t *pids, size_t n)
{
	free(k->pids);
	k->pids = NULL;
	if (pids) {
		k->pids = xcalloc(n + 1, sizeof(*pids));
		memcpy(k->pids, pids, n * sizeof(*pids));
	}
	k->o.pids = k->pids;
	k->o.npids = n;
}

int kvmstats_scan(struct kvmstats *k)
{
	if (list_vms(k) < 0)
		return -1;
	/* while the VMM lives: its statistics fds are gone with it */
	for (size_t i = 0; i < k->nvms; i++)
		if (k->vms[i].seen && !k->vms[i].tried)
			find_stats_fds(&k->vms[i], &k->schema, vms_of(k, k->vms[i].pid),
				       k->no_debugfs);
	return 0;
}

size_t kvmstats_unread(const struct kvmstats *k)
{
	size_t n = k->unread;

	for (size_t i = 0; i < k->nvms; i++)
		n += k->no_debugfs && !k->vms[i].nsfds;
	return n;
}

size_t kvmstats_partial(const struct kvmstats *k)
{
	return k->partial;
}

const struct kstat_schema *kvmstats_schema(const struct kvmstats *k)
{
	return &k->schema;
}

const char *kvmstats_schema_source(const struct kvmstats *k)
{
	return k->schema_src;
}

void kvmstats_free(struct kvmstats *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->nvms; i++)
		vm_release(&k->vms[i]);
	free(k->vms);
	kstat_schema_free(&k->schema);
	free(k->pids);
	free(k);
}
