#!/bin/sh
# demo.sh: `make demo`, the README's first command: record the bundled
# workload (exitgen) on real KVM and print its report. On a machine with
# /dev/kvm it runs here; without (a guest whose KVM module did not bind) it
# says so in one line and runs the same demo in the lab host
# (tests/lab/host.sh: the x86-svm lab kernel under QEMU with this machine's
# own root, where KVM works and kvm_exit fires as on a user's host), then
# prints the report of that real recording here.
# Env: O (build dir), KES, EXITGEN; DEMO_ARGS (exitgen's arguments).
set -u
O=${O:-build}
KES=${KES:-./kvm-exitstat}
EXITGEN=${EXITGEN:-$O/exitgen}
ARGS=${DEMO_ARGS:---io 10000 --mmio 5000 --hlt 1000 --vcpus 2}
dat=$O/demo.dat
export KES EXITGEN ARGS # host.sh passes them to the guest (--env)
step() { echo "demo: $*"; }

mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
if [ -e /dev/kvm ]; then
	# shellcheck disable=SC2086
	"$KES" record -o "$dat" -- "$EXITGEN" $ARGS || exit 1
	exec "$KES" report -i "$dat"
fi

echo "demo: this machine has no /dev/kvm: the demo runs in the lab host instead, an x86-svm guest under QEMU with this machine's root (tests/lab/host.sh)"
for t in qemu-system-x86_64 cpio depmod; do
	command -v $t >/dev/null || { echo "demo: $t not found: run 'make deps' first" >&2; exit 1; }
done
out=$O/demo-lab
rm -rf "$out"
mkdir -p "$out"
step "1/3 preparing: the lab kernel (Debian's linux-image-6.1.0-50-amd64, checked against tests/lab/packages.lock) and its initramfs: ~20 s the first time, ~1 s after"
step "2/3 booting it and recording exitgen $ARGS in its KVM: ~1 min on 2 cores"
t0=$(date +%s)
# shellcheck disable=SC2016
sh tests/lab/host.sh --out "$out" --env KES --env EXITGEN --env ARGS -- sh -c '
	echo "demo (in the lab host): $(uname -r), kvm_amd npt=$(cat /sys/module/kvm_amd/parameters/npt)"
	echo "\$ kvm-exitstat record -o demo.dat -- exitgen $ARGS"
	"$KES" record -o /tmp/demo.dat -- "$EXITGEN" $ARGS && cp /tmp/demo.dat "$0/demo.dat"' "$out"
rc=$?
[ "$rc" -eq 0 ] && [ -s "$out/demo.dat" ] || { echo "demo: the recording in the lab host failed (status $rc; $out/console.log)" >&2; exit 1; }
mv "$out/demo.dat" "$dat"
step "3/3 the report of that real kvm_exit recording ($(($(date +%s) - t0)) s in the lab), read here:"
echo "\$ kvm-exitstat report -i $dat"
exec "$KES" report -i "$dat"
