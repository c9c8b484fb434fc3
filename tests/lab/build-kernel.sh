#!/bin/sh
# build-kernel.sh NAME ARCH CROSS_COMPILE IMAGE
#
# Builds a kernel from Debian's linux-source-6.12 with tinyconfig plus the
# fragment tests/lab/kernel/NAME.config, and caches it by the hash of
# (fragment, source package version, ARCH, IMAGE, compiler version) under
# $LAB_CACHE/kernel/NAME-HASH/ (default LAB_CACHE build/lab). Prints that
# directory, laid out as kernel.sh lays out a Debian kernel: image (IMAGE is
# the file under the build tree, e.g. vmlinux or arch/riscv/boot/Image, and
# its basename the make target), release, config, an empty modules.dep
# (everything is built in), build-time. A second run with the same inputs
# prints the cached directory at once.
#
# The fragment is applied through KCONFIG_ALLCONFIG (see below); afterwards each
# CONFIG_X=y of the fragment is checked in the final .config: an option that
# Kconfig dropped (a missing dependency) is a failure, not a silently
# different kernel.
#
# Needs: linux-source-6.12 (/usr/src/linux-source-6.12.tar.xz), the cross
# compiler, flex, bison, bc, libssl-dev, libelf-dev. Builds niced on all CPUs
# (KERNEL_JOBS overrides).
set -eu

die() { echo "build-kernel.sh: $*" >&2; exit 1; }

[ $# -eq 4 ] || die "usage: build-kernel.sh NAME ARCH CROSS_COMPILE IMAGE"
name=$1 arch=$2 cross=$3 image=$4
here=$(cd "$(dirname "$0")" && pwd)
frag=$here/kernel/$name.config
cache=${LAB_CACHE:-build/lab}
tarball=/usr/src/linux-source-6.12.tar.xz

[ -f "$frag" ] || die "no fragment $frag"
[ -f "$tarball" ] || die "missing $tarball: apt-get install linux-source-6.12"
command -v "${cross}gcc" >/dev/null || die "missing ${cross}gcc (Debian gcc-<triplet>)"
for t in flex bison bc; do
	command -v $t >/dev/null || die "missing $t (apt-get install $t)"
done
srcver=$(dpkg-query -W -f '${Version}' linux-source-6.12 2>/dev/null) ||
	die "linux-source-6.12 is not installed as a package"
ccver=$("${cross}gcc" -dumpfullversion)
hash=$( (cat "$frag"; echo "$srcver $arch $image $ccver") | sha256sum | cut -c1-16)
out=$cache/kernel/$name-$hash
mkdir -p "$cache/kernel"
out=$(cd "$cache/kernel" && pwd)/$name-$hash

if [ -f "$out/image" ] && [ -f "$out/release" ]; then
	echo "$out"
	exit 0
fi

src=$cache/src/linux-source-6.12
if [ ! -f "$src/Makefile" ]; then
	mkdir -p "$cache/src"
	tar -C "$cache/src" -xf "$tarball"
fi
src=$(cd "$src" && pwd)
obj=$out.build
rm -rf "$obj"
mkdir -p "$obj"

mk() { nice -n 10 make -s -C "$src" O="$obj" ARCH="$arch" CROSS_COMPILE="$cross" "$@"; }
start=$(date +%s)
# tinyconfig is allnoconfig with tiny-base.config, then tiny.config; the
# fragment joins them in the one allnoconfig, so that Kconfig resolves the
# choices (endianness, 64-bit) as it says.
cat "$src/kernel/configs/tiny-base.config" "$src/kernel/configs/tiny.config" "$frag" >"$obj/allconfig"
KCONFIG_ALLCONFIG=$obj/allconfig mk allnoconfig >"$obj/config.log" 2>&1 ||
	die "allnoconfig failed: see $obj/config.log"
# Every option the fragment turns on must have survived Kconfig.
missing=$(grep -E '^CONFIG_[A-Z0-9_]+=y' "$frag" | while read -r line; do
	grep -qx "$line" "$obj/.config" || echo "${line%=y}"
done)
[ -z "$missing" ] || die "$name.config: Kconfig dropped $(echo $missing)"
mk -j"${KERNEL_JOBS:-$(nproc)}" "$(basename "$image")" >"$obj/build.log" 2>&1 ||
	die "kernel build failed: tail $obj/build.log"
mkdir -p "$out"
cp "$obj/$image" "$out/image"
cp "$obj/.config" "$out/config"
mk kernelrelease >"$out/release"
: >"$out/modules.dep"
echo "$(($(date +%s) - start)) s on $(nproc) CPUs, $(uname -m) host, $srcver" >"$out/build-time"
rm -rf "$obj"
echo "$out"
