#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernels xrdma builds for, and which of the installed ones to use.
#
# The tree follows kernel APIs with feature tests (XRDMA_HAVE_* in Kbuild),
# never with version comparisons in C; this list only says which kernel
# series the tree is built and tested on, so that the scripts pick one of
# those among whatever headers a machine has, and skip the others with a
# message instead of failing deep in Kbuild.  DKMS reads the same list
# (BUILD_EXCLUSIVE_KERNEL, written by scripts/dkms-source.sh).
#
# Sourced (bash) or run:
#   kernels.sh series            the supported series, e.g. "6.1"
#   kernels.sh regex             the same as an ERE on a kernel release
#   kernels.sh series-of R|KDIR  the series of a release or build tree
#   kernels.sh kdir              the build tree to use (stdout), the
#                                skipped ones on stderr
#   kernels.sh check KDIR        fail with a message if KDIR is not one
#   kernels.sh source-tar [S]    the linux-source-X.Y.tar.xz of series S
#                                (default $XRDMA_SOURCE_KERNEL)
#   kernels.sh guest-kver        the Debian kernel to boot in guests
#   kernels.sh kdirs             one build tree per supported series (the
#                                newest of each), a line each; exit 1 and a
#                                message for a series without headers
#   kernels.sh guest-kvers       the same for the Debian kernels to boot
# $XRDMA_SYSROOT prefixes /usr/src, /boot and /lib/modules (tests).

XRDMA_KERNELS="6.1 6.12"

# the series whose Debian linux-source KUnit (kunit.py's tree), the debug
# guest kernel and checkpatch.pl come from: one kernel, built once and
# cached; Debian 12's own
XRDMA_SOURCE_KERNEL="6.1"

xrdma_kernels_root=${XRDMA_SYSROOT:-}

# xrdma_kernel_series RELEASE -> X.Y ("6.1.0-57-amd64" -> "6.1")
xrdma_kernel_series() {
	sed -nE 's/^([0-9]+)\.([0-9]+)([^0-9].*)?$/\1.\2/p' <<<"$1"
}

xrdma_kernel_supported() {
	local s
	s=$(xrdma_kernel_series "$1")
	[ -n "$s" ] && [[ " $XRDMA_KERNELS " == *" $s "* ]]
}

xrdma_kernels_regex() {
	local s re=""
	for s in $XRDMA_KERNELS; do
		re="$re${re:+|}${s//./\\.}"
	done
	echo "^($re)[^0-9]"
}

# xrdma_kdir_release KDIR -> the release its modules are built for
xrdma_kdir_release() {
	sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' \
		"$1/include/generated/utsrelease.h" 2>/dev/null
}

xrdma_kernels_want() {
	echo "xrdma builds for Linux $XRDMA_KERNELS (scripts/kernels.sh);" \
		"Debian 12's 6.1 and bookworm-backports' 6.12 are (make deps)"
}

# the build tree: the running kernel's if supported, else the newest
# supported /usr/src/linux-headers-*-amd64; every unsupported one on the
# way is named on stderr
xrdma_pick_kdir() {
	local d r run seen=" " best="" bestr=""
	run=$(realpath -q "$xrdma_kernels_root/lib/modules/$(uname -r)/build")
	for d in $run "$xrdma_kernels_root"/usr/src/linux-headers-*-amd64; do
		[ -f "$d/Makefile" ] || continue
		d=$(realpath "$d")
		[[ $seen == *" $d "* ]] && continue
		seen="$seen$d "
		r=$(xrdma_kdir_release "$d")
		if ! xrdma_kernel_supported "$r"; then
			echo "xrdma: skipped Linux ${r:-?} ($d): $(xrdma_kernels_want)" >&2
			continue
		fi
		# the running kernel's tree first, else the newest
		[ -n "$best" ] && [ "$best" = "$run" ] && continue
		if [ -z "$best" ] ||
		   [ "$(printf '%s\n%s\n' "$bestr" "$r" | sort -V | tail -n 1)" = "$r" ]; then
			best=$d bestr=$r
		fi
	done
	[ -n "$best" ] && echo "$best"
}

