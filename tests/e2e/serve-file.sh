#!/bin/sh
# serve without tracing (serve -i FILE: a recording's metrics, made once), so
# on any machine: the textfile is written once, 0644 whatever the umask, by a
# user who is not root; its counts are what the recording's exitgen counted;
# the page has the process_* families of the Prometheus client libraries
# (checked against /proc of the running serve) and
# kvm_exitstat_collector_success; GET / is 404 as kvm-exitstat-serve(1)
# says. --web-config (node_exporter's format): TLS (the versions it allows),
# basic authentication (401 with WWW-Authenticate: Basic, bcrypt hashes made
# here by python's crypt), a real Prometheus scraping it over HTTPS with a
# password, and every malformed or unsupported config refused with its line.
. "$(dirname "$0")/lib.sh"
for t in curl python3 openssl promtool prometheus; do
	command -v $t >/dev/null 2>&1 || { bad "needs $t (make deps)"; summary; exit 1; }
done
case $KES in /*) ;; *) KES=$PWD/$KES ;; esac
PIDS=
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
chmod 755 "$TMP"
L=$PWD/tests/fixtures/lab/x86-svm
# exitgen's own counts of the run that was recorded (its output beside the recording)
eg() { sed -n "s/^total .*\<$1 \([0-9]*\).*/\1/p" "$L/exitgen.out"; }
per_vcpu() { sed -n "s/^exitgen: .* vcpus \([0-9]*\) .*/\1/p" "$L/exitgen.out"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
until_ok() {
	n=$(($1 * 5)); shift
	while [ $n -gt 0 ]; do "$@" && return 0; sleep 0.2; n=$((n - 1)); done
	return 1
}
# metric FILE NAME{LABELS}: the sample's value
metric() { awk -v m="$2" 'index($0, m " ") == 1 { print $NF }' "$1"; }

# ---- the textfile, once, 0644 under umask 027, as nobody (no root, no tracefs needed)
mkdir "$TMP/tf" && chown nobody "$TMP/tf"
# a copy nobody can read wherever the checkout is (a CI's may be 0700)
cp "$L/kvm-exitstat.dat" "$TMP/in.dat" && chmod 644 "$TMP/in.dat"
# and of LSan's suppressions under make asan-check: LSan reads them at exit, and
# failed the run when the checkout's copy was out of nobody's reach
lsan=${LSAN_OPTIONS:-}
# (the option itself, not print_suppressions)
sup=$(echo "$lsan" | sed -n 's/^\(.*:\)\{0,1\}suppressions=\([^:]*\).*/\2/p')
if [ -n "$sup" ]; then
	cp "$sup" "$TMP/lsan.supp" && chmod 644 "$TMP/lsan.supp"
	lsan=$(echo "$lsan" | sed "s|^\(.*:\)\{0,1\}suppressions=[^:]*|\1suppressions=$TMP/lsan.supp|")
fi
(umask 027 && LSAN_OPTIONS=$lsan setpriv --reuid=nobody --regid=nogroup --clear-groups \
	"$KES" serve -i "$TMP/in.dat" --textfile "$TMP/tf") >"$TMP/tf.out" 2>&1
eq "serve -i FILE --textfile DIR as nobody: exit status ($(head -c 200 "$TMP/tf.out"))" $? 0
PF=$TMP/tf/kvm_exitstat.prom
eq "the textfile is 0644 under umask 027" "$(stat -c %a "$PF" 2>/dev/null)" 644
promtool check metrics <"$PF" >"$TMP/pc.out" 2>&1
check "promtool check metrics accepts it ($(head -c 200 "$TMP/pc.out"))" [ $? -eq 0 ]
for r in KVM_EXIT_IO KVM_EXIT_MMIO KVM_EXIT_HLT; do
	eq "textfile: $r as exitgen counted" \
		"$(metric "$PF" "kvm_exitstat_exits_total{pid=\"unknown\",vm=\"unknown\",source=\"userspace\",reason=\"$r\"}")" "$(eg "$r")"
done
# kvm_exit's reasons that only the kernel sees: exitgen counted them in the guest (per vCPU)
for r in cpuid msr; do
	n=$(sed -n "s/^exitgen: .* $r \([0-9]*\).*/\1/p" "$L/exitgen.out")
	eq "textfile: kvm_exit $r = exitgen's $r x vCPUs" \
		"$(metric "$PF" "kvm_exitstat_exits_total{pid=\"unknown\",vm=\"unknown\",source=\"kvm_exit\",reason=\"$r\"}")" \
		"$((n * $(per_vcpu)))"
done
b='{pid="unknown",vm="unknown",source="userspace",reason="KVM_EXIT_IO"'
eq "histogram: +Inf bucket = _count" "$(metric "$PF" "kvm_exitstat_exit_duration_seconds_bucket$b,le=\"+Inf\"}")" \
	"$(metric "$PF" "kvm_exitstat_exit_duration_seconds_count$b}")"
