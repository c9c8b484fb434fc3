#!/bin/sh
# Nothing dropped without a word (issue 29, class 4). Each trace.dat is
# one change to a real recording made by tests/tools/craftdat (v6), and its v7
# and v7+zstd forms by trace-cmd convert; the committed fixtures in
# tests/fixtures/bad/tracedat/ must be what the tools make (KES_REGEN=1 rewrites
# them). The counts expected come from trace-cmd report, an independent reader.
#   - a page flagged "events missed" in a file without CPUSTAT gave "lost
#     events: unknown" and no warning. Now it warns, both paths, v6 and zstd.
# Needs neither root nor KVM.
. tests/e2e/lib.sh
FIX=tests/fixtures
BAD=$FIX/bad/tracedat
BASE=$FIX/real/exitgen-v6.dat
LAB=$FIX/lab/x86-svm/kvm-exitstat.dat
CRAFT=${CRAFT:-${O:-build}/tests/tools/craftdat}
[ -x "$CRAFT" ] || { bad "test tool missing ($CRAFT): make all"; summary; exit 1; }
command -v trace-cmd >/dev/null 2>&1 || skip "needs trace-cmd (make deps)"

# made NAME CMD...: CMD writes $TMP/NAME, which must equal the committed $BAD/NAME.
made() {
	name=$1
	shift
	"$@" >"$TMP/craft.log" 2>&1 || { bad "making $name: $(cat "$TMP/craft.log")"; return 1; }
	[ "${KES_REGEN:-0}" != 1 ] || cp "$TMP/$name" "$BAD/$name"
	check "$BAD/$name is what its tool makes" cmp -s "$TMP/$name" "$BAD/$name"
}
# convert V NAME: $TMP/NAME-vV.dat (V 7: uncompressed; 7z: zstd) from $BAD/NAME.dat.
convert() {
	case $1 in 7) c=none ;; 7z) c=zstd ;; esac
	made "$2-v$1.dat" trace-cmd convert -i "$BAD/$2.dat" -o "$TMP/$2-v$1.dat" --file-version 7 \
		--compression $c
}

# --- class 4: a page's "events missed" flag without CPUSTAT -------------------------------
made nostat-missed.dat "$CRAFT" "$BASE" "$TMP/nostat-missed.dat" option-drop 2 page-missed 0 2
convert 7z nostat-missed
for f in "$BAD/nostat-missed.dat" "$BAD/nostat-missed-v7z.dat"; do
	for fp in 0 1; do
		KES_NO_FASTPATH=$fp "$KES" report -i "$f" >"$TMP/out" 2>"$TMP/err"
		eq "$(basename "$f") (KES_NO_FASTPATH=$fp): status" "$?" 0
		check "$(basename "$f") (KES_NO_FASTPATH=$fp): a warning on stderr" \
			grep -Eq "^kvm-exitstat: warning: .*cpu 0: a page says events were missed" "$TMP/err"
		check "$(basename "$f") (KES_NO_FASTPATH=$fp): the warning in the header" \
			grep -Eq "^# warning: .*cpu 0: a page says events were missed.*no CPUSTAT" "$TMP/out"
		check "$(basename "$f") (KES_NO_FASTPATH=$fp): losses not said to be 0" \
			grep -Eq '^# lost events: (unknown|at least)' "$TMP/out"
	done
done
# The file without CPUSTAT but no flag: no warning (the flag is what is said).
"$CRAFT" "$BASE" "$TMP/nostat.dat" option-drop 2
"$KES" report -i "$TMP/nostat.dat" >"$TMP/out" 2>"$TMP/err"
check "no CPUSTAT, no page flagged: no warning" test ! -s "$TMP/err"
summary
