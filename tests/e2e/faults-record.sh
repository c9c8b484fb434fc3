#!/bin/sh
# Faults around `record` (issue 6): SIGHUP, SIGPIPE, the traced VMM dying or
# a VM starting mid-run, a full disk, tracefs missing, unusable or unmounted
# mid-run, no KVM tracepoints, not root. After each: the promised exit status
# and one-line error, no instance left, the host's top-level tracing state
# unchanged, and the file (when one is promised) readable by `report` and by
# `trace-cmd report`. SIGINT/SIGTERM/SIGKILL are in record-signals.sh.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
. "$(dirname "$0")/../tools/fault-helpers.sh"
need_kvm
need_tools
case $KES in /*) ;; *) KES=$PWD/$KES ;; esac
case $EXITGEN in /*) ;; *) EXITGEN=$PWD/$EXITGEN ;; esac
MNT=$TMP/mnt
mkdir "$MNT"
SLEEPER=
# Lazily when busy (a process that should be gone still holds a file there):
# never leave a mount behind.
unmount_mnt() { mountpoint -q "$MNT" && { umount "$MNT" 2>/dev/null || umount -l "$MNT"; }; }
cleanup() {
	[ -n "$SLEEPER" ] && kill "$SLEEPER" 2>/dev/null
	unmount_mnt
	rm -rf "$TMP"
}
trap cleanup EXIT

# io_of FILE [PID...]: KVM_EXIT_IO userspace exits in FILE (of those threads).
io_of() {
	_f=$1
	shift
	_pa=
	for _p in "$@"; do _pa="$_pa -p $_p"; done
	# shellcheck disable=SC2086
	"$DATCOUNT" $_pa -k kvm:kvm_userspace_exit:reason "$_f" >"$TMP/io.dc"
	dc key 2 "$TMP/io.dc"
}

# ---------------------------------------------------------------------------
# SIGHUP stops a recording like SIGINT: complete file, the command stopped.
before_fault
rm -f "$TMP/eg.out" "$TMP/rc"
bg "$TMP/r.pid" "$KES" record -o "$TMP/hup.dat" -- "$EXITGEN" --io 1000 --seconds 10 \
	>"$TMP/eg.out" 2>"$TMP/rec.err"
R=$(cat "$TMP/r.pid")
wait_line "$TMP/eg.out" '^exitgen: pid'
sleep 1
# The traced command holds nothing of the recorder's: no temporary file (its
# space would outlive the recorder), no tracefs file.
ls -l "/proc/$(exitgen_pid "$TMP/eg.out")/fd" >"$TMP/fds" 2>&1
check "the traced command inherits no recorder file ($(grep -E 'deleted|tracing|kvm-exitstat' "$TMP/fds" | head -c 200))" \
	sh -c "grep -q /dev/kvm '$TMP/fds' && ! grep -qE 'deleted|tracing|kvm-exitstat' '$TMP/fds'"
kill -HUP "$R"
wait $BG
eq "SIGHUP: record exit status (the command's: 128 + 1)" "$?" 129
check "SIGHUP: the command was stopped with it" grep -q 'command killed by signal 1$' "$TMP/rec.err"
check "SIGHUP: the command is gone" sh -c "! kill -0 $(exitgen_pid "$TMP/eg.out") 2>/dev/null"
readable SIGHUP "$TMP/hup.dat"
after_fault SIGHUP "$R"

# ---------------------------------------------------------------------------
# SIGPIPE. report into `head -1`, and into a pipe already closed: no message,
# killed by SIGPIPE or done (a filter's usual ways), never a crash.
timeout 60 "$KES" record -q -o "$TMP/big.dat" -- "$EXITGEN" --io 20000 --vcpus 2 --seconds 2 --quiet
eq "big.dat recorded" "$?" 0
first=$( (timeout 60 "$KES" report -i "$TMP/big.dat" -f csv 2>"$TMP/rep.err"; echo $? >"$TMP/rc") | head -1)
check "report | head -1: the CSV header" test "${first%%,*}" = name
check "report | head -1: exit 0 or SIGPIPE (got $(cat "$TMP/rc"))" grep -qxE '0|141' "$TMP/rc"
check "report | head -1: nothing on stderr" test ! -s "$TMP/rep.err"
(sleep 0.2; timeout 60 "$KES" report -i "$TMP/big.dat" -f json 2>"$TMP/rep.err"; echo $? >"$TMP/rc") | true
check "report into a closed pipe: exit 0 or SIGPIPE (got $(cat "$TMP/rc"))" grep -qxE '0|141' "$TMP/rc"
check "report into a closed pipe: nothing on stderr" test ! -s "$TMP/rep.err"

# record whose stderr is a closed pipe: the summary is lost, nothing else.
before_fault
rm -f "$TMP/eg.out" "$TMP/rc"
{
	sleep 0.3
	timeout 60 sh -c "$PIDRUN" "$TMP/r.pid" "$KES" record -o "$TMP/pipe.dat" -- \
		sh -c 'exec "$0" --io 2000 >"$1" 2>&1' "$EXITGEN" "$TMP/eg.out"
	echo $? >"$TMP/rc"
} 2>&1 | true
wait_line "$TMP/rc" .
eq "closed stderr: record exit status" "$(cat "$TMP/rc")" 0
eq "closed stderr: every exit recorded" "$(io_of "$TMP/pipe.dat")" "$(eg_total KVM_EXIT_IO "$TMP/eg.out")"
readable "closed stderr" "$TMP/pipe.dat"
after_fault "closed stderr" "$(cat "$TMP/r.pid")"

# The collector ignores SIGPIPE; the traced command must not inherit that
# (`yes` would then print "Broken pipe" instead of dying quietly).
timeout 60 "$KES" record -q -o "$TMP/yes.dat" -- sh -c 'yes | head -1 >/dev/null' 2>"$TMP/yes.err"
eq "traced command's SIGPIPE: record exit status" "$?" 0
check "traced command's SIGPIPE is the default one (stderr: $(head -c 100 "$TMP/yes.err"))" \
	test ! -s "$TMP/yes.err"

# ---------------------------------------------------------------------------
# The traced VMM dies mid-run. The man page: -p records "until they have all
# exited" - SIGKILL included, and a zombie (exited, not yet reaped) counts.
before_fault
rm -f "$TMP/eg.out" "$TMP/rc"
timeout 60 "$EXITGEN" --io 20000 --seconds 30 >"$TMP/eg.out" 2>&1 &
EG=$!
wait_line "$TMP/eg.out" '^exitgen: pid'
E=$(exitgen_pid "$TMP/eg.out")
bg "$TMP/r.pid" "$KES" record -o "$TMP/k9.dat" -p "$E" 2>"$TMP/rec.err"
R=$(cat "$TMP/r.pid")
# traced for a while before the kill (under TCG record's start alone can take 1.5 s)
wait_traced "$E" || echo "NOTE: record did not trace $E within 20 s"
sleep 1
kill -KILL "$E"
wait $BG
eq "VMM killed (-p): record ends by itself, exit 0" "$?" 0
wait $EG 2>/dev/null
check "VMM killed (-p): its exits until then are in the file" test "$(io_of "$TMP/k9.dat")" -gt 0
check "VMM killed (-p): summary line" grep -q 'recorded [0-9]* events' "$TMP/rec.err"
readable "VMM killed (-p)" "$TMP/k9.dat"
after_fault "VMM killed (-p)" "$R"

# The same VMM under a parent that does not reap it: it stays a zombie.
before_fault
rm -f "$TMP/eg.out" "$TMP/rc"
timeout 60 sh -c '"$0" --io 20000 --seconds 30 >"$1" 2>&1 & exec sleep 60' "$EXITGEN" "$TMP/eg.out" &
SLEEPER=$!
wait_line "$TMP/eg.out" '^exitgen: pid'
E=$(exitgen_pid "$TMP/eg.out")
bg "$TMP/r.pid" "$KES" record -o "$TMP/zombie.dat" -p "$E" 2>"$TMP/rec.err"
R=$(cat "$TMP/r.pid")
wait_traced "$E" || echo "NOTE: record did not trace $E within 20 s"
sleep 1
kill -KILL "$E"
sleep 0.3
check "zombie VMM: it is a zombie (precondition)" grep -q '^State:.*Z' "/proc/$E/status"
wait $BG
eq "zombie VMM (-p): record ends by itself, exit 0 (124: it waited for its timeout)" "$?" 0
kill "$SLEEPER" 2>/dev/null
wait "$SLEEPER" 2>/dev/null
SLEEPER=
readable "zombie VMM (-p)" "$TMP/zombie.dat"
after_fault "zombie VMM (-p)" "$R"

# The traced command killed: the summary says so, the file is complete.
before_fault
rm -f "$TMP/eg.out" "$TMP/rc"
bg "$TMP/r.pid" "$KES" record -o "$TMP/cmd9.dat" -- "$EXITGEN" --io 20000 --seconds 30 \
	>"$TMP/eg.out" 2>"$TMP/rec.err"
R=$(cat "$TMP/r.pid")
wait_line "$TMP/eg.out" '^exitgen: pid'
sleep 1
kill -KILL "$(exitgen_pid "$TMP/eg.out")"
wait $BG
eq "command killed: record exit status (the command's: 128 + 9)" "$?" 137
check "command killed: summary says signal 9" grep -q 'command killed by signal 9' "$TMP/rec.err"
readable "command killed" "$TMP/cmd9.dat"
after_fault "command killed" "$R"

# ---------------------------------------------------------------------------
# A VM that starts after the recording did. -a: its exits are in the file.
before_fault
rm -f "$TMP/eg.out" "$TMP/rc"
bg "$TMP/r.pid" "$KES" record -a -d 4 -b 16384 -o "$TMP/late.dat" 2>"$TMP/rec.err"
R=$(cat "$TMP/r.pid")
wait_tracing "$R"
timeout 60 "$EXITGEN" --io 1000 --mmio 300 --vcpus 2 >"$TMP/eg.out" 2>&1
eq "late VM (-a): exitgen exit status" "$?" 0
wait $BG
eq "late VM (-a): record exit status" "$?" 0
# shellcheck disable=SC2046
io=$(io_of "$TMP/late.dat" $(exitgen_pid "$TMP/eg.out") $(vcpu_tids "$TMP/eg.out"))
if [ "$(dc lost '' "$TMP/io.dc")" = 0 ]; then
	eq "late VM (-a): all its KVM_EXIT_IO" "$io" "$(eg_total KVM_EXIT_IO "$TMP/eg.out")"
	eq "late VM (-a): all its KVM_EXIT_MMIO" "$(dc key 6 "$TMP/io.dc")" \
		"$(eg_total KVM_EXIT_MMIO "$TMP/eg.out")"
else
	check "late VM (-a, events lost on a busy host): its exits are there" test "$io" -gt 0
fi
readable "late VM (-a)" "$TMP/late.dat"
after_fault "late VM (-a)" "$R"

# -p: a child the traced process forks after the recording started is followed.
# (No timeout wrapper: the traced process must be the shell itself; its wait
# for the go file is bounded, and so is exitgen's run.)
before_fault
rm -f "$TMP/eg.out" "$TMP/rc"
sh -c 'i=0; while [ ! -e "$2" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
	"$0" --io 700 --hlt 50 --vcpus 2 >"$1" 2>&1; exit 0' "$EXITGEN" "$TMP/eg.out" "$TMP/go" &
PARENT=$!
bg "$TMP/r.pid" "$KES" record -o "$TMP/child.dat" -p "$PARENT" 2>"$TMP/rec.err"
R=$(cat "$TMP/r.pid")
wait_tracing "$R"
touch "$TMP/go"
wait $BG
eq "forked child (-p parent): record exit status (ends with the parent)" "$?" 0
wait $PARENT
eq "forked child (-p parent): KVM_EXIT_IO" "$(io_of "$TMP/child.dat")" "$(eg_total KVM_EXIT_IO "$TMP/eg.out")"
eq "forked child (-p parent): KVM_EXIT_HLT" "$(dc key 5 "$TMP/io.dc")" "$(eg_total KVM_EXIT_HLT "$TMP/eg.out")"
readable "forked child (-p parent)" "$TMP/child.dat"
after_fault "forked child (-p parent)" "$R"

# ---------------------------------------------------------------------------
# A full disk. The man page: the recording stops, one line naming ENOSPC,
# exit 1, no file (an older one is kept), the space given back.
before_fault
rm -f "$TMP/eg.out" "$TMP/rc"
mount -t tmpfs -o size=2m kes-faults "$MNT"
echo old >"$MNT/full.dat"
bg "$TMP/r.pid" "$KES" record -o "$MNT/full.dat" -- "$EXITGEN" --io 1000000 --seconds 20 \
	>"$TMP/eg.out" 2>"$TMP/rec.err"
R=$(cat "$TMP/r.pid")
wait $BG
eq "ENOSPC while recording: exit status" "$?" 1
one_line "ENOSPC while recording" "$TMP/rec.err" "cannot write '$MNT/full.dat': No space left on device"
eq "ENOSPC while recording: the older file is kept" "$(cat "$MNT/full.dat")" old
eq "ENOSPC while recording: no temporary file left" "$(ls -A "$MNT")" full.dat
check "ENOSPC while recording: the space is given back" test "$(df -k --output=used "$MNT" | tail -1)" -lt 100
check "ENOSPC while recording: the command was stopped" sh -c "! kill -0 $(exitgen_pid "$TMP/eg.out") 2>/dev/null"
unmount_mnt
after_fault "ENOSPC while recording" "$R"

# Room for the recording but not for a second copy of it: finishing copies the
# pages a chunk at a time and frees each copied chunk (issue 11; it used to
# fail here with ENOSPC and lose the recording).
before_fault
rm -f "$TMP/eg.out" "$TMP/rc"
timeout 60 "$KES" record -q -o "$TMP/size.dat" -- "$EXITGEN" --io 20000 --quiet
kb=$(($(stat -c %s "$TMP/size.dat") * 3 / 2 / 1024))
mount -t tmpfs -o "size=${kb}k" kes-faults "$MNT"
bg "$TMP/r.pid" "$KES" record -o "$MNT/fin.dat" -- "$EXITGEN" --io 20000 >"$TMP/eg.out" 2>"$TMP/rec.err"
R=$(cat "$TMP/r.pid")
wait $BG
eq "room for one copy: exit status ($(head -c 160 "$TMP/rec.err"))" "$?" 0
check "room for one copy: the command ran to its end (precondition)" grep -q '^total' "$TMP/eg.out"
eq "room for one copy: the file and nothing else" "$(ls -A "$MNT")" fin.dat
readable "room for one copy" "$MNT/fin.dat"
unmount_mnt
after_fault "room for one copy" "$R"

# ENOSPC with stderr a closed pipe: the error line is lost, the cleanup is not.
before_fault
rm -f "$TMP/eg.out" "$TMP/rc"
mount -t tmpfs -o size=2m kes-faults "$MNT"
{
	sleep 0.3
	timeout 60 sh -c "$PIDRUN" "$TMP/r.pid" "$KES" record -o "$MNT/p.dat" -- \
		sh -c 'exec "$0" --io 1000000 --seconds 20 >/dev/null 2>&1' "$EXITGEN"
	echo $? >"$TMP/rc"
} 2>&1 | true
wait_line "$TMP/rc" .
eq "ENOSPC, closed stderr: exit status" "$(cat "$TMP/rc")" 1
eq "ENOSPC, closed stderr: nothing left" "$(ls -A "$MNT")" ""
unmount_mnt
after_fault "ENOSPC, closed stderr" "$(cat "$TMP/r.pid")"

# ---------------------------------------------------------------------------
# tracefs. In a private mount namespace, so the host's mounts are untouched.
# Not mounted: record mounts it (man page) and records.
before_fault
rm -f "$TMP/eg.out" "$TMP/rc"
timeout 60 unshare -m sh -c 'umount /sys/kernel/tracing && echo $$ >"$3" &&
	exec "$0" record -o "$1" -- "$2" --io 500' "$KES" "$TMP/nofs.dat" "$EXITGEN" "$TMP/r.pid" \
	>"$TMP/eg.out" 2>"$TMP/rec.err"
eq "tracefs not mounted: record mounts it, exit 0" "$?" 0
eq "tracefs not mounted: every exit recorded" "$(io_of "$TMP/nofs.dat")" "$(eg_total KVM_EXIT_IO "$TMP/eg.out")"
readable "tracefs not mounted" "$TMP/nofs.dat"
check "tracefs not mounted: the host's tracefs is still there" test -d "$TRACING/events/kvm"
after_fault "tracefs not mounted" "$(cat "$TMP/r.pid")"

# /sys/kernel/tracing an empty tmpfs: the same (tracefs mounted over it).
before_fault
rm -f "$TMP/eg.out" "$TMP/rc"
timeout 60 unshare -m sh -c 'umount /sys/kernel/tracing && mount -t tmpfs kes-faults /sys/kernel/tracing &&
	echo $$ >"$3" && exec "$0" record -o "$1" -- "$2" --io 500' "$KES" "$TMP/tmpfs.dat" "$EXITGEN" "$TMP/r.pid" \
	>"$TMP/eg.out" 2>"$TMP/rec.err"
eq "tracefs dir an empty tmpfs: exit 0" "$?" 0
eq "tracefs dir an empty tmpfs: every exit recorded" "$(io_of "$TMP/tmpfs.dat")" \
	"$(eg_total KVM_EXIT_IO "$TMP/eg.out")"
after_fault "tracefs dir an empty tmpfs" "$(cat "$TMP/r.pid")"

# No KVM tracepoints (no kvm module): events/ without kvm/.
before_fault
rm -f "$TMP/eg.out" "$TMP/rc"
timeout 60 unshare -m sh -c 'mount -t tmpfs kes-faults /sys/kernel/tracing/events &&
	exec "$0" record -o "$1" -- true' "$KES" "$TMP/nokvm.dat" 2>"$TMP/rec.err"
eq "no kvm module: exit status" "$?" 1
one_line "no kvm module" "$TMP/rec.err" "no KVM tracepoints in /sys/kernel/tracing/events (is the kvm module loaded?)"
check "no kvm module: no file" test ! -e "$TMP/nokvm.dat"
after_fault "no kvm module"

# tracefs cannot be mounted: no /sys/kernel/tracing to mount it on.
before_fault
rm -f "$TMP/eg.out" "$TMP/rc"
timeout 60 unshare -m sh -c 'mount -t tmpfs kes-faults /sys/kernel &&
	exec "$0" record -o "$1" -- true' "$KES" "$TMP/nomnt.dat" 2>"$TMP/rec.err"
eq "tracefs not mountable: exit status" "$?" 1
one_line "tracefs not mountable" "$TMP/rec.err" "cannot mount tracefs on /sys/kernel/tracing: No such file or directory"
check "tracefs not mountable: no file" test ! -e "$TMP/nomnt.dat"
after_fault "tracefs not mountable"

# tracefs unmounted mid-run (lazily, and the mount point hidden so that it
# cannot come back): the recording goes on through its open files and ends
# normally, and the instance (in the host's tracefs) is removed.
before_fault
rm -f "$TMP/eg.out" "$TMP/rc"
cat >"$TMP/ns.sh" <<EOF
timeout 60 sh -c 'echo \$\$ >"$TMP/r.pid"; exec "\$@"' sh "$KES" record -o "$TMP/lazy.dat" -- "$EXITGEN" --io 20000 --seconds 3 >"$TMP/eg.out" 2>"$TMP/rec.err" &
sleep 1.5
umount -l /sys/kernel/tracing && mount -t tmpfs kes-faults /sys/kernel && echo unmounted >"$TMP/um"
test ! -e /sys/kernel/tracing/events && echo gone >>"$TMP/um"
wait \$!
echo \$? >"$TMP/rc"
EOF
timeout 90 unshare -m sh "$TMP/ns.sh"
eq "tracefs unmounted mid-run: done (precondition)" "$(cat "$TMP/um" 2>/dev/null | tr '\n' ' ')" "unmounted gone "
check "tracefs unmounted mid-run: the command ran to its end" grep -q '^total' "$TMP/eg.out"
eq "tracefs unmounted mid-run: record exit status" "$(cat "$TMP/rc")" 0
eq "tracefs unmounted mid-run: every exit recorded" "$(io_of "$TMP/lazy.dat")" \
	"$(eg_total KVM_EXIT_IO "$TMP/eg.out")"
readable "tracefs unmounted mid-run" "$TMP/lazy.dat"
after_fault "tracefs unmounted mid-run" "$(cat "$TMP/r.pid")"

# ---------------------------------------------------------------------------
# Not root.
before_fault
rm -f "$TMP/eg.out" "$TMP/rc"
NB=$(mktemp -d /tmp/kes-faults-nobody.XXXXXX)
chmod 755 "$NB"
cp "$KES" "$NB/kvm-exitstat"
(cd "$NB" && timeout 60 runuser -u nobody -- ./kvm-exitstat record -o nobody.dat -- true) 2>"$TMP/rec.err"
eq "not root: exit status" "$?" 1
one_line "not root" "$TMP/rec.err" "record needs root"
check "not root: no file" test ! -e "$NB/nobody.dat"
rm -rf "$NB"
after_fault "not root"
summary
