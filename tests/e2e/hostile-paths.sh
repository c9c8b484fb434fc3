#!/bin/sh
# Output paths resolved component by component (issue 29, class 1). Only the
# last component used to be checked: with nb/ owned by nobody and nb/d2 a
# symlink to a root-only 0700 directory, report --svg nb/d2/x.svg, diff --svg,
# serve --textfile nb/d2, record -o nb/d2/r.dat and top -L nb/d2/log all wrote
# into that directory as root. Now a symlink in any component is followed only
# when its directory can be written by nobody but root and us and the link is
# its directory owner's (src/util/chase.c); otherwise one line names the
# component, and nothing is written. The walk is fd-relative from the first
# directory to the final rename, so a swap races nothing: 150 report --svg
# runs while a swapper (as nobody) exchanges a directory and a symlink write
# nothing into the root-only directory. As nobody, the same rules hold for
# another user's directories. record, top and serve need a KVM host (the lab
# host where there is none), though they refuse before they trace anything.
. tests/e2e/lib.sh
[ "$(id -u)" = 0 ] || skip "needs root (chown, setpriv, and record/top/serve)"
command -v setpriv >/dev/null 2>&1 || skip "needs setpriv (util-linux)"
SWAPPER=${SWAPPER:-${O:-build}/tests/tools/swapper}
case $KES in /*) ;; *) KES=$PWD/$KES ;; esac
case $SWAPPER in /*) ;; *) SWAPPER=$PWD/$SWAPPER ;; esac
FIXD=$PWD/tests/fixtures/real/exitgen-v6.dat
SW=
trap '[ -z "$SW" ] || kill "$SW" 2>/dev/null; rm -rf "$TMP"' EXIT
chmod 755 "$TMP"
cd "$TMP" || exit 1
cp "$FIXD" in.dat
chmod 644 in.dat
NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
mkdir secret nb
chmod 700 secret
chown nobody nb
ln -s "$TMP/secret" nb/d2
chown -h nobody nb/d2
secret_empty() { [ -z "$(ls -A secret)" ]; }

run() {
	timeout -s KILL 30 "$@" >out 2>err </dev/null
	rc=$?
}
# refused DESC COMPONENT CMD...: one line on stderr naming COMPONENT as a symlink
# not followed, a status in 1..127, and nothing in secret/.
refused() {
	d=$1 comp=$2
	shift 2
	run "$@"
	why=
	[ "$rc" -ne 0 ] && [ "$rc" -lt 124 ] || why="$why; status $rc"
	[ "$(wc -l <err)" -eq 1 ] || why="$why; $(wc -l <err) lines on stderr: $(head -c 300 err)"
	grep -Eq "^kvm-exitstat: cannot write '.*': '$comp' is a symbolic link .*not followed" err ||
		why="$why; stderr '$(head -c 200 err)'"
	secret_empty || why="$why; written into the root-only directory: $(ls secret)"
	rm -f secret/* 2>/dev/null
	if [ -z "$why" ]; then ok; else bad "$d$why"; fi
}

# --- as root: every output option, a planted directory symlink ----------------------
refused "report --svg through nobody's nb/d2" nb/d2 "$KES" report -i in.dat --svg nb/d2/x.svg
refused "diff --svg through nb/d2" nb/d2 "$KES" diff in.dat in.dat --svg nb/d2/x.svg
refused "report --svg, an absolute path" "$TMP/nb/d2" "$KES" report -i in.dat --svg "$TMP/nb/d2/x.svg"
mkdir nb/sub
chown nobody nb/sub
ln -s "$TMP/secret" nb/sub/deep
refused "report --svg, the symlink two levels down" nb/sub/deep "$KES" report -i in.dat --svg nb/sub/deep/x.svg
# record and top refuse a host without KVM first (the lab host has one: run.sh)
if have_kvm; then
	rm -f ran
	refused "record -o through nb/d2" nb/d2 "$KES" record -o nb/d2/r.dat -- sh -c "touch '$TMP/ran'"
	check "record -o through nb/d2: refused before the workload" test ! -e ran
	refused "top -L through nb/d2" nb/d2 "$KES" top -p 1 -d 0.2 -L nb/d2/log
	refused "serve --textfile nb/d2" nb/d2 "$KES" serve --textfile nb/d2 --interval 0.5
else
	echo "SKIP: no KVM here: record -o, top -L and serve --textfile are not tried"
fi
# A link another user owns in root's own directory is not followed either.
mkdir rootdir
ln -s "$TMP/secret" rootdir/theirs
chown -h nobody rootdir/theirs
run "$KES" report -i in.dat --svg rootdir/theirs/x.svg
check "a link owned by another user than its directory: refused ($rc)" \
	grep -q "'rootdir/theirs' is a symbolic link owned by another user than its directory" err
check "... nothing written" secret_empty
# What stays allowed: root's own links in root's own directories, relative or not, and "..".
mkdir mine
ln -s ../secret mine/rel
ln -s "$TMP/secret" abs
run "$KES" report -i in.dat --svg mine/rel/ok.svg
check "root's own relative link: followed ($(head -c 160 err))" test "$rc" -eq 0 -a -s secret/ok.svg
run "$KES" report -i in.dat --svg "$TMP/abs/ok2.svg"
check "root's own absolute link: followed ($(head -c 160 err))" test "$rc" -eq 0 -a -s secret/ok2.svg
run "$KES" report -i in.dat --svg nb/sub/../../mine/rel/ok3.svg
check "'..' through nobody's directories up to root's: as the kernel resolves it ($(head -c 160 err))" \
	test "$rc" -eq 0 -a -s secret/ok3.svg
run "$KES" report -i in.dat --svg nb/sub/x.svg
check "a directory of nobody's with no link: written ($(head -c 160 err))" test "$rc" -eq 0 -a -s nb/sub/x.svg
rm -f secret/*

# --- as nobody: another user's directory others can write ----------------------------
mkdir shared own own/real
chown daemon shared
chmod 777 shared
chown -R nobody own
ln -s "$TMP/own/real" shared/l
chown -h daemon shared/l
run $NOBODY "$KES" report -i in.dat --svg shared/l/x.svg
check "as nobody, a link of daemon's in a directory anyone can write: refused ($rc)" \
	grep -q "'shared/l' is a symbolic link in a directory others can write" err
check "... nothing written" test ! -e own/real/x.svg
run $NOBODY "$KES" diff in.dat in.dat --svg shared/l/x.svg
check "as nobody, diff --svg the same: refused ($rc)" grep -q "'shared/l' is a symbolic link" err
ln -s real own/l
chown -h nobody own/l
run $NOBODY "$KES" report -i in.dat --svg own/l/x.svg
check "as nobody, its own link in its own directory: followed ($(head -c 160 err))" \
	test "$rc" -eq 0 -a -s own/real/x.svg

# --- the race: a directory swapped for a symlink while root writes -------------------
[ -x "$SWAPPER" ] || { bad "test tool missing ($SWAPPER): make all"; summary; exit 1; }
mkdir nb/d
chown nobody nb/d
ln -s "$TMP/secret" nb/l
chown -h nobody nb/l
(cd nb && exec $NOBODY "$SWAPPER" d l) &
SW=$!
n=0 wrote=0 refusedn=0 other=0
while [ $n -lt 150 ]; do
	"$KES" report -i in.dat --svg nb/d/x.svg >/dev/null 2>err
	case $? in
	0) wrote=$((wrote + 1)) ;;
	1) if grep -q "symbolic link" err; then refusedn=$((refusedn + 1)); else other=$((other + 1)); fi ;;
	*) other=$((other + 1)) ;;
	esac
	n=$((n + 1))
done
kill "$SW"
wait "$SW" 2>/dev/null
SW=
echo "  race: $n runs of report --svg nb/d/x.svg: $wrote written, $refusedn refused at the symlink, $other other"
check "race: nothing written into the root-only directory in $n runs" secret_empty
eq "race: every run wrote or refused at the link" "$other" 0
summary
