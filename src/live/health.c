// SPDX-License-Identifier: GPL-2.0
/*
 * Can this collector see KVM? What serve's kvm_exitstat_collector_success
 * gauge says (node_exporter's node_scrape_collector_success idea): an
 * exporter that runs but sees nothing must say so to the alerting, not
 * just export no series. Three things must hold:
 *   - the kvm tracepoints exist in tracefs (kvm_exit or kvm_userspace_exit);
 *   - one of them is on in our instance (enabling it worked);
 *   - the host has KVM: /dev/kvm, or (a container without the node) the kvm
 *     misc device, which the kernel registers only once KVM initialised (a
 *     guest whose kvm module loaded but did not bind has neither, though
 *     /sys/module/kvm exists: its tracepoints never fire).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "err.h"
#include "live.h"

static const char *const exit_events[] = {"kvm_exit", "kvm_userspace_exit"};

/* The event exists in tracefs and our instance has it on. */
static bool event_on(const struct live *c, const char *ev)
{
	char rel[128];
	char *s;
	bool on;

	snprintf(rel, sizeof(rel), "events/kvm/%s/format", ev);
	s = live_file_read(c, rel, NULL);
	if (!s)
		return false;
	free(s);
	snprintf(rel, sizeof(rel), "events/kvm/%s/enable", ev);
	s = live_instance_file_read(c, rel, NULL);
	on = s && s[0] == '1';
	free(s);
	return on;
}

bool live_host_has_kvm(const char *dev, const char *misc)
{
	return access(dev, F_OK) == 0 || access(misc, F_OK) == 0;
}

bool live_kvm_host(void)
{
	return live_host_has_kvm("/dev/kvm", "/sys/class/misc/kvm");
}

bool live_sees_kvm(const struct live *c, const char **why)
{
	bool on = false;

	for (size_t i = 0; i < sizeof(exit_events) / sizeof(exit_events[0]) && !on; i++)
		on = event_on(c, exit_events[i]);
	if (!on) {
		*why = "neither kvm_exit nor kvm_userspace_exit is on in the instance";
		return false;
	}
	if (!live_kvm_host()) {
		*why = "no /dev/kvm and no kvm device";
		return false;
	}
	*why = NULL;
	return true;
}

int live_no_kvm_reason(const char *who, char *errbuf, size_t errlen)
{
	return err_buf(errbuf, errlen,
		       "%s: this host has no KVM (no /dev/kvm, no kvm device in /sys/class/misc: "
		       "see dmesg), so no VM here makes exits; run it on a KVM host, or see one "
		       "with 'make demo' (a lab guest with KVM under QEMU)",
		       who);
}
