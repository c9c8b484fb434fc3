/* SPDX-License-Identifier: GPL-2.0 */
/* Private to live/'s files (the collector, /proc, KVM's statistics). */
#ifndef KES_LIVE_LOCAL_H
#define KES_LIVE_LOCAL_H

#include <signal.h>
#include <stdint.h>

struct live;
struct tracefs_instance;

/* The mask live_read() waits with; NULL when signals are not installed. */
const sigset_t *live_wait_mask(void);
/* The collector's instance (khist.c sets its triggers there), and its name. */
struct tracefs_instance *live_tracefs_instance(const struct live *c);
const char *live_instance_name(const struct live *c);
/*
 * Each fd process pid holds, with what /proc/PID/fd/N links to
 * ("anon_inode:kvm-vm", cut at 127 bytes). -1 when its fd directory cannot
 * be read (gone, or not ours to see).
 */
int live_each_fd(int32_t pid, void (*fn)(void *arg, int fd, const char *target), void *arg);

#endif
