#!/bin/sh
# lab.sh [--isa ISA]... [--keep DIR] [--cache DIR] [-j]
#
# Boots Debian kernels under QEMU (TCG) and runs kvm-exitstat on their KVM,
# where kvm_exit/kvm_entry fire as on a physical host; checks the results
# against exitgen's own counts (check.sh, isa/<ISA>.expect). Without --isa:
# every ISA whose pieces exist (isa/<ISA>.sh and isa/<ISA>.expect). Prints
# each ISA's timing and ends with "N passed, N failed"; non-zero on any
# failure. A missing package or QEMU is one clear line and a failure.
#
#   --keep DIR   results (recordings, reports, format files, console log) in
#                DIR/<ISA>/ (default: $LAB_CACHE/runs/<ISA>/, replaced each run)
#   --cache DIR  the cache (default $LAB_CACHE, or build/lab)
#   -j           the ISAs in parallel (each QEMU is one process per vCPU)
#   --run FILE   run FILE in the guest instead of guest/run.sh (experiments:
#                its results land in the share; the checks are skipped)
# Environment: LAB_TIMEOUT (seconds per boot, default 420); LAB_RETRY=0: no
# second boot after one that froze (QEMU killed at LAB_TIMEOUT).
LAB=$(cd "$(dirname "$0")" && pwd)
. "$LAB/lib.sh"
set -u

isas= keep= par= run=
while [ $# -gt 0 ]; do
	case $1 in
	--isa) [ $# -ge 2 ] || die "--isa needs an ISA"; isas="$isas $2"; shift 2 ;;
	--keep) [ $# -ge 2 ] || die "--keep needs a directory"; keep=$2; shift 2 ;;
	--cache) [ $# -ge 2 ] || die "--cache needs a directory"; LAB_CACHE=$2; shift 2 ;;
	-j) par=1; shift ;;
	--run) [ $# -ge 2 ] || die "--run needs a file"; run=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
	-h | --help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) die "unknown argument '$1' (try --help)" ;;
	esac