eq "histogram: _count = IO exits - the untimed done exit of each vCPU" \
	"$(metric "$PF" "kvm_exitstat_exit_duration_seconds_count$b}")" "$(($(eg KVM_EXIT_IO) - $(per_vcpu)))"
eq "collector_success 1 (the recording has KVM events)" "$(metric "$PF" kvm_exitstat_collector_success)" 1
eq "events_total: the recording's events (datcount)" "$(metric "$PF" kvm_exitstat_events_total)" \
	"$(build/tests/tools/datcount "$L/kvm-exitstat.dat" 2>/dev/null | awk '/^total/ { print $2 }' || echo ?)"
for f in process_cpu_seconds_total process_open_fds process_max_fds process_virtual_memory_bytes \
	process_virtual_memory_max_bytes process_resident_memory_bytes process_start_time_seconds; do
	check "$f in the page" grep -q "^$f [0-9]" "$PF"
done
eq "nothing else left in the directory" "$(ls -A "$TMP/tf")" kvm_exitstat.prom
"$KES" serve -i tests/fixtures/ppc/report-2010-nopv.txt --textfile "$TMP/tf" >"$TMP/ppc.out" 2>&1
eq "a saved report (statistics only) is refused: exit status" $? 1
check "... saying why" grep -q 'statistics only' "$TMP/ppc.out"
"$KES" serve -i "$L/kvm-exitstat.dat" --interval 5 >"$TMP/int.out" 2>&1
eq "-i with --interval refused" $? 2

# ---- HTTP, plain: GET / is 404, the process_* families are this process's
SP=$(free_port)
T0=$(date +%s)
"$KES" serve -i "$L/kvm-exitstat.dat" --listen "127.0.0.1:$SP" 2>"$TMP/s1.err" &
S1=$!
PIDS="$PIDS $S1"
check "serve -i --listen serves" until_ok 10 curl -sf -o "$TMP/m1.txt" "http://127.0.0.1:$SP/metrics"
eq "GET / is 404 (kvm-exitstat-serve(1))" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$SP/")" 404
eq "GET /metrics is 200" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$SP/metrics")" 200
curl -s "http://127.0.0.1:$SP/metrics" >"$TMP/m1.txt"
promtool check metrics <"$TMP/m1.txt" >"$TMP/pc1.out" 2>&1
check "promtool accepts the page ($(head -c 200 "$TMP/pc1.out"))" [ $? -eq 0 ]
st=$(metric "$TMP/m1.txt" process_start_time_seconds)
check "process_start_time_seconds ($st) within 2 s of the start ($T0)" \
	python3 -c "import sys; sys.exit(not abs($st - $T0) <= 2)"
rss=$(metric "$TMP/m1.txt" process_resident_memory_bytes)
vmrss=$(awk '/^VmRSS:/ { print $2 * 1024 }' "/proc/$S1/status")
check "process_resident_memory_bytes ($rss) within 20 % of VmRSS ($vmrss)" \
	python3 -c "import sys; sys.exit(not abs($rss - $vmrss) <= 0.2 * $vmrss)"
fds=$(metric "$TMP/m1.txt" process_open_fds)
nfd=$(ls "/proc/$S1/fd" | wc -l)
check "process_open_fds ($fds) within 2 of /proc/PID/fd ($nfd: connections come and go)" \
	python3 -c "import sys; sys.exit(not abs($fds - $nfd) <= 2)"
eq "process_max_fds = its RLIMIT_NOFILE" "$(metric "$TMP/m1.txt" process_max_fds)" \
	"$(awk '/^Max open files/ { print $4 }' "/proc/$S1/limits")"
