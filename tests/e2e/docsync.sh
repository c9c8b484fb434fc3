#!/bin/sh
# The command line, its help, its man pages and its completion agree
# (bpftool's test_bpftool_synctypes.py idea): every option the parser takes
# (kvm-exitstat __options CMD, the option table itself) is in CMD --help, in
# the OPTIONS of man/kvm-exitstat-CMD.1 and in the bash completion, with its
# words where it takes some; every option a man page documents exists; every
# command is in kvm-exitstat --help and kvm-exitstat(1). And the command lines
# the documentation shows (tests/tools/doc-examples.py): every SYNOPSIS names
# only options its command has, and all of them unless it says [options]
# (kvm-exitstat(1)'s every command, kvm-exitgen(1)'s every option of exitgen
# --help); every example of the README and of the man pages' EXAMPLES uses a
# command, options and option words that exist, and make targets the
# Makefile has.
. "$(dirname "$0")/lib.sh"
COMPLETION=completion/kvm-exitstat
case $KES in /*) ;; *) KES=$PWD/$KES ;; esac

# The option tags of a man page's OPTIONS section (the lines after .TP), one per line.
man_options() {
	awk '/^\.SH OPTIONS/ { on = 1; next } /^\.SH / { on = 0 }
	     on && tp && /^\.B/ { print } { tp = on && /^\.TP/ }' "$1" |
		sed 's/\\-/-/g' | grep -oE '(^|[ "])--?[A-Za-z0-9][A-Za-z0-9-]*' | sed 's/^[ "]//' | sort -u
}
# What the completion offers for the words "kvm-exitstat $@" (the last one being completed).
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _kvm_exitstat
		printf "%s\n" "${COMPREPLY[@]}"' sh "$COMPLETION" "$KES" "$@" | sort -u
}
has_word() { grep -qxF -- "$2" "$1"; }

"$KES" __commands >"$TMP/cmds"
check "__commands lists commands" test -s "$TMP/cmds"
"$KES" --help >"$TMP/help"
complete_words "" >"$TMP/compl"
for c in $(cat "$TMP/cmds"); do
	check "kvm-exitstat --help lists $c" grep -q "^  $c " "$TMP/help"
	check "kvm-exitstat(1) has $c in COMMANDS" grep -qx "\.B $c" kvm-exitstat.1
	check "man/kvm-exitstat-$c.1 exists" test -f "man/kvm-exitstat-$c.1"
	check "completion offers $c" has_word "$TMP/compl" "$c"

	"$KES" __options "$c" >"$TMP/opts"
	"$KES" "$c" --help >"$TMP/chelp"
	man_options "man/kvm-exitstat-$c.1" >"$TMP/man"
	complete_words "$c" - >"$TMP/copts"
	tr '\t' ' ' <"$TMP/opts" >"$TMP/opts.sp"
	while read -r lng shrt arg values alias completes; do
		for o in $lng $shrt; do
			[ "$o" = - ] && continue
			check "$c $o: in --help" grep -qE -- "(^| )$o( |,|$)" "$TMP/chelp"
			check "$c $o: in man/kvm-exitstat-$c.1 OPTIONS" has_word "$TMP/man" "$o"
			check "$c $o: offered by the completion" has_word "$TMP/copts" "$o"
		done
		[ "$values" = - ] && continue
		complete_words "$c" "$lng" "" >"$TMP/cvals"
		eq "$c $lng: the completion offers its words" "$(tr '\n' , <"$TMP/cvals")" \
			"$(echo "$values" | tr , '\n' | sort -u | tr '\n' ,)"
	done <"$TMP/opts.sp"
	cut -f1,2 "$TMP/opts" | tr '\t' '\n' | grep -v '^-$' | sort -u >"$TMP/known"
	for o in $(cat "$TMP/man"); do
		check "$c: man page option $o exists" has_word "$TMP/known" "$o"
	done
done
complete_words help "" >"$TMP/chelp"
eq "completion of 'help ': the commands" "$(tr '\n' , <"$TMP/chelp")" "$(sort -u "$TMP/cmds" | tr '\n' ,)"
complete_words "" >"$TMP/c0"
for w in help --version -V; do check "completion offers $w" has_word "$TMP/c0" "$w"; done

EG=${EXITGEN:-build/exitgen}
case $EG in /*) ;; *) EG=$PWD/$EG ;; esac
python3 tests/tools/doc-examples.py "$KES" "$EG" >"$TMP/dex" 2>&1
grep '^FAIL' "$TMP/dex"
dp=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$TMP/dex")
df=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$TMP/dex")
[ -n "$dp" ] || { bad "doc-examples.py ran ($(tail -n 2 "$TMP/dex"))"; dp=0 df=0; }
P=$((P + dp)) F=$((F + df))
summary
