#!/bin/sh
# lock.sh [--suite SUITE] NAME:ARCH...: packages.lock lines ("name arch version
# sha256") for the version apt would fetch now. Used to add a package to the
# lock or to move the lock to a newer point release:
#   tests/lab/lock.sh busybox-static:arm64 >> tests/lab/packages.lock
#   tests/lab/lock.sh $(awk '!/^#/ && NF == 4 { print $1 ":" $2 }' tests/lab/packages.lock)
# ARCH "all" means an architecture-independent package. With --suite, the
# packages of that Debian release (riscv64: trixie), read through a private apt
# state (tools/cross/apt-suite.sh, in $LAB_CACHE/apt/SUITE-ARCH), and the lines
# get SUITE as a fifth field, which fetch.sh downloads from:
#   tests/lab/lock.sh --suite trixie $(awk '!/^#/ && $5 == "trixie" { print $1 ":" $2 }' tests/lab/packages.lock)
# (an "all" package of SUITE is looked up in the lists of the first ARCH given).
. "$(dirname "$0")/lib.sh"
set -eu
suite=
if [ "${1:-}" = --suite ]; then
	[ $# -ge 2 ] || die "--suite needs a Debian release"
	suite=$2
	shift 2
fi
# Run where no .deb is: apt-get download --print-uris prints nothing for a file it finds.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
lists=
for spec in "$@"; do
	name=${spec%%:*} arch=${spec#*:}
	if [ -n "$suite" ]; then
		[ "$arch" = all ] || lists=${lists:-$arch}
		a=$arch
		[ "$a" = all ] && a=${lists:-amd64}
		uri=$(sh "$ROOT/tools/cross/apt-suite.sh" "$LAB_CACHE/apt/$suite-$a" "$suite" "$a" \
			download --print-uris "$name" 2>/dev/null | tail -n 1)
	else
		[ "$arch" = all ] && q=$name || q=$name:$arch
		uri=$(apt-get download --print-uris "$q" 2>/dev/null | tail -n 1)
	fi
	[ -n "$uri" ] || die "lock.sh: apt knows no $name:$arch${suite:+ in $suite}"
	file=$(echo "$uri" | awk '{ print $2 }')
	sha=$(echo "$uri" | sed -n 's/.* SHA256:\([0-9a-f]*\).*/\1/p')
	# The file name is NAME_VERSION_ARCH.deb with the epoch written %3a.
	ver=$(echo "$file" | sed 's/^[^_]*_\(.*\)_[^_]*\.deb$/\1/; s/%3a/:/')
	echo "$name $arch $ver $sha${suite:+ $suite}"
done
