#!/bin/sh
# make install puts everything the man pages use where they say: the tool on
# PATH, exitgen as kvm-exitgen beside the tool's data (a test VMM is not a
# command: never in bin/), its man pages naming the paths of this install's
# PREFIX (not the source's /usr/local) and this build's version, the
# exit-type data, both completions, the units and /etc/default file; make
# uninstall, with the same variables, takes every file away again.
. "$(dirname "$0")/lib.sh"
ROOT=$TMP/root
PFX=/opt/kes
MK="make -s --no-print-directory O=${O:-build} DESTDIR=$ROOT PREFIX=$PFX SYSCONFDIR=$PFX/etc"
$MK install >"$TMP/out" 2>&1
eq "make install: exit status ($(head -c 300 "$TMP/out"))" $? 0
check "bin/kvm-exitstat installed, executable" test -x "$ROOT$PFX/bin/kvm-exitstat"
check "kvm-exitgen in libexec/kvm-exitstat/, executable" test -x "$ROOT$PFX/libexec/kvm-exitstat/kvm-exitgen"
eq "bin/ holds the tool only" "$(ls "$ROOT$PFX/bin")" "kvm-exitstat"
"$ROOT$PFX/libexec/kvm-exitstat/kvm-exitgen" --help >"$TMP/eg" 2>&1
eq "kvm-exitgen --help: exit status" $? 0
check "kvm-exitgen --help calls itself kvm-exitgen" grep -q '^usage: kvm-exitgen ' "$TMP/eg"
"$ROOT$PFX/bin/kvm-exitstat" --version >"$TMP/v"
eq "installed kvm-exitstat runs" $? 0
# The version, computed here from git on its own (tools/version.sh's rule).
if want=$(git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null); then
	want=${want#v}
else
	want=0.1-$(git rev-list --count HEAD)-g$(git rev-parse --short HEAD)
	git diff-index --quiet HEAD -- || want=$want-dirty
fi
eq "kvm-exitstat --version: git describe's" "$(cat "$TMP/v")" "kvm-exitstat $want"
for m in kvm-exitstat.1 kvm-exitstat-record.1 kvm-exitstat-report.1 kvm-exitstat-diff.1 \
	kvm-exitstat-top.1 kvm-exitstat-serve.1 kvm-exitgen.1; do
	check "man1/$m installed" test -s "$ROOT$PFX/share/man/man1/$m"
done
check "man5/kvm-exitstat-exit-types.5 installed" test -s "$ROOT$PFX/share/man/man5/kvm-exitstat-exit-types.5"
check "exit_types data installed" test -s "$ROOT$PFX/share/kvm-exitstat/exit_types/x86_vmx.types"
check "bash completion installed" test -s "$ROOT$PFX/share/bash-completion/completions/kvm-exitstat"
check "zsh completion installed" test -s "$ROOT$PFX/share/zsh/site-functions/_kvm-exitstat"
check "/etc/default/kvm-exitstat installed" test -s "$ROOT$PFX/etc/default/kvm-exitstat"
for m in "$ROOT$PFX"/share/man/man?/*; do
	b=$(basename "$m")
	# The installed pages name this PREFIX's paths and this version.
	check "$b: no /usr/local path left" sh -c "! grep -n '/usr/local' '$m'"
	check "$b: .TH says version $want" grep -q "^\.TH .*\"kvm-exitstat $want\"" "$m"
	# What the man pages run is what is installed: no build-tree exitgen, no kvm-exitgen off PATH.
	check "$b: examples run kvm-exitgen by its installed path" \
		sh -c "! grep -nE '(^|[ ])(kvm-)?exitgen --' '$m'"
done
check "kvm-exitstat(1) names the installed exit_types directory" \
	grep -q "$PFX/share/kvm-exitstat/exit_types/" "$ROOT$PFX/share/man/man1/kvm-exitstat.1"
check "kvm-exitgen(1)'s SYNOPSIS is its installed path" \
	grep -qx "\.B $PFX/libexec/kvm-exitstat/kvm-exitgen" "$ROOT$PFX/share/man/man1/kvm-exitgen.1"
check "kvm-exitstat-serve(1) names the installed unit" \
	grep -q "$PFX/lib/systemd/system/kvm-exitstat-serve.service" "$ROOT$PFX/share/man/man1/kvm-exitstat-serve.1"
# Every path the installed pages name that this install made exists.
for f in $(grep -ho "$PFX/[A-Za-z0-9_./-]*" "$ROOT$PFX"/share/man/man?/* | sed 's/[.]$//' | sort -u); do
	case $f in */var/* | *.dat | *.json | *.types | *.svg) continue ;; esac
	check "a path the man pages name is installed: $f" test -e "$ROOT$f"
done
n=$(find "$ROOT" -type f | wc -l)
$MK uninstall >"$TMP/out" 2>&1
eq "make uninstall: exit status ($(head -c 300 "$TMP/out"))" $? 0
eq "make uninstall: no file of the $n left" "$(find "$ROOT" -type f)" ""
check "make uninstall: the tool's own directories gone" \
	sh -c "[ ! -e '$ROOT$PFX/libexec/kvm-exitstat' ] && [ ! -e '$ROOT$PFX/share/kvm-exitstat' ]"
# ... and leaves what is not its own
$MK install >/dev/null 2>&1
echo keep >"$ROOT$PFX/bin/other-tool"
$MK uninstall >/dev/null 2>&1
check "make uninstall leaves another file in bin/" test -f "$ROOT$PFX/bin/other-tool"
summary
