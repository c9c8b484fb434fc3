#!/bin/sh
# make install puts everything the man pages use where they say: the tool,
# its man pages, the exit-type data, the completion, and exitgen as
# kvm-exitgen (the man pages' examples run it), each usable from there.
. "$(dirname "$0")/lib.sh"
ROOT=$TMP/root
make -s --no-print-directory O="${O:-build}" DESTDIR="$ROOT" PREFIX=/usr install >"$TMP/out" 2>&1
eq "make install: exit status ($(head -c 300 "$TMP/out"))" $? 0
for f in bin/kvm-exitstat bin/kvm-exitgen; do
	check "$f installed, executable" test -x "$ROOT/usr/$f"
done
"$ROOT/usr/bin/kvm-exitgen" --help >"$TMP/eg" 2>&1
eq "kvm-exitgen --help: exit status" $? 0
check "kvm-exitgen --help: its usage" grep -q '^usage: ' "$TMP/eg"
check "kvm-exitgen --help calls itself kvm-exitgen" grep -q '^usage: kvm-exitgen ' "$TMP/eg"
"$ROOT/usr/bin/kvm-exitstat" --version >"$TMP/v"
eq "installed kvm-exitstat runs" $? 0
for m in kvm-exitstat.1 kvm-exitstat-record.1 kvm-exitstat-report.1 kvm-exitstat-diff.1 \
	kvm-exitstat-top.1 kvm-exitgen.1; do
	check "man1/$m installed" test -s "$ROOT/usr/share/man/man1/$m"
done
check "man5/kvm-exitstat-exit-types.5 installed" test -s "$ROOT/usr/share/man/man5/kvm-exitstat-exit-types.5"
check "exit_types data installed" test -s "$ROOT/usr/share/kvm-exitstat/exit_types/x86_vmx.types"
check "bash completion installed" test -s "$ROOT/usr/share/bash-completion/completions/kvm-exitstat"
# What the man pages run is what is installed: no build-tree exitgen in them.
for m in "$ROOT"/usr/share/man/man1/*.1; do
	check "$(basename "$m"): examples run kvm-exitgen, not exitgen" \
		sh -c "! grep -nE '(^|[ /])exitgen --' '$m'"
done
summary
