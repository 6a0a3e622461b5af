#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fixture of tools/testing/lib/xverbs/xverbs_rdma56.sh: rdma-core 56's
# headers, as Debian 13 (trixie) ships them in libibverbs-dev, fetched
# from the Debian mirror and verified, then xv_rdma56
# (tools/testing/lib/xverbs/xv_rdma56.c) compiled against them and linked
# against tools/lib/xverbs' libibverbs.so.1 (rdma-core 44's ABI).  The
# headers are never committed nor installed: they live in the cache.
#
#   scripts/xverbs-rdma56.sh [KVER]     (KVER is ignored: XRDMA_PREPARE)
#
# Output (stdout): the directory holding xv_rdma56.  Progress and errors
# go to stderr; exit 1 when the headers cannot be had (no network and no
# cache, a bad signature or checksum): the guest test then fails, it
# does not skip.
#
# What is trusted: dists/SUITE/InRelease, checked with gpgv against
# /usr/share/keyrings/debian-archive-keyring.gpg (Debian 12's keyring
# holds the keys trixie's Release is signed with); from its signed text
# the SHA256 of main/binary-amd64/Packages.xz; from that index the
# Filename, Version and SHA256 of libibverbs-dev; the .deb is checked
# against that SHA256 before "dpkg-deb -x".  The Version must be 56.x:
# the test is written for rdma-core 56.
#
# The cache needs no network once filled: the index is only read when no
# extracted package is there (or with XRDMA_RDMA56_REFRESH=1).
#
# Environment:
#   XRDMA_CACHE            cache dir (default /var/cache/xrdma):
#                          rdma56/libibverbs-dev_VERSION_amd64.deb,
#                          rdma56/VERSION/ (the extracted package;
#                          .xrdma-extracted once complete),
#                          rdma56/current (the VERSION in use),
#                          rdma56.lock (serialises its users)
#   XRDMA_DEBIAN_MIRROR    default http://deb.debian.org/debian
#   XRDMA_RDMA56_SUITE     default trixie
#   XRDMA_RDMA56_REFRESH   1: read the index again (a newer 56.x)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${XRDMA_CACHE:-/var/cache/xrdma}
MIRROR=${XRDMA_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUITE=${XRDMA_RDMA56_SUITE:-trixie}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
PKG=libibverbs-dev
DIR=$CACHE/rdma56
OUT=$root/build/rdma56

log() { echo "xverbs-rdma56: $*" >&2; }
die() {
	log "error: $*"
	exit 1
}

for t in curl gpgv xz dpkg-deb sha256sum flock make gcc; do
	command -v "$t" >/dev/null ||
		die "$t missing (scripts/install-deps.sh: curl gpgv xz-utils dpkg make gcc)"
done

# fetch URL FILE: the file, or a clear failure
fetch() {
	curl -fsSL --retry 2 --connect-timeout 20 --max-time 300 -o "$2" "$1" ||
		die "cannot download $1 (no network to the Debian mirror?): rdma-core 56's headers are needed for this test"
}

# the extracted package of the newest 56.x in SUITE's index
from_mirror() {
	local tmp idx_sum filename version sum deb
	tmp=$(mktemp -d "$DIR/.fetch.XXXXXX")
	# shellcheck disable=SC2064 # expand now
	trap "rm -rf '$tmp'" EXIT
	[ -f "$KEYRING" ] ||
		die "no $KEYRING (apt-get install debian-archive-keyring)"
	log "reading $MIRROR/dists/$SUITE/InRelease"
	fetch "$MIRROR/dists/$SUITE/InRelease" "$tmp/InRelease"
	gpgv --keyring "$KEYRING" --output "$tmp/Release" "$tmp/InRelease" \
		2>"$tmp/gpgv.log" ||
		die "InRelease of $SUITE: bad or unknown signature ($(tail -n 1 "$tmp/gpgv.log"))"
	idx_sum=$(awk '/^SHA256:/ { s = 1; next } /^[^ ]/ { s = 0 }
		s && $3 == "main/binary-amd64/Packages.xz" { print $1 }' \
		"$tmp/Release")
	[ -n "$idx_sum" ] ||
		die "no main/binary-amd64/Packages.xz in $SUITE's Release"
	fetch "$MIRROR/dists/$SUITE/main/binary-amd64/Packages.xz" \
		"$tmp/Packages.xz"
	echo "$idx_sum  $tmp/Packages.xz" | sha256sum -c --status ||
		die "Packages.xz of $SUITE: SHA256 differs from the signed Release"
	read -r filename version sum < <(xz -dc "$tmp/Packages.xz" | awk -v p="$PKG" '
		/^Package: / { inpkg = ($2 == p) }
		inpkg && /^Filename: / { f = $2 }
		inpkg && /^Version: / { v = $2 }
		inpkg && /^SHA256: / { s = $2 }
		/^$/ { if (inpkg && f != "") { print f, v, s; exit } inpkg = 0 }
		END { if (inpkg && f != "") print f, v, s }') || true
	[ -n "${sum:-}" ] || die "no $PKG in $SUITE's main/binary-amd64 index"
	case $version in
	56.*) ;;
	*) die "$SUITE's $PKG is $version, not rdma-core 56.x (XRDMA_RDMA56_SUITE?)" ;;
	esac
	deb=$DIR/${PKG}_${version}_amd64.deb
	if ! echo "$sum  $deb" | sha256sum -c --status 2>/dev/null; then
		log "downloading $PKG $version ($filename)"
		fetch "$MIRROR/$filename" "$tmp/pkg.deb"
		echo "$sum  $tmp/pkg.deb" | sha256sum -c --status ||
			die "$filename: SHA256 differs from the signed index"
		mv "$tmp/pkg.deb" "$deb"
	fi
	rm -rf "${DIR:?}/$version"
	mkdir -p "$tmp/x"
	dpkg-deb -x "$deb" "$tmp/x"
	[ -f "$tmp/x/usr/include/infiniband/verbs.h" ] ||
		die "$deb has no usr/include/infiniband/verbs.h"
	touch "$tmp/x/.xrdma-extracted"
	mv "$tmp/x" "$DIR/$version"
	echo "$version" >"$DIR/current.tmp"
	mv "$DIR/current.tmp" "$DIR/current"
	rm -rf "$tmp"
	trap - EXIT
	log "rdma-core $version headers in $DIR/$version (sha256 $sum)"
}

mkdir -p "$DIR"
exec 9>"$CACHE/rdma56.lock"
flock 9

ver=$(cat "$DIR/current" 2>/dev/null || true)
if [ "${XRDMA_RDMA56_REFRESH:-0}" = 1 ] || [ -z "$ver" ] ||
   [ ! -f "$DIR/$ver/.xrdma-extracted" ]; then
	from_mirror
	ver=$(cat "$DIR/current")
else
	log "rdma-core $ver headers cached in $DIR/$ver"
fi
inc=$DIR/$ver/usr/include

mkdir -p "$OUT"
make -s -C "$root/tools/testing/lib/xverbs" rdma56 RDMA56_INCLUDE="$inc" \
	RDMA56_OUT="$OUT/xv_rdma56" >&2 ||
	die "building xv_rdma56 against $inc failed"
echo "$ver" >"$OUT/rdma-core-version"
echo "$OUT"
