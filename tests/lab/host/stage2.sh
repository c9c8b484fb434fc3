#!/bin/sh
# The lab host's second stage, in this machine's own root (host's /bin/sh):
# the usual mounts, loopback up, then the command host.sh wrote into the
# results directory OUT, in its directory, with its environment; its status
# into OUT/rc, and power off. host.sh reads OUT/output as it grows.
out=$1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
# what udev makes on a host: a bare devtmpfs has no /dev/stdout (record -o /dev/stdout)
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
# The host's /tmp as the overlay shows it, kept before a tmpfs hides it: a
# checkout under it (a CI's mktemp -d) is put back at its path below.
mkdir -p /mnt/hosttmp && mount --bind /tmp /mnt/hosttmp
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=755 tmpfs /run
mount -t tracefs nodev /sys/kernel/tracing
mount -t debugfs nodev /sys/kernel/debug
# The results directory (9p tag labout) at its host path, after the tmpfs
# mounts (a directory under the host's /tmp would be hidden by this /tmp)
# and after the command's directory (OUT may be inside it).
off() { sync; echo o >/proc/sysrq-trigger; sleep 30; }
mkdir -p /mnt/labout && mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 labout /mnt/labout ||
	{ echo "lab-host: cannot mount the results directory $out" >/dev/console; off; }
cwd=$(cat /mnt/labout/cwd)
case $cwd in
/tmp/?*) mkdir -p "$cwd" && mount --bind "/mnt/hosttmp/${cwd#/tmp/}" "$cwd" ||
	{ echo "lab-host: cannot show $cwd" >/dev/console; off; } ;;
esac
mkdir -p "$out" && mount --bind /mnt/labout "$out" ||
	{ echo "lab-host: cannot mount the results directory $out" >/dev/console; off; }
# No proactive compaction (6.1's default 20): a page it migrates under KVM
# is faulted in once more, one stage-2 fault the exact rules
# (isa/x86-svm.expect) cannot predict. This guest's own setting.
echo 0 >/proc/sys/vm/compaction_proactiveness 2>/dev/null
ip link set lo up 2>/dev/null || ifconfig lo up 2>/dev/null
hostname lab-host
# Not this machine's python shims: a pyenv start costs seconds under TCG.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LAB_HOST=1
. "$out/env"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LAB_HOST=1
share=$(cat "$out/share")
if [ -n "$share" ]; then
	mkdir -p "$share" && mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 labshare "$share" ||
		{ echo "lab-host: cannot mount the shared directory $share" >/dev/console; off; }
fi
cd "$cwd" || { echo 125 >"$out/rc"; off; }
/bin/sh -c "$(cat "$out/cmd")" >"$out/output" 2>&1 </dev/null
echo $? >"$out/rc"
umount "$out" /mnt/labout 2>/dev/null
off
