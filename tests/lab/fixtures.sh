#!/bin/sh
# fixtures.sh ISA DIR: turns a lab run's results (DIR: the ISA's directory
# of lab.sh --keep, or $LAB_CACHE/runs/ISA) into the project's fixtures:
#   tests/fixtures/lab/ISA/    the "fixture" workload: exitgen.out, our
#                              recording (kvm-exitstat.dat), trace-cmd's of
#                              the same run (trace-cmd.dat) and its text
#                              (trace-cmd.txt), run.txt (where they came from)
#   tests/fixtures/formats/FMT/  the kernel's own tracepoint formats (FMT from
#                              the ISA's FORMATS_DIR), replacing what was there
# tests/e2e/lab-fixtures.sh checks them on every `make check`, without QEMU.
# The provenance (kernel package and version, QEMU flags) goes into run.txt;
# PROVENANCE.md beside the fixtures explains them.
LAB=$(cd "$(dirname "$0")" && pwd)
. "$LAB/lib.sh"
set -eu
[ $# -eq 2 ] || die "usage: fixtures.sh ISA DIR"
isa=$1 dir=$2 s=$2/share
[ -f "$s/fixture.tc.exitgen" ] || die "$dir has no fixture workload's files (run.sh's tracecmd fixture)"
. "$LAB/isa/$isa.sh"
out=$ROOT/tests/fixtures/lab/$isa
mkdir -p "$out"
cp "$s/fixture.tc.exitgen" "$out/exitgen.out"
cp "$s/fixture.both.dat" "$out/kvm-exitstat.dat"
cp "$s/fixture.tc.dat" "$out/trace-cmd.dat"
cp "$s/fixture.tc.txt" "$out/trace-cmd.txt"
chmod 644 "$out"/*
if [ -n "${KERNEL_CONFIG:-}" ]; then
	# Built by build-kernel.sh: the source package and the fragment say what it is.
	kpkg="built by tests/lab/build-kernel.sh from $(lock_line linux-source-6.12 all) with tinyconfig +"
	kpkg="$kpkg tests/lab/kernel/$KERNEL_CONFIG.config (sha256 $(sha256sum <"$LAB/kernel/$KERNEL_CONFIG.config" | cut -c1-16)...)"
else
	kpkg=$(lock_line "$KERNEL_DEB" "$DEB_ARCH")
fi
tpkg=$(lock_line trace-cmd "$DEB_ARCH")
{
	echo "isa: $isa"
	echo "kernel: $(cat "$s/uname") (package: $kpkg)"
	echo "modules: $MODULES"
	echo "qemu: $(cat "$dir/qemu.cmd" 2>/dev/null || echo "$QEMU $QEMU_ARGS (command not kept)")"
	echo "qemu package: $(lock_line "$(echo "$HOST_DEBS" | tr ' \t' '\n\n' | grep -m1 '^qemu-system-[a-z0-9]*:' | cut -d: -f1)" amd64)"
	echo "trace-cmd (guest): $tpkg"
	echo "workload: exitgen $(echo "$WORKLOADS" | awk '$1 == "fixture" { $1 = ""; print substr($0, 2) }')"
	echo "command: trace-cmd record -e kvm -o trace-cmd.dat kvm-exitstat record -o kvm-exitstat.dat -- exitgen ..."
	echo "         (/proc/kallsyms bind-mounted empty for trace-cmd: no 4 MB symbol table)"
	echo "text: trace-cmd report trace-cmd.dat, by the guest's trace-cmd"
	echo "kvm params: $(tr '\n' ' ' <"$s/kvm-params.txt" | sed 's|/sys/module/||g')"
} >"$out/run.txt"
if [ -n "${FORMATS_DIR:-}" ]; then
	f=$ROOT/tests/fixtures/formats/$FORMATS_DIR
	rm -rf "$f"
	mkdir -p "$f"
	cp "$s/formats/header_page" "$s/formats/header_event" "$f/"
	for e in "$s"/formats/kvm_*; do
		mkdir -p "$f/$(basename "$e")"
		cp "$e" "$f/$(basename "$e")/format"
	done
	chmod -R u=rwX,go=rX "$f" # tracefs files are 0440
fi
say "$isa: fixtures in $out${FORMATS_DIR:+, formats in tests/fixtures/formats/$FORMATS_DIR}"
