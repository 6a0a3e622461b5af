#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/dkms-scratch.sh SRCDIR KVER OUTDIR: "dkms add" and "dkms build" of
# the DKMS source tree SRCDIR (.../xrdma-VERSION, with its dkms.conf) for
# kernel KVER (its headers installed), in a scratch DKMS tree, and copy the
# built modules to OUTDIR (compressed as the kernel's own are: Debian's
# 6.12 has .ko.xz).  Nothing on the host changes: dkms runs in a
# private mount namespace where /var/lib/dkms and /etc/dkms are empty
# tmpfs (no MOK key is made, modules are not signed) and the DKMS tree and
# source tree are temporary directories.  Prints "dkms status" lines.
set -euo pipefail
SRC=$(cd "${1:?usage: dkms-scratch.sh SRCDIR KVER OUTDIR}" && pwd)
KVER=${2:?}
OUT=$(mkdir -p "${3:?}" && cd "$3" && pwd)
command -v dkms >/dev/null || { echo "dkms-scratch: dkms is not installed (make deps)" >&2; exit 1; }
[ -d "/lib/modules/$KVER/build" ] || { echo "dkms-scratch: no headers for $KVER" >&2; exit 1; }
NAME=$(sed -n 's/^PACKAGE_NAME="\(.*\)"/\1/p' "$SRC/dkms.conf")
VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$SRC/dkms.conf")
T=$(mktemp -d /tmp/xrdma-dkms.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/src" "$T/tree"
cp -a "$SRC" "$T/src/$NAME-$VER"
# shellcheck disable=SC2016 # expanded by the inner bash, from its arguments
unshare --mount --propagation private bash -euo pipefail -c '
	mount -t tmpfs xrdma-dkms /var/lib/dkms
	mount -t tmpfs xrdma-dkms /etc/dkms
	echo "sign_file=/nonexistent" >/etc/dkms/framework.conf
	a=(-m "$1" -v "$2" --dkmstree "$4/tree" --sourcetree "$4/src")
	dkms add "${a[@]}"
	dkms build "${a[@]}" -k "$3"
	dkms status "${a[@]}"
' dkms-scratch "$NAME" "$VER" "$KVER" "$T"
find "$T/tree/$NAME/$VER/$KVER" \( -name '*.ko' -o -name '*.ko.[gx]z' -o -name '*.ko.zst' \) \
	-exec cp -t "$OUT" {} +
ls "$OUT"
