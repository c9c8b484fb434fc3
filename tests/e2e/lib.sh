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
check() { d=$1; shift; if "$@"; then ok; else bad "$d"; fi; }
# eq DESCRIPTION GOT WANT
eq() { if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2' want '$3'"; fi; }
skip() { echo "SKIP: $*"; echo "$P passed, $F failed"; exit 0; }
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
