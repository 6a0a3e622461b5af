#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install what xrdma's build and tests need on Debian 12 (idempotent): one
# dpkg-query when everything is there, apt-get only for what is missing
# (--force: apt-get anyway).  "make deps" runs it; so do the targets that
# run tests (make check, kunit, guest-test, ...), not the builds.
#
# The kernels (scripts/kernels.sh): Debian 12's own 6.1 (linux-image-amd64,
# linux-headers-amd64, linux-source-6.1) and 6.12 from bookworm-backports,
# which this script adds to apt's sources (the mirror of the machine's
# Debian sources, /etc/apt/sources.list.d/xrdma-bookworm-backports.sources)
# when no source names the suite yet.  Backports has no metapackage that
# can sit next to 6.1's, so the 6.12 packages are named by release: the
# newest linux-image-6.12.*+deb12-amd64 whose headers are there too, unless
# one such pair is installed already.
set -eu

# Every program the tests and scripts run comes from one of these (make
# check's deps-audit stage proves it), even those a Debian system usually
# has (apt, mawk, mount: Priority required, not Essential).
PKGS="build-essential make gcc g++ clang binutils libasan8 bc flex bison libelf-dev
libssl-dev dwarves rsync git patch apt mawk mount zstd
kmod cpio gzip xz-utils file busybox-static qemu-system-x86 sparse python3 python3-minimal
python3-pyverbs libpython3.11-stdlib trace-cmd
linux-image-amd64 linux-headers-amd64 linux-source-6.1 linux-source-6.12
rdma-core ibverbs-utils ibverbs-providers perftest libibverbs-dev librdmacm-dev iproute2 gnuplot-nox
nvme-cli fio nfs-kernel-server nfs-common ksmbd-tools cifs-utils rdmacm-utils
ucx-utils libucx0 libfabric-bin libfabric1 openmpi-bin openmpi-common libopenmpi-dev
libopenmpi3 libpmix2 qperf libtirpc-common netbase
dkms lintian man-db curl gpgv debian-archive-keyring tshark"

# the bookworm-backports kernel series the tree supports besides 6.1
BPO_SERIES="6.12"

# --list: the packages, one a line, and nothing else
# (scripts/selftest/deps-audit.py checks the tests need no others)
if [ "${1:-}" = --list ]; then
	# shellcheck disable=SC2086
	printf '%s\n' $PKGS
	exit 0
fi

SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo

# the installed release of series $1 from backports with image and headers
bpo_installed() {
	dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' \
		"linux-image-$1.*+deb12-amd64" 2>/dev/null |
		awk '$1 == "ii" { sub(/^linux-image-/, "", $2); print $2 }' |
		while read -r r; do
			dpkg-query -W -f='${db:Status-Abbrev}\n' "linux-headers-$r" 2>/dev/null |
				grep -q '^ii' && echo "$r"
		done | sort -V | tail -n 1
}

# the newest release of series $1 apt offers with both packages
bpo_candidate() {
	apt-cache pkgnames "linux-image-$1." 2>/dev/null |
		sed -n "s/^linux-image-\($1\.[0-9]*+deb12-amd64\)\$/\1/p" |
		while read -r r; do
			apt-cache show "linux-headers-$r" >/dev/null 2>&1 && echo "$r"
		done | sort -V | tail -n 1
}

# bookworm-backports in apt's sources, on the mirror already used
add_backports() {
	grep -rqsE '(^|[[:space:]])bookworm-backports([[:space:]]|$)' \
		/etc/apt/sources.list /etc/apt/sources.list.d/ && return 0
	mirror=$(grep -rhsE '^URIs:.*/debian/?$|^deb .*/debian/? bookworm ' \
		/etc/apt/sources.list.d/ /etc/apt/sources.list |
		sed -nE 's/^URIs:[[:space:]]*([^[:space:]]+).*/\1/p; s/^deb ([^[:space:]]+).*/\1/p' |
		head -n 1)
	echo "install-deps: adding bookworm-backports (${mirror:-http://deb.debian.org/debian}) to apt's sources"
	printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		"${mirror:-http://deb.debian.org/debian}" |
		$SUDO tee /etc/apt/sources.list.d/xrdma-bookworm-backports.sources >/dev/null
	return 1
}

# shellcheck disable=SC2086
installed=" $(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' $PKGS 2>/dev/null |
	awk '$1 == "ii" { printf "%s ", $2 }')"
missing=""
for p in $PKGS; do
	case $installed in
	*" $p "*) ;;
	*) missing="$missing $p" ;;
	esac
done
bpo_missing=""
for s in $BPO_SERIES; do
	[ -n "$(bpo_installed "$s")" ] || bpo_missing="$bpo_missing $s"
done

if [ -z "$missing$bpo_missing" ] && [ "${1:-}" != "--force" ]; then
	exit 0
fi

echo "install-deps: installing:$missing${bpo_missing:+ (and Linux$bpo_missing from bookworm-backports)}"
add_backports || true
$SUDO apt-get update
bpo=""
for s in $BPO_SERIES; do
	r=$(bpo_installed "$s")
	[ -n "$r" ] || r=$(bpo_candidate "$s")
	if [ -z "$r" ]; then
		echo "install-deps: bookworm-backports offers no linux-image-$s.*+deb12-amd64 with its headers" >&2
		exit 1
	fi
	bpo="$bpo linux-image-$r linux-headers-$r"
done
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends $PKGS
# the backports kernels' dependencies (linux-kbuild, gcc-12) may be newer
# there: let apt take them from the suite
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends \
	-t bookworm-backports $bpo
