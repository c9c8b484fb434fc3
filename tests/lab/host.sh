#!/bin/sh
# host.sh [options] [--] COMMAND [ARG...]: runs COMMAND as root inside the lab
# host, an x86-svm guest of the lab (Debian's 6.1 kernel under QEMU TCG, kvm_amd
# with nested paging) whose root file system is this machine's own: `/` read-only
# over virtio-9p, under an overlay whose upper layer is a tmpfs. The same
# binaries, packages and checkout, nothing to download but the kernel and
# busybox the lab already pins; /dev/kvm works there and kvm:kvm_exit fires as on
# a user's host. COMMAND runs in the current directory with the environment
# variables named by --env (and PATH, CI, TERM), its output streamed here as it
# is written; host.sh exits with COMMAND's status.
#
# Writes made in the guest (files under the checkout, /tmp) stay in its tmpfs,
# except in --out DIR (default a new directory under $LAB_CACHE/host/), which
# the guest sees at the same path, read-write: put results there.
#
#   --out DIR        the shared results directory (created; kept)
#   --share DIR      one more directory the guest sees read-write at its host
#                    path (several guests may share it: tests/run.sh's queue)
#   --env NAME       pass the host's variable NAME (repeatable)
#   --smp N          guest CPUs (default 2)        --mem MB  guest RAM (default 4096)
#   --timeout S      the whole boot, default 3600  --quiet   no progress lines
#   --stall S        no output for S seconds while the guest runs: it froze, QEMU
#                    is killed (default 900)
# A guest that ends before COMMAND starts is booted once more (LAB_RETRY=0:
# not), the first boot's console kept as console.boot1.log.
# Exit status: COMMAND's; 125 when the guest could not be prepared or booted,
# or ended (froze, crashed, timed out) before COMMAND did.
LAB=$(cd "$(dirname "$0")" && pwd)
. "$LAB/lib.sh"
set -u

out= envs= smp=2 mem=4096 tmo=3600 stall=900 quiet= share=
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift 2 ;;
	--env) envs="$envs $2"; shift 2 ;;
	--share) share=$(cd "$2" && pwd) || die "host.sh: no directory $2"; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--timeout) tmo=$2; shift 2 ;;
	--stall) stall=$2; shift 2 ;;
	--quiet) quiet=1; shift ;;
	-h | --help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	--) shift; break ;;
	-*) die "host.sh: unknown option '$1' (try --help)" ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || die "host.sh: no command (try --help)"
note() { [ -n "$quiet" ] || say "lab host: $*"; }
fail() { say "lab host: $*"; exit 125; }

mkdir -p "$LAB_CACHE" || fail "cannot create the cache $LAB_CACHE"
LAB_CACHE=$(cd "$LAB_CACHE" && pwd)
export LAB LAB_CACHE ROOT LOCK

# The x86-svm ISA's kernel, QEMU and host tools; the modules the host's root
# needs on top of kvm_amd: 9p over virtio-pci and overlayfs.
ISA=x86-svm
. "$LAB/isa/x86-svm.sh"
MODULES="kvm-amd virtio_pci 9pnet_virtio 9p overlay"
[ "$(dpkg --print-architecture)" = "$DEB_ARCH" ] ||
	fail "the lab host runs this machine's own root: it needs an $DEB_ARCH machine, this is $(dpkg --print-architecture)"
command -v "$QEMU" >/dev/null || fail "$QEMU not found: run 'make lab-deps'"
for t in dpkg-deb depmod cpio gzip; do
	command -v $t >/dev/null || fail "$t not found: run 'make lab-deps'"
done

t0=$(now)
kdeb=$(sh "$LAB/fetch.sh" "$KERNEL_DEB:$DEB_ARCH") || fail "cannot fetch $KERNEL_DEB"
bdeb=$(sh "$LAB/fetch.sh" "busybox-static:$DEB_ARCH") || fail "cannot fetch busybox-static"
# shellcheck disable=SC2086
KDIR=$(sh "$LAB/kernel.sh" "$kdeb" "$KERNEL_IMAGE" $MODULES) || fail "cannot unpack $kdeb"
initrd=$LAB_CACHE/initramfs/host.cpio.gz
sh "$LAB/host/initramfs.sh" "$initrd" "$KDIR" "$bdeb" "$MODULES" || fail "cannot make $initrd"

if [ -z "$out" ]; then
	mkdir -p "$LAB_CACHE/host"
	out=$(mktemp -d "$LAB_CACHE/host/run.XXXXXX")
