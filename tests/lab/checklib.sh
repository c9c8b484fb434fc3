# checklib.sh: the comparisons check.sh makes on a lab run's results, shared
# with tests/e2e/lab-fixtures.sh (the same checks on the recordings kept as
# fixtures). Sourced; the caller defines ok, bad, eq and check (counting
# passes and failures) and sets EXPECT (the isa/<ISA>.expect file).
# Expected values come from exitgen's printed counts and the .expect
# arithmetic, never from the tool.
TAB=$(printf '\t')
between() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }

# ---- exitgen's counts and the .expect arithmetic ----------------------------

# eg_vars FILE [VCPU]: shell assignments of exitgen's fields, summed over its
# vCPU lines (or VCPU's line only: then vcpus=1), plus vcpus.
eg_vars() {
	awk -v want="${2:-}" '$1 == "vcpu" && (want == "" || $2 == want) {
		n++
		for (i = 5; i < NF; i += 2) s[$i] += $(i + 1)
	} END {
		printf "vcpus=%d\n", n
		for (k in s) printf "%s=%d\n", k, s[k]
	}' "$1"
}

# eg_tids FILE: "vcpu tid" per vCPU line.
eg_tids() { awk '$1 == "vcpu" { print $2, $4 }' "$1"; }

# expect_lines: "key<TAB>op<TAB>expr" for each rule of the .expect file.
expect_lines() {
	sed 's/#.*//' "$EXPECT" | awk '
	{
		if ((i = index($0, " = ")) > 0) op = "="
		else if ((i = index($0, " ~ ")) > 0) op = "~"
		else next
		k = substr($0, 1, i - 1); e = substr($0, i + 3)
		gsub(/^[ \t]+|[ \t]+$/, "", k); gsub(/^[ \t]+|[ \t]+$/, "", e)
		print k "\t" op "\t" e
	}'
}

# calc VARS EXPR: EXPR (shell arithmetic) with exitgen's fields; unset names are 0.
calc() { (eval "$1" && eval "echo \$(( $2 ))") 2>/dev/null || echo "?"; }

# expected VARS PREFIX: "key<TAB>op<TAB>value" for the rules of one kind
# (PREFIX "" for exit reasons, "bucket:", "sub:" or "guest:"), value evaluated.
expected() {
	expect_lines | while IFS="$TAB" read -r k op e; do
		case $2 in
		"") case $k in *:*) continue ;; esac ;;
		*) case $k in "$2"*) k=${k#"$2"} ;; *) continue ;; esac ;;
		esac
		if [ "$op" = "=" ]; then
			echo "$k$TAB=$TAB$(calc "$1" "$e")"
		elif [ "$e" = any ]; then
			echo "$k$TAB~${TAB}any"
		else # LO..HI, each an expression
			echo "$k$TAB~$TAB$(calc "$1" "${e%%..*}")..$(calc "$1" "${e#*..}")"
		fi
	done
}

# ---- the tool's CSV reports --------------------------------------------------

# rows CSV [TID]: "name<TAB>count<TAB>timed<TAB>sum" of the rows of one
# thread (-1: the whole) without sub-key; with TID "sub", rows with a sub-key
# as name@sub. count is every exit (timed and untimed), column 18 the timed.
rows() {
	awk -F, -v tid="${2:--1}" 'NR > 1 && $1 != "name" {
		if (tid == "sub") { if ($17 == "") next; n = $1 "@" $17 }
		else { if ($2 != tid || $17 != "") next; n = $1 }
		c[n] += $4; t[n] += $18; s[n] += $8
	} END { for (n in c) printf "%s\t%d\t%d\t%s\n", n, c[n], t[n], s[n] }' "$1"
}

# guest_rows CSV: "reason@symbol<TAB>count" of report --by-guest -f csv (pcs
# without a symbol: reason@?), summed over the symbol's pcs.
guest_rows() {
	awk -F, 'NR > 1 && $2 != "none" { n = $1 "@" ($11 == "" ? "?" : $11); c[n] += $3 }
		END { for (n in c) printf "%s\t%d\n", n, c[n] }' "$1"
}

# count_of ROWS NAME: the count (every exit) of NAME in rows() output (0 if none).
count_of() { echo "$1" | awk -F"$TAB" -v n="$2" '$1 == n { print $2; f = 1 } END { if (!f) print 0 }'; }

# in_range VALUE SPEC: SPEC "any" or "LO..HI".
in_range() {
	case $2 in
	any) return 0 ;;
	*..*) [ "$1" -ge "${2%..*}" ] && [ "$1" -le "${2#*..}" ] ;;
	*) return 1 ;;
	esac
}

