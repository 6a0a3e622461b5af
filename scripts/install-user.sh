#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The user part of "make install" / "make uninstall" (see the Makefile):
#   install-user.sh install|uninstall DESTDIR PREFIX UDEVRULESDIR
#   install-user.sh uninstall-modules INSTALL_MOD_PATH KVER INSTALL_MOD_DIR
#   install-user.sh depmod INSTALL_MOD_PATH KVER
# Installs the library into PREFIX/lib/xrdma (a private directory: the
# system's libibverbs is never replaced), xrdma-run into PREFIX/bin with
# that directory written into it, xrdma-fault into PREFIX/sbin, their man
# pages, the udev rule, and the modules-load.d/modprobe.d examples into
# PREFIX/share/doc/xrdma.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
op=$1

# depmod INSTALL_MOD_PATH KVER (kbuild skips it without a System.map)
run_depmod() {
	if [ -z "$1" ]; then depmod "$2"; else depmod -b "$1" "$2"; fi
}
case $op in
depmod)
	run_depmod "$2" "$3"
	exit 0
	;;
uninstall-modules)
	dir="$2/lib/modules/$3/$4"
	echo "rm -rf $dir"
	rm -rf "$dir"
	run_depmod "$2" "$3"
	exit 0
	;;
esac

D=$2 PREFIX=$3 UDEV=$4
LIBDIR=$PREFIX/lib/xrdma
BIN=$PREFIX/bin/xrdma-run
MAN=$PREFIX/share/man/man1/xrdma-run.1.gz
FAULT=$PREFIX/sbin/xrdma-fault
FAULTMAN=$PREFIX/share/man/man8/xrdma-fault.8.gz
DOC=$PREFIX/share/doc/xrdma
RULE=$UDEV/60-xrdma.rules

case $op in
install)
	install -d "$D$LIBDIR" "$D$PREFIX/bin" "$D$PREFIX/share/man/man1" \
		"$D$PREFIX/sbin" "$D$PREFIX/share/man/man8" "$D$DOC" "$D$UDEV"
	install -m 0644 "$ROOT/tools/lib/xverbs/libibverbs.so.1" "$D$LIBDIR/"
	sed "s|^XRDMA_LIBDIR=.*|XRDMA_LIBDIR=$LIBDIR|;s|^XRDMA_VERSION=.*|XRDMA_VERSION=$(cat "$ROOT/VERSION")|" \
		"$ROOT/scripts/xrdma-run" >"$D$BIN.tmp"
	chmod 0755 "$D$BIN.tmp"
	mv "$D$BIN.tmp" "$D$BIN"
	gzip -9n <"$ROOT/Documentation/xrdma-run.1" >"$D$MAN"
	install -m 0755 "$ROOT/scripts/xrdma-fault" "$D$FAULT"
	gzip -9n <"$ROOT/Documentation/xrdma-fault.8" >"$D$FAULTMAN"
	install -m 0644 "$ROOT/packaging/60-xrdma.rules" "$D$RULE"
	install -m 0644 "$ROOT/packaging/modules-load.conf" "$D$DOC/modules-load.d-xrdma.conf"
	install -m 0644 "$ROOT/packaging/modprobe.conf" "$D$DOC/modprobe.d-xrdma.conf"
	echo "installed: $D$LIBDIR/libibverbs.so.1 $D$BIN $D$MAN $D$FAULT" \
		"$D$FAULTMAN $D$RULE $D$DOC/"
	;;
uninstall)
	rm -f "$D$LIBDIR/libibverbs.so.1" "$D$BIN" "$D$MAN" "$D$FAULT" \
		"$D$FAULTMAN" "$D$RULE" \
		"$D$DOC/modules-load.d-xrdma.conf" "$D$DOC/modprobe.d-xrdma.conf"
	rmdir "$D$LIBDIR" "$D$DOC" 2>/dev/null || true
	echo "removed: $D$LIBDIR $D$BIN $D$MAN $D$FAULT $D$FAULTMAN $D$RULE $D$DOC"
	;;
*)
	echo "usage: install-user.sh install|uninstall|uninstall-modules ..." >&2
	exit 2
	;;
esac
