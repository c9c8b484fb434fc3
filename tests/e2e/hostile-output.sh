#!/bin/sh
# Root-safe outputs and terminals (issue 11): record -o, diff --svg and top -L
# never follow a symlink in a directory others can write, never replace a
# device or FIFO (they are written through, or refused), check the name and
# the directory before the workload runs, resolve the directory once, finish
# without a second full copy of the data, and never touch a file another
# user linked in. Names reach the terminal escaped. Inside a PID namespace,
# record and top translate pids or refuse. Device nodes are private ones
# made with mknod in $TMP, never the real /dev/null.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_kvm
need_tools
case $KES in /*) ;; *) KES=$PWD/$KES ;; esac
case $EXITGEN in /*) ;; *) EXITGEN=$PWD/$EXITGEN ;; esac
MNT=$TMP/mnt
unmount_mnt() { mountpoint -q "$MNT" 2>/dev/null && { umount "$MNT" 2>/dev/null || umount -l "$MNT"; }; }
trap 'unmount_mnt; rm -rf "$TMP"' EXIT
ESC=$(printf '\033')
EG="$EXITGEN --io 200 --mmio 20 --hlt 4 --quiet"
PUB=$TMP/pub # a directory anyone can write, like /tmp
mkdir -m 1777 "$PUB"
echo precious >"$TMP/victim"
chown nobody "$TMP/victim"
chmod 600 "$TMP/victim"
victim_ok() {
	[ "$(cat "$TMP/victim")" = precious ] && [ "$(stat -c %U:%a "$TMP/victim")" = nobody:600 ]
}

# run CMD...: stdout, stderr in $TMP/out, $TMP/err, status in $rc (at most 60 s).
run() {
	timeout -s KILL 60 "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
}
# refused_early DESC REGEX RECORD-ARGS...: record fails with one line matching
# REGEX before its workload (which would touch $TMP/ran) was started.
refused_early() {
	d=$1 re=$2
	shift 2
	rm -f "$TMP/ran"
	run "$KES" record "$@" -- sh -c "touch '$TMP/ran'; exec $EG"
	why=
	[ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] || why="$why; status $rc"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] || why="$why; $(wc -l <"$TMP/err") lines on stderr"
	grep -Eq "^kvm-exitstat: .*($re)" "$TMP/err" || why="$why; stderr '$(head -c 200 "$TMP/err")'"
	[ ! -e "$TMP/ran" ] || why="$why; the workload ran first"
	if [ -z "$why" ]; then ok; else bad "$d$why"; fi
}
# io_count FILE: KVM_EXIT_IO exits in a trace.dat, read by libtracecmd (datcount).
io_count() {
	"$DATCOUNT" -k kvm:kvm_userspace_exit:reason "$1" >"$TMP/io.dc" 2>/dev/null
	dc key 2 "$TMP/io.dc"
}

# --- devices and FIFOs --------------------------------------------------------------
mknod "$TMP/null" c 1 3
mknod "$TMP/full" c 1 7
run "$KES" record -q -o "$TMP/null" -- $EG
eq "record -o a null device: status ($(head -c 120 "$TMP/err"))" "$rc" 0
check "record -o a null device: still a character device" test -c "$TMP/null"
run "$KES" record -q -o "$TMP/full" -- $EG
check "record -o a full device: fails ($rc)" test "$rc" -eq 1
check "record -o a full device: says so" grep -q 'No space left on device' "$TMP/err"
check "record -o a full device: still a character device" test -c "$TMP/full"
mkfifo "$TMP/fifo"
timeout 60 cat "$TMP/fifo" >"$TMP/from-fifo.dat" &
reader=$!
run "$KES" record -q -o "$TMP/fifo" -- $EG
wait $reader
eq "record -o a FIFO with a reader: status ($(head -c 120 "$TMP/err"))" "$rc" 0
check "record -o a FIFO: still a FIFO" test -p "$TMP/fifo"
eq "record -o a FIFO: the reader got the whole recording (IO exits)" \
	"$(io_count "$TMP/from-fifo.dat")" 201
refused_early "record -o a FIFO nobody reads" "FIFO|reader" -o "$TMP/fifo"
# /dev/stdout: a link into /proc to an fd already open: written through, a pipe or a file
"$KES" record -q -o /dev/stdout -- $EG 2>"$TMP/err" | cat >"$TMP/stdout.dat"
eq "record -o /dev/stdout into a pipe: the whole recording (IO exits)" \
	"$(io_count "$TMP/stdout.dat")" 201
check "record -o /dev/stdout: nothing made in the current directory" \
	sh -c "! ls -A | grep -q 'pipe:'"
mknod "$TMP/blk" b 7 0 # never opened: refused by its type
refused_early "record -o a block device" "device" -o "$TMP/blk"

# --- names and directories, checked before the workload runs --------------------------
name254=$(printf '%0254d' 0)
run "$KES" record -q -o "$TMP/$name254" -- $EG
eq "record -o a 254-byte name: status ($(head -c 120 "$TMP/err"))" "$rc" 0
check "record -o a 254-byte name: the file is there" test -s "$TMP/$name254"
refused_early "record -o a 256-byte name" "too long" -o "$TMP/${name254}00"
refused_early "record -o with a trailing slash" "directory|slash" -o "$TMP/out.dat/"
refused_early "record -o into a missing directory" "No such file" -o "$TMP/nodir/out.dat"
refused_early "record -o a directory" "directory" -o "$TMP"

# --- symlinks and hard links in a directory others can write ------------------------
ln -s "$TMP/victim" "$PUB/link.dat"
refused_early "record -o a symlink in a world-writable directory" "symbolic link" -o "$PUB/link.dat"
check "record -o a planted symlink: its target untouched" victim_ok
ln "$TMP/victim" "$PUB/hard.dat"
run "$KES" record -q -o "$PUB/hard.dat" -- $EG
eq "record -o a hard link to another user's file: status" "$rc" 0
check "record -o a planted hard link: the linked file untouched" victim_ok
eq "record -o a planted hard link: the name now holds the recording" \
	"$(io_count "$PUB/hard.dat")" 201
mkdir "$TMP/d1" "$TMP/d2"
ln -s d1 "$TMP/dir"
rm -f "$TMP/go"
"$KES" record -q -o "$TMP/dir/out.dat" -- sh -c "while [ ! -e '$TMP/go' ]; do sleep 0.05; done; exec $EG" \
	>"$TMP/out" 2>"$TMP/err" &
rec=$!
sleep 1
ln -s d2 "$TMP/dir.new" && mv -T "$TMP/dir.new" "$TMP/dir"
touch "$TMP/go"
wait $rec
eq "record, output directory swapped mid-run: status ($(head -c 120 "$TMP/err"))" "$?" 0
check "record, output directory swapped mid-run: the file is in the directory of the start" \
	test -s "$TMP/d1/out.dat" -a ! -e "$TMP/d2/out.dat"

# --- a file system that holds the recording once, not twice --------------------------
"$KES" record -q -o "$TMP/size.dat" -- $EXITGEN --io 20000 --quiet
size=$(stat -c %s "$TMP/size.dat")
mkdir "$MNT"
kb=$((size * 3 / 2 / 1024 + 64))
mount -t tmpfs -o size=${kb}k tmpfs "$MNT"
run "$KES" record -q -o "$MNT/fits.dat" -- $EXITGEN --io 20000 --quiet
eq "record onto $kb KB for a $((size / 1024)) KB recording: status ($(head -c 120 "$TMP/err"))" "$rc" 0
eq "record onto a tight file system: every exit" "$(io_count "$MNT/fits.dat")" 20001
unmount_mnt

# --- diff --svg and top -L ------------------------------------------------------------
A=tests/fixtures/real/exitgen-v6.dat
case $A in /*) ;; *) A=$PWD/$A ;; esac
ln -s "$TMP/victim" "$PUB/diff.svg"
run "$KES" diff "$A" "$A" --svg "$PUB/diff.svg"
check "diff --svg onto a planted symlink: refused ($rc)" test "$rc" -ne 0
check "diff --svg onto a planted symlink: says so" grep -q 'symbolic link' "$TMP/err"
check "diff --svg onto a planted symlink: its target untouched" victim_ok
run "$KES" diff "$A" "$A" --svg "$TMP/null"
eq "diff --svg onto a null device: status" "$rc" 0
check "diff --svg onto a null device: still a device" test -c "$TMP/null"
echo old >"$TMP/old.svg"
run "$KES" diff "$A" "$A" --svg "$TMP/old.svg"
check "diff --svg replaces a file of ours" grep -q '<svg' "$TMP/old.svg"
# top -L logs until stopped: a refusal ends it at once, else SIGINT after 3 s
toplog() { run timeout --preserve-status -s INT 3 "$KES" top -p 1 -d 0.2 -L "$1"; }
ln -s "$TMP/victim" "$PUB/top.log"
toplog "$PUB/top.log"
check "top -L onto a planted symlink: refused ($rc)" test "$rc" -eq 1
check "top -L onto a planted symlink: says so" grep -q 'symbolic link' "$TMP/err"
check "top -L onto a planted symlink: its target untouched" victim_ok
ln "$TMP/victim" "$PUB/top-hard.log"
toplog "$PUB/top-hard.log"
check "top -L onto another user's hard link: refused ($rc)" test "$rc" -eq 1
check "top -L onto another user's hard link: the file untouched" victim_ok
toplog "$TMP/null"
eq "top -L onto a null device: status" "$rc" 0
check "top -L onto a null device: still a device" test -c "$TMP/null"
toplog "$PUB/mine.log"
check "top -L, a new file in a world-writable directory: made" test -f "$PUB/mine.log"

# --- terminal escapes in top ----------------------------------------------------------
cp "$EXITGEN" "$TMP/eg${ESC}[2J"
"$TMP/eg${ESC}[2J" --io 100000 --seconds 20 --quiet >/dev/null 2>&1 &
vm=$!
sleep 0.5
run "$KES" top -p $vm -d 0.5 --once
check "top --once, a VMM named with ESC: no raw ESC" sh -c "! grep -q '$ESC' '$TMP/out'"
check "top --once, a VMM named with ESC: shown escaped" grep -Fq 'eg\x1b[2J' "$TMP/out"
kill $vm 2>/dev/null
wait $vm 2>/dev/null

# --- PID namespaces -------------------------------------------------------------------
# With its own /proc a namespace cannot see the kernel's pids: refuse, never record 0.
run unshare -p -f --mount-proc "$KES" record -o "$TMP/ns.dat" -- $EG
check "record in a PID namespace with its own /proc: refused ($rc)" test "$rc" -ne 0 -a "$rc" -lt 124
check "record in a PID namespace with its own /proc: says why" grep -q 'PID namespace' "$TMP/err"
run unshare -p -f --mount-proc "$KES" top --once -d 0.2
check "top in a PID namespace with its own /proc: refused ($rc)" test "$rc" -ne 0 -a "$rc" -lt 124
check "top in a PID namespace with its own /proc: says why" grep -q 'PID namespace' "$TMP/err"
# With the host's /proc, NSpid translates: the recording is exact.
run unshare -p -f "$KES" record -q -o "$TMP/ns2.dat" -- $EG
eq "record in a PID namespace with the host's /proc: status ($(head -c 120 "$TMP/err"))" "$rc" 0
eq "record in a PID namespace with the host's /proc: every exit" "$(io_count "$TMP/ns2.dat")" 201
summary
