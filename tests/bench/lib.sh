# Shared by the benchmark scripts (sourced; POSIX sh). Benchmarks print
# numbers against a peer measured in the same run; they never pass or fail.
#
# Env (set by run.sh): O, KES, EXITGEN, BENCH_DIR (cache and CSV),
# RUSAGE, WORDSUM, DATCOUNT, CSV (results file).
O=${O:-build}
KES=${KES:-./kvm-exitstat}
EXITGEN=${EXITGEN:-$O/exitgen}
BENCH_DIR=${BENCH_DIR:-$O/bench}
RUSAGE=${RUSAGE:-$O/tests/bench/rusage}
WORDSUM=${WORDSUM:-$O/tests/bench/wordsum}
DATCOUNT=${DATCOUNT:-$O/tests/tools/datcount}
CSV=${CSV:-$BENCH_DIR/results.csv}

CSV_COLUMNS=group,case,events,peer,n,wall_s,cpu_s,user_s,sys_s,maxrss_kb,ns_per_event,x_report_cpu,note

# bench_need_root NAME: root (tracefs; the report groups read files made
# where KVM is, here or in the lab host, and need only that).
bench_need_root() { # NAME
	if [ "$(id -u)" != 0 ]; then
		echo "$1: needs root, skipped"
		return 1
	fi
	mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
}

# Where the recordings come from: this host's KVM, or, on a host without
# /dev/kvm, the lab host's (tests/lab/host.sh: the x86-svm lab kernel under
# QEMU with this machine's root), in the kvm_exit shape (lab-record.sh). The
# lab's are cached by what makes them: the lab's lock, its x86-svm setting,
# exitgen's source and lab-record.sh.
if [ -e /dev/kvm ]; then
	REC_DIR=$BENCH_DIR REC_WHERE=host
