# Shared helpers of the lab's host-side scripts (sourced, POSIX sh).
# LAB: tests/lab; LAB_CACHE: the cache (default build/lab); LOCK: packages.lock.
LAB=${LAB:-$(cd "$(dirname "$0")" && pwd)}
ROOT=${ROOT:-$(cd "$LAB/../.." && pwd)}
LAB_CACHE=${LAB_CACHE:-$ROOT/build/lab}
LOCK=${LOCK:-$LAB/packages.lock}

# die MESSAGE: the one clear line, then a failure.
die() { echo "lab: $*" >&2; exit 1; }
say() { echo "lab: $*" >&2; }

# lock_line NAME ARCH: "name arch version sha256" from the lock, or nothing.
lock_line() { awk -v n="$1" -v a="$2" '$1 == n && $2 == a { print; exit }' "$LOCK"; }

# lock_version NAME ARCH: the pinned version (dies when the lock has none).
lock_version() {
	l=$(lock_line "$1" "$2")
	[ -n "$l" ] || die "$1:$2 is not in $LOCK (add it with tests/lab/lock.sh $1:$2 >> $LOCK)"
	echo "$l" | awk '{ print $3 }'
}

# deb_path NAME ARCH: where fetch.sh keeps the checked .deb of the pinned version.
deb_path() {
	v=$(lock_version "$1" "$2") || exit 1
	echo "$LAB_CACHE/debs/${1}_${v#*:}_$2.deb"
}

# elapsed T0: seconds since T0 (date +%s.%N), one decimal.
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# closure DEPFILE MODULE...: the .ko paths (as modules.dep names them) to
# load for the MODULEs, each after the modules it needs, each once; "MISSING
# NAME" for a module the kernel does not have. MODULE:PARAMS drops PARAMS.
# modules.dep lists a module's whole closure, the one loaded first last.
closure() {
	depfile=$1
	shift
	for m in "$@"; do echo "${m%%:*}"; done | awk -v depfile="$depfile" '
	function norm(s) { sub(/.*\//, "", s); sub(/\.ko(\.[a-z]+)?$/, "", s); gsub(/-/, "_", s); return s }
	BEGIN {
		while ((getline line < depfile) > 0) {
			split(line, f, /:[ ]*/)
			key = norm(f[1]); path[key] = f[1]; deps[key] = f[2]
		}
	}
	function emit(p) { if (!(p in seen)) { seen[p] = 1; print p } }
	{
		k = norm($0)
		if (!(k in path)) { print "MISSING " $0; next }
		n = split(deps[k], d, / +/)
		for (i = n; i >= 1; i--) if (d[i] != "") emit(d[i])
		emit(path[k])
	}'
}

# load_list DEPFILE MODULE...: "path params" lines in load order, the
# parameters of MODULE:P=V,Q=W given as "P=V Q=W" to the module named.
load_list() {
	depfile=$1
	shift
	params=$(for m in "$@"; do
		case $m in *:*) echo "${m%%:*} $(echo "${m#*:}" | tr , ' ')" ;; esac
	done)
	closure "$depfile" "$@" | while read -r p; do
		b=$(basename "$p" .ko | tr - _)
		echo "$p $(echo "$params" | awk -v b="$b" '{ n = $1; gsub(/-/, "_", n) } n == b { $1 = ""; print substr($0, 2) }')"
	done
}
