#!/bin/sh
# The command table's promises (src/cli/cli.c): JSON output is chosen before
# any option is parsed, so an error is one JSON object on stdout whatever the
# order of the options, and nothing on stderr; a usage error is one line and
# exit 2; what a command needs (root) is checked once, before it runs, by a
# message that names the command, and not for what needs nothing (top -f help).
. "$(dirname "$0")/lib.sh"

# one_json NAME ARGS...: exit 2, one {"error": ...} line on stdout, stderr empty
one_json() {
	name=$1
	shift
	"$KES" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	eq "$name: exit status" "$rc" 2
	eq "$name: one JSON error on stdout" "$(grep -c '^{"error": ".*"}$' "$TMP/out")/$(wc -l <"$TMP/out")" 1/1
	check "$name: nothing on stderr" test ! -s "$TMP/err"
	if command -v python3 >/dev/null; then
		check "$name: the line parses as JSON" python3 -c 'import json,sys; json.load(open(sys.argv[1]))["error"]' "$TMP/out"
	fi
}
one_json "report --sort bogus -f json" report --sort bogus -f json -i x.dat
one_json "report -f json --sort bogus" report -f json --sort bogus -i x.dat
one_json "report --format=json --unit ms" report --unit ms --format=json x.dat
one_json "report -fjson, no input" report -fjson
one_json "diff -f json, one input" diff a.dat -f json
one_json "report -f json --bogus" report --bogus -f json x.dat
grep -q "unknown option '--bogus'" "$TMP/out"
eq "report -f json --bogus: names the option" $? 0

# Without JSON: one line on stderr, exit 2, nothing on stdout.
"$KES" report --sort bogus x.dat >"$TMP/out" 2>"$TMP/err"
eq "text usage error: exit 2" $? 2
eq "text usage error: one line on stderr" "$(wc -l <"$TMP/err")" 1
check "text usage error: the line says what" grep -q "^kvm-exitstat: unknown sort key 'bogus': want sum, count, avg, max or name$" "$TMP/err"
check "text usage error: nothing on stdout" test ! -s "$TMP/out"
"$KES" top --delay >"$TMP/out" 2>"$TMP/err"
eq "missing argument: exit 2" $? 2
check "missing argument: one line naming the option" grep -qx "kvm-exitstat: top: --delay needs an argument (see 'kvm-exitstat top --help')" "$TMP/err"
# Numbers: every command parses them one way (cli-num.c): no sign, no blank,
# no suffix; strtoul() alone wrapped "-5" and skipped " 8".
for v in -5 " 8" 4k 0x10 3; do
	for c in record top serve; do
		if [ "$c" = record ]; then set -- -a; else set --; fi
		# a binary that took " 8" would trace: SIGINT ends it cleanly
		timeout -s INT 5 "$KES" $c -b "$v" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
		eq "$c -b '$v': exit 2" $? 2
		check "$c -b '$v': the one refusal" grep -qx "kvm-exitstat: bad buffer size (KB per CPU) '$v': want 4 to 4194304" "$TMP/err"
	done
done
for a in "top -d" "serve --interval"; do
	timeout -s INT 5 "$KES" $a " 1" >"$TMP/out" 2>"$TMP/err" </dev/null
	eq "$a ' 1': exit 2" $? 2
	check "$a ' 1': refused" grep -qx "kvm-exitstat: bad interval ' 1': want seconds, 0.1 to 3600" "$TMP/err"
done
"$KES" report --slowest -1 x.dat >"$TMP/out" 2>"$TMP/err"
check "report --slowest -1: refused" grep -qx "kvm-exitstat: bad --slowest '-1': want 1 to 1000000" "$TMP/err"
"$KES" top --slower-than 3600000001 >"$TMP/out" 2>"$TMP/err"
check "top --slower-than past an hour: refused" grep -qx "kvm-exitstat: bad --slower-than (us) '3600000001': want 1 to 3600000000" "$TMP/err"

# top's -f is --fields, not a format: no JSON there
"$KES" top -f json --bogus >"$TMP/out" 2>"$TMP/err"
check "top -f json is a regex: the error is text" grep -q "^kvm-exitstat: top: unknown option" "$TMP/err"

# --version and -V (tools/version.sh's: 1.2, 1.2-3-gabc1234, -dirty); help CMD is CMD
# --help; help of no such command is a usage error.
for v in --version -V; do
	"$KES" $v >"$TMP/out" 2>"$TMP/err"
	eq "$v: exit status" $? 0
	check "$v: 'kvm-exitstat VERSION' on stdout ($(cat "$TMP/out"))" \
		grep -qxE 'kvm-exitstat [0-9][0-9.]*(-[0-9]+-g[0-9a-f]+)?(-dirty|-unknown)?' "$TMP/out"
done
for c in $("$KES" __commands); do
	"$KES" help "$c" >"$TMP/out" 2>"$TMP/err"
	eq "help $c: exit status" $? 0
	"$KES" "$c" --help >"$TMP/want"
	check "help $c is $c --help" cmp -s "$TMP/out" "$TMP/want"
done
"$KES" help bogus >"$TMP/out" 2>"$TMP/err"
eq "help bogus: exit status" $? 2
check "help bogus: says so" grep -qx "kvm-exitstat: 'bogus' is not a command; see 'kvm-exitstat --help'" "$TMP/err"
"$KES" help >"$TMP/out"
check "help: the command list" grep -q '^  top ' "$TMP/out"
check "--help names help CMD" grep -q 'help COMMAND' "$TMP/out"
"$KES" top --help >"$TMP/out"
check "top --help lists --set-delay" grep -q -- '--set-delay' "$TMP/out"

# Needs, as nobody (setpriv is in util-linux).
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	NB=$(mktemp -d /tmp/kes-cli-nobody.XXXXXX)
	chmod 755 "$NB"
	cp "$KES" "$NB/kvm-exitstat"
	asuser="setpriv --reuid=65534 --regid=65534 --clear-groups"
	$asuser "$NB/kvm-exitstat" top --once >"$TMP/out" 2>"$TMP/err"
	eq "top as nobody: exit 1" $? 1
	check "top as nobody: one line naming the command" grep -qx "kvm-exitstat: top needs root (tracefs)" "$TMP/err"
	$asuser "$NB/kvm-exitstat" record -a -d 1 -o "$NB/x.dat" >"$TMP/out" 2>"$TMP/err"
	check "record as nobody: one line naming the command" grep -qx "kvm-exitstat: record needs root (tracefs)" "$TMP/err"
	$asuser "$NB/kvm-exitstat" record -a -d soon >"$TMP/out" 2>"$TMP/err"
	eq "record as nobody, bad option: the usage error first (exit 2)" $? 2
	$asuser "$NB/kvm-exitstat" top -f help >"$TMP/out" 2>"$TMP/err"
	eq "top -f help as nobody: exit 0 (needs nothing)" $? 0
	check "top -f help as nobody: lists the x86_vmx names" grep -q '^  EXTERNAL_INTERRUPT$' "$TMP/out"
	rm -rf "$NB"
else
	echo "SKIP: needs as nobody (needs root and setpriv)"
fi
summary
