#!/bin/sh
# serve --by-guest on a live KVM: the kvm_exit series split by the guest
# function at each exit (exitgen's own map of its guest code), each equal to
# exitgen's counts; --guest-top 1 keeps the first function of each reason and
# counts the rest in guest_function="other" (a bounded label set). Misuse:
# one line, non-zero exit.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_kvm
for t in curl python3; do
	command -v $t >/dev/null 2>&1 || { bad "needs $t (make deps)"; summary; exit 1; }
done
PIDS=
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT

# sample FILE REASON FUNCTION: kvm_exitstat_exits_total of source kvm_exit
sample() {
	awk -v r="reason=\"$2\"" -v f="guest_function=\"$3\"" '/^kvm_exitstat_exits_total\{/ &&
		index($0, "source=\"kvm_exit\"") && index($0, r) && index($0, f) { s += $NF } END { print s + 0 }' "$1"
}
sum_of() { awk -v k="$1" '/^vcpu / { for (i = 1; i < NF; i++) if ($i == k) s += $(i + 1) } END { print s + 0 }' "$2"; }

run() { # NAME SERVE-ARGS...: a workload under serve, its page after the run in $TMP/NAME.prom
	name=$1
	shift
	"$EXITGEN" --io 200 --mmio 50 --vcpus 2 --guest-map "$TMP/$name.map" --start-on-usr1 \
		>"$TMP/$name.eg" 2>&1 &
	E=$!
	PIDS="$PIDS $E"
	wait_line "$TMP/$name.eg" '^exitgen: pid'
	"$KES" serve -p "$E" --listen 127.0.0.1:0 --interval 0.3 --by-guest \
		--guest-kallsyms "$TMP/$name.map" "$@" 2>"$TMP/$name.err" &
	S=$!
	PIDS="$PIDS $S"
	wait_line "$TMP/$name.err" 'serving'
	port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$TMP/$name.err")
	wait_traced "$E"
	kill -USR1 "$E"
	wait "$E"
	eq "$name: exitgen exit status" "$?" 0
	sleep 1.5 # a few intervals: the last one folded
	curl -s "http://127.0.0.1:$port/metrics" >"$TMP/$name.prom"
	kill "$S"
	wait "$S"
}

run top2 --guest-top 2
G=$TMP/top2.eg
eq "io at eg_io" "$(sample "$TMP/top2.prom" io eg_io)" "$(sum_of ops_io "$G")"
eq "io at eg_done" "$(sample "$TMP/top2.prom" io eg_done)" "$(sum_of passes "$G")"
eq "npf at eg_mmio" "$(sample "$TMP/top2.prom" npf eg_mmio)" "$(sum_of ops_mmio "$G")"
eq "npf at eg_start (each vCPU's first fetch)" "$(sample "$TMP/top2.prom" npf eg_start)" 2
eq "no other with --guest-top 2" "$(grep -c 'guest_function="other"' "$TMP/top2.prom")" 0
check "a histogram per function too" grep -q 'kvm_exitstat_exit_duration_seconds_bucket{.*guest_function="eg_io"' "$TMP/top2.prom"

run top1 --guest-top 1
G=$TMP/top1.eg
# the first function each reason met: the io loop, the first code fetch
eq "top 1: io at eg_io" "$(sample "$TMP/top1.prom" io eg_io)" "$(sum_of ops_io "$G")"
eq "top 1: io's other" "$(sample "$TMP/top1.prom" io other)" "$(sum_of passes "$G")"
eq "top 1: npf at eg_start" "$(sample "$TMP/top1.prom" npf eg_start)" 2
eq "top 1: npf's other" "$(sample "$TMP/top1.prom" npf other)" "$(sum_of ops_mmio "$G")"
eq "top 1: at most 2 functions per reason" \
	"$(grep '^kvm_exitstat_exits_total{.*source="kvm_exit"' "$TMP/top1.prom" |
		sed 's/.*reason="\([^"]*\)".*guest_function="\([^"]*\)".*/\1 \2/' | sort -u |
		awk '{ n[$1]++ } END { m = 0; for (r in n) if (n[r] > m) m = n[r]; print m }')" 2

for bad in "--guest-top 3" "--by-guest --in-kernel" "--by-guest --guest-top 0" "--by-guest -i /dev/null"; do
	"$KES" serve $bad --listen 127.0.0.1:0 >/dev/null 2>"$TMP/e" &
	p=$!
	sleep 0.5
	kill "$p" 2>/dev/null && bad "serve $bad: still running" || ok
	wait "$p"
	check "serve $bad: refused" [ $? -ne 0 ]
	eq "serve $bad: one line" "$(wc -l <"$TMP/e")" 1
done
summary
