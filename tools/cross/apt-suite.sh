#!/bin/sh
# apt-suite.sh [--update] DIR SUITE ARCH APT-GET-ARGUMENT...
#
# Runs apt-get on the packages of another Debian release and architecture than
# this machine's, e.g. Debian 13's riscv64 port from a Debian 12 host:
#
#   tools/cross/apt-suite.sh /tmp/apt trixie riscv64 download libtracefs1=1.8.1-1
#
# DIR holds a private apt state (its own sources list, package lists, cache and
# an empty dpkg status): the machine's /etc/apt and /var/lib/apt are read for
# apt's own settings (proxies) but never written, no architecture is added to
# dpkg, nothing is installed. The one source is deb.debian.org's SUITE main for
# ARCH only, checked against Debian's archive keyring as apt checks the host's
# own lists (InRelease signature, then each file's sha256). The lists are
# fetched when DIR has none, or with --update. Only commands that need no
# installed system make sense: download, download --print-uris, show, policy.
set -eu

die() { echo "apt-suite.sh: $*" >&2; exit 1; }

update=
if [ "${1:-}" = --update ]; then
	update=1
	shift
fi
[ $# -ge 4 ] || die "usage: apt-suite.sh [--update] DIR SUITE ARCH APT-GET-ARGUMENT..."
dir=$1 suite=$2 arch=$3
shift 3
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || die "no $keyring (apt-get install debian-archive-keyring)"
mkdir -p "$dir/sources" "$dir/preferences" "$dir/lists/partial" "$dir/cache/archives/partial"
dir=$(cd "$dir" && pwd)
: >>"$dir/status"
cat >"$dir/sources/$suite-$arch.sources" <<EOF
Types: deb
URIs: http://deb.debian.org/debian
Suites: $suite
Components: main
Architectures: $arch
Signed-By: $keyring
EOF

private() {
	apt-get -q -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$dir/sources" \
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts="$dir/preferences" \
		-o Dir::State::Lists="$dir/lists" -o Dir::State::status="$dir/status" \
		-o Dir::Cache="$dir/cache" -o Dir::Cache::Archives="$dir/cache/archives" \
		-o Dir::Cache::pkgcache="$dir/cache/pkgcache.bin" -o Dir::Cache::srcpkgcache="$dir/cache/srcpkgcache.bin" \
		-o APT::Architecture="$arch" -o APT::Architectures::="$arch" \
		-o APT::Sandbox::User=root "$@"
}

have_lists() { ls "$dir/lists/"*"_dists_${suite}_InRelease" >/dev/null 2>&1; }
if [ -n "$update" ] || ! have_lists; then
	# apt-get update only warns when an index cannot be fetched: the lists must be there.
	rm -f "$dir/lists/"*"_dists_${suite}_"*
	if ! private update >"$dir/update.log" 2>&1 || ! have_lists; then
		die "apt-get update of Debian's $suite $arch lists from deb.debian.org failed (see $dir/update.log)"
	fi
fi
private "$@"
