#!/bin/sh
# fetch.sh [--install] NAME:ARCH...: the pinned .deb of each package
# (packages.lock) into $LAB_CACHE/debs, its sha256 checked; prints the paths.
# A .deb already there with the right sha256 is reused. --install then
# installs them on this machine with apt-get (the host tools: make lab-deps).
# Failures are one line: a package missing from the lock, a version the
# archive no longer has, a sha256 that does not match. A lock line with a fifth
# field, the Debian release (riscv64's packages: trixie), is downloaded through
# a private apt state of that release and architecture in $LAB_CACHE/apt/
# (tools/cross/apt-suite.sh): the machine's own apt setup is left alone.
. "$(dirname "$0")/lib.sh"
set -eu

install=
if [ "${1:-}" = --install ]; then
	install=1
	shift
fi

# lock_arch_of_suite SUITE: an architecture the lock takes from SUITE (whose
# lists also hold SUITE's "all" packages).
lock_arch_of_suite() { awk -v s="$1" '!/^#/ && $5 == s && $2 != "all" { print $2; exit }' "$LOCK"; }

# download_suite SUITE ARCH DIR NAME=VERSION: the .deb into DIR from Debian SUITE's
# ARCH packages (an "all" package from SUITE's lists of the guest's architecture).
# Lists kept from an earlier run may predate the lock: one retry with fresh lists.
download_suite() {
	a=$2
	[ "$a" = all ] && a=$(lock_arch_of_suite "$1")
	apt=$LAB_CACHE/apt/$1-$a
	(cd "$3" && sh "$ROOT/tools/cross/apt-suite.sh" "$apt" "$1" "$a" download "$4" >/dev/null 2>&1) ||
		(cd "$3" && sh "$ROOT/tools/cross/apt-suite.sh" --update "$apt" "$1" "$a" download "$4" >/dev/null 2>&1)
}

# fetch_one NAME ARCH: the checked .deb's path on stdout.
fetch_one() {
	name=$1 arch=$2
	ver=$(lock_version "$name" "$arch")
	sha=$(lock_line "$name" "$arch" | awk '{ print $4 }')
	deb=$(deb_path "$name" "$arch")
	if [ -f "$deb" ] && [ "$(sha256sum <"$deb" | cut -d' ' -f1)" = "$sha" ]; then
		echo "$deb"
		return 0
	fi
	mkdir -p "$LAB_CACHE/debs"
	tmp=$(mktemp -d "$LAB_CACHE/debs/.fetch.XXXXXX")
	suite=$(lock_line "$name" "$arch" | awk '{ print $5 }')
	got=$(ls "$pre/${name}_"*"_$arch.deb" 2>/dev/null | head -n 1)
	if [ -n "$got" ]; then
		mv "$got" "$tmp/"
	elif [ -n "$suite" ]; then
		if ! download_suite "$suite" "$arch" "$tmp" "$name=$ver"; then
			rm -rf "$tmp"
			die "cannot download $name:$arch $ver from Debian $suite (packages.lock): not in its archive? (tests/lab/lock.sh --suite $suite $name:$arch)"
		fi
	else
		[ "$arch" = all ] && q="$name=$ver" || q="$name:$arch=$ver"
		# apt drops an index a mirror serves mid-sync: pool.py reads it anyway (the sha256 decides)
		if ! (cd "$tmp" && apt-get -q -o APT::Sandbox::User=root download "$q" >/dev/null 2>&1) &&
			! python3 "$LAB/pool.py" "$name" "$arch" "$ver" "$tmp"; then
			rm -rf "$tmp"
			die "cannot download $name:$arch $ver (packages.lock): not in the apt archive? (apt-get update; tests/lab/lock.sh $name:$arch)"
		fi
	fi
	got=$(sha256sum "$tmp"/*.deb | cut -d' ' -f1)
	if [ "$got" != "$sha" ]; then
		rm -rf "$tmp"
		die "$name:$arch $ver: sha256 $got, packages.lock says $sha"
	fi
	mv "$tmp"/*.deb "$deb"
	rm -rf "$tmp"
	echo "$deb"
}

# prefetch SPEC...: the missing .debs of another Debian release into $pre in one
# apt-get call per release and architecture (one call per package costs a second
# each: apt reads the lists every time); fetch_one checks them as any other and
# fetches alone what this missed.
prefetch() {
	for spec in "$@"; do
		n=${spec%%:*} a=${spec#*:}
		# shellcheck disable=SC2046
		set -- $(lock_line "$n" "$a")
		[ $# -ge 5 ] || continue
		d=$(deb_path "$n" "$a")
		[ -f "$d" ] && [ "$(sha256sum <"$d" | cut -d' ' -f1)" = "$4" ] && continue
		[ "$a" = all ] && a=$(lock_arch_of_suite "$5")
		echo "$5 $a $n=$3"
	done | awk '{ k = $1 " " $2; w[k] = w[k] " " $3 } END { for (k in w) print k w[k] }' |
		while read -r suite a want; do
			# shellcheck disable=SC2086
			(cd "$pre" && sh "$ROOT/tools/cross/apt-suite.sh" "$LAB_CACHE/apt/$suite-$a" \
				"$suite" "$a" download $want >/dev/null 2>&1) || true
		done
}

mkdir -p "$LAB_CACHE/debs"
pre=$(mktemp -d "$LAB_CACHE/debs/.prefetch.XXXXXX")
trap 'rm -rf "$pre"' EXIT
prefetch "$@"
paths=
for spec in "$@"; do
	p=$(fetch_one "${spec%%:*}" "${spec#*:}") || exit 1
	echo "$p"
	paths="$paths $p"
done
if [ -n "$install" ] && [ -n "$paths" ]; then
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 $paths >/dev/null ||
		die "apt-get install of the lab's host tools failed"
fi
