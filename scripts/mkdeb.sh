#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: scripts/mkdeb.sh OUTDIR builds two Debian packages from the tree
# with dpkg-deb (no debhelper needed):
#   xrdma-dkms_VERSION_all.deb  the modules' source in /usr/src/xrdma-VERSION;
#                               installing it runs dkms add/build/install for
#                               the running kernel (and later kernels:
#                               AUTOINSTALL), removing it dkms remove
#   xrdma_VERSION_amd64.deb     the library in /usr/lib/xrdma (private: the
#                               system's libibverbs stays), /usr/bin/xrdma-run,
#                               /usr/sbin/xrdma-fault, their man pages, the
#                               udev rule, examples
# and prints their paths.  Runs lintian on them when it is installed
# (XRDMA_LINTIAN=0: don't); its output is OUTDIR/lintian.txt.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(mkdir -p "${1:?usage: mkdeb.sh OUTDIR}" && cd "$1" && pwd)
VER=$(cat "$ROOT/VERSION")
DEBVER=$VER-1
STAGE=$OUT/stage
MAINT="xrdma maintainers <maintainers@users.noreply.a-seed-f3a73198.example>"
DATE=$(date -R -d "@$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null || date +%s)")
rm -rf "$STAGE"
mkdir -p "$STAGE"

# doc_files PKG DIR: copyright and changelog.Debian.gz, as Debian wants
doc_files() {
	local d=$2/usr/share/doc/$1
	install -d "$d"
	cat >"$d/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: xrdma
Source: https://example.invalid/xrdma

Files: *
Copyright: 2026 the xrdma authors
License: GPL-2
 This package is free software; you can redistribute it and/or modify
 it under the terms of the GNU General Public License version 2 as
 published by the Free Software Foundation.
 .
 On Debian systems, the complete text of the GNU General Public License
 version 2 can be found in "/usr/share/common-licenses/GPL-2".
COPYRIGHT
	printf '%s (%s) unstable; urgency=medium\n\n  * Built from the xrdma tree (%s).\n\n -- %s  %s\n' \
		"$1" "$DEBVER" "$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown)" \
		"$MAINT" "$DATE" | gzip -9n >"$d/changelog.Debian.gz"
}

# --- xrdma-dkms
P=$STAGE/xrdma-dkms
"$ROOT/scripts/dkms-source.sh" "$P/usr/src/xrdma-$VER" >/dev/null
doc_files xrdma-dkms "$P"
install -d "$P/DEBIAN"
cat >"$P/DEBIAN/control" <<CONTROL
Package: xrdma-dkms
Version: $DEBVER
Architecture: all
Maintainer: $MAINT
Depends: dkms (>= 2.1.0.0)
Recommends: xrdma
Section: kernel
Priority: optional
Installed-Size: $(du -sk "$P/usr" | cut -f1)
Homepage: https://example.invalid/xrdma
Description: kernel modules of the xrdma RDMA verbs stack (DKMS source)
 xrdma is an RDMA verbs stack with a device model of its RDMA NIC, xnic,
 for developing and testing RDMA applications and kernel ULPs without RDMA
 hardware.  This package builds its modules (xrdma_core, xrdma_uverbs,
 xnic, xnic_sim, xrdma_ib) for every installed kernel with DKMS.
CONTROL
cat >"$P/DEBIAN/postinst" <<POSTINST
#!/bin/sh
set -e
# as dh_dkms does
if [ "\$1" = configure ]; then
	/usr/lib/dkms/common.postinst xrdma $VER "" "" "\$2"
fi
POSTINST
cat >"$P/DEBIAN/prerm" <<PRERM
#!/bin/sh
set -e
if [ "\$1" = remove ] || [ "\$1" = upgrade ] || [ "\$1" = deconfigure ]; then
	dkms remove -m xrdma -v $VER --all || true
fi
PRERM
chmod 0755 "$P/DEBIAN/postinst" "$P/DEBIAN/prerm"

# --- xrdma
P=$STAGE/xrdma
make -s -C "$ROOT/tools/lib/xverbs" >/dev/null
"$ROOT/scripts/install-user.sh" install "$P" /usr /lib/udev/rules.d >/dev/null
mv "$P/usr/share/doc/xrdma" "$STAGE/examples"
doc_files xrdma "$P"
mv "$STAGE/examples" "$P/usr/share/doc/xrdma/examples"
strip --strip-unneeded --remove-section=.comment --remove-section=.note \
	"$P/usr/lib/xrdma/libibverbs.so.1"
install -d "$P/DEBIAN"
cat >"$P/DEBIAN/control" <<CONTROL
Package: xrdma
Version: $DEBVER
Architecture: amd64
Maintainer: $MAINT
Depends: libc6 (>= 2.34)
Recommends: xrdma-dkms
Suggests: ibverbs-utils, perftest
Section: net
Priority: optional
Installed-Size: $(du -sk "$P/usr" "$P/lib" | awk '{s += $1} END {print s}')
Homepage: https://example.invalid/xrdma
Description: drop-in libibverbs for the xrdma RDMA verbs stack, and xrdma-run
 xrdma is an RDMA verbs stack with a device model of its RDMA NIC, xnic,
 for developing and testing RDMA applications and kernel ULPs without RDMA
 hardware.  This package holds its drop-in libibverbs.so.1 (the ABI of
 rdma-core 44) in a private directory, and xrdma-run, which runs an
 unmodified verbs program on it; the system's libibverbs is not changed.
 xrdma-fault injects faults (lost or delayed messages, NAKs, error
 completions, link down) in the xnic device model.
CONTROL

for p in xrdma-dkms xrdma; do
	(cd "$STAGE/$p" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' |
		xargs -0 md5sum >DEBIAN/md5sums)
	find "$STAGE/$p" -type d -exec chmod 0755 {} +
done
debs=("$OUT/xrdma-dkms_${DEBVER}_all.deb" "$OUT/xrdma_${DEBVER}_amd64.deb")
dpkg-deb --root-owner-group -Zxz --build "$STAGE/xrdma-dkms" "${debs[0]}" >/dev/null
dpkg-deb --root-owner-group -Zxz --build "$STAGE/xrdma" "${debs[1]}" >/dev/null
if [ "${XRDMA_LINTIAN:-1}" != 0 ] && command -v lintian >/dev/null; then
	lintian --suppress-tags-from-file "$ROOT/packaging/lintian-suppress" \
		"${debs[@]}" >"$OUT/lintian.txt" 2>&1 || true
fi
printf '%s\n' "${debs[@]}"
