#!/bin/sh
# The version this tree builds, printed on one line:
#   1. a VERSION file (what `make dist` puts in a tarball, which has no .git),
#   2. `git describe` of this tree's own repository: v1.2 -> 1.2,
#      v1.2 + 3 commits -> 1.2-3-gabc1234, -dirty with uncommitted changes;
#      no v* tag yet: BASE-N-gHASH as if BASE were tagged at the root (so the
#      number still grows),
#   3. BASE-unknown: neither (a copy without its history).
# The VERSION file wins: a tarball unpacked inside another repository (a
# packaging one) must not take that repository's describe.
# Usage: tools/version.sh [SRCDIR]
BASE=0.1
src=${1:-$(dirname "$0")/..}
cd "$src" || exit 1
if [ -s VERSION ]; then
	head -n 1 VERSION
	exit 0
fi
top=$(git rev-parse --show-toplevel 2>/dev/null)
if [ -n "$top" ] && [ "$(cd "$top" && pwd -P)" = "$(pwd -P)" ]; then
	if v=$(git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null); then
		echo "${v#v}"
		exit 0
	fi
	n=$(git rev-list --count HEAD 2>/dev/null) &&
		h=$(git rev-parse --short HEAD 2>/dev/null) && {
		d=
		git update-index -q --refresh >/dev/null 2>&1
		git diff-index --quiet HEAD -- 2>/dev/null || d=-dirty
		echo "$BASE-$n-g$h$d"
		exit 0
	}
fi
echo "$BASE-unknown"