else
	REC_KEY=$(cat tests/lab/packages.lock tests/lab/isa/x86-svm.sh tools/exitgen/*.c tools/exitgen/*.h \
		tests/bench/lab-record.sh 2>/dev/null | sha256sum | cut -c1-12)
	REC_DIR=$BENCH_DIR/lab-$REC_KEY REC_WHERE=lab
fi

# lab_prepare SPEC...: the lab's recordings (lab-record.sh SPECs, rec:N or mig:N)
# that are not cached yet, all in one boot of the lab host.
lab_prepare() {
	[ "$REC_WHERE" = lab ] || return 0
	want=
	for s in "$@"; do
		n=${s#*:}
		case $s in rec:*) f=$REC_DIR/rec-${n}M-pin.dat ;; *) f=$REC_DIR/mig-${n}M.dat ;; esac
		[ -s "$f" ] && [ -s "$f.events" ] || want="$want $s"
	done
	[ -n "$want" ] || return 0
	mkdir -p "$REC_DIR"
	echo "bench: no /dev/kvm here: recording$want in the lab host (tests/lab/host.sh; minutes, once: cached in $REC_DIR)" >&2
	# shellcheck disable=SC2086
	KES=$KES EXITGEN=$EXITGEN DATCOUNT=$DATCOUNT \
		sh tests/lab/host.sh --quiet --out "$REC_DIR" --env KES --env EXITGEN --env DATCOUNT --env LAB_MIX \
		-- sh tests/bench/lab-record.sh "$REC_DIR" $want >&2
}

# in_lab GROUP: on a host without /dev/kvm, the live group GROUP runs inside
# the lab host, its rows appended to $CSV; 1 when it ran there (or failed to).
in_lab() {
	[ "$REC_WHERE" = lab ] || return 1
	d=$BENCH_DIR/lab-$1
	mkdir -p "$d"
	rm -f "$d/results.csv"
	echo "$1: no /dev/kvm here: run inside the lab host (QEMU TCG: absolute times are TCG's, far slower than a real host's; compare the observers' ratios to each other, all measured in the same guest)"
	O=$O KES=$KES EXITGEN=$EXITGEN BENCH_DIR=$d CSV=$d/results.csv sh tests/lab/host.sh --quiet --out "$d" --env O --env KES \
		--env EXITGEN --env BENCH_DIR --env CSV --env IO_LIVE --env N_LIVE --env IO_SERVE --env N_SERVE \
		--env IO_INK --env N_INK \
		-- sh "tests/bench/$1.sh" || echo "($1 in the lab host failed: rc $?)"
	[ -f "$d/results.csv" ] && sed "s/\$/ (lab host)/" "$d/results.csv" >>"$CSV"
	return 0
}

# calc EXPR VAR=VALUE...: awk arithmetic (%.6g); fmt FORMAT EXPR VAR=VALUE...: printf'd.
awk_vars() { for a in "$@"; do printf ' -v %s' "$a"; done; }
calc() {
	e=$1
	shift
	# shellcheck disable=SC2046
	awk $(awk_vars "$@") "BEGIN { print $e }"
}
fmt() {
	f=$1 e=$2
	shift 2
	# shellcheck disable=SC2046
	awk $(awk_vars "$@") "BEGIN { printf \"$f\", $e }"
}
less_than() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }

# measure N CMD...: runs CMD N times, stdout and stderr to /dev/null. Sets
#   W  best (lowest) wall s      C  best (lowest) user + sys s
#   U, S  user and sys of the run with the best C   M  highest peak RSS KiB
#   RC exit status of the last run
# Wall and CPU are best-of-N separately: on a shared machine the lowest is
# the one least disturbed by the neighbours.
measure() {
	n=$1
	shift
	W= C= U= S= M=0 RC=0
	i=0
	while [ $i -lt "$n" ]; do
		"$RUSAGE" -o "$BENCH_DIR/.ru" -- "$@" >/dev/null 2>&1
		read -r w u s m RC <"$BENCH_DIR/.ru"
		c=$(calc "u + s" u="$u" s="$s")
		{ [ -z "$W" ] || less_than "$w" "$W"; } && W=$w
		if [ -z "$C" ] || less_than "$c" "$C"; then C=$c U=$u S=$s; fi
		[ "$m" -gt "$M" ] && M=$m
		i=$((i + 1))
	done
}

# csv_row FIELD...: one line of $CSV (fields must not contain commas).
csv_row() {
	line=
	for x in "$@"; do line=${line:+$line,}$x; done
	echo "$line" >>"$CSV"
}

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# recording N: prints the path of a real recording of about N million
# events, made once with our own `record` of exitgen (2 vCPUs, ~7 events
# per exit: IO exits at 72000 per vCPU per million) and kept in $BENCH_DIR;
# its event count (libtracecmd's) is in PATH.events. exitgen --pin keeps
# vCPU i on CPU i: left to the scheduler, on 2026-12-04 88 % of the 4 M
# recording's events landed on one CPU, both threads on both CPUs, and the
# split (report on both cores) measured the scheduler's luck, not report.
# migrating N is the other case.
REC_IO_PER_M=${REC_IO_PER_M:-72000}
recording() {
	f=$REC_DIR/rec-${1}M-pin.dat
	[ "$REC_WHERE" = lab ] && { lab_prepare "rec:$1" || return 1; }
	if [ ! -s "$f" ] || [ ! -s "$f.events" ]; then
		"$KES" record -q -o "$f.tmp" -- "$EXITGEN" --io $((REC_IO_PER_M * $1)) --vcpus 2 \
			--pin --quiet >&2 || { rm -f "$f.tmp"; return 1; }
		"$DATCOUNT" "$f.tmp" | awk '$1 == "total" { print $2 }' >"$f.events"
		mv "$f.tmp" "$f"
	fi
	echo "$f"
}

# migrating N: a recording like recording N's, made while two busy loops
# push exitgen's vCPU threads between the CPUs (the bench's other recordings
# keep each on one CPU), also cached. The loops end with it, or in 120 s.
migrating() {
	f=$REC_DIR/mig-${1}M.dat
	[ "$REC_WHERE" = lab ] && { lab_prepare "mig:$1" || return 1; }
	if [ ! -s "$f" ] || [ ! -s "$f.events" ]; then
		timeout 120 sh -c 'while :; do :; done' &
		l1=$!
		timeout 120 sh -c 'while :; do :; done' &
		l2=$!
		"$KES" record -q -o "$f.tmp" -- "$EXITGEN" --io $((REC_IO_PER_M * $1)) --vcpus 2 \
			--quiet >&2
		rc=$?
		kill "$l1" "$l2" 2>/dev/null
		wait "$l1" "$l2" 2>/dev/null
		[ "$rc" = 0 ] || { rm -f "$f.tmp"; return 1; }
		"$DATCOUNT" "$f.tmp" | awk '$1 == "total" { print $2 }' >"$f.events"
		mv "$f.tmp" "$f"
	fi
	echo "$f"
}

# compressed N: the same recording as trace-cmd's v7 with zstd
# (`trace-cmd convert --file-version 7 --compression zstd`), also cached.
compressed() {
	src=$(recording "$1") || return 1
	f=$REC_DIR/z7-${1}M-pin.dat
	if [ ! -s "$f" ]; then
		trace-cmd convert -i "$src" -o "$f.tmp" --file-version 7 --compression zstd \
			>/dev/null 2>&1 || { rm -f "$f.tmp"; return 1; }
		mv "$f.tmp" "$f"
	fi
	echo "$f"
}

events_of() { cat "$(echo "$1" | sed 's/z7-\([0-9]*M-pin\)\.dat$/rec-\1.dat/').events"; }
mb_of() { fmt "%.0f" "s / 1e6" s="$(stat -c %s "$1")"; }
