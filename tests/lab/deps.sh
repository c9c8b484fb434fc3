#!/bin/sh
# deps.sh [--isa ISA]...: installs the host tools of the ISAs (default: all)
# at the versions packages.lock pins, from .deb files fetch.sh checked
# (make lab-deps). Foreign-architecture packages of the guests are not
# installed: fetch.sh downloads them, which needs their architecture known
# to apt (dpkg --add-architecture, done here) unless they come from another
# Debian release (a fifth field in packages.lock: riscv64's, from trixie).
LAB=$(cd "$(dirname "$0")" && pwd)
. "$LAB/lib.sh"
set -eu
isas=
while [ $# -gt 0 ]; do
	case $1 in
	--isa) isas="$isas $2"; shift 2 ;;
	*) die "deps.sh: unknown argument '$1'" ;;
	esac
done
[ -n "$isas" ] || isas=$(for f in "$LAB"/isa/*.sh; do basename "$f" .sh; done)
debs= archs=
for i in $isas; do
	[ -f "$LAB/isa/$i.sh" ] || die "no ISA '$i'"
	HOST_DEBS= DEB_ARCH=
	. "$LAB/isa/$i.sh"
	debs="$debs $HOST_DEBS"
	archs="$archs $DEB_ARCH"
done
native=$(dpkg --print-architecture)
update=
for a in $(echo $archs | tr ' ' '\n' | sort -u); do
	[ "$a" = "$native" ] && continue
	# Packages of another Debian release (riscv64's: trixie) come through a private
	# apt state (fetch.sh), not through this machine's lists.
	awk -v a="$a" '!/^#/ && $2 == a && NF == 4 { f = 1 } END { exit !f }' "$LOCK" || continue
	dpkg --print-foreign-architectures | grep -qx "$a" && continue
	dpkg --add-architecture "$a"
	update=1
done
# A foreign index a mirror serves mid-sync fails the update in part: fetch.sh's
# pool.py finds such packages anyway, and the lock's sha256 checks them.
[ -z "$update" ] || apt-get -o DPkg::Lock::Timeout=600 update -qq ||
	say "apt-get update failed in part (a mirror mid-sync?): going on with the lists it has"
# shellcheck disable=SC2046
sh "$LAB/fetch.sh" --install $(echo $debs | tr ' ' '\n' | sort -u) >/dev/null
say "host tools installed: $(echo $debs | tr ' ' '\n' | sort -u | tr '\n' ' ')"
