#!/bin/sh
# make dist: a tarball of HEAD whose version (a VERSION file, since it has no
# .git) is git describe's; a packager's flags on the command line add to the
# build's own (make CPPFLAGS=-D_FORTIFY_SOURCE=2 once lost -Iinclude: "cli.h:
# No such file"), exitgen's link included, checked on the binary itself.
. "$(dirname "$0")/lib.sh"
# The version, computed here from git on its own (tools/version.sh's rule, without -dirty:
# the tarball is HEAD's).
if want=$(git describe --tags --match 'v[0-9]*' 2>/dev/null); then
	want=${want#v}
else
	want=0.1-$(git rev-list --count HEAD)-g$(git rev-parse --short HEAD)
fi
make -s --no-print-directory O="$TMP/o" DISTDIR="$TMP" dist >"$TMP/out" 2>&1
eq "make dist: exit status ($(head -c 300 "$TMP/out"))" $? 0
T=$TMP/kvm-exitstat-$want.tar.gz
check "make dist wrote kvm-exitstat-$want.tar.gz" test -s "$T"
tar -tzf "$T" | sed "s|^kvm-exitstat-$want/||" | grep -v '/$' | grep . | sort >"$TMP/listed"
{ git ls-tree -r --name-only HEAD; echo VERSION; } | sort >"$TMP/want"
eq "the tarball holds HEAD's files and VERSION" "$(diff "$TMP/want" "$TMP/listed" | head -5)" ""
mkdir "$TMP/u" && tar -xzf "$T" -C "$TMP/u"
D=$TMP/u/kvm-exitstat-$want
eq "VERSION says $want" "$(cat "$D/VERSION")" "$want"
eq "make version in the unpacked tree (no .git)" \
	"$(make -s --no-print-directory -C "$D" version 2>&1)" "$want"
check "LICENSE is GPL-2.0's text" grep -q "GNU GENERAL PUBLIC LICENSE" "$D/LICENSE"
check "... version 2" grep -q "Version 2, June 1991" "$D/LICENSE"
# The packager's flags: an object that needs -Iinclude, and exitgen's compile and link.
make -s --no-print-directory -C "$D" O=b CPPFLAGS="-D_FORTIFY_SOURCE=2" \
	LDFLAGS="-Wl,-z,now" b/src/cli/cli.o b/gen/version.o b/exitgen >"$TMP/b.out" 2>&1
eq "make CPPFLAGS=-D_FORTIFY_SOURCE=2 LDFLAGS=-Wl,-z,now: builds ($(grep -m1 error "$TMP/b.out"))" $? 0
check "exitgen linked with LDFLAGS (-z now: BIND_NOW)" \
	sh -c "readelf -d '$D/b/exitgen' | grep -Eq 'BIND_NOW|FLAGS.*NOW'"
check "exitgen compiled with CPPFLAGS (_FORTIFY_SOURCE: __*_chk calls)" \
	sh -c "nm -D '$D/b/exitgen' | grep -q '_chk@'"
check "version.o carries the tarball's version" grep -q "$want" "$D/b/gen/version.c"
summary
