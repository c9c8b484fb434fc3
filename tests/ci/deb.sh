#!/bin/sh
# CI: the Debian package, as a packager and an administrator meet it (issue 32).
# From `make dist`'s tarball (what a packager gets), in a scratch directory:
# dpkg-buildpackage -us -uc -b, lintian (no error: the run fails on one; its
# warnings are printed), then the .deb installed with apt (its Depends and
# Recommends resolved: the dlopen'd libmicrohttpd and libelf must be among them) and
# used as installed: --version is the tarball's, `man kvm-exitstat` and
# `man kvm-exitstat-serve` render, a report of a recording from the lab
# counts exactly what its exitgen said it made, kvm-exitgen is where the
# installed man page says, the units are where systemd looks. Then purged:
# nothing of it is left. Needs root and make deps; ends "N passed, N failed".
#   sh tests/ci/deb.sh [KEEPDIR]   KEEPDIR: where the .deb and lintian's output are kept
cd "$(dirname "$0")/../.." || exit 1
. tests/e2e/lib.sh
KEEP=${1:-}
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8
[ "$(id -u)" = 0 ] || skip "needs root (apt-get install of the .deb)"
if dpkg -s kvm-exitstat >/dev/null 2>&1; then
	bad "kvm-exitstat is installed already: this test installs and purges it"
	summary
	exit 1
fi
trap 'dpkg --purge kvm-exitstat >/dev/null 2>&1; rm -rf "$TMP"' EXIT

# ---- build, from the tarball ----
make -s --no-print-directory O="$TMP/o" DISTDIR="$TMP" dist >"$TMP/dist.out" 2>&1
eq "make dist ($(tail -n 3 "$TMP/dist.out"))" $? 0
tarball=$(tail -n 1 "$TMP/dist.out")
v=$(basename "$tarball" .tar.gz | sed 's/^kvm-exitstat-//')
mkdir "$TMP/src" && tar -xzf "$tarball" -C "$TMP/src"
S=$TMP/src/kvm-exitstat-$v
check "dpkg-checkbuilddeps: the Build-Depends are installed (make deps)" \
	sh -c "cd '$S' && dpkg-checkbuilddeps"
(cd "$S" && nice dpkg-buildpackage -us -uc -b) >"$TMP/build.log" 2>&1
rc=$?
[ $rc -eq 0 ] || tail -n 30 "$TMP/build.log"
eq "dpkg-buildpackage -us -uc -b" $rc 0
deb=$(ls "$TMP"/src/kvm-exitstat_*_*.deb 2>/dev/null | head -n 1)
check "a .deb was built" test -s "$deb"
changes=$(ls "$TMP"/src/kvm-exitstat_*.changes 2>/dev/null | head -n 1)

# ---- lintian: no error ----
lintian --fail-on error "$changes" >"$TMP/lintian.out" 2>&1
rc=$?
grep -v '^N:' "$TMP/lintian.out" | grep -v 'running with root privileges' | sed 's/^/lintian: /'
echo "lintian: $(grep -c '^E:' "$TMP/lintian.out") errors, $(grep -c '^W:' "$TMP/lintian.out") warnings"
eq "lintian: no error" "$rc/$(grep -c '^E:' "$TMP/lintian.out")" "0/0"
[ -z "$KEEP" ] || { mkdir -p "$KEEP" && cp "$deb" "$TMP/lintian.out" "$TMP/build.log" "$KEEP/"; }

# ---- what it declares ----
dpkg-deb -f "$deb" Depends Recommends >"$TMP/fields"
check "Recommends the dlopen'd libmicrohttpd12 ($(tr '\n' ' ' <"$TMP/fields"))" \
	grep -Eq '^Recommends:.*libmicrohttpd12 \(>= ' "$TMP/fields"
check "Recommends the dlopen'd libelf1 (--guest-kallsyms of an ELF file)" \
	grep -Eq '^Recommends:.*libelf1 \(>= ' "$TMP/fields"
