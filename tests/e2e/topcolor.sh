#!/bin/sh
# top's colour: under tmux (a terminal with colours) the sorted column is
# cyan and a row with a large share of the time yellow or red; with
# NO_COLOR set, or --no-color, no colour escape at all (bold and reverse
# stay). Read from tmux's capture with its escapes (-e).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../tools/record-helpers.sh"
need_kvm
command -v tmux >/dev/null 2>&1 || skip "needs tmux"
case $KES in /*) ;; *) KES=$PWD/$KES ;; esac
# A private tmux server per view (tm_fresh).
S=kes-color-$$
. "$(dirname "$0")/../tools/tmux-helpers.sh"
# A paced VM (5 ms asleep after each pass): at full rate it took a CPU of the
# lab host (TCG) from tmux and top. It runs until the test ends.
"$EXITGEN" --io 100 --pause-us 5000 --seconds 300 --quiet >/dev/null 2>&1 &
E=$!
trap 'tm kill-server 2>/dev/null; kill $E 2>/dev/null; rm -rf "$TMP"' EXIT

# run ENV ARGS: top in a fresh tmux session; its screen, escapes kept, in $TMP/pane
run() {
	tm_fresh
	tm new-session -d -s $S -x 150 -y 40 "env $1 TERM=screen-256color $KES top -p $E -d 0.3 --source userspace $2"
	i=0
	while [ $i -lt 100 ]; do
		tm capture-pane -e -p -t $S >"$TMP/pane" 2>/dev/null
		grep -q KVM_EXIT_IO "$TMP/pane" && sleep 0.8 && break
		sleep 0.1
		i=$((i + 1))
	done
	tm capture-pane -e -p -t $S >"$TMP/pane"
	tm send-keys -t $S q
}
esc=$(printf '\033')
colours() { grep -c "$esc\[[0-9;]*3[1-6][;m]" "$TMP/pane"; }

run "" ""
check "the view is up" grep -q KVM_EXIT_IO "$TMP/pane"
check "colour escapes with colour on ($(colours))" [ "$(colours)" -gt 0 ]
check "the sorted column is cyan" grep -q "$esc\[[0-9;]*36[;m]" "$TMP/pane"
check "KVM_EXIT_IO (most of the time) is red or yellow" grep -q "$esc\[[0-9;]*3[13][;m][^a-z]*KVM_EXIT_IO" "$TMP/pane"
run "NO_COLOR=1" ""
check "the view is up (NO_COLOR)" grep -q KVM_EXIT_IO "$TMP/pane"
eq "no colour with NO_COLOR=1" "$(colours)" 0
check "bold/reverse still there" grep -q "$esc\[[0-9;]*[17][;m]" "$TMP/pane"
run "NO_COLOR=" ""
check "NO_COLOR empty: colour stays" [ "$(colours)" -gt 0 ]
run "" "--no-color"
check "the view is up (--no-color)" grep -q KVM_EXIT_IO "$TMP/pane"
eq "no colour with --no-color" "$(colours)" 0
summary
