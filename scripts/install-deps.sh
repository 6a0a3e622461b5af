#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install what xrdma's build and tests need on Debian 12 (idempotent): one
# dpkg-query when everything is there, apt-get only for what is missing
# (--force: apt-get anyway).  "make deps" runs it; so do the targets that
# run tests (make check, kunit, guest-test, ...), not the builds.
set -eu

# Every program the tests and scripts run comes from one of these (make
# check's deps-audit stage proves it), even those a Debian system usually
# has (apt, mawk, mount: Priority required, not Essential).
PKGS="build-essential make gcc g++ clang binutils libasan8 bc flex bison libelf-dev
libssl-dev dwarves rsync git apt mawk mount zstd
kmod cpio gzip xz-utils file busybox-static qemu-system-x86 sparse python3 python3-minimal
python3-pyverbs libpython3.11-stdlib trace-cmd
linux-image-amd64 linux-headers-amd64 linux-source-6.1
rdma-core ibverbs-utils ibverbs-providers perftest libibverbs-dev iproute2 gnuplot-nox
nvme-cli fio nfs-kernel-server nfs-common ksmbd-tools cifs-utils rdmacm-utils
ucx-utils libucx0 libfabric-bin libfabric1 openmpi-bin openmpi-common libopenmpi-dev
libopenmpi3 libpmix2 qperf libtirpc-common netbase
dkms lintian man-db"

# --list: the packages, one a line, and nothing else
# (scripts/selftest/deps-audit.py checks the tests need no others)
if [ "${1:-}" = --list ]; then
	# shellcheck disable=SC2086
	printf '%s\n' $PKGS
	exit 0
fi

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

if [ -z "$missing" ] && [ "${1:-}" != "--force" ]; then
	exit 0
fi

SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
echo "install-deps: installing:$missing"
$SUDO apt-get update
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends $PKGS
