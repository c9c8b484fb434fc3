#!/bin/sh
# initramfs.sh OUT.cpio.gz: the guest's whole userland, as a gzip'd newc cpio.
# Reads its inputs from the environment (lab.sh sets them):
#   ISA, DEB_ARCH, MODULES   the ISA's data (isa/<ISA>.sh)
#   KDIR                     kernel.sh's directory (modules, modules.dep)
#   SYSROOT                  tools/cross/sysroot.sh's directory for DEB_ARCH,
#                            trace-cmd unpacked into it too
#   BUSYBOX_DEB              the busybox-static .deb of DEB_ARCH
#   TOOL_DIR                 where kvm-exitstat and exitgen of DEB_ARCH were built
#   GUEST_ENV                a file of shell variables for the guest (/lab/isa.env)
# Layout: /bin/busybox (+ links made at boot), /init, /lab/{run.sh,isa.env,
# modules}, /usr/bin/{kvm-exitstat,exitgen,trace-cmd}, the shared libraries
# they need and their loader, taken from SYSROOT (readelf resolves them, so
# one path serves every architecture), /lib/modules/<release>/... .
. "$(dirname "$0")/lib.sh"
set -eu
[ $# -eq 1 ] || die "usage: initramfs.sh OUT.cpio.gz"
out=$1
for v in ISA DEB_ARCH KDIR SYSROOT BUSYBOX_DEB TOOL_DIR GUEST_ENV; do
	eval "[ -n \"\${$v:-}\" ]" || die "initramfs.sh: $v is not set"
done
command -v cpio >/dev/null || die "cpio not found (make lab-deps)"
command -v readelf >/dev/null || die "readelf not found (binutils)"

root=$(mktemp -d "$LAB_CACHE/.initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/sbin" "$root/usr/bin" "$root/usr/sbin" "$root/lab" "$root/proc" \
	"$root/sys" "$root/dev" "$root/tmp" "$root/share" "$root/etc"

# Debian 12 ships /bin/busybox, Debian 13 (merged /usr; riscv64's) /usr/bin/busybox.
bb=$(dpkg-deb -c "$BUSYBOX_DEB" | awk '$NF == "./bin/busybox" || $NF == "./usr/bin/busybox" { print $NF; exit }')
[ -n "$bb" ] || die "no bin/busybox or usr/bin/busybox in $BUSYBOX_DEB"
dpkg-deb --fsys-tarfile "$BUSYBOX_DEB" | tar -xO "$bb" >"$root/bin/busybox" ||
	die "cannot unpack $bb from $BUSYBOX_DEB"
chmod 755 "$root/bin/busybox"

# libdirs: where the loader of DEB_ARCH looks, inside SYSROOT.
libdirs() {
	for d in lib usr/lib lib64; do
		ls -d "$SYSROOT/$d"/*-linux-gnu* "$SYSROOT/$d" 2>/dev/null
	done
}

# sysroot_path PATH: PATH inside SYSROOT, symlinks followed there: Debian's
# ppc64el libc6 links /lib64/ld64.so.2 to the absolute
# /lib/powerpc64le-linux-gnu/ld64.so.2, which test -e would look up on the host.
sysroot_path() {
	p=$SYSROOT$1 n=0
	while [ -L "$p" ] && [ $n -lt 16 ]; do
		t=$(readlink "$p")
		case $t in
		/*) p=$SYSROOT$t ;;
		*) p=$(dirname "$p")/$t ;;
		esac
		n=$((n + 1))
	done
	echo "$p"
}

# copy_elf FILE DEST: FILE to DEST in the image, with every library it needs
# (recursively, found in SYSROOT) and its program interpreter.
copy_elf() {
	mkdir -p "$(dirname "$root$2")"
	cp -L "$1" "$root$2"
	interp=$(readelf -l "$1" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
	if [ -n "$interp" ] && [ ! -e "$root$interp" ]; then
		src=$(sysroot_path "$interp")
		[ -e "$src" ] || die "$1 needs $interp, not in $SYSROOT"
		mkdir -p "$(dirname "$root$interp")"
		cp -L "$src" "$root$interp"
	fi
	for lib in $(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		found=
		for d in $(libdirs); do
			[ -e "$d/$lib" ] || continue
			found=${d#"$SYSROOT"}/$lib
			break
		done
		[ -n "$found" ] || die "$1 needs $lib, not found in $SYSROOT"
		[ -e "$root$found" ] || copy_elf "$SYSROOT$found" "$found"
	done
}

copy_elf "$TOOL_DIR/kvm-exitstat" /usr/bin/kvm-exitstat
copy_elf "$TOOL_DIR/exitgen" /usr/bin/exitgen
[ -x "$SYSROOT/usr/bin/trace-cmd" ] || die "no trace-cmd in $SYSROOT"
copy_elf "$SYSROOT/usr/bin/trace-cmd" /usr/bin/trace-cmd

: >"$root/lab/modules"
if [ -n "${MODULES:-}" ]; then # a kernel with everything built in needs none
	rel=$(cat "$KDIR/release")
	[ -f "$KDIR/modules.dep" ] || die "kernel $rel: MODULES named but no $KDIR/modules.dep"
	# shellcheck disable=SC2086
	load_list "$KDIR/modules.dep" $MODULES >"$root/lab/modules"
	if grep -q '^MISSING' "$root/lab/modules"; then
		die "kernel $rel has no module $(sed -n 's/^MISSING //p' "$root/lab/modules" | head -n 1)"
	fi
	while read -r p _; do
		mkdir -p "$(dirname "$root/lib/modules/$rel/$p")"
		cp "$KDIR/lib/modules/$rel/$p" "$root/lib/modules/$rel/$p"
	done <"$root/lab/modules"
	sed -i "s|^|/lib/modules/$rel/|" "$root/lab/modules"
fi

cp "$LAB/guest/init" "$root/init"
cp "${GUEST_RUN:-$LAB/guest/run.sh}" "$root/lab/run.sh"
cp "$GUEST_ENV" "$root/lab/isa.env"
chmod 755 "$root/init"
echo "root:x:0:0:root:/:/bin/sh" >"$root/etc/passwd"

mkdir -p "$(dirname "$out")"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
