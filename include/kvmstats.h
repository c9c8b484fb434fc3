/* SPDX-License-Identifier: GPL-2.0 */
/*
 * live/kvmstats.c: KVM's own statistics of the VMs on this host, read
 * without any tracing, as kvm_stat -d does, and more where the kernel lets
 * another process see more:
 *
 * - debugfs kvm/<pid>-<fd>/: one file per statistic of each VM, its vCPU
 *   statistics summed over the vCPUs; a histogram's file shows its first
 *   bucket only (kvm_stat_data_get() reads one u64), so histograms are not
 *   taken from there. debugfs is mounted in a mount namespace of our own
 *   when it is not mounted. A kernel without debugfs (not built in, or
 *   debugfs=off) has its VMs found as the kvm-vm fds of /proc instead, and
 *   read through the statistics fds their VMMs hold alone.
 * - the binary statistics (KVM_GET_STATS_FD): the VM and vCPU fds refuse
 *   that ioctl to any process but the VMM (EIO: kvm_vm_ioctl() and
 *   kvm_vcpu_ioctl() check the caller's mm), even when pidfd_getfd() hands
 *   us the fd; but a statistics fd the VMM holds open (QEMU keeps one per
 *   vCPU) reads the same in any process: pidfd_getfd() of it needs
 *   PTRACE_MODE_ATTACH_REALCREDS over the VMM (root: CAP_SYS_PTRACE). Where
 *   a VMM holds them, vCPUs have statistics of their own and histograms
 *   have all their buckets.
 * - the descriptors (names, types, units, sizes) are the kernel's own: read
 *   once from a VM of our own made for the purpose (KVM_CREATE_VM, one vCPU,
 *   their statistics fds, closed at once), or else from a VMM's statistics
 *   fd; with neither, debugfs's file names, each a counter of unknown type.
 */
#ifndef KES_KVMSTATS_H
#define KES_KVMSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kstat.h"

#define KVMSTATS_DEBUGFS "/sys/kernel/debug"

struct kvmstats_opts {
	const int32_t *pids; /* only these VMMs; NULL: every VM */
	size_t npids;
	/*
	 * Hold each VM from the first reading that sees it until kvmstats_free():
	 * KVM destroys a VM, its statistics and its debugfs directory only when
	 * its last reference goes, so a VM whose VMM has exited still reads its
	 * final values (record --stats). Off: a VM is let go when its VMM exits.
	 */
	bool pin;
};

struct kvmstats;

/* Mounts debugfs if needed and learns the descriptors. NULL with a one-line reason. */
struct kvmstats *kvmstats_new(const struct kvmstats_opts *o, char *errbuf, size_t errlen);
const struct kstat_schema *kvmstats_schema(const struct kvmstats *k);
/* Where the descriptors came from, for headers ("a VM of our own", ...). */
const char *kvmstats_schema_source(const struct kvmstats *k);
/*
 * One reading of every VM (that the pid filter keeps) into r (emptied
 * first). 0, or -1 with a one-line reason: debugfs's kvm/ gone or
 * unreadable and no statistics fd to read instead.
 */
int kvmstats_read(struct kvmstats *k, struct kstat_reading *r, char *errbuf, size_t errlen);
/* The VMMs to read from now on (copied; NULL: every VM): a traced command's processes. */
void kvmstats_set_pids(struct kvmstats *k, const int32_t *pids, size_t n);
/* Pin mode: takes hold of the VMs that appeared, without reading them (cheap, each tick). */
int kvmstats_scan(struct kvmstats *k);
/*
 * VMs seen that no reading could read: a kernel without debugfs, and their
 * VMM held no statistics fd (exitgen without --stats-fd). 0 with debugfs.
 */
size_t kvmstats_unread(const struct kvmstats *k);
/*
 * VMs read without their vCPUs' statistics: no debugfs, and the VMM was gone
 * before each of its vCPUs' statistics fds was found.
 */
size_t kvmstats_partial(const struct kvmstats *k);
void kvmstats_free(struct kvmstats *k);

#endif
