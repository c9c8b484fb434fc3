#!/bin/sh
# exitgen on a live KVM: its printed counts must equal predictions computed
# here independently of its own code, and a guest that misbehaves (--inject)
# must make it fail with exit 1. (exitgen.sh checks its options.)
. "$(dirname "$0")/lib.sh"
need_kvm

# eg ARGS...: exitgen, bounded, so that a guest that never ends fails the test.
eg() { timeout "${EXITGEN_TIMEOUT:-120}" "$EXITGEN" "$@"; }

# field KEY LINE: the word after KEY in a "key value key value" line.
field() { echo "$2" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'; }

# --pin: vCPU i may run only on the i-th CPU this process may use (mod their
# number), read from /proc while the threads wait for SIGUSR1; the
# expected CPUs come from this shell's own Cpus_allowed_list.
cpus=$(awk '/^Cpus_allowed_list/ { n = split($2, r, ","); for (i = 1; i <= n; i++) {
	if (split(r[i], ab, "-") == 1) ab[2] = ab[1]; for (c = ab[1]; c <= ab[2]; c++) printf "%d ", c } }' \
	/proc/self/status)
ncpu=$(echo $cpus | wc -w)
want=$(for i in 0 1 2; do echo "exitgen-vcpu$i=$(echo $cpus | cut -d' ' -f$((i % ncpu + 1)))"; done)
# --start-on-usr1 holds the vCPUs until this shell has read them (a fixed
# sleep raced a loaded lab guest: the run had ended before the read).
"$EXITGEN" --pin --vcpus 3 --io 10 --start-on-usr1 --give-up 60 --quiet >"$TMP/pin.out" 2>&1 &
pin_pid=$!
read_pins() {
	for t in /proc/$pin_pid/task/*; do
		echo "$(cat "$t/comm")=$(awk '/^Cpus_allowed_list/ { print $2 }' "$t/status")"
	done 2>/dev/null | grep '^exitgen-vcpu' | sort
}
tries=0
while got=$(read_pins) && [ "$(echo "$got" | grep -c '=.')" -lt 3 ] && [ $tries -lt 300 ]; do
	sleep 0.1; tries=$((tries + 1))
done
kill -USR1 $pin_pid 2>/dev/null
wait $pin_pid
eq "exitgen --pin exit status" "$?" 0
eq "exitgen --pin: each vCPU thread's CPUs" "$(echo $got)" "$(echo $want)"

# predict MODE BATCH IO MMIO HLT: sets p_io p_mmio p_hlt, per vCPU per pass.
predict() {
	if [ "$1" = pv ]; then
		p_io=$((($3 + $4 + $2 - 1) / $2 + 1)) p_mmio=0
	else
		p_io=$(($3 + 1)) p_mmio=$4
	fi
	p_hlt=$5
}

# check_vcpus OUT K IO MMIO HLT [SECONDS]: every vCPU line equals passes x
# prediction (passes = 1 without --seconds), and the total line adds them up.
check_vcpus() {
	out=$1 k=$2 io=$3 mmio=$4 hlt=$5 seconds=${6:-}
	eq "vcpu lines ($out)" "$(grep -c '^vcpu ' "$out")" "$k"
	t_io=0 t_mmio=0 t_hlt=0 i=0
	while [ "$i" -lt "$k" ]; do
		l=$(grep "^vcpu $i tid " "$out")
		n=$(field passes "$l")
		if [ -z "$seconds" ]; then
			eq "vcpu $i passes" "$n" 1
		else
			check "vcpu $i passes >= 1 ($n)" [ "${n:-0}" -ge 1 ]
		fi
		n=${n:-0}
		eq "vcpu $i ops_io" "$(field ops_io "$l")" $((n * io))
		eq "vcpu $i ops_mmio" "$(field ops_mmio "$l")" $((n * mmio))
		eq "vcpu $i hlt" "$(field hlt "$l")" $((n * hlt))
		eq "vcpu $i KVM_EXIT_IO" "$(field KVM_EXIT_IO "$l")" $((n * p_io))
		eq "vcpu $i KVM_EXIT_MMIO" "$(field KVM_EXIT_MMIO "$l")" $((n * p_mmio))
		eq "vcpu $i KVM_EXIT_HLT" "$(field KVM_EXIT_HLT "$l")" $((n * p_hlt))
		t_io=$((t_io + n * p_io)) t_mmio=$((t_mmio + n * p_mmio)) t_hlt=$((t_hlt + n * p_hlt))
		i=$((i + 1))
	done
	l=$(grep '^total ' "$out")
	eq "total KVM_EXIT_IO" "$(field KVM_EXIT_IO "$l")" "$t_io"
	eq "total KVM_EXIT_MMIO" "$(field KVM_EXIT_MMIO "$l")" "$t_mmio"
	eq "total KVM_EXIT_HLT" "$(field KVM_EXIT_HLT "$l")" "$t_hlt"
	check "total elapsed_us is a number" [ "$(field elapsed_us "$l")" -ge 0 ]
}

# run_case K MODE BATCH IO MMIO HLT: one run, every printed count checked.
run_case() {
	k=$1 mode=$2 batch=$3 io=$4 mmio=$5 hlt=$6
	set -- --vcpus "$k" --mode "$mode" --io "$io" --mmio "$mmio" --hlt "$hlt"
	[ "$mode" = pv ] && set -- "$@" --batch "$batch"
	eg "$@" >"$TMP/out" 2>"$TMP/err"
	eq "exit status of exitgen $*" "$?" 0
	eq "stderr of exitgen $*" "$(cat "$TMP/err")" ""
	[ "$mode" = pv ] || batch=0
	eq "header of exitgen $*" "$(sed -n '1s/pid [0-9]* /pid P /p' "$TMP/out")" \
		"exitgen: pid P vcpus $k mode $mode io $io mmio $mmio hlt $hlt batch $batch isa x86 cpuid 0 msr 0 pf 0"
	predict "$mode" "$batch" "$io" "$mmio" "$hlt"
	check_vcpus "$TMP/out" "$k" "$io" "$mmio" "$hlt"
}

run_case 1 nopv 0 1000 500 100
run_case 4 nopv 0 1000 500 100
run_case 1 pv 64 1000 500 100
run_case 4 pv 64 1000 500 100
run_case 1 nopv 0 0 0 0
run_case 4 pv 64 0 0 0
run_case 1 nopv 0 0 7 0
run_case 4 nopv 0 0 0 37
run_case 4 pv 64 0 0 37
run_case 1 pv 64 64 0 0       # an exact batch: no partial doorbell
run_case 1 pv 64 0 65 0       # one record over: one partial doorbell
run_case 1 pv 64 40 24 0      # io and mmio share one batch
run_case 2 pv 1 5 3 2
run_case 1 pv 1024 100000 100000 0
run_case 1 nopv 0 70000 0 0   # more than 16 bits of loop counter

# In-kernel operations: counted by the guest (cpuid, msr) or by the pages it
# made resident (pf); none reaches the VMM, so the exits stay those of io.
# check_kernel_ops OUT K CPUID MSR PF [SECONDS]
check_kernel_ops() {
	i=0
	while [ "$i" -lt "$2" ]; do
		l=$(grep "^vcpu $i tid " "$1")
		n=$(field passes "$l")
		[ -n "$6" ] || eq "vcpu $i passes" "$n" 1
		eq "vcpu $i cpuid" "$(field cpuid "$l")" $((n * $3))
		eq "vcpu $i msr" "$(field msr "$l")" $((n * $4))
		eq "vcpu $i pf" "$(field pf "$l")" $((n * $5))
		eq "vcpu $i KVM_EXIT_IO" "$(field KVM_EXIT_IO "$l")" $((n * 11))
		i=$((i + 1))
	done
}
eg --vcpus 3 --cpuid 1000 --msr 700 --pf 300 --io 10 >"$TMP/out" 2>"$TMP/err"
eq "cpuid/msr/pf exit status" "$?" 0
check_kernel_ops "$TMP/out" 3 1000 700 300 ""
# 256 fresh pages, not 4096: under the lab host's TCG one pass of 4096 took
# longer than --seconds itself.
eg --seconds 1 --cpuid 9 --msr 5 --pf 256 --io 10 >"$TMP/out" 2>"$TMP/err"
eq "cpuid/msr/pf --seconds exit status" "$?" 0
check_kernel_ops "$TMP/out" 1 9 5 256 seconds
check "--seconds ran the page-fault pass more than once" \
	[ "$(field passes "$(grep '^vcpu 0' "$TMP/out")")" -gt 1 ]

# The work done is identical in both modes; only the exits differ.
eg --io 300 --mmio 200 --vcpus 2 >"$TMP/nopv" &&
	eg --io 300 --mmio 200 --vcpus 2 --mode pv >"$TMP/pv"
eq "both modes ran" "$?" 0
eq "same ops in nopv and pv" "$(grep '^vcpu' "$TMP/nopv" | cut -d' ' -f1,2,5-10)" \
	"$(grep '^vcpu' "$TMP/pv" | cut -d' ' -f1,2,5-10)"

# --seconds: whole passes until the time is up; counts are passes x per pass.
eg --seconds 0.3 --vcpus 2 --mode pv --batch 16 --io 100 --mmio 9 --hlt 3 \
	>"$TMP/out" 2>"$TMP/err"
eq "--seconds exit status" "$?" 0
predict pv 16 100 9 3
check_vcpus "$TMP/out" 2 100 9 3 seconds
check "--seconds 0.3 ran at least 0.3 s" \
	[ "$(field elapsed_us "$(grep '^total' "$TMP/out")")" -ge 300000 ]

# --pause-us: each vCPU sleeps between passes, so 0.5 s of 20 ms pauses makes
# at most 26 passes (exact counts per pass as always).
eg --seconds 0.5 --pause-us 20000 --io 5 >"$TMP/out" 2>"$TMP/err"
eq "--pause-us exit status" "$?" 0
n=$(field passes "$(grep '^vcpu 0' "$TMP/out")")
between() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
check "--pause-us 20000 for 0.5 s: $n passes, 1 to 26" between "${n:-0}" 1 26
eq "--pause-us: KVM_EXIT_IO = passes x 6" "$(field KVM_EXIT_IO "$(grep '^vcpu 0' "$TMP/out")")" $((n * 6))

# --start-delay: the VM and its named threads exist before the first KVM_RUN,
# and the tids printed at the end are those threads.
# (a fresh file: the loop below may look before the background shell truncates one)
# --start-on-usr1 too: the run waits for this shell's look (a loaded lab guest
# had ended the run before the look, in a CI rehearsal)
rm -f "$TMP/out"
timeout 120 "$EXITGEN" --vcpus 3 --io 10 --start-delay 1500 --start-on-usr1 --seconds 0.5 \
	>"$TMP/out" 2>"$TMP/err" &
tpid=$!
n=0
while ! grep -q '^exitgen: pid' "$TMP/out" 2>/dev/null && [ "$n" -lt 200 ]; do
	sleep 0.05
	n=$((n + 1))
done
pid=$(field pid "$(head -n 1 "$TMP/out")")
eq "header pid" "$pid" "$(pgrep -P "$tpid")"
names=$(cat /proc/"$pid"/task/*/comm 2>/dev/null | sort | tr '\n' ' ')
eq "thread names" "$names" "exitgen exitgen-vcpu0 exitgen-vcpu1 exitgen-vcpu2 "
tids=$(ls /proc/"$pid"/task 2>/dev/null | grep -vx "$pid" | sort | tr '\n' ' ')
kill -USR1 "$pid" 2>/dev/null
wait "$tpid"
eq "--start-delay exit status" "$?" 0
eq "printed tids are the vCPU threads" \
	"$(grep '^vcpu' "$TMP/out" | awk '{ print $4 }' | sort | tr '\n' ' ')" "$tids"

