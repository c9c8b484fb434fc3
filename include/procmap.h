/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which process (VM) a thread belongs to, and what the VM is called: the
 * map `record` keeps in its trace.dat (an option of its own, see
 * datwrite.c) so that `report --pid` can take a VMM's process id, and
 * `--per-vm` / `-g NAME` can name VMs after the threads are gone. trace-cmd
 * files carry no such map (trace.dat has no tgid section).
 *
 * Its text in the file, one item a line:
 *   kvm-exitstat procmap 1
 *   t TID TGID VCPU     a thread, its process and the vCPU whose KVM_RUN it
 *                       was seen in (-1: not known)
 *   p PID NAME          a process and its VM name (\\ and \n escaped)
 */
#ifndef KES_PROCMAP_H
#define KES_PROCMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The trace.dat option id it is stored under: far above trace-cmd's own ids
 * (0..25 in 2026, counted up from 0), which libtracecmd 3.1.6 skips silently
 * when it does not know one.
 */
#define PROCMAP_OPTION_ID 0x4b45

struct procmap;

struct procmap *procmap_new(void);
void procmap_free(struct procmap *pm);

/* Adds a thread, or sets its process when it was not known (tgid -1: not known). */
void procmap_set_thread(struct procmap *pm, int32_t tid, int32_t tgid);
bool procmap_has_thread(const struct procmap *pm, int32_t tid);
/* The thread's process, or -1 when the map does not say. */
int32_t procmap_tgid(const struct procmap *pm, int32_t tid);
/* The vCPU id (KVM_CREATE_VCPU's) whose KVM_RUN the thread was seen in, or -1. */
void procmap_set_vcpu(struct procmap *pm, int32_t tid, int32_t vcpu);
int32_t procmap_vcpu(const struct procmap *pm, int32_t tid);
/* Names pid's VM (name is copied; the first name given stays). */
void procmap_set_name(struct procmap *pm, int32_t pid, const char *name);
/* The VM name of process pid (interned), or NULL. */
const char *procmap_name(const struct procmap *pm, int32_t pid);

/* The threads, by increasing tid: i < procmap_nthreads(). */
size_t procmap_nthreads(const struct procmap *pm);
void procmap_thread_at(const struct procmap *pm, size_t i, int32_t *tid, int32_t *tgid);
/* The named processes, in the order they were named. */
size_t procmap_nnames(const struct procmap *pm);
void procmap_name_at(const struct procmap *pm, size_t i, int32_t *pid, const char **name);

/*
 * Fills in the process of threads not known yet from the text of tracefs's
 * saved_tgids ("TID TGID" lines); other lines and threads are ignored.
 */
void procmap_fill_tgids(struct procmap *pm, const char *saved_tgids);

/* The map as its file text (above); malloc'd, *len without the final NUL. */
char *procmap_format(const struct procmap *pm, size_t *len);
/* Parses that text. NULL with a one-line reason in errbuf when it is malformed. */
struct procmap *procmap_parse(const char *text, size_t len, char *errbuf, size_t errlen);

/*
 * record's side (procmap-learn.c): the map, learned while recording. Pages
 * are raw ring-buffer pages (long_size: the kernel's, 4 or 8).
 */
struct procmap_learner;
struct ring_info;
struct procmap_learner *procmap_learn_new(int long_size);
void procmap_learn_free(struct procmap_learner *l);
/*
 * The threads of one page's events: a new one is looked up in /proc now.
 * In the same walk *info: the page's events and its loss flag and count
 * (record counts what it writes; a second walk of every page cost it
 * ~3 ns/event). 0, or -1 when the page is malformed.
 */
int procmap_learn_page(struct procmap_learner *l, const void *page, size_t len,
		       struct ring_info *info);
/* One recorder tick (a thread's vCPU is looked for at most once a tick). */
void procmap_learn_tick(struct procmap_learner *l);
/*
 * A running process, now: its VM name, vCPU fds and threads' names (record -p:
 * it may be gone, and its names recycled out of saved_cmdlines, when its pages
 * are read).
 */
void procmap_learn_process(struct procmap_learner *l, int32_t pid);
/*
 * The map's file text at the end (malloc'd, *len without its NUL). What
 * /proc did not show comes from tracefs's saved_tgids and saved_cmdlines
 * texts (either may be NULL) and, for the process child (the command record
 * ran, its kernel pid; -1: none), from the -name in its argv.
 */
char *procmap_learn_finish(struct procmap_learner *l, const char *saved_tgids,
			   const char *saved_cmdlines, int32_t child, char *const *argv,
			   size_t *len);
/*
 * The thread names for the file, of the threads learned (those of the
 * events, their processes, those of a process learned whole): each from
 * saved_cmdlines's text (NULL: none), else as /proc named it when first
 * seen. The kernel's lines of other threads are left out. malloc'd.
 */
char *procmap_learn_cmdlines(const struct procmap_learner *l, const char *saved_cmdlines);

/*
 * The vCPU index a VMM's thread name gives, or -1: QEMU's "CPU N/KVM"
 * (-name debug-threads=on), and names ending in "vcpuN" / "vcpu N" /
 * "vcpu_N" (exitgen's "exitgen-vcpuN", crosvm, cloud-hypervisor, firecracker).
 */
int32_t procmap_vcpu_of_comm(const char *comm);

#endif
