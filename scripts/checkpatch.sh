#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make checkpatch: checkpatch.pl --strict --no-tree -f over every *.c and *.h
# of the project (kernel code, KUnit tests, uapi headers and tools/ C alike;
# build output and generated *.mod.c excluded).  Any ERROR, WARNING or CHECK
# fails; the exemptions are BIT_MACRO in uapi/ and tools/ (userspace has
# no BIT()), and in tools/lib/xverbs (rdma-core's ABI) PREFER_KERNEL_TYPES
# and USE_NEGATIVE_ERRNO.  checkpatch.pl, spelling.txt and const_structs.checkpatch come from
# Debian's linux-source tarball: the tree scripts/kunit.sh extracted, or else
# just those three files extracted into $XRDMA_CACHE/checkpatch-<version>/.
#
#   scripts/checkpatch.sh [FILE...]      default: all C sources of the project
#
# Environment: XRDMA_CACHE (default /var/cache/xrdma),
#              XRDMA_CHECKPATCH_FLAGS (extra flags, e.g. "--ignore FOO").
# Last line: "checkpatch: OK (N files)" or
#            "checkpatch: FAILED (E errors, W warnings, C checks in N of M files)".
set -uo pipefail

PROJ=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${XRDMA_CACHE:-/var/cache/xrdma}

die() {
	echo "checkpatch: FAILED ($*)"
	exit 1
}

TAR=$("$PROJ/scripts/kernels.sh" source-tar)
[ -n "$TAR" ] || die "no /usr/src/linux-source-*.tar.xz; run: make deps"
PKG=$(basename "$TAR" .tar.xz)
KVER=$(dpkg-query -W -f='${Version}' "$PKG" 2>/dev/null) ||
	die "package $PKG not installed; run: make deps"

CP=$CACHE/linux-$KVER/scripts/checkpatch.pl
if [ ! -f "$CACHE/linux-$KVER/.xrdma-extracted" ]; then
	dir=$CACHE/checkpatch-$KVER
	CP=$dir/scripts/checkpatch.pl
	if [ ! -f "$dir/.xrdma-extracted" ]; then
		echo "checkpatch: extracting checkpatch.pl from $TAR (once)..."
		mkdir -p "$CACHE"
		rm -rf "$dir.tmp.$$"
		mkdir -p "$dir.tmp.$$"
		tar -xf "$TAR" -C "$dir.tmp.$$" --strip-components=1 \
			"$PKG/scripts/checkpatch.pl" "$PKG/scripts/spelling.txt" \
			"$PKG/scripts/const_structs.checkpatch" ||
			die "cannot extract checkpatch.pl from $TAR"
		touch "$dir.tmp.$$/.xrdma-extracted"
		rm -rf "$dir"
		mv "$dir.tmp.$$" "$dir" 2>/dev/null || rm -rf "$dir.tmp.$$"
	fi
fi
[ -f "$CP" ] || die "no $CP"
command -v perl >/dev/null || die "perl not installed"

if [ $# -gt 0 ]; then
	files=("$@")
else
	mapfile -t files < <(cd "$PROJ" && find . \
		\( -path ./build -o -path ./.git -o -name '.*' -a ! -name . \) -prune -o \
		-type f \( -name '*.c' -o -name '*.h' \) ! -name '*.mod.c' -print |
		sed 's|^\./||' | LC_ALL=C sort)
fi
[ ${#files[@]} -gt 0 ] || die "no C sources found"

read -r -a extra <<<"${XRDMA_CHECKPATCH_FLAGS:-}"
errs=0 warns=0 checks=0 badfiles=0
cd "$PROJ" || exit 1
for f in "${files[@]}"; do
	# Userspace-visible code (uapi/ headers, tools/) cannot use the kernel's
	# BIT(); checkpatch only knows that exemption for include/uapi/.
	ign=()
	case "$f" in
	uapi/* | */uapi/* | tools/*) ign=(--ignore BIT_MACRO) ;;
	esac
	# The drop-in libibverbs implements rdma-core's ABI: its prototypes
	# use <stdint.h> types and its calls return positive errno values.
	case "$f" in
	tools/lib/xverbs/*)
		ign=(--ignore BIT_MACRO,PREFER_KERNEL_TYPES,USE_NEGATIVE_ERRNO) ;;
	esac
	# Tracepoint headers are laid out as TRACE_EVENT() wants (and as every
	# upstream trace header is): macro arguments on lines of their own.
	case "$f" in
	*/trace.h | *_trace.h)
		ign=(--ignore OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT) ;;
	esac
	out=$(perl "$CP" --strict --no-tree --quiet --show-types --color=never \
		"${ign[@]}" "${extra[@]}" -f "$f" 2>&1)
	rc=$?
	e=$(grep -c '^ERROR:' <<<"$out")
	w=$(grep -c '^WARNING:' <<<"$out")
	c=$(grep -c '^CHECK:' <<<"$out")
	if [ $rc -ne 0 ] || [ $((e + w + c)) -gt 0 ]; then
		badfiles=$((badfiles + 1))
		echo "$out"
		echo "$f: $e errors, $w warnings, $c checks"
		echo
		# checkpatch failing without a report (e.g. perl error) still counts.
		[ $((e + w + c)) -gt 0 ] || e=1
	fi
	errs=$((errs + e)) warns=$((warns + w)) checks=$((checks + c))
done

if [ $badfiles -gt 0 ]; then
	echo "checkpatch: FAILED ($errs errors, $warns warnings, $checks checks in $badfiles of ${#files[@]} files)"
	exit 1
fi
echo "checkpatch: OK (${#files[@]} files, --strict, $(basename "$PKG") $KVER)"