fi
mkdir -p "$out" || fail "cannot create $out"
out=$(cd "$out" && pwd)
# What the guest's second stage (host/stage2.sh) reads: where to run, what, with what.
pwd >"$out/cwd"
echo "$share" >"$out/share"
: >"$out/env"
for v in PATH CI TERM $envs; do
	eval "set_=\${$v+x}"
	[ -n "$set_" ] || continue
	eval "val=\$$v"
	printf "export %s='%s'\n" "$v" "$(printf %s "$val" | sed "s/'/'\\\\''/g")" >>"$out/env"
done
for a in "$@"; do
	printf "'%s' " "$(printf %s "$a" | sed "s/'/'\\\\''/g")"
done >"$out/cmd"
echo >>"$out/cmd"

note "prepared in $(elapsed "$t0") s; booting $QEMU ($smp CPUs, $mem MB) with this machine's / as its root"

# boot: one boot of the guest, its command's output streamed here; QEMU's
# status in qrc.
boot() {
	rm -f "$out/output" "$out/rc" "$out/console.log"
	# thread=single: one host thread runs the vCPUs in turn (isa/x86-svm.sh says
	# why); -cpu max: SVM with NPT.
	# shellcheck disable=SC2086
	timeout -s KILL "$tmo" "$QEMU" -accel tcg,thread=single -cpu max -m "$mem" -smp "$smp" \
		-kernel "$KDIR/image" -initrd "$initrd" -nographic -no-reboot \
		-append "console=ttyS0 panic=-1 loglevel=4 softlockup_panic=1 quiet lab.out=$out" \
		-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
		-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
		-fsdev local,id=labout,path="$out",security_model=none,multidevs=remap \
		-device virtio-9p-pci,fsdev=labout,mount_tag=labout \
		${share:+-fsdev local,id=labshare,path="$share",security_model=none -device virtio-9p-pci,fsdev=labshare,mount_tag=labshare} \
		</dev/null >"$out/console.log" 2>&1 &
	qpid=$!
	# Kill QEMU with us: an interrupted make check leaves no guest running.
	trap 'kill_qemu; exit 130' INT TERM HUP

	# Stream the output while QEMU runs; a guest silent for --stall seconds
	# (counted from the boot's start until its command writes) froze.
	off=0 last=$(date +%s)
	while kill -0 $qpid 2>/dev/null; do
		sleep 1
		size=0
		[ -f "$out/output" ] && size=$(stat -c %s "$out/output")
		if [ "$size" -gt "$off" ]; then
			tail -c +"$((off + 1))" "$out/output" | head -c "$((size - off))"
			off=$size last=$(date +%s)
		elif [ $(($(date +%s) - last)) -ge "$stall" ] && [ ! -f "$out/rc" ]; then
			say "lab host: no output for $stall s: the guest froze; QEMU killed ($out/console.log)"
			kill_qemu
		fi
	done
	wait $qpid
	qrc=$?
	trap - INT TERM HUP
	[ -f "$out/output" ] && [ "$(stat -c %s "$out/output")" -gt "$off" ] && tail -c +"$((off + 1))" "$out/output"
}
# kill_qemu: qpid is timeout's; QEMU is its child, and a SIGKILL to timeout
# alone left QEMU running, orphaned (a frozen guest of a make check
# rehearsal, still there after the run). Both go.
kill_qemu() {
	pkill -KILL -P $qpid 2>/dev/null
	kill -9 $qpid 2>/dev/null
}

# why CONSOLE: what the guest said of its end: the init's own lines, a mount's
# or an exec's error, the panic's reason, then the console's last lines (a
# panic's trace alone, 15 lines of it, hid why CI's two guests ended).
why() {
	grep -a -E '^lab-host:|^mount: |can.t execute|switch_root|Kernel panic|soft lockup|BUG: ' "$1" |
		head -n 12 | sed 's/^/lab host: console: /' >&2
	tail -n 6 "$1" | sed 's/^/lab host: console (end): /' >&2
}

rm -f "$out/console.boot1.log"
boot
# A guest that ended before its command started ran nothing of the
# command's: booting it once more loses nothing (stop 39's CI: both guests
# ended so, 33 s into their boot, and 47 groups failed as "did not run").
# LAB_RETRY=0: no second boot (as tests/lab/lab.sh).
if [ ! -s "$out/rc" ] && [ ! -e "$out/output" ] && [ "${LAB_RETRY:-1}" = 1 ]; then
	why "$out/console.log"
	mv "$out/console.log" "$out/console.boot1.log"
	say "lab host: the guest ended before its command started (QEMU status $qrc; kept as $out/console.boot1.log); booting once more"
	boot
fi
if [ ! -s "$out/rc" ]; then
	why "$out/console.log"
	fail "the guest ended before the command did (QEMU status $qrc; $out/console.log)"
fi
rc=$(cat "$out/rc")
note "boot + run $(elapsed "$t0") s, command status $rc ($out)"
exit "$rc"