ticks=$(awk '{ print $14 + $15 }' "/proc/$S1/stat")
cpu=$(metric "$TMP/m1.txt" process_cpu_seconds_total)
check "process_cpu_seconds_total ($cpu) at most /proc's utime+stime now ($ticks ticks)" \
	python3 -c "import os, sys; sys.exit(not $cpu <= $ticks / os.sysconf('SC_CLK_TCK') + 1e-9)"
kill -TERM $S1
wait $S1
eq "serve -i --listen: exit status after SIGTERM" $? 0

# ---- TLS and basic authentication
cd "$TMP" || exit 1
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout server.key \
	-out server.crt -days 2 -subj "/CN=localhost" -addext "subjectAltName=IP:127.0.0.1" >/dev/null 2>&1
check "openssl made a certificate" test -s server.crt
# cost 4 (16 rounds): a scrape on a loaded machine must not wait on bcrypt past its timeout
hash() { python3 -W ignore -c 'import crypt, sys
print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << 4)))' "$1"; }
HA=$(hash 'pa ss"w:rd')
HB=$(hash other)
cat >web.yml <<EOF
# node_exporter's web config format
tls_server_config:
  cert_file: server.crt   # relative: to this file's directory
  key_file: "server.key"
basic_auth_users:
  alice: $HA
  'bob': "$HB"
EOF
cd - >/dev/null || exit 1
SP=$(free_port)
"$KES" serve -i "$L/kvm-exitstat.dat" --listen "127.0.0.1:$SP" --web-config "$TMP/web.yml" 2>"$TMP/s2.err" &
S2=$!
PIDS="$PIDS $S2"
U=https://127.0.0.1:$SP/metrics
code() { curl -s -o /dev/null -w '%{http_code}' --cacert "$TMP/server.crt" "$@"; }
check "serves https" until_ok 10 sh -c "grep -q 'serving https://' '$TMP/s2.err' 2>/dev/null"
eq "no password: 401" "$(code "$U")" 401
curl -s -D "$TMP/h401" -o /dev/null --cacert "$TMP/server.crt" "$U"
check "... with WWW-Authenticate: Basic" grep -qi '^www-authenticate: basic realm=' "$TMP/h401"
eq "a wrong password: 401" "$(code -u alice:wrong "$U")" 401
eq "an unknown user: 401" "$(code -u mallory:other "$U")" 401
eq "bob's password for alice: 401" "$(code -u alice:other "$U")" 401
eq "alice's password (a space, a quote and a colon in it): 200" "$(code -u 'alice:pa ss"w:rd' "$U")" 200
eq "bob: 200" "$(code -u bob:other "$U")" 200
eq "GET / with a password: 404" "$(code -u bob:other "https://127.0.0.1:$SP/")" 404
eq "GET / without one: 401 (nothing is said before authentication)" "$(code "https://127.0.0.1:$SP/")" 401
eq "plain HTTP on the TLS port: no answer" \
	"$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$SP/metrics")" 000
eq "TLS 1.2 (the default minimum)" "$(code --tlsv1.2 --tls-max 1.2 -u bob:other "$U")" 200

# Prometheus scrapes it: https, the CA, a password
PP=$(free_port)
printf 'other' >"$TMP/pw"
cat >"$TMP/prom.yml" <<EOF
global:
  scrape_interval: 2s
  scrape_timeout: 1900ms
scrape_configs:
  - job_name: kvm-exitstat
    scheme: https
    tls_config:
      ca_file: $TMP/server.crt
    basic_auth:
      username: bob
      password_file: $TMP/pw
    static_configs:
      - targets: ['127.0.0.1:$SP']
EOF
prometheus --config.file="$TMP/prom.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$PP" >"$TMP/prom.log" 2>&1 &
PIDS="$PIDS $!"
q() {
	curl -s --data-urlencode "query=$1" "http://127.0.0.1:$PP/api/v1/query" |
		python3 -c 'import sys, json
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "none")' 2>/dev/null || echo none
}
q_is() { [ "$(q "$1")" = "$2" ]; }
q_not() { [ "$(q "$1")" != "$2" ]; }
check "prometheus is ready" until_ok 30 curl -sf "http://127.0.0.1:$PP/-/ready" -o /dev/null
check "Prometheus scrapes it over TLS with a password (up == 1)" until_ok 30 q_is 'up{job="kvm-exitstat"}' 1
check "... and has its exits" until_ok 30 q_not 'sum(kvm_exitstat_exits_total)' none
# (until_ok: one scrape timed out on a loaded machine leaves the series stale until the next)
check "PromQL: KVM_EXIT_IO as exitgen counted ($(eg KVM_EXIT_IO))" \
	until_ok 20 q_is 'sum(kvm_exitstat_exits_total{source="userspace",reason="KVM_EXIT_IO"})' "$(eg KVM_EXIT_IO)"
