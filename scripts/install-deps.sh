#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install what xrdma's build and tests need on Debian 12 (idempotent): one
# dpkg-query when everything is there, apt-get only for what is missing
# (--force: apt-get anyway).  "make deps" runs it; so do the targets that
# run tests (make check, kunit, guest-test, ...), not the builds.
set -eu

PKGS="build-essential make gcc libasan8 bc flex bison libelf-dev libssl-dev dwarves rsync
kmod cpio gzip xz-utils file busybox-static qemu-system-x86 sparse python3 python3-pyverbs
linux-image-amd64 linux-headers-amd64 linux-source-6.1
rdma-core ibverbs-utils ibverbs-providers perftest libibverbs-dev iproute2 gnuplot-nox
nvme-cli fio nfs-kernel-server nfs-common ksmbd-tools cifs-utils rdmacm-utils
ucx-utils libucx0 libfabric-bin libfabric1 openmpi-bin libopenmpi-dev qperf
dkms lintian man-db"

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
