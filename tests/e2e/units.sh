#!/bin/sh
# What `make install` puts on a host besides the binary: the two systemd
# units (checked by systemd-analyze verify, with their man pages found), the
# logrotate snippet (logrotate's own dry run). units-live.sh runs the logging
# unit's command on a live KVM.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
case $KES in /*) ;; *) KES=$PWD/$KES ;; esac
R=$TMP/p
make -s install DESTDIR= PREFIX="$R" SYSCONFDIR="$R/etc" BIN="${KES#$PWD/}" >"$TMP/install.out" 2>&1
eq "make install" "$?" 0
for u in kvm-exitstat-serve kvm-exitstat-log; do
	check "$u.service installed" [ -f "$R/lib/systemd/system/$u.service" ]
	check "$u.service runs the installed binary" grep -q "^ExecStart=$R/bin/kvm-exitstat " "$R/lib/systemd/system/$u.service"
done
check "logrotate snippet installed" [ -f "$R/etc/logrotate.d/kvm-exitstat" ]
check "man page kvm-exitstat-serve(1) installed" [ -f "$R/share/man/man1/kvm-exitstat-serve.1" ]
if command -v systemd-analyze >/dev/null 2>&1; then
	for u in kvm-exitstat-serve kvm-exitstat-log; do
		MANPATH="$R/share/man" systemd-analyze verify "$R/lib/systemd/system/$u.service" >"$TMP/verify.out" 2>&1
		rc=$?
		# A host without systemd as init (a container) has no sysinit.target to pull in.
		grep -v 'Unit sysinit.target not found' "$TMP/verify.out" >"$TMP/verify.rest"
		check "systemd-analyze verify $u.service ($(head -c 300 "$TMP/verify.rest"))" \
			sh -c "[ ! -s '$TMP/verify.rest' ] && { [ $rc -eq 0 ] || grep -q sysinit.target '$TMP/verify.out'; }"
	done
	# and it does find faults: a unit whose binary is missing
	sed "s|$R/bin/kvm-exitstat|$R/bin/missing|" "$R/lib/systemd/system/kvm-exitstat-serve.service" \
		>"$TMP/broken.service"
	MANPATH="$R/share/man" systemd-analyze verify "$TMP/broken.service" >"$TMP/verify2.out" 2>&1
	check "systemd-analyze verify catches a missing binary" grep -q 'is not executable' "$TMP/verify2.out"
else
	echo "SKIP: systemd-analyze not installed: units not verified"
fi
if command -v logrotate >/dev/null 2>&1; then
	sed "s|/var/log/kvm-exitstat.csv|$TMP/log.csv|" "$R/etc/logrotate.d/kvm-exitstat" >"$TMP/lr.conf"
	: >"$TMP/log.csv"
	logrotate -d -s "$TMP/lr.state" "$TMP/lr.conf" >"$TMP/lr.out" 2>&1
	eq "logrotate -d accepts the snippet ($(grep -i error "$TMP/lr.out" | head -2))" "$?" 0
	rm -f "$TMP/log.csv"
fi
summary
