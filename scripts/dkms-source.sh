#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/dkms-source.sh DIR: write the DKMS source tree of the xrdma
# modules to DIR (e.g. /usr/src/xrdma-VERSION): the top Kbuild, the
# sources of xrdma_core, xrdma_uverbs, xnic, xnic_sim and xrdma_ib with
# the headers they include, VERSION and dkms.conf.  Test fixtures, KUnit
# suites and tools stay out.  Files come from git when this is a clone,
# else from the tree without build products.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${1:?usage: dkms-source.sh DIR}
VER=$(cat "$ROOT/VERSION")
PARTS=(VERSION drivers/core drivers/uverbs drivers/hw drivers/ib include uapi)

rm -rf "$DIR"
mkdir -p "$DIR"
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$ROOT" ls-files -z -- "${PARTS[@]}"
else
	(cd "$ROOT" && find "${PARTS[@]}" -type f \( -name '*.[ch]' -o -name Kbuild \
		-o -name VERSION \) -print0)
fi | (cd "$ROOT" && xargs -0 cp --parents -t "$DIR")
KRE=$("$ROOT/scripts/kernels.sh" regex)
sed -e "s/@VERSION@/$VER/g" -e "s/@KERNELS@/${KRE//\\/\\\\}/" \
	"$ROOT/packaging/dkms.conf" >"$DIR/dkms.conf"
# the top Kbuild without the test fixtures (kbuild's clean visits every
# directory named, configured or not)
cat >"$DIR/Kbuild" <<'KBUILD'
# SPDX-License-Identifier: GPL-2.0
# xrdma's DKMS build (scripts/dkms-source.sh): the stack's modules only
include $(KBUILD_EXTMOD)/include/xrdma/compat.mk
obj-$(CONFIG_XRDMA_CORE)	+= drivers/core/
obj-$(CONFIG_XRDMA_UVERBS)	+= drivers/uverbs/
obj-y				+= drivers/hw/xnic/
ifneq ($(CONFIG_INFINIBAND),)
obj-$(CONFIG_XRDMA_IB)		+= drivers/ib/
endif
KBUILD
echo "$DIR"
