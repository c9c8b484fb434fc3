// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter's page, from the store: each family's HELP/TYPE, then its
 * samples, in the store's order (by pid, source, reason, vcpu), so two
 * scrapes of the same state are byte-identical.
 */
#include <stdio.h>
#include <stdlib.h>
#include "prom.h"
#include "serve-local.h"

static const char *const source_name[SERVE_NSRC] = {
    [SERVE_KVM_EXIT] = "kvm_exit", [SERVE_USERSPACE] = "userspace"};

struct labels {
	struct prom_label l[7]; /* pid, vm, source, reason, guest_function, vcpu, cause */
	size_t n;
	char pid[16], vcpu[24];
};

static void labels_of(struct labels *b, const struct serve_series *se, bool per_vcpu)
{
	const struct serve_key *k = &se->k;

	if (k->pid == -1)
		snprintf(b->pid, sizeof(b->pid), "unknown");
	else if (k->pid == -2)
		snprintf(b->pid, sizeof(b->pid), "other");
	else
		snprintf(b->pid, sizeof(b->pid), "%d", (int)k->pid);
	b->n = 0;
	b->l[b->n++] = (struct prom_label){"pid", b->pid};
	b->l[b->n++] = (struct prom_label){"vm", se->vm};
	b->l[b->n++] = (struct prom_label){"source", source_name[k->source]};
	if (!k->guest)
		b->l[b->n++] = (struct prom_label){"reason", k->reason};
	if (k->func)
		b->l[b->n++] = (struct prom_label){"guest_function", k->func};
	if (per_vcpu && k->pid != -2) {
		if (k->vcpu >= 0)
			snprintf(b->vcpu, sizeof(b->vcpu), "%d", (int)k->vcpu);
		else
			snprintf(b->vcpu, sizeof(b->vcpu), "tid:%d", (int)k->tid);
		b->l[b->n++] = (struct prom_label){"vcpu", b->vcpu};
	}
}

static void counters(struct prom_w *w, const struct serve_meta *m, uint64_t capped, size_t rows)
{
	struct prom_label info[] = {{"version", m->version},
				    {"buckets", m->buckets ? m->buckets : ""},
				    {"per_vcpu", m->per_vcpu ? "1" : "0"}};

	prom_family(w, "kvm_exitstat_build", PROM_INFO, NULL,
		    "kvm-exitstat version and how the rows are keyed (bucket map, per vCPU).");
	prom_sample(w, info, 3, 1);
	if (m->flight) {
		prom_family(w, "kvm_exitstat_flight_saves", PROM_COUNTER, NULL,
			    "Flight-recorder windows saved as trace.dat files (serve --flight).");
		prom_sample(w, NULL, 0, m->flight_saves);
		prom_family(w, "kvm_exitstat_flight_triggers", PROM_COUNTER, NULL,
			    "Flight-recorder triggers (slow exit, exit rate, SIGUSR1, POST /flight).");
		prom_sample(w, NULL, 0, m->flight_triggers);
	}
	if (m->http) {
		prom_family(w, "kvm_exitstat_scrapes", PROM_COUNTER, NULL,
			    "GET /metrics answered, by exposition format (counted up to the "
			    "page before this one).");
		prom_sample(w, (struct prom_label[]){{"format", "text"}}, 1, m->scrapes_text);
		prom_sample(w, (struct prom_label[]){{"format", "openmetrics"}}, 1, m->scrapes_om);
		prom_family(w, "kvm_exitstat_http_dropped_connections", PROM_COUNTER, NULL,
			    "Connections closed by the exporter: a request that did not end within "
			    "5 s (deadline), room made for a newer connection of the same address "
			    "(address) or of any (full).");
		prom_sample(w, (struct prom_label[]){{"reason", "deadline"}}, 1, m->dropped[0]);
		prom_sample(w, (struct prom_label[]){{"reason", "address"}}, 1, m->dropped[1]);
		prom_sample(w, (struct prom_label[]){{"reason", "full"}}, 1, m->dropped[2]);
	}
	prom_family(w, "kvm_exitstat_collector_success", PROM_GAUGE, NULL,
		    "1 when the collector can see KVM's exits (traced: the kvm_exit or "
		    "kvm_userspace_exit tracepoint on, and /dev/kvm or a kvm module; untraced: "
		    "KVM's own statistics read), 0 when it cannot: no series then means no "
		    "data, not no exits.");
	prom_sample(w, NULL, 0, m->sees_kvm);
	if (m->untraced)
		return;
	prom_family(w, "kvm_exitstat_events", PROM_COUNTER, NULL,
		    "Trace events read from the kernel, of every kind.");
	prom_sample(w, NULL, 0, m->live.events);
	prom_family(w, "kvm_exitstat_lost_events", PROM_COUNTER, NULL,
		    "Trace events the kernel dropped (ring buffer full); exits around them are "
		    "counted, not timed.");
	prom_sample(w, NULL, 0, m->live.lost);
	prom_family(w, "kvm_exitstat_capped_exits", PROM_COUNTER, NULL,
		    "Exits counted in the overflow row (pid=\"other\") because the label-set cap "
		    "was reached.");
	prom_sample(w, NULL, 0, capped);
	prom_family(w, "kvm_exitstat_label_sets", PROM_GAUGE, NULL,
		    "Label sets exposed (exit reasons and time-in-guest rows of every VM).");
	prom_sample(w, NULL, 0, rows);
}