eg --quiet --io 10 --mode pv >"$TMP/out" 2>&1
eq "--quiet exit status" "$?" 0
eq "--quiet prints nothing" "$(cat "$TMP/out")" ""

# A guest that does what was not asked for must fail the run loudly.
for inj in port read hlt; do
	for mode in nopv pv; do
		eg --io 5 --mmio 5 --mode "$mode" --inject "$inj" >"$TMP/out" 2>"$TMP/err"
		eq "--inject $inj --mode $mode exit status" "$?" 1
		check "--inject $inj --mode $mode says why" grep -q 'exitgen: vcpu 0: ' "$TMP/err"
	done
done

# --give-up: a run far longer than its limit (10^9 port writes: minutes at
# any exit rate) fails with status 1 within seconds, saying which vCPU; one
# that ends first is untouched.
start=$(date +%s)
eg --io 1000000000 --vcpus 2 --give-up 0.5 >"$TMP/out" 2>"$TMP/err"
eq "--give-up 0.5 on an endless run: exit status" "$?" 1
took=$(($(date +%s) - start))
check "--give-up 0.5 on an endless run returned in $took s (well before the run's end)" [ "$took" -le 20 ]
eq "--give-up: one line per vCPU still running" "$(grep -c '^exitgen: vcpu [01]: unexpected: no end 0.5 s after the start (passes 0, KVM_EXIT_IO [0-9]*, ' "$TMP/err")" 2
check "--give-up: no report of half-counts on stdout" sh -c "! grep -q '^total' '$TMP/out'"
eg --io 5 --give-up 60 >"$TMP/out" 2>"$TMP/err"
eq "--give-up 60 on a short run: exit status" "$?" 0
check "--give-up 60 on a short run: the report" grep -q '^total KVM_EXIT_IO 6 ' "$TMP/out"

summary
