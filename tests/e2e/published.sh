#!/bin/sh
# Published KVM traces (tests/fixtures/published, issue 13): `kvm-exitstat
# report -f json -u ns` of every sample against the rows that the independent
# reference reader tests/tools/ref-trace.py derives from the same text:
# per exit reason count (every exit), timed count, sum/min/max of the handling
# times, and TIMEINGUEST; the count of KVM lines not understood and the
# first one's line (the report's JSON "not_understood", which must be there).
#
# Every sample is read exactly since issue 13 (before it: 10 of 27).  Usage:
#   sh tests/e2e/published.sh            PASS/FAIL per sample, then the tally
#   sh tests/e2e/published.sh --passing  only the names of the samples that pass
KES=${KES:-./kvm-exitstat}
DIR=${DIR:-tests/fixtures/published}
REF=tests/tools/ref-trace.py
P=0 F=0
TMP=$(mktemp -d /tmp/kes-published.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
# As in tests/e2e/text.sh: libtraceevent's own 2-byte leak must not fail an ASan build.
echo "leak:libtraceevent.so" >"$TMP/lsan.supp"
export LSAN_OPTIONS="suppressions=$TMP/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

list=0
[ "${1:-}" = --passing ] && list=1

say() { [ "$list" = 1 ] || echo "$@"; }
pass() { P=$((P + 1)); say "PASS $1"; [ "$list" = 1 ] && echo "$1"; return 0; }
fail() { F=$((F + 1)); say "FAIL $1: $2"; return 0; }

if [ ! -x "$KES" ]; then
	echo "FAIL: no kvm-exitstat at $KES (make first)"
	echo "0 passed, 1 failed"
	exit 1
fi

# The reference itself on its hand-computed cases.
if python3 "$REF" --selftest >"$TMP/self" 2>&1; then
	P=$((P + 1)); say "PASS ref-trace.py --selftest"
else
	fail "ref-trace.py --selftest" "$(grep FAIL "$TMP/self" | head -n 2 | tr '\n' ' ')"
fi

# The expected files must still be what the reference derives from the
# samples: a changed fixture or reference shows here, not as a puzzling row.
if python3 "$REF" --check "$DIR" >"$TMP/check" 2>&1; then
	P=$((P + 1)); say "PASS expected files match ref-trace.py --check"
else
	fail "expected files" "$(grep -v 'passed,' "$TMP/check" | head -n 3 | tr '\n' ' ')"
fi

for s in "$DIR"/*.txt; do
	name=$(basename "$s" .txt)
	exp=$DIR/expected/$name.json
	if [ ! -f "$exp" ]; then
		fail "$name" "no expected/$name.json"
		continue
	fi
	"$KES" report -i "$s" -f json -u ns >"$TMP/out.json" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "$name" "exit $rc: $(head -n 1 "$TMP/err")"
		continue
	fi
	# ref-trace.py --compare checks not_understood only when it is there: it must be
	if ! grep -q '"not_understood": {' "$TMP/out.json"; then
		fail "$name" "the report's JSON has no not_understood object"
		continue
	fi
	verdict=$(python3 "$REF" --compare "$exp" "$TMP/out.json")
	case $verdict in
	PASS) pass "$name" ;;
	*) fail "$name" "${verdict#FAIL: }" ;;
	esac
done

[ "$list" = 1 ] || echo "$P passed, $F failed"
[ "$F" -eq 0 ]
