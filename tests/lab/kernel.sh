#!/bin/sh
# kernel.sh DEB IMAGE MODULE...: unpacks a Debian kernel package once into
# the cache and prints the kernel directory:
#   KDIR/image        the kernel QEMU boots (IMAGE inside the package)
#   KDIR/release      its uname -r
#   KDIR/modules.dep  made by depmod (the package has none: its postinst makes it)
#   KDIR/lib/modules/RELEASE/kernel/...  the .ko files of the MODULEs named
#                     and of every module they need, nothing else
# A later call that names a module not kept yet unpacks the package again.
# MODULE may carry parameters (kvm-amd:npt=0): they are ignored here.
. "$(dirname "$0")/lib.sh"
set -eu
[ $# -ge 2 ] || die "usage: kernel.sh DEB IMAGE [MODULE...]"
deb=$1 image=$2
shift 2
kdir=$LAB_CACHE/kernel/$(basename "$deb" .deb)

have_all() {
	[ -f "$kdir/image" ] && [ -f "$kdir/modules.dep" ] || return 1
	rel=$(cat "$kdir/release")
	closure "$kdir/modules.dep" "$@" | while read -r p; do
		[ -f "$kdir/lib/modules/$rel/$p" ] || { echo missing; break; }
	done | grep -q missing && return 1
	return 0
}

# One unpacker of a package at a time (make check's two lab hosts start
# together): a cp into KDIR while the other host's QEMU reads it boots half
# a kernel. The second waits, then finds it all there.
mkdir -p "$LAB_CACHE/kernel"
exec 9>"$kdir.lock"
flock 9 || die "cannot lock $kdir.lock"
if ! have_all "$@"; then
	[ -f "$deb" ] || die "no kernel package $deb"
	tmp=$(mktemp -d "$LAB_CACHE/.kernel.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" ./boot ./lib/modules ||
		die "cannot unpack $deb"
	[ -f "$tmp/$image" ] || die "$deb has no $image"
	rel=$(ls "$tmp/lib/modules" | head -n 1)
	depmod -b "$tmp" "$rel" || die "depmod failed on $deb"
	mkdir -p "$kdir/lib/modules/$rel"
	cp "$tmp/$image" "$kdir/image"
	cp "$tmp/lib/modules/$rel/modules.dep" "$kdir/modules.dep"
	cp "$tmp/boot/config-$rel" "$kdir/config" 2>/dev/null || true
	echo "$rel" >"$kdir/release"
	for p in $(closure "$kdir/modules.dep" "$@"); do
		[ "$p" != MISSING ] || die "$deb: no module named in the ISA's MODULES ($*)"
		mkdir -p "$(dirname "$kdir/lib/modules/$rel/$p")"
		cp "$tmp/lib/modules/$rel/$p" "$kdir/lib/modules/$rel/$p"
	done
fi
echo "$kdir"
