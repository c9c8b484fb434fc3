#!/bin/sh
# guest-map.sh EXITGEN DIR NAME [EXITGEN-ARGS...]: as root on a KVM host (the
# lab host: tests/lab/host.sh), runs EXITGEN ARGS --guest-map DIR/NAME.map
# while a private tracefs instance records kvm:kvm_exit, then attributes every
# exit to the map's symbols: "REASON SYMBOL COUNT PC..." lines (the distinct
# guest pcs seen). Files: DIR/NAME.{map,out,trace}. The exit's pc is read from
# x86's "rip X", arm64's "PC: X", riscv's "sepc=X" or powerpc's "pc X"; its
# reason from x86's "reason X" or arm64's "(EC)".
set -u
[ $# -ge 3 ] || { echo "usage: guest-map.sh EXITGEN DIR NAME [ARGS...]" >&2; exit 2; }
EG=$1 DIR=$2 NAME=$3
shift 3
T=/sys/kernel/tracing
[ -d $T/instances ] || mount -t tracefs nodev $T || exit 1
I=$T/instances/guest-map.$$
mkdir $I || exit 1
echo 1 >$I/events/kvm/kvm_exit/enable
"$EG" "$@" --guest-map "$DIR/$NAME.map" >"$DIR/$NAME.out" 2>&1
rc=$?
echo 0 >$I/events/kvm/kvm_exit/enable
cat $I/trace >"$DIR/$NAME.trace"
rmdir $I
echo "exitgen $* (status $rc):"
cat "$DIR/$NAME.out" "$DIR/$NAME.map"
# hex() by hand: mawk and busybox awk have no strtonum.
awk '
function hex(s,  v, i) { sub(/^0x/, "", s); sub(/,$/, "", s); v = 0
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", tolower(substr(s, i, 1))) - 1
	return v }
FNR == NR { a[n + 0] = hex($1); nm[n + 0] = $3; n++; next }
/kvm_exit:|kvm_guest_exit:/ { r = "?"; pc = -1
	for (i = 1; i <= NF; i++) {
		if ($i == "reason") r = $(i + 1)
		else if ($i ~ /^\(.*\),$/) r = substr($i, 2, length($i) - 3)
		if ($i == "rip" || $i == "PC:" || $i == "pc") pc = hex($(i + 1))
		else if ($i ~ /^sepc=/) pc = hex(substr($i, 6))
	}
	s = "(none)"; for (k = 0; k < n; k++) if (a[k] <= pc) s = nm[k]
	key = r " " s; c[key]++
	if (!((key, pc) in seen)) { seen[key, pc] = 1; pcs[key] = pcs[key] sprintf(" 0x%x", pc) } }
END { for (k in c) print k, c[k] pcs[k] }' "$DIR/$NAME.map" "$DIR/$NAME.trace" | sort
exit $rc
