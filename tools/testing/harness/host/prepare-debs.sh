#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# XRDMA_PREPARE fixture of tools/testing/ulp/install_deb.sh:
#   prepare-debs.sh KVER   prints a directory holding
#     *.deb       make deb's two packages
#     dkms/*.ko   what the xrdma-dkms package's postinst builds: "dkms build"
#                 of the package's own /usr/src/xrdma-VERSION for KVER (the
#                 guest has no compiler), in a scratch DKMS tree
# The dkms run is scripts/dkms-scratch.sh: nothing on the host changes.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../../.." && pwd)
KVER=${1:?usage: prepare-debs.sh KVER}
OUT=$ROOT/build/guest/debs
rm -rf "$OUT"
mkdir -p "$OUT/dkms" "$OUT/x"
XRDMA_LINTIAN=0 "$ROOT/scripts/mkdeb.sh" "$OUT/pkg" >&2
cp "$OUT"/pkg/*.deb "$OUT/"
# the package's source tree, as the package installs it
dpkg-deb -x "$OUT"/xrdma-dkms_*_all.deb "$OUT/x"
src=$(ls -d "$OUT"/x/usr/src/xrdma-*)
"$ROOT/scripts/dkms-scratch.sh" "$src" "$KVER" "$OUT/dkms" >&2
rm -rf "$OUT/x" "$OUT/pkg"
echo "$OUT"
