#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install what xrdma's build and tests need on Debian 12 (idempotent).
set -eu

PKGS="build-essential make gcc bc flex bison libelf-dev libssl-dev dwarves rsync
kmod cpio gzip xz-utils file busybox-static qemu-system-x86 sparse python3
linux-image-amd64 linux-headers-amd64 linux-source-6.1
rdma-core ibverbs-utils ibverbs-providers perftest libibverbs-dev iproute2 gnuplot-nox"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
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