/* The process_* families every Prometheus client library exports. */
static void process(struct prom_w *w, const struct serve_process *p)
{
	if (!p->ok)
		return;
	prom_family(w, "process_cpu_seconds", PROM_COUNTER, "seconds",
		    "Total user and system CPU time spent in seconds.");
	prom_sample_double(w, NULL, 0, p->cpu_s);
	prom_family(w, "process_open_fds", PROM_GAUGE, NULL, "Number of open file descriptors.");
	prom_sample(w, NULL, 0, p->open_fds);
	prom_family(w, "process_max_fds", PROM_GAUGE, NULL,
		    "Maximum number of open file descriptors.");
	prom_sample_double(w, NULL, 0, p->max_fds);
	prom_family(w, "process_virtual_memory_bytes", PROM_GAUGE, "bytes",
		    "Virtual memory size in bytes.");
	prom_sample(w, NULL, 0, p->vsize);
	prom_family(w, "process_virtual_memory_max_bytes", PROM_GAUGE, "bytes",
		    "Maximum amount of virtual memory available in bytes.");
	prom_sample_double(w, NULL, 0, p->vmax);
	prom_family(w, "process_resident_memory_bytes", PROM_GAUGE, "bytes",
		    "Resident memory size in bytes.");
	prom_sample(w, NULL, 0, p->rss);
	prom_family(w, "process_start_time_seconds", PROM_GAUGE, "seconds",
		    "Start time of the process since unix epoch in seconds.");
	prom_sample_double(w, NULL, 0, p->start_s);
}

static void exits(struct prom_w *w, const struct serve_series *const *r, size_t n, bool per_vcpu)
{
	struct labels b;

	prom_family(w, "kvm_exitstat_exits", PROM_COUNTER, NULL,
		    "VM exits by VMM process, exit reason and source (kvm_exit: every exit the "
		    "kernel handles; userspace: KVM_RUN returned to the VMM).");
	for (size_t i = 0; i < n; i++) {
		if (r[i]->k.guest)
			continue;
		labels_of(&b, r[i], per_vcpu);
		prom_sample(w, b.l, b.n, r[i]->exits);
	}
}

static void hists(struct prom_w *w, const struct serve_store *s, const struct serve_meta *m,
		  const struct serve_series *const *r, size_t n, bool guest)
{
	bool per_vcpu = m->per_vcpu;
	struct labels b;

	if (m->in_kernel && guest)
		return; /* the kernel times exits only */
	if (m->in_kernel)
		prom_family(w, "kvm_exitstat_inkernel_exit_duration_seconds", PROM_HISTOGRAM,
			    "seconds",
			    "Exit handling time, exit to the thread's next entry, as the kernel "
			    "keeps it (--in-kernel: its power-of-two buckets, each holding (le/2, "
			    "le]); exits still waiting for their entry are not counted yet.");
	else if (guest)
		prom_family(w, "kvm_exitstat_time_in_guest_seconds", PROM_HISTOGRAM, "seconds",
			    "Time from entering the guest to its next exit (TIMEINGUEST).");
	else
		prom_family(w, "kvm_exitstat_exit_duration_seconds", PROM_HISTOGRAM, "seconds",
			    "Exit handling time: exit to the next entry (userspace: until the "
			    "VMM calls KVM_RUN again); exits at a trace edge are not timed.");
	for (size_t i = 0; i < n; i++) {
		if (r[i]->k.guest != guest)
			continue;
		labels_of(&b, r[i], per_vcpu);
		prom_histogram(w, b.l, b.n, serve_store_bounds(s), SERVE_NLE, r[i]->bucket,
			       r[i]->sum_ns);
	}
}

/* --anatomy: each row's exits' time by cause, one counter per part. */
static void causes(struct prom_w *w, const struct serve_series *const *r, size_t n, bool per_vcpu)
{
	struct labels b;

	prom_family(w, "kvm_exitstat_exit_cause_seconds", PROM_COUNTER, "seconds",
		    "Exit handling time by cause (--anatomy): handling in KVM, runnable, "
		    "blocked, halt polling, in the VMM, irq, softirq; a row's causes add up to "
		    "its split exits' time.");
	for (size_t i = 0; i < n; i++) {
		if (r[i]->k.guest || !r[i]->has_parts)
			continue;
		labels_of(&b, r[i], per_vcpu);
		for (int p = 0; p < STATS_NPARTS; p++) {
			b.l[b.n] = (struct prom_label){"cause", stats_part_name((enum stats_part)p)};
			prom_sample_seconds(w, b.l, b.n + 1, r[i]->part_ns[p]);
		}
	}
}

int serve_expose(struct serve_store *s, const struct serve_meta *m, bool openmetrics, char **buf,
		 size_t *len)
{
	const struct serve_series *const *r = NULL;
	size_t n = s ? serve_store_rows(s, &r) : 0;
	FILE *f = open_memstream(buf, len);
	struct prom_w w;

	if (!f)
		return -1;
	prom_start(&w, f, openmetrics);
	counters(&w, m, s ? serve_store_capped(s) : 0, n);
	process(&w, &m->proc);
	if (s) {
		exits(&w, r, n, m->per_vcpu);
		hists(&w, s, m, r, n, false);
		hists(&w, s, m, r, n, true);
		if (m->anatomy)
			causes(&w, r, n, m->per_vcpu);
	}
	if (m->kstats)
		serve_expose_kstat(&w, m->kstats);
	prom_end(&w);
	if (fclose(f) != 0) {
		free(*buf);
		*buf = NULL;
		return -1;
	}
	return 0;
}
