# The tests of top's live view drive it in a tmux pane (sourced by top.sh,
# top-events.sh, faults-top.sh, top80.sh, topcolor.sh). Each test runs its own
# tmux server (-L): another run on the machine may kill the default one.
# Needs S and TMP.
_tm_n=0
tm() { tmux -L "$S-$_tm_n" "$@"; }
# tm_fresh: end this test's tmux server and go on with a new one (a socket of
# its own). A server ends asynchronously once its last session is killed, and
# a new-session racing that exit fails or lands in the dying server: a CI run
# lost top.sh's SIGTERM pane so ("no server running", no top started).
tm_fresh() {
	tm kill-server 2>/dev/null
	_tm_n=$((_tm_n + 1))
}
# wait_file FILE: until FILE is not empty (at most 15 s)
wait_file() {
	_w=0
	while [ ! -s "$1" ] && [ $_w -lt 150 ]; do sleep 0.1; _w=$((_w + 1)); done
}
pane() { tm capture-pane -t "$S" -p >"$TMP/pane"; }
keys() { tm send-keys -t "$S" "$@"; }
has() { grep -q -- "$1" "$TMP/pane"; }
# until_pane COMMAND...: until COMMAND succeeds on a fresh capture (at most
# 20 s); the last capture stays in $TMP/pane
until_pane() {
	_u=0
	while [ $_u -lt 100 ]; do
		pane
		"$@" && return 0
		sleep 0.2
		_u=$((_u + 1))
	done
	return 1
}