check "PromQL: kvm_exitstat_collector_success" until_ok 20 q_is 'kvm_exitstat_collector_success' 1
check "PromQL: process_start_time_seconds" [ "$(q 'process_start_time_seconds')" != none ]
kill -TERM $S2
wait $S2
eq "TLS serve: exit status after SIGTERM" $? 0

# TLS 1.3 only
sed 's/^  key_file: .*/&\n  min_version: TLS13/' "$TMP/web.yml" >"$TMP/web13.yml"
SP=$(free_port)
"$KES" serve -i "$L/kvm-exitstat.dat" --listen "127.0.0.1:$SP" --web-config "$TMP/web13.yml" 2>"$TMP/s3.err" &
S3=$!
PIDS="$PIDS $S3"
U=https://127.0.0.1:$SP/metrics
check "min_version TLS13: serves" until_ok 10 sh -c "grep -q 'serving https://' '$TMP/s3.err' 2>/dev/null"
eq "min_version TLS13: a TLS 1.2 client gets no answer" "$(code --tlsv1.2 --tls-max 1.2 -u bob:other "$U")" 000
eq "min_version TLS13: TLS 1.3 is 200" "$(code --tlsv1.3 -u bob:other "$U")" 200
kill -TERM $S3
wait $S3

# Basic authentication alone, over HTTP: works, with a warning
printf 'basic_auth_users:\n  bob: %s\n' "$HB" >"$TMP/auth.yml"
SP=$(free_port)
"$KES" serve -i "$L/kvm-exitstat.dat" --listen "127.0.0.1:$SP" --web-config "$TMP/auth.yml" 2>"$TMP/s4.err" &
S4=$!
PIDS="$PIDS $S4"
check "auth without TLS: serves http" until_ok 10 sh -c "grep -q 'serving http://' '$TMP/s4.err' 2>/dev/null"
check "... warning that passwords go in clear" grep -q 'without TLS' "$TMP/s4.err"
eq "... 401 without a password" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$SP/metrics")" 401
eq "... 200 with" "$(curl -s -o /dev/null -w '%{http_code}' -u bob:other "http://127.0.0.1:$SP/metrics")" 200
kill -TERM $S4
wait $S4

