#!/bin/sh
# sysroot.sh: a sysroot of the libraries kvm-exitstat needs, for another
# architecture, made from Debian's own packages of that architecture.
#
#   tools/cross/sysroot.sh [--debs DIR] ARCH DIR [EXTRA_PACKAGE...]
#   tools/cross/sysroot.sh --packages ARCH
#   tools/cross/sysroot.sh --suite ARCH
#
# ARCH is a Debian architecture (arm64, ppc64el, riscv64, amd64, ...). Each
# package is unpacked with dpkg-deb -x into DIR (no install, no root needed for
# that); DIR then holds usr/include/{traceevent,tracefs,trace-cmd}, ncurses.h and
# the .so files and pkg-config files under usr/lib/<triplet>/. Build with
#
#   make CROSS=aarch64-linux-gnu- SYSROOT=DIR
#
# The packages come from this machine's Debian release (12, bookworm), except
# for an architecture it has no port of: riscv64's first official port is
# Debian 13 (trixie), so riscv64's sysroot is trixie's. Without --debs the
# newest packages are fetched: `apt-get download PKG:ARCH` from the machine's
# own lists (needs `dpkg --add-architecture ARCH && apt-get update` once), or,
# for another release, through a private apt state of that release and ARCH
# (tools/cross/apt-suite.sh; the machine's apt setup is left alone). With --debs
# DIR the .deb files are taken from DIR instead (named NAME_VERSION_ARCH.deb, as
# apt-get download names them), e.g. a pinned and checked set (tests/lab/fetch.sh
# does that for the lab). EXTRA_PACKAGE names more packages of ARCH to unpack
# (the lab adds trace-cmd). --packages prints the package names this script
# unpacks for ARCH; --suite the Debian release they come from (empty: the
# machine's own).
#
# Debian 13's glibc (2.41) is newer than Debian 12's cross toolchain's (2.36),
# and its libraries need symbols of glibc 2.38 (__isoc23_strtol...): so a
# trixie sysroot also holds trixie's C library headers and start files
# (libc6-dev, linux-libc-dev), and the Makefile builds against those instead of
# the cross toolchain's whenever SYSROOT has them (it looks for crt1.o).
set -eu

# The runtime libraries (.so.N), their -dev packages (headers, .so links,
# .pc files) and the C library the runtime needs (the cross compiler brings
# its own headers and crt files; these are for running the result); the
# libraries of `serve` (libmicrohttpd, json-c, zlib; libcrypt, --web-config's bcrypt) with what their
# pkg-config files require (libmicrohttpd.pc requires gnutls, gnutls.pc
# nettle, hogweed, libtasn1, libidn2 and p11-kit-1) and what their runtime needs.
PKGS="libc6 libgcc-s1 libzstd1 libzstd-dev libtraceevent1 libtraceevent-dev libtracefs1 libtracefs-dev
libtracecmd1 libtracecmd-dev libtinfo6 libncurses6 libncursesw6 libncurses-dev
zlib1g zlib1g-dev libjson-c5 libjson-c-dev libmicrohttpd12 libmicrohttpd-dev
libgnutls30 libgnutls28-dev libnettle8 libhogweed6 nettle-dev libgmp10 libtasn1-6
libtasn1-6-dev libidn2-0 libidn2-dev libunistring2 libp11-kit0 libp11-kit-dev libffi8
libcrypt1 libcrypt-dev"

# Debian 13's names for the same (its 64-bit time_t transition renamed a few)
# and its C library's own headers and start files (linux-libc-dev is one package
# for every architecture there: NAME:all).
PKGS_TRIXIE="libc6 libc6-dev linux-libc-dev:all libgcc-s1 libzstd1 libzstd-dev libtraceevent1 libtraceevent-dev
libtracefs1 libtracefs-dev libtracecmd1 libtracecmd-dev libtinfo6 libncurses6 libncursesw6
libncurses-dev zlib1g zlib1g-dev libjson-c5 libjson-c-dev libmicrohttpd12t64 libmicrohttpd-dev
libgnutls30t64 libgnutls28-dev libnettle8t64 libhogweed6t64 nettle-dev libgmp10 libtasn1-6
libtasn1-6-dev libidn2-0 libidn2-dev libunistring5 libp11-kit0 libp11-kit-dev libffi8
libcrypt1 libcrypt-dev"

die() { echo "sysroot.sh: $*" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)

# suite_of ARCH: the Debian release whose packages of ARCH make the sysroot
# (empty: this machine's own).
suite_of() {
	case $1 in
	riscv64) echo trixie ;;
	esac
}

packages_of() {
	case $(suite_of "$1") in
	'') echo $PKGS ;;
	trixie) echo $PKGS_TRIXIE ;;
	esac
}

case ${1:-} in
--packages | --suite)
	[ $# -eq 2 ] || die "usage: sysroot.sh $1 ARCH"
	[ "$1" = --packages ] && packages_of "$2" || suite_of "$2"
	exit 0 ;;
esac
debs=
if [ "${1:-}" = --debs ]; then
	[ $# -ge 2 ] || die "--debs needs a directory"
	debs=$2
	shift 2
fi
[ $# -ge 2 ] || die "usage: sysroot.sh [--debs DIR] ARCH DIR [EXTRA_PACKAGE...]"
arch=$1 dir=$2
shift 2
command -v dpkg-deb >/dev/null || die "dpkg-deb not found"
suite=$(suite_of "$arch")
pkgs="$(packages_of "$arch") $*"

if [ -z "$debs" ]; then
	debs=$(mktemp -d)
	trap 'rm -rf "$debs"' EXIT
	if [ -n "$suite" ]; then
		(cd "$debs" && sh "$here/apt-suite.sh" "$debs/.apt" "$suite" "$arch" \
			download $(for p in $pkgs; do echo "${p%%:*}"; done) >/dev/null) ||
			die "apt-get download of Debian $suite's $arch packages failed"
	else
		(cd "$debs" && apt-get -q -o APT::Sandbox::User=root download \
			$(for p in $pkgs; do case $p in *:all) echo "${p%%:*}" ;; *) echo "${p%%:*}:$arch" ;; esac; done) >/dev/null) ||
			die "apt-get download of the $arch packages failed (dpkg --add-architecture $arch && apt-get update?)"
	fi
fi

mkdir -p "$dir"
for p in $pkgs; do
	a=$arch
	case $p in *:*) a=${p#*:} p=${p%%:*} ;; esac
	deb=$(ls "$debs/${p}_"*"_$a.deb" 2>/dev/null | head -n 1)
	[ -n "$deb" ] || die "no ${p}_*_$a.deb in $debs"
	dpkg-deb -x "$deb" "$dir" || die "cannot unpack $deb"
done
# Debian 13 is merged-/usr: its packages ship /usr/lib only, and /lib, /bin,
# /sbin are links base-files makes. Its libc.so names /lib/<triplet>/libc.so.6
# and its programs ask for /lib/ld-linux-*.so.1: make the links here too.
if [ ! -e "$dir/lib" ] && [ -d "$dir/usr/lib" ]; then
	for d in lib bin sbin; do
		[ -e "$dir/$d" ] || ln -s "usr/$d" "$dir/$d"
	done
fi
# Debian's -dev .so links are absolute in a few packages (/lib/<triplet>/...):
# point them into the sysroot, so the linker finds the library of ARCH.
find "$dir" -type l -name '*.so' | while read -r l; do
	t=$(readlink "$l")
	case $t in /*) ln -sfr "$dir$t" "$l" ;; esac
done
