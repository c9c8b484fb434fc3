// SPDX-License-Identifier: GPL-2.0
/*
 * statsfd-probe PID [FD]: what another process may do with a VMM's KVM fds, as
 * the kernel decides it, one line per fd of PID's that names KVM:
 *
 *   fd 5 anon_inode:kvm-vm getfd ok stats_fd EIO
 *   fd 9 anon_inode:kvm-vcpu-stats:0 getfd ok read ok num_desc 23 id kvm-1234/vcpu-0
 *
 * pidfd_getfd() needs PTRACE_MODE_ATTACH_REALCREDS over PID (root with
 * CAP_SYS_PTRACE, or the same user where Yama allows it); a VM or vCPU fd
 * so obtained refuses KVM_GET_STATS_FD with EIO (kvm_vm_ioctl() and
 * kvm_vcpu_ioctl() refuse any process whose mm is not the VM's), while a
 * statistics fd the VMM already holds reads as in its owner. The e2e test
 * kvmstats-live.sh asserts those lines; nothing here is used by the tool.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/kvm.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

static const char *err_name(int e)
{
	switch (e) {
	case EIO:
		return "EIO";
	case EPERM:
		return "EPERM";
	case EBADF:
		return "EBADF";
	case ENOTTY:
		return "ENOTTY";
	case ESRCH:
		return "ESRCH";
	default:
		return strerror(e);
	}
}

static void read_stats(int fd)
{
	struct kvm_stats_header h;
	char id[65] = "";

	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		printf(" read %s", err_name(errno));
		return;
	}
	/* the id string runs from id_offset to the descriptors (48 bytes in 6.x) */
	if (pread(fd, id, sizeof(id) - 1, h.id_offset) < 0)
		id[0] = '\0';
	id[sizeof(id) - 1] = '\0';
	printf(" read ok num_desc %u id %s", h.num_desc, id);
}

static void probe(int pidfd, int fd, const char *target)
{
	int mine = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);

	printf("fd %d %s", fd, target);
	if (mine < 0) {
		printf(" getfd %s\n", err_name(errno));
		return;
	}
	printf(" getfd ok");
	if (strstr(target, "-stats")) {
		read_stats(mine);
	} else if (!strcmp(target, "anon_inode:kvm-vm") || !strncmp(target, "anon_inode:kvm-vcpu:", 20)) {
		int s = ioctl(mine, KVM_GET_STATS_FD, NULL);

		if (s < 0) {
			printf(" stats_fd %s", err_name(errno));
		} else {
			printf(" stats_fd ok");
			read_stats(s);
			close(s);
		}
	}
	putchar('\n');
	close(mine);
}

int main(int argc, char **argv)
{
	char dir[64], path[384], target[256];
	struct dirent *de;
	int pid, pidfd;
	DIR *d;

	if (argc < 2 || argc > 3 || (pid = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: statsfd-probe PID [FD]\n");
		return 2;
	}
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		printf("pidfd_open %s\n", err_name(errno));
		return 1;
	}
	if (argc == 3) {
		probe(pidfd, atoi(argv[2]), "?");
		return 0;
	}
	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	d = opendir(dir);
	if (!d) {
		printf("opendir %s\n", err_name(errno));
		return 1;
	}
	while ((de = readdir(d))) {
		ssize_t n;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strstr(target, "kvm"))
			probe(pidfd, atoi(de->d_name), target);
	}
	closedir(d);
	return 0;
}
