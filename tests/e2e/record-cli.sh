#!/bin/sh
# record's command line: help, and the errors that come before any tracing.
. "$(dirname "$0")/lib.sh"

"$KES" record --help >"$TMP/out" 2>&1
eq "--help exit status" "$?" 0
for opt in --output --pid --all --duration --buffer --quiet --exit-types; do
	check "--help mentions $opt" grep -q -- "$opt" "$TMP/out"
done

# bad ARGS...: exit 2 and one line that says what is wrong.
bad() {
	want=$1
	shift
	"$KES" record "$@" >"$TMP/out" 2>"$TMP/err"
	eq "record $*: exit status" "$?" 2
	check "record $*: says '$want'" grep -q -- "$want" "$TMP/err"
}
bad "nothing to record"
bad "nothing to record" -o x.dat
bad "bad pid list" -p 12x
bad "bad pid list" -p 0
bad "only one of" -a -p 1
bad "only one of" -a -- true
bad "bad buffer size" -b 1 -a
bad "bad buffer size" -b lots -a
bad "bad duration" -d 0 -a
bad "bad duration" -d soon -a
check "no file written by a usage error" test ! -e x.dat

# Not root: as root, drop to nobody for this run (setpriv is in util-linux).
asuser=
[ "$(id -u)" = 0 ] && asuser="setpriv --reuid=65534 --regid=65534 --clear-groups"
if [ -z "$asuser" ] || command -v setpriv >/dev/null; then
	# nobody must be able to reach the binary: a checkout may sit in a 0700 directory
	NB=$(mktemp -d /tmp/kes-cli-nobody.XXXXXX)
	chmod 755 "$NB"
	cp "$KES" "$NB/kvm-exitstat"
	$asuser "$NB/kvm-exitstat" record -a -d 1 -o /tmp/kes-never-written.dat 2>"$TMP/err"
	eq "not root: exit status" "$?" 1
	check "not root: message" grep -q 'needs root' "$TMP/err"
	check "not root: no file" test ! -e /tmp/kes-never-written.dat
	rm -rf "$NB"
fi
summary
