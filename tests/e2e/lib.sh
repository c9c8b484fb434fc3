# Shared helpers for end-to-end tests: ok/bad counters, skip, a summary line.
# Each test script sources this, calls check/skip, and ends with `summary`.
P=0 F=0
KES=${KES:-./kvm-exitstat}
EXITGEN=${EXITGEN:-build/exitgen}
TMP=$(mktemp -d /tmp/kes-e2e.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

ok()  { P=$((P + 1)); }
bad() { F=$((F + 1)); echo "FAIL: $*"; }
# check DESCRIPTION COMMAND...: passes when the command succeeds.
check() { _cd=$1; shift; if "$@"; then ok; else bad "$_cd"; fi; }
# eq DESCRIPTION GOT WANT
eq() { if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2' want '$3'"; fi; }
skip() { echo "SKIP: $*"; echo "$P passed, $F failed"; exit 0; }
# need_kvm: root, /dev/kvm and tracefs, or the group is skipped. A group
# that calls need_kvm or have_kvm runs in the lab host on a machine without
# /dev/kvm (tests/run.sh).
have_kvm() { [ "$(id -u)" = 0 ] && [ -w /dev/kvm ]; }
need_kvm() {
	[ "$(id -u)" = 0 ] || skip "needs root"
	[ -w /dev/kvm ] || skip "needs /dev/kvm"
	[ -d /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
		skip "needs tracefs"
}
# unwrap FILE: the table format's header and summary lines as one line each
# (they are wrapped to 80 columns; a continuation starts with blanks).
unwrap() { awk 'NR > 1 && /^ / { sub(/^ +/, " "); printf "%s", $0; next } NR > 1 { print "" } { printf "%s", $0 } END { if (NR) print "" }' "$1"; }
summary() { echo "$P passed, $F failed"; [ "$F" -eq 0 ]; }

# ---- kvm_exit on a live host --------------------------------------------------
# Where kvm_exit fires (an AMD host: the lab host, tests/lab/host.sh), the
# tool's default view is the kvm_exit table; where it never fires (a
# paravirtual host) the userspace exits. Tests that assert KVM_EXIT_* rows ask
# for `--source userspace`, and check the kvm_exit rows too where this host's
# reasons are predicted: the lab's .expect rules over exitgen's own counts
# (tests/lab/isa/*.expect, the same arithmetic the lab's check.sh applies).

# exit_rules: the .expect file of this host's kvm_exit, or nothing.
exit_rules() {
	[ -d /sys/module/kvm_amd ] || return 0
	case $(cat /sys/module/kvm_amd/parameters/npt 2>/dev/null) in
	Y | 1) echo tests/lab/isa/x86-svm.expect ;;
	N | 0) echo tests/lab/isa/x86-svm-nonpt.expect ;;
	esac
}
EXIT_RULES=$(exit_rules)

# exits_exact WHAT CSV EXITGEN-OUT [KIND]: when this host's kvm_exit reasons
# are predicted, every row of CSV's kvm_exit table (report -f csv --source
# exits) is its rule's count over exitgen's printed counts, and no other
# reason appears. KIND "bucket:" checks a --buckets ppc CSV against the
# bucket: rules instead, "sub:" a --by-sub CSV against the sub: rules.
# Elsewhere: nothing (said once).
exits_exact() {
	if [ -z "$EXIT_RULES" ]; then
		[ -n "${_said_rules:-}" ] || echo "NOTE: kvm_exit's reasons are not predicted on this host: userspace exits only"
		_said_rules=1
		return 0
	fi
	EXPECT=$EXIT_RULES
	. tests/lab/checklib.sh
	case ${4:-} in
	bucket:) match_rows "$1 (--buckets ppc)" "$(rows "$2")" "$(expected "$(eg_vars "$3")" bucket:)" strict >"$V"; apply ;;
	sub:) match_rows "$1 (--by-sub)" "$(rows "$2" sub)" "$(expected "$(eg_vars "$3")" sub:)" >"$V"; apply ;;
	*) exits_match "$2" "$3" "$1" ;;
	esac
}
