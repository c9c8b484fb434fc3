#!/bin/zsh -f
# zsh-complete.zsh DIR WORDS...: what zsh's completion offers (one match a
# line) at the end of the command line "WORDS", with the completion functions
# of DIR first in fpath: an interactive zsh in a pseudo-terminal (zsh/zpty)
# whose compadd is wrapped to print what it adds (and adds it: _files tries
# all files only when directories added nothing), and which exits when the
# completion ends (the zsh-capture-completion way).
zmodload zsh/zpty || exit 2
dir=$1
shift
zpty z zsh -f -i
zpty -w z "PS1= PROMPT= RPROMPT= LISTMAX=100000; fpath=(${(q)dir} \$fpath)"
zpty -w z "autoload -U compinit && compinit -u ${ZC_DUMP:+-d ${(q)ZC_DUMP}}${ZC_DUMP:--D}"
zpty -w z 'compadd () {
	[[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]] && { builtin compadd "$@"; return $?; }
	typeset -a __hits
	builtin compadd -A __hits "$@"
	local m
	for m in $__hits; do print -r -- "<M>$m</M>"; done
	builtin compadd "$@"
}'
zpty -w z 'zc_start () { print "<BEGIN>"; }; zc_end () { print "<END>"; exit; }'
zpty -w z 'zc_complete () { compprefuncs=(zc_start); comppostfuncs=(zc_end); _main_complete "$@"; }'
zpty -w z 'zle -C zc-complete complete-word zc_complete; bindkey "^I" zc-complete'
zpty -w -n z "$*"$'\t'
out=
while zpty -r z line; do
	out+=$line
done
[[ -n $ZC_DEBUG ]] && print -r -- "$out" >&2
print -r -- "${out#*<BEGIN>}" | grep -o '<M>[^<]*</M>' | sed 's/^<M>//; s/<\/M>$//' | sort -u
zpty -d z 2>/dev/null