# ---- kvm_exitstat_collector_success of the live collector: 1 on this host, 0 where
# it has no KVM (a mount namespace without /sys/module's kvm, nor /dev/kvm)
health() { # PORT: the gauge of a live serve on PORT
	SP=$1
	"$KES" serve --listen "127.0.0.1:$SP" --interval 0.5 2>"$TMP/h.err" &
	H=$!
	until_ok 10 curl -sf -o "$TMP/h.txt" "http://127.0.0.1:$SP/metrics" || cat "$TMP/h.err" >&2
	kill -TERM $H
	wait $H
	metric "$TMP/h.txt" kvm_exitstat_collector_success
}
# The gauge where KVM works (/dev/kvm, or the kvm misc device) and where it
# does not: on a machine without KVM as it is (a guest whose kvm module did
# not bind keeps /sys/module/kvm and its tracepoints: never 1 there), and
# with KVM, in a mount namespace that hides /dev/kvm and /sys/class/misc.
if [ "$(id -u)" = 0 ] && [ -d /sys/kernel/tracing/events/kvm ]; then
	if [ -e /dev/kvm ] || [ -e /sys/class/misc/kvm ]; then
		eq "live: collector_success 1 on this host (kvm events, and /dev/kvm or the kvm device)" \
			"$(health "$(free_port)")" 1
		P2=$(free_port)
		g=$(unshare -m sh -c "
			mount --make-rprivate / && mount -t tmpfs none /sys/class/misc &&
				mount -t tmpfs none /dev && mknod -m 666 /dev/null c 1 3 || exit 99
			'$KES' serve --listen 127.0.0.1:$P2 --interval 0.5 2>'$TMP/h2.err' &
			H=\$!
			n=50; while [ \$n -gt 0 ] && ! curl -sf -o '$TMP/h2.txt' http://127.0.0.1:$P2/metrics; do sleep 0.2; n=\$((n - 1)); done
			kill -TERM \$H; wait \$H
			awk '/^kvm_exitstat_collector_success / { print \$2 }' '$TMP/h2.txt'")
		eq "live: collector_success 0 without /dev/kvm and the kvm device" "$g" 0
	else
		eq "live: collector_success 0 on this host (no /dev/kvm, no kvm device)" \
			"$(health "$(free_port)")" 0
	fi
else
	echo "NOTE: not root, or no kvm tracepoints here: the live collector_success is not checked"
fi

# ---- configs refused: one line naming the file and the line
bad_config() { # WHAT WANT-IN-MESSAGE CONFIG-TEXT
	printf '%s\n' "$3" >"$TMP/bad.yml"
	"$KES" serve -i "$L/kvm-exitstat.dat" --listen 127.0.0.1:0 --web-config "$TMP/bad.yml" \
		>"$TMP/bad.out" 2>&1
	rc=$?
	eq "refused: $1 (exit status)" $rc 1
	check "refused: $1: '$2' in '$(head -c 200 "$TMP/bad.out")'" grep -qF -- "$2" "$TMP/bad.out"
	eq "refused: $1: one line" "$(wc -l <"$TMP/bad.out")" 1
}
bad_config "an unknown key" "line 1: unknown key 'tls_config'" "tls_config:
  cert_file: x"
bad_config "client certificates (not implemented)" "line 4: tls_server_config.client_ca_file is not supported" \
	"tls_server_config:
  cert_file: $TMP/server.crt
  key_file: $TMP/server.key
  client_ca_file: ca.crt"
bad_config "a tab" "line 2: a tab" "$(printf 'basic_auth_users:\n\tbob: %s' "$HB")"
bad_config "not bcrypt" "line 2: basic_auth_users.bob: not a bcrypt hash" "basic_auth_users:
  bob: \$6\$salt\$abc"
bad_config "a cut hash" "a malformed bcrypt hash" "basic_auth_users:
  bob: ${HB%????}"
bad_config "a user twice" "line 3: basic_auth_users.bob given twice" "basic_auth_users:
  bob: $HB
  bob: $HA"
bad_config "no key_file" "tls_server_config without key_file" "tls_server_config:
  cert_file: $TMP/server.crt"
bad_config "a missing key file" "cannot read the TLS key '$TMP/nokey'" "tls_server_config:
  cert_file: $TMP/server.crt
  key_file: $TMP/nokey"
bad_config "a key that is not PEM" "is not PEM" "tls_server_config:
  cert_file: $TMP/server.crt
  key_file: $TMP/web.yml"
bad_config "rate_limit (not implemented)" "unknown key 'rate_limit'" "rate_limit:
  interval: 1s"
bad_config "a flow mapping" "line 1: a key or value this reader does not take" \
	"basic_auth_users: {bob: x}"
bad_config "a value where a section's keys go" "line 1: basic_auth_users: want its keys on the lines below" \
	"basic_auth_users: bob"
printf 'basic_auth_users: {}\n' >"$TMP/empty.yml"
"$KES" serve -i "$L/kvm-exitstat.dat" --textfile "$TMP/tf" --listen 127.0.0.1:0 --web-config "$TMP/empty.yml" \
	>"$TMP/empty.out" 2>&1 &
EMPTY=$!
PIDS="$PIDS $EMPTY"
check "an empty basic_auth_users ({}) is no authentication" until_ok 10 sh -c "grep -q 'serving http://' '$TMP/empty.out' 2>/dev/null"
check "... and no warning" sh -c "! grep -q warning '$TMP/empty.out'"
bad_config "an unknown TLS version" "unknown TLS version 'TLS14'" "tls_server_config:
  min_version: TLS14"
"$KES" serve -i "$L/kvm-exitstat.dat" --listen 127.0.0.1:0 --web-config "$TMP/none.yml" >"$TMP/bad.out" 2>&1
eq "a missing web config: exit status" $? 1
check "... says so" grep -q "cannot read the web config '$TMP/none.yml'" "$TMP/bad.out"
summary