done
mkdir -p "$LAB_CACHE" || die "cannot create the cache $LAB_CACHE"
LAB_CACHE=$(cd "$LAB_CACHE" && pwd)
export LAB LAB_CACHE ROOT LOCK
if [ -z "$isas" ]; then
	for f in "$LAB"/isa/*.sh; do
		i=$(basename "$f" .sh)
		[ -f "$LAB/isa/$i.expect" ] && isas="$isas $i"
	done
fi
for i in $isas; do
	[ -f "$LAB/isa/$i.sh" ] || die "no ISA '$i' (tests/lab/isa/$i.sh)"
done

# host_check: the ISA's host tools are installed at their locked versions.
host_check() {
	for spec in $HOST_DEBS; do
		n=${spec%%:*} a=${spec#*:}
		want=$(lock_version "$n" "$a") || return 1
		[ "$a" = all ] && q=$n || q=$n:$a
		got=$(dpkg-query -W -f '${Version}' "$q" 2>/dev/null)
		[ -n "$got" ] || die "$ISA: package $n ($want) is not installed: run 'make lab-deps'"
		[ "$got" = "$want" ] || die "$ISA: $n is $got, packages.lock pins $want: run 'make lab-deps'"
	done
	command -v "$QEMU" >/dev/null || die "$ISA: $QEMU not found: run 'make lab-deps'"
	if [ -n "$CROSS" ]; then
		command -v "${CROSS}gcc" >/dev/null || die "$ISA: ${CROSS}gcc not found: run 'make lab-deps'"
	fi
	for t in dpkg-deb depmod readelf cpio gzip apt-get; do
		command -v $t >/dev/null || die "$ISA: $t not found"
	done
}

# sysroot_for ARCH: the sysroot of ARCH with trace-cmd, from locked packages
# (sysroot.sh --packages names them; NAME:all is an architecture-independent one).
sysroot_for() {
	arch=$1 dir=$LAB_CACHE/sysroot/$1
	specs=$(for p in $(sh "$ROOT/tools/cross/sysroot.sh" --packages "$arch") trace-cmd; do
		case $p in *:*) echo "$p" ;; *) echo "$p:$arch" ;; esac
	done)
	stamp=$(for s in $specs; do lock_line "${s%%:*}" "${s#*:}"; done; sha256sum <"$ROOT/tools/cross/sysroot.sh")
	if [ -f "$dir/.lab-stamp" ] && [ "$(cat "$dir/.lab-stamp")" = "$stamp" ]; then
		echo "$dir"
		return 0
	fi
	# shellcheck disable=SC2086
	sh "$LAB/fetch.sh" $specs >/dev/null || return 1
	rm -rf "$dir"
	sh "$ROOT/tools/cross/sysroot.sh" --debs "$LAB_CACHE/debs" "$arch" "$dir" trace-cmd >&2 ||
		die "$ISA: sysroot for $arch failed"
	echo "$stamp" >"$dir/.lab-stamp"
	echo "$dir"
}

# build_tool: kvm-exitstat and exitgen for the ISA's architecture.
build_tool() {
	o=$LAB_CACHE/build/$DEB_ARCH
	if [ -n "$CROSS" ]; then
		set -- CROSS="$CROSS" SYSROOT="$SYSROOT"
	else
		set --
	fi
	mkdir -p "$o"
	nice -n 10 make -s -j2 -C "$ROOT" O="$o" WERROR=1 "$@" "$o/kvm-exitstat" "$o/exitgen" \
		>"$o/make.log" 2>&1 || { tail -n 20 "$o/make.log" >&2; die "$ISA: building kvm-exitstat for $DEB_ARCH failed ($o/make.log)"; }
	echo "$o"
}

guest_env() {
	{
		echo "ISA='$ISA'"
		echo "WORKLOADS='$WORKLOADS'"
		echo "LOSS_ARGS='$LOSS_ARGS'"
		echo "TRACE_CMD_ARGS='$TRACE_CMD_ARGS'"
		echo "EXIT_EVENT='$EXIT_EVENT'"
	} >"$1"
}

# boot_guest OUT INITRD SHARE_ARGS: one boot, bounded by LAB_TIMEOUT (s); QEMU's status.
boot_guest() {
	# shellcheck disable=SC2086
	timeout "${LAB_TIMEOUT:-420}" "$QEMU" $QEMU_ARGS -kernel "$KDIR/image" -initrd "$2" \
		-append "$CMDLINE" -nographic -no-reboot $3 </dev/null >"$1/console.log" 2>&1
}

# locked_up CONSOLE: the guest kernel panicked on a soft lockup before run.sh
# finished (softlockup_panic=1 in the ISAs' CMDLINE): a frozen vCPU, not a
# failed check.
locked_up() {
	! grep -q '^lab-guest: run.sh done' "$1" && grep -q 'soft lockup - CPU#' "$1"
}

# run_isa ISA: prepare, boot, check; the check's summary is the last line.
run_isa() {
	ISA=$1
	t0=$(now)
	CROSS= HOST_DEBS= WORKLOADS= LOSS_ARGS= KERNEL_DEB= KERNEL_CONFIG= KERNEL_ARCH= TRACE_CMD_ARGS= EXIT_EVENT= MODULES=
	. "$LAB/isa/$ISA.sh"
	host_check || return 1
	SYSROOT=$(sysroot_for "$DEB_ARCH") || return 1
	bdeb=$(sh "$LAB/fetch.sh" "busybox-static:$DEB_ARCH") || return 1
	if [ -n "$KERNEL_CONFIG" ]; then
		# Built from linux-source-6.12 (kernel/$KERNEL_CONFIG.config), cached.
		say "$ISA: kernel $KERNEL_CONFIG (build-kernel.sh; minutes when not cached)"
		KDIR=$(LAB_CACHE=$LAB_CACHE sh "$LAB/build-kernel.sh" "$KERNEL_CONFIG" "$KERNEL_ARCH" \
			"$CROSS" "$KERNEL_IMAGE") || return 1
	else
		[ -n "$KERNEL_DEB" ] || die "$ISA: neither KERNEL_DEB nor KERNEL_CONFIG is set"
		kdeb=$(sh "$LAB/fetch.sh" "$KERNEL_DEB:$DEB_ARCH") || return 1
		# shellcheck disable=SC2086
		KDIR=$(sh "$LAB/kernel.sh" "$kdeb" "$KERNEL_IMAGE" $MODULES) || return 1
	fi
	TOOL_DIR=$(build_tool) || return 1
	out=${keep:+$keep/$ISA}
	out=${out:-$LAB_CACHE/runs/$ISA}
	rm -rf "$out"
	mkdir -p "$out/share"
	out=$(cd "$out" && pwd)
	guest_env "$out/isa.env"
	initrd=$LAB_CACHE/initramfs/$ISA.cpio.gz
	ISA=$ISA DEB_ARCH=$DEB_ARCH MODULES=$MODULES KDIR=$KDIR SYSROOT=$SYSROOT \
		BUSYBOX_DEB=$bdeb TOOL_DIR=$TOOL_DIR GUEST_ENV=$out/isa.env GUEST_RUN=${run:-$LAB/guest/run.sh} \
		sh "$LAB/initramfs.sh" "$initrd" || return 1
	t1=$(now)
	say "$ISA: prepared in $(elapsed "$t0") s; booting $QEMU"
	share=$(echo "$SHARE_ARGS" | sed "s|@SHARE@|$out/share|g")
	# The exact command, for the results' provenance (fixtures.sh).
	echo "$QEMU $QEMU_ARGS -kernel ${KERNEL_IMAGE:-$KDIR/image} -initrd initramfs -append '$CMDLINE'" \
		"-nographic -no-reboot $SHARE_ARGS" >"$out/qemu.cmd"
	# shellcheck disable=SC2086
	boot_guest "$out" "$initrd" "$share"
	rc=$?
	if [ "${LAB_RETRY:-1}" = 1 ] && { [ "$rc" -eq 124 ] || locked_up "$out/console.log"; }; then
		# A whole guest frozen: no step's guard fired, no lockup printed (3 of
		# ~30 x86 boots here, never arm64; QEMU's nested SVM under TCG?), or
		# the guest kernel's own soft-lockup detector ended the boot (a vCPU
		# thread stuck in KVM_RUN for 26 s, x86-svm in CI under load). Once
		# more, the first boot kept beside it; a second one is a failure.
		say "$ISA: the guest froze (QEMU still running after ${LAB_TIMEOUT:-420} s, or a soft lockup: kept as console.hung.log, share.hung); booting once more"
		mv "$out/console.log" "$out/console.hung.log"
		rm -rf "$out/share.hung"
		mv "$out/share" "$out/share.hung"
		mkdir "$out/share"
		boot_guest "$out" "$initrd" "$share"
		rc=$?
	fi
	boot=$(elapsed "$t1")
	[ "$rc" -eq 0 ] || say "$ISA: $QEMU exited with status $rc (see $out/console.log)"
	echo "$boot" >"$out/boot-seconds"
	if [ -n "$run" ]; then
		say "$ISA: boot+run ${boot} s with $run: results in $out/share"
		echo "0 passed, 0 failed"
		return 0
	fi
	sh "$LAB/check.sh" "$ISA" "$out" >"$out/check.log" 2>&1
	grep -E '^(FAIL|SKIP|NOTE)' "$out/check.log" | sed "s/^/lab: $ISA: /" >&2
	line=$(tail -n 1 "$out/check.log")
	say "$ISA: boot+run ${boot} s, total $(elapsed "$t0") s: $line ($out)"
	echo "$line"
}

pass=0 fail=0
for i in $isas; do
	if [ -n "$par" ]; then
		(run_isa "$i" >"$LAB_CACHE/.result-$i" 2>&1; cat "$LAB_CACHE/.result-$i" >&2) &
	else
		(run_isa "$i") >"$LAB_CACHE/.result-$i"
	fi
done
wait
for i in $isas; do
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$LAB_CACHE/.result-$i" | tail -n 1)
	[ -n "$line" ] || line="0 passed, 1 failed"
	p=$(echo "$line" | cut -d' ' -f1) f=$(echo "$line" | cut -d' ' -f3)
	pass=$((pass + p)) fail=$((fail + f))
	rm -f "$LAB_CACHE/.result-$i"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