# xrdma_check_kdir KDIR: 0 if it is a build tree of a supported kernel
xrdma_check_kdir() {
	local r
	if [ ! -f "$1/Makefile" ]; then
		echo "xrdma: no kernel build tree at KDIR='$1': $(xrdma_kernels_want)" >&2
		return 1
	fi
	r=$(xrdma_kdir_release "$1")
	if ! xrdma_kernel_supported "$r"; then
		echo "xrdma: KDIR='$1' is Linux ${r:-of unknown release}: $(xrdma_kernels_want)" >&2
		return 1
	fi
}

# Debian's linux-source-X.Y.tar.xz of series $1 (a supported one)
xrdma_pick_source_tar() {
	local t s best="" want=${1:-$XRDMA_SOURCE_KERNEL}
	for t in "$xrdma_kernels_root"/usr/src/linux-source-*.tar.xz; do
		[ -f "$t" ] || continue
		s=${t##*/linux-source-}
		s=${s%.tar.xz}
		if ! xrdma_kernel_supported "$s.0"; then
			echo "xrdma: skipped $t: $(xrdma_kernels_want)" >&2
			continue
		fi
		[ "$s" = "$want" ] || continue
		best=$(printf '%s\n%s\n' "$best" "$t" | sed '/^$/d' | sort -V | tail -n 1)
	done
	[ -n "$best" ] && echo "$best"
}

# the Debian kernel to boot: the newest supported /boot/vmlinuz-*-amd64
# whose headers are installed too
xrdma_pick_guest_kver() {
	local v best=""
	for v in "$xrdma_kernels_root"/boot/vmlinuz-*-amd64; do
		[ -e "$v" ] || continue
		v=${v##*/vmlinuz-}
		[ -d "$xrdma_kernels_root/usr/src/linux-headers-$v" ] || continue
		if ! xrdma_kernel_supported "$v"; then
			echo "xrdma: skipped Linux $v (/boot/vmlinuz-$v): $(xrdma_kernels_want)" >&2
			continue
		fi
		best=$(printf '%s\n%s\n' "$best" "$v" | sed '/^$/d' | sort -V | tail -n 1)
	done
	[ -n "$best" ] && echo "$best"
}

# xrdma_each_series CMD: CMD's pick with XRDMA_KERNELS set to one series
# at a time, a line each; 1 (and a message) if a series has none
xrdma_each_series() {
	local s all=$XRDMA_KERNELS got rc=0
	for s in $all; do
		got=$(XRDMA_KERNELS=$s "$1" 2>/dev/null)
		if [ -n "$got" ]; then
			echo "$got"
		else
			echo "xrdma: no $2 of Linux $s installed (make deps)" >&2
			rc=1
		fi
	done
	return $rc
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -u
	case ${1:-} in
	series) echo "$XRDMA_KERNELS" ;;
	regex) xrdma_kernels_regex ;;
	series-of)
		# a release or a build tree -> its series
		r=${2:?usage: kernels.sh series-of RELEASE|KDIR}
		[ -d "$r" ] && r=$(xrdma_kdir_release "$r")
		xrdma_kernel_series "$r"
		;;
	kdir) xrdma_pick_kdir ;;
	check) xrdma_check_kdir "${2:?usage: kernels.sh check KDIR}" ;;
	source-tar) xrdma_pick_source_tar "${2:-}" ;;
	guest-kver) xrdma_pick_guest_kver ;;
	kdirs) xrdma_each_series xrdma_pick_kdir "kernel headers" ;;
	guest-kvers) xrdma_each_series xrdma_pick_guest_kver "kernel image and headers" ;;
	*)
		echo "usage: kernels.sh series|regex|series-of R|kdir|kdirs|check KDIR|source-tar [S]|guest-kver|guest-kvers" >&2
		exit 2
		;;
	esac
fi
