#!/bin/sh
# The completions, bash's and zsh's, offer what each option's argument is
# (kvm-exitstat __options' last column, from the option table): words, files
# (a MAP: the built-in bucket maps too), directories; --opt=VALUE completes
# its value; bash's is registered with -o filenames (a directory gets its
# '/', a name with a space is escaped). tests/e2e/docsync.sh checks that every
# option is offered at all.
. "$(dirname "$0")/lib.sh"
COMPLETION=$PWD/completion/kvm-exitstat
ZDIR=$PWD/completion
ZC=$PWD/tests/tools/zsh-complete.zsh
case $KES in /*) ;; *) KES=$PWD/$KES ;; esac
# complete_words WORD...: what bash's completion offers for "kvm-exitstat WORD..." (the
# last one being completed), in $TMP/w (a directory with files and directories).
complete_words() {
	(cd "$TMP/w" && bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _kvm_exitstat
		printf "%s\n" "${COMPREPLY[@]}"' sh "$COMPLETION" "$KES" "$@" | sort -u | tr '\n' ,)
}
mkdir -p "$TMP/w/dir a" "$TMP/w/dirb"
: >"$TMP/w/file b.dat"
: >"$TMP/w/run.dat"
FILES="dir a,dirb,file b.dat,run.dat,"
DIRS="dir a,dirb,"

eq "bash: registered with -o filenames" \
	"$(bash -c '. "$1"; complete -p kvm-exitstat' sh "$COMPLETION")" \
	"complete -o filenames -F _kvm_exitstat kvm-exitstat"
# The built-in bucket maps, by their file names in exit_types/ (independent of the binary).
MAPS=$(ls exit_types/*.map | sed 's|.*/||; s|\.map$||' | tr '\n' ,)
for c in $("$KES" __commands); do
	"$KES" __options "$c" >"$TMP/opts"
	while IFS='	' read -r lng shrt arg values alias completes; do
		[ "$arg" = - ] && continue
		case $arg in
		FILE) want=$FILES ;;
		DIR) want=$DIRS ;;
		MAP) want=$(printf '%s%s' "$MAPS" "$FILES" | tr , '\n' | sort -u | tr '\n' ,) ;;
		*) [ "$values" = - ] && continue
		   want=$(echo "$values" | tr , '\n' | sort -u | tr '\n' ,) ;;
		esac
		eq "bash: $c $lng ARG" "$(complete_words "$c" "$lng" "")" "$want"
		[ "$shrt" = - ] || eq "bash: $c $shrt ARG" "$(complete_words "$c" "$shrt" "")" "$want"
		# --opt=VALUE, '=' a word break (bash's default) or not
		eq "bash: $c $lng = ARG" "$(complete_words "$c" "$lng" = "")" "$want"
		eq "bash: $c $lng=ARG" "$(complete_words "$c" "$lng=")" \
			"$(echo "$want" | tr , '\n' | grep . | sed "s|^|$lng=|" | sort -u | tr '\n' ,)"
	done <"$TMP/opts"
done
eq "bash: report --format=j" "$(complete_words report --format=j)" "--format=json,"
eq "bash: report --format = j" "$(complete_words report --format = j)" "json,"
eq "bash: report --input=r" "$(complete_words report --input=r)" "--input=run.dat,"
eq "bash: report --buckets p" "$(complete_words report --buckets p)" "ppc,"
eq "bash: serve --textfile d" "$(complete_words serve --textfile d)" "$DIRS"

# zsh: the same answers through an interactive zsh (tests/tools/zsh-complete.zsh).
if command -v zsh >/dev/null 2>&1; then
	export ZC_DUMP=$TMP/zcompdump
	zc() { (cd "$TMP/w" && timeout 30 zsh -f "$ZC" "$ZDIR" "$KES $1") | sed 's/\\//g' | tr '\n' ,; }
	eq "zsh: the commands" "$(zc "")" "$( { "$KES" __commands; echo help; } | sort -u | tr '\n' ,)"
	eq "zsh: report --format" "$(zc "report --format ")" "csv,json,ppc,table,"
	eq "zsh: report --format=j" "$(zc "report --format=j")" "json,"
	eq "zsh: report -f" "$(zc "report -f ")" "csv,json,ppc,table,"
	eq "zsh: report --buckets" "$(zc "report --buckets ")" \
		"$(printf '%s%s' "$MAPS" "$FILES" | tr , '\n' | sort -u | tr '\n' ,)"
	eq "zsh: serve --textfile: directories" "$(zc "serve --textfile ")" "$DIRS"
	eq "zsh: report --input=r" "$(zc "report --input=r")" "run.dat,"
	eq "zsh: help" "$(zc "help ")" "$("$KES" __commands | sort -u | tr '\n' ,)"
	for c in $("$KES" __commands); do
		# (record's operand is a command: zsh offers "-", its precommand modifier, too)
		eq "zsh: $c - offers every option" "$(zc "$c -" | sed 's/^-,//')" \
			"$("$KES" __options "$c" | cut -f1,2 | tr '\t' '\n' | grep -v '^-$' | sort -u | tr '\n' ,)"
	done
else
	bad "zsh is not installed (make deps)"
fi
summary
