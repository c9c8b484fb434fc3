#!/bin/sh
# host/initramfs.sh OUT KDIR BUSYBOX_DEB "MODULE...": the lab host's initramfs:
# busybox, the modules (in load order, modules.dep closure) and host/init,
# which mounts this machine's root over 9p and switches to it. Rebuilt only
# when one of its inputs changed (a stamp of their hashes beside OUT).
. "$(dirname "$0")/../lib.sh"
set -eu
[ $# -eq 4 ] || die "usage: host/initramfs.sh OUT KDIR BUSYBOX_DEB MODULES"
out=$1 kdir=$2 bdeb=$3 mods=$4
H=$LAB/host
stamp=$( (echo "$mods"; cat "$kdir/release"; sha256sum "$bdeb" "$H/init" "$H/stage2.sh" "$0") | sha256sum)
[ -f "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ] && exit 0
# One builder at a time: make check's two lab hosts start together, and
# both wrote $out.tmp at once. One's mv then failed ("cannot make", a CI
# rehearsal of 2026-12-07); the other could boot a file still being
# written (the likeliest reason of stop 39's CI, where both guests' init
# failed to switch_root).
mkdir -p "$(dirname "$out")"
exec 9>"$out.lock"
flock 9 || die "cannot lock $out.lock"
[ -f "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ] && exit 0

root=$(mktemp -d "$LAB_CACHE/.hostinit.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/lower" "$root/upper" "$root/newroot" "$root/lab"
dpkg-deb --fsys-tarfile "$bdeb" | tar -xO ./bin/busybox >"$root/bin/busybox" || die "cannot unpack busybox from $bdeb"
chmod 755 "$root/bin/busybox"
rel=$(cat "$kdir/release")
# shellcheck disable=SC2086
load_list "$kdir/modules.dep" $mods >"$root/lab/modules"
! grep -q '^MISSING' "$root/lab/modules" || die "kernel $rel has no module $(sed -n 's/^MISSING //p' "$root/lab/modules")"
while read -r p _; do
	mkdir -p "$(dirname "$root/lib/modules/$rel/$p")"
	cp "$kdir/lib/modules/$rel/$p" "$root/lib/modules/$rel/$p"
done <"$root/lab/modules"
sed -i "s|^|/lib/modules/$rel/|" "$root/lab/modules"
cp "$H/init" "$root/init"
cp "$H/stage2.sh" "$root/lab/stage2.sh"
chmod 755 "$root/init"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
echo "$stamp" >"$out.stamp"
