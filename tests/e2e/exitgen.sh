#!/bin/sh
# exitgen, the workload generator the other end-to-end tests trust: its printed
# counts must equal predictions computed here independently of its own code,
# its bad options must fail with exit 2 and one stderr line (here), and on a
# live KVM (exitgen-live.sh) its counts and a guest that misbehaves (--inject).
. "$(dirname "$0")/lib.sh"

# eg ARGS...: exitgen, bounded, so that a guest that never ends fails the test.
eg() { timeout "${EXITGEN_TIMEOUT:-120}" "$EXITGEN" "$@"; }

# field KEY LINE: the word after KEY in a "key value key value" line.
field() { echo "$2" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'; }

# bad_opt ARGS...: exit 2, exactly one line on stderr, nothing on stdout.
bad_opt() {
	eg "$@" >"$TMP/out" 2>"$TMP/err"
	eq "exit status of exitgen $*" "$?" 2
	eq "stderr lines of exitgen $*" "$(wc -l <"$TMP/err")" 1
	eq "stdout of exitgen $*" "$(wc -c <"$TMP/out")" 0
}

check "exitgen binary at $EXITGEN" test -x "$EXITGEN"
bad_opt --bogus
bad_opt --io
bad_opt --io -1
bad_opt --io 12x
bad_opt --io ""
bad_opt --mmio 4294967296
bad_opt --vcpus 0
bad_opt --vcpus 33
bad_opt --mode fast
bad_opt --batch 8
bad_opt --mode pv --batch 0
bad_opt --mode pv --batch 1025
bad_opt --seconds 0
bad_opt --seconds soon
bad_opt --start-delay -5
bad_opt --inject nothing
bad_opt stray-argument
bad_opt --pf 4097
bad_opt --pause-us 1000001
bad_opt --give-up 0
bad_opt --give-up later
bad_opt --mode pv --cpuid 1
bad_opt --mode pv --msr 1
bad_opt --mode pv --pf 1
bad_opt --guest-map

eg --help >"$TMP/help" 2>&1
eq "--help exit status" "$?" 0
for opt in --io --mmio --hlt --vcpus --mode --batch --seconds --start-delay --pause-us --quiet --give-up --pin --guest-map \
	"KVM_EXIT_IO = io + 1" "ceil((io + mmio) / B) + 1"; do
	check "--help mentions '$opt'" grep -qF -- "$opt" "$TMP/help"
done
summary
