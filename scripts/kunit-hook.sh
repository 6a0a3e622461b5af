#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Hook the xrdma tree into a Linux source tree as drivers/xrdma, or unhook it.
#
#   scripts/kunit-hook.sh add    KSRC PROJECT_ROOT
#   scripts/kunit-hook.sh remove KSRC
#
# "add" creates the symlink KSRC/drivers/xrdma -> PROJECT_ROOT and adds
#   source "drivers/xrdma/Kconfig"   before the final endmenu of drivers/Kconfig
#   obj-y += xrdma/                  at the end of drivers/Makefile
# "remove" puts drivers/Kconfig and drivers/Makefile back byte for byte (and
# with their original mtimes) from copies saved on the first "add", and
# removes the symlink.  Both are idempotent.  The caller serialises access to
# KSRC (scripts/kunit.sh holds a flock).
set -eu

usage() {
	echo "usage: $0 add KSRC PROJECT_ROOT | remove KSRC" >&2
	exit 2
}

[ $# -ge 2 ] || usage
act=$1
KSRC=$2
KCONFIG=$KSRC/drivers/Kconfig
KMAKE=$KSRC/drivers/Makefile
LINK=$KSRC/drivers/xrdma

if [ ! -f "$KCONFIG" ] || [ ! -f "$KMAKE" ]; then
	echo "kunit-hook: $KSRC does not look like a kernel source tree" >&2
	exit 1
fi

restore() {
	for f in "$KCONFIG" "$KMAKE"; do
		if [ -f "$f.xrdma-orig" ]; then
			cp -p "$f.xrdma-orig" "$f"
		fi
	done
	if [ -L "$LINK" ]; then
		rm -f "$LINK"
	elif [ -e "$LINK" ]; then
		echo "kunit-hook: $LINK exists and is not our symlink" >&2
		exit 1
	fi
}

case "$act" in
add)
	[ $# -eq 3 ] || usage
	PROJ=$(readlink -f "$3")
	if [ ! -f "$PROJ/Kconfig" ] || [ ! -f "$PROJ/Kbuild" ]; then
		echo "kunit-hook: $PROJ has no Kconfig/Kbuild" >&2
		exit 1
	fi
	restore
	for f in "$KCONFIG" "$KMAKE"; do
		[ -f "$f.xrdma-orig" ] || cp -p "$f" "$f.xrdma-orig"
	done
	ln -s "$PROJ" "$LINK"
	# Insert before the last "endmenu" (the end of the "Device Drivers" menu).
	last=$(grep -n '^endmenu' "$KCONFIG" | tail -n 1 | cut -d: -f1)
	[ -n "$last" ] || { echo "kunit-hook: no endmenu in $KCONFIG" >&2; exit 1; }
	sed -i "${last}i source \"drivers/xrdma/Kconfig\"" "$KCONFIG"
	echo 'obj-y += xrdma/' >>"$KMAKE"
	;;
remove)
	restore
	;;
*)
	usage
	;;
esac
