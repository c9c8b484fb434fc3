#!/bin/sh
# The tree's shape, checked by machine (doc/ARCHITECTURE.md, 2.1):
#   exports   every function or table a src/ object exports is used outside
#             its file: by another src/ object, or by a test, fuzzer or test
#             tool (the parsers are API for fuzzing); the rest is dead or
#             should be static (nm over $O/src/*/*.o)
#   layers    a file includes only headers of its own layer or below, and
#             only its own directory's -local.h (LAYERS below: data flows
#             one way, source -> decode -> pair -> stats -> render)
#   prefixes  every function a public header declares has that header's one
#             prefix (PREFIX below), so a name says where it lives
#   headers   every header compiles on its own
#   errors    no strerror(errno) by hand: err_errno(), err_buf_errno()
# Needs the objects of a build ($O, as make check leaves them).
O=${O:-build}
. tests/e2e/lib.sh

# ---- layers: 0 util and the event types ... 7 the command line ----
layer_of_header() {
	case $1 in
	alloc.h | intern.h | err.h | file.h | outfile.h | chase.h | term.h | event.h | heap.h | sorted.h | tidhash.h | num.h | knobs.h) echo 0 ;;
	exit-types.h | exit-table.h | bucket-map.h | stats.h | diff.h | ring.h | kstat.h) echo 1 ;;
	input.h | tracedat.h | text.h | ppctext.h | peertext.h | reportjson.h | live.h | output.h | procmap.h | gsym.h | kvmstats.h | kstatjson.h | khist.h | flight.h) echo 2 ;;
	decode.h) echo 3 ;;
	pair.h) echo 4 ;;
	pipeline.h | feed.h | engine.h | watch.h) echo 5 ;;
	render.h | jsonw.h | prom.h | ui.h | serve.h) echo 6 ;;
	cli.h) echo 7 ;;
	*) echo "?" ;;
	esac
}
# A file's layer is its directory's.
layer_of_file() {
	case $1 in
	src/util/*) echo 0 ;;
	src/types/* | src/stats/* | src/ring/*) echo 1 ;;
	src/input/* | src/live/* | src/output/*) echo 2 ;;
	src/decode/*) echo 3 ;;
	src/pair/*) echo 4 ;;
	src/pipeline/* | src/feed/* | src/engine/* | src/watch/*) echo 5 ;;
	src/render/* | src/ui/* | src/serve/*) echo 6 ;;
	src/cli/* | src/main.c) echo 7 ;;
	include/*) layer_of_header "${1#include/}" ;;
	*) echo "?" ;;
	esac
}
# Includes against the layers, each with why it stays.
ALLOWED="
src/input/text.c decode.h	a text line is a record, prose, or the first half of a wrapped record only by its event's printed forms, which decode/ holds (decode_text_role(), decode_text_label()): the reader asks the one decoder as it reads, the feed cannot
"

for f in $(git ls-files 'src/*.[ch]' 'include/*.h'); do
	fl=$(layer_of_file "$f")
	[ "$fl" = "?" ] && { bad "layers: $f has no layer (add it to tests/lint/layers.sh)"; continue; }
	for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		case $h in
		*-local.h)
			[ -f "$(dirname "$f")/$h" ] || echo "$ALLOWED" | grep -q "^$f $h	" ||
				bad "layers: $f includes $h, another directory's private header"
			continue ;;
		esac
		hl=$(layer_of_header "$h")
		if [ "$hl" = "?" ]; then
			bad "layers: $f includes $h, which has no layer"
		elif [ "$hl" -gt "$fl" ] && ! echo "$ALLOWED" | grep -q "^$f $h	"; then
			bad "layers: $f (layer $fl) includes $h (layer $hl): against the data flow"
		else
			ok
		fi
	done
done

# ---- prefixes ----
prefix_of() {
	case $1 in
	alloc.h) echo x ;; intern.h) echo intern ;; err.h) echo err ;; file.h) echo file_ ;;
	outfile.h) echo outfile_ ;; chase.h) echo chase_ ;; term.h) echo term_ ;; reportjson.h) echo reportjson_ ;; prom.h) echo prom_ ;;
	serve.h) echo serve_ ;; heap.h) echo heap_ ;; sorted.h) echo sorted_ ;; tidhash.h) echo tidhash_ ;; num.h) echo num_ ;; knobs.h) echo knobs_ ;;
	exit-types.h) echo exit_types_ ;; exit-table.h) echo exit_table_ ;;
	bucket-map.h) echo bucket_map_ ;; stats.h) echo stats_ ;; diff.h) echo diff_ ;;
	ring.h) echo ring_ ;; live.h) echo live_ ;; kstat.h) echo kstat_ ;; kvmstats.h) echo kvmstats_ ;; kstatjson.h) echo kstatjson_ ;; khist.h) echo khist_ ;; flight.h) echo flight_ ;; output.h) echo dat_writer_ ;; procmap.h) echo procmap_ ;; gsym.h) echo gsym_ ;;
	input.h | pipeline.h) echo input_ ;; ppctext.h) echo ppctext_ ;; peertext.h) echo peertext_ ;; decode.h) echo decode_ ;;
	pair.h) echo pair_ ;; feed.h) echo feed_ ;; engine.h) echo engine_ ;; watch.h) echo watch_ ;; render.h) echo render_ ;; jsonw.h) echo jsonw_ ;; ui.h) echo ui_ ;;
	cli.h) echo cli_ ;;
	tracedat.h) echo tracedat_ ;; text.h) echo text_ ;;
	*) echo "" ;;
	esac
}
for h in include/*.h; do
	p=$(prefix_of "${h#include/}")
	# top-level declarations: "type name(" at a line start, and extern tables
	names=$(sed -n -e '/^typedef/d' -e '/^#/d' \
		-e 's/^\(static inline \)\{0,1\}[A-Za-z_][^;{}()#]*[^a-z0-9_]\([a-z_][a-z0-9_]*\)(.*/\2/p' \
		-e 's/^extern [^;]*[^a-z0-9_]\([a-z_][a-z0-9_]*\)\(\[\]\)\{0,1\};/\1/p' "$h")
	for n in $names; do
		if [ -z "$p" ]; then
			bad "prefixes: $h declares $n but has no prefix in tests/lint/layers.sh"
		elif echo "$n" | grep -Eq "^($p)"; then
			ok
		else
			bad "prefixes: $h declares $n: not its prefix '$p'"
		fi
	done
done

# ---- every header on its own ----
CFLAGS_H="-std=c11 -D_GNU_SOURCE -Wall -Werror -fsyntax-only -Iinclude $(pkg-config --cflags libtraceevent libtracefs libtracecmd 2>/dev/null)"
for h in include/*.h src/*/*-local.h; do
	if printf '#include "%s"\n' "$(basename "$h")" |
		${CC:-cc} $CFLAGS_H -I"$(dirname "$h")" -x c - 2>"$TMP/hdr.err"; then
		ok
	else
		bad "headers: $h does not compile alone: $(head -n 1 "$TMP/hdr.err")"
	fi
done

# ---- error helpers ----
# errno goes into a message through err_errno()/err_buf_errno(), which read
# it before anything else can change it; a hand-written strerror(errno)
# after another call may name the wrong error (strerror(e) of a saved e is fine).
git grep -n 'strerror(errno)' -- 'src/*.c' >"$TMP/strerror"
while read -r hit; do
	bad "errors: $hit: strerror(errno) by hand (err_errno()/err_buf_errno())"
done <"$TMP/strerror"
eq "errors: no strerror(errno) by hand in src/" "$(wc -l <"$TMP/strerror")" 0
# Below the layer that faces the user (6: render, ui, serve; 7: cli) nothing
# prints: a reason goes into the caller's errbuf (err.h), so the caller
# decides whether and where to say it (JSON's sink, a refusal taken apart as
# report takes a statistics snapshot). util/err.c is what prints.
for f in $(git ls-files 'src/*.c'); do
	[ "$(layer_of_file "$f")" -lt 6 ] && [ "$f" != src/util/err.c ] || continue
	git grep -nE '(^|[^_[:alnum:]])(err|err_errno|err_info)\(' -- "$f" | grep -v '^[^:]*:[0-9]*:[[:space:]]*/\?\*' >>"$TMP/prints"
done
touch "$TMP/prints"
while read -r hit; do
	bad "errors: $hit: prints below cli/, ui/ and serve/ (err_buf() into the caller's buffer)"
done <"$TMP/prints"
eq "errors: nothing below layer 6 prints with err()" "$(wc -l <"$TMP/prints")" 0

# ---- exports ----
# The objects of the sources that exist (a build directory keeps stale ones).
objs=$(git ls-files 'src/*.c' | sed "s|^\(.*\)\.c$|$O/\1.o|" | while read -r o; do [ -f "$o" ] && echo "$o"; done)
[ -n "$objs" ] || { bad "exports: no objects under $O/src: build first"; summary; exit; }
# "file symbol" for every definition, "file symbol" for every use.
nm -A -g --defined-only $objs 2>/dev/null |
	awk '$2 ~ /^[TDRB]$/ && $3 !~ /^__/ { f = $1; sub(/:.*/, "", f); print f, $3 }' >"$TMP/defs"
nm -A -u $objs 2>/dev/null | awk '{ f = $1; sub(/:.*/, "", f); print f, $NF }' >"$TMP/uses"
# Symbols a test, fuzzer or test tool names (they link libkes.a, so nm cannot tell).
cat tests/unit/*.c tests/fuzz/*.c tests/tools/*.c $(ls tests/lib/*.c 2>/dev/null) |
	tr -c 'A-Za-z0-9_' '\n' | sort -u >"$TMP/testwords"
awk 'FILENAME == ARGV[1] { tw[$1] = 1; next }
     FILENAME == ARGV[2] { def[$2] = $1; next }
     { if ($1 != def[$2]) used[$2] = 1 }
     END { for (s in def) if (s != "main" && !used[s] && !tw[s]) print def[s], s }' \
	"$TMP/testwords" "$TMP/defs" "$TMP/uses" | sort >"$TMP/unused"
while read -r file sym; do
	src=${file#"$O"/}
	src=${src%.o}.c
	bad "exports: $sym ($src) is used by nothing outside its file: delete it or make it static"
done <"$TMP/unused"
eq "exports: every export has a user outside its file" "$(wc -l <"$TMP/unused")" 0
check "exports: found the definitions" test "$(wc -l <"$TMP/defs")" -gt 100
summary