# match_rows WHAT ROWS EXPECTED [strict]: every rule against the rows; with
# strict, a row no rule names is a failure too (TIMEINGUEST aside).
match_rows() {
	what=$1 got=$2 want=$3 strict=${4:-}
	echo "$want" | while IFS="$TAB" read -r k op v; do
		[ -n "$k" ] || continue
		n=$(count_of "$got" "$k")
		if [ "$op" = "=" ]; then
			echo "eq	$what $k	$n	$v"
		else
			in_range "$n" "$v" && echo "ok" || echo "bad	$what $k: $n not in $v"
		fi
	done
	[ -n "$strict" ] || return 0
	echo "$got" | while IFS="$TAB" read -r k n _; do
		[ -n "$k" ] && [ "$k" != TIMEINGUEST ] || continue
		echo "$want" | cut -f1 | grep -qxF -- "$k" || echo "bad	$what: unexpected reason '$k' ($n)"
	done
}

# apply: runs the verdict lines (match_rows' and others') written to $V, in
# this shell: read from a pipe, the counters would change in a subshell only.
V=${TMP:-${TMPDIR:-/tmp}}/kes-verdicts.$$
apply() {
	while IFS="$TAB" read -r v a b c; do
		case $v in
		eq) eq "$a" "$b" "$c" ;;
		ok) ok ;;
		bad) bad "$a" ;;
		esac
	done <"$V"
	rm -f "$V"
}

# exits_match CSV EXITGEN WHAT: the kvm_exit table of CSV against the rules.
exits_match() {
	vars=$(eg_vars "$2")
	got=$(rows "$1")
	match_rows "$3" "$got" "$(expected "$vars" "")" strict >"$V"; apply
}

# user_match CSV EXITGEN WHAT: every KVM_EXIT_* row equals exitgen's own count.
# KVM_RUN returns that failed with EINTR (exitgen's KVM_EXIT_INTR) are
# "restart" where the input has the errno; trace-cmd's text prints them as
# KVM_EXIT_INTR (libtraceevent 1.7.1 gets the print fmt's errno test wrong),
# so both rows count as one.
user_match() {
	vars=$(eg_vars "$2")
	want=$(echo "$vars" | sed -n 's/^\(KVM_EXIT_[A-Z0-9_]*\)=\(.*\)/\1	=	\2/p' |
		sed 's/^KVM_EXIT_INTR	/restart	/')
	got=$(rows "$1" | awk -F"$TAB" -v OFS="$TAB" '$1 == "KVM_EXIT_INTR" { $1 = "restart" }
		{ c[$1] += $2; t[$1] += $3; s[$1] += $4 } END { for (k in c) print k, c[k], t[k], s[k] }')
	match_rows "$3" "$got" "$want" strict >"$V"; apply
}

# per_vcpu W CSV KIND [EXITGEN]: one table per vCPU thread (exitgen's tids), each exact
# for that vCPU alone, and the tables add up to the whole.
per_vcpu() {
	w=$1 csv=$2 kind=$3 eg=${4:-$S/$1.exitgen}
	tids=$(awk -F, 'NR > 1 && $2 != -1 { print $2 }' "$csv" | sort -un | tr '\n' ' ')
	eq "$w: --per-vcpu ($kind) threads" "$tids" "$(eg_tids "$eg" | awk '{ print $2 }' | sort -n | tr '\n' ' ')"
	check "$w: --per-vcpu ($kind) with 2+ vCPUs" [ "$(echo "$tids" | wc -w)" -ge 2 ]
	eg_tids "$eg" | while read -r i t; do
		vars=$(eg_vars "$eg" "$i")
		if [ "$kind" = exits ]; then
			match_rows "$w: vcpu $i" "$(rows "$csv" "$t")" "$(expected "$vars" "")" strict
		fi
	done >"$V"; apply
	sums=$(awk -F, 'NR > 1 && $17 == "" && $2 != -1 { s[$1] += $4 } END { for (k in s) print k, s[k] }' "$csv" | sort)
	whole=$(awk -F, 'NR > 1 && $17 == "" && $2 == -1 { s[$1] += $4 } END { for (k in s) print k, s[k] }' "$csv" | sort)
	eq "$w: --per-vcpu ($kind) tables sum to the whole" "$sums" "$whole"
}


# text_untimed_uexits TXT: from trace-cmd report's text (an independent
# reader), the userspace exits with no return seen after them: no kvm_entry
# (nor x86's kvm_fpu load) and no further userspace exit on their thread up to
# the end of the trace. A userspace exit right after another (KVM_RUN returned
# -EINTR before entering the guest: a signal was pending) ends the one before
# it, which is timed up to it (pair.c's back_to_back). The event name follows
# the timestamp, which trace-cmd 3.3 (riscv64's, Debian 13) precedes with the
# latency flags ("d....").
text_untimed_uexits() {
	awk '{ e = ""; for (i = 3; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { e = $(i + 1); a = $(i + 2); break } }
		e == "kvm_userspace_exit:" { open[$1] = 1 }
		e == "kvm_entry:" || (e == "kvm_fpu:" && a == "load") { open[$1] = 0 }
		END { for (t in open) if (open[t]) u++; print u + 0 }' "$1"
}

# kvm_exit_lines TXT: trace-cmd report's own count of kvm_exit events.
kvm_exit_lines() { grep -c ' kvm_exit: ' "$1"; }