check "Depends on the linked libraries (libtracecmd1)" grep -q '^Depends:.*libtracecmd1' "$TMP/fields"
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' >"$TMP/files"
check "installs to /usr: usr/bin/kvm-exitstat" grep -qx /usr/bin/kvm-exitstat "$TMP/files"
check "nothing in /usr/local" sh -c "! grep -q '^/usr/local' '$TMP/files'"
check "no test VMM in /usr/bin" sh -c "! grep -q '^/usr/bin/.*exitgen' '$TMP/files'"

# ---- installed, used ----
apt-get install -y -qq "$deb" >"$TMP/apt.out" 2>&1
eq "apt-get install ./$(basename "$deb") ($(tail -n 2 "$TMP/apt.out" | tr '\n' ' '))" $? 0
check "libmicrohttpd12 installed with it" sh -c "dpkg -s libmicrohttpd12 | grep -q '^Status: install ok installed'"
eq "kvm-exitstat --version (from PATH)" "$(cd / && kvm-exitstat --version)" "kvm-exitstat $v"
for p in kvm-exitstat kvm-exitstat-serve kvm-exitstat-report; do
	# man finds it (man -w), and it renders: -l on that path, not a formatted copy man-db
	# may have cached from an earlier install (dpkg keeps the build's mtimes, older than it)
	w=$(man -w "$p" 2>"$TMP/man.err")
	rc=$?
	[ $rc -ne 0 ] || { MANPAGER=cat MANWIDTH=80 man -l "$w" >"$TMP/man.out" 2>"$TMP/man.err"; rc=$?; }
	if [ $rc -eq 16 ] && grep -q 'path-exclude=/usr/share/man' /etc/dpkg/dpkg.cfg.d/* 2>/dev/null; then
		echo "NOTE: dpkg excludes /usr/share/man here: man $p not checked"
		continue
	fi
	eq "man $p ($(head -c 200 "$TMP/man.err"))" $rc 0
	check "man $p: its NAME" grep -q "^NAME" "$TMP/man.out"
	check "man $p: the installed version in its footer" grep -q "kvm-exitstat $v" "$TMP/man.out"
done
# One report of a recording made in the lab (tests/fixtures/lab/x86-svm): the userspace
# exits are what exitgen counted itself, in its own output beside the recording.
L=tests/fixtures/lab/x86-svm
kvm-exitstat report -i "$L/kvm-exitstat.dat" --source userspace -f csv >"$TMP/r.csv" 2>"$TMP/r.err"
eq "installed report of $L/kvm-exitstat.dat ($(head -c 200 "$TMP/r.err"))" $? 0
for r in KVM_EXIT_IO KVM_EXIT_MMIO KVM_EXIT_HLT; do
	eq "report: $r as exitgen counted" "$(awk -F, -v r="$r" '$1 == r { print $4 }' "$TMP/r.csv")" \
		"$(sed -n "s/^total .*\<$r \([0-9]*\).*/\1/p" "$L/exitgen.out")"
done
eg=$(MANPAGER=cat man -l "$(man -w kvm-exitgen 2>/dev/null)" 2>/dev/null | sed -n 's/^ *\(\/[^ ]*kvm-exitgen\).*/\1/p' | head -n 1)
eq "kvm-exitgen is where its man page says" "${eg:-/usr/libexec/kvm-exitstat/kvm-exitgen}" \
	/usr/libexec/kvm-exitstat/kvm-exitgen
check "kvm-exitgen --help runs" sh -c '/usr/libexec/kvm-exitstat/kvm-exitgen --help >/dev/null'
for u in kvm-exitstat-serve kvm-exitstat-log; do
	check "$u.service where systemd looks" test -f "/lib/systemd/system/$u.service"
done
check "/etc/default/kvm-exitstat a conffile" sh -c "dpkg-query -W -f='\${Conffiles}' kvm-exitstat | grep -q /etc/default/kvm-exitstat"
check "bash completion where bash-completion looks" test -f /usr/share/bash-completion/completions/kvm-exitstat

# ---- purged ----
dpkg --purge kvm-exitstat >"$TMP/purge.out" 2>&1
eq "dpkg --purge" $? 0
left=
for f in $(grep -v '/$' "$TMP/files"); do [ -e "$f" ] && [ ! -d "$f" ] && left="$left $f"; done
eq "nothing of the package left" "$left" ""
summary
