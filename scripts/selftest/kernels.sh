#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check stage "kernels": with headers, images and sources of kernels
# the tree does not build for installed next to one it does (a fake
# /usr/src, /boot and /lib/modules under XRDMA_SYSROOT), the build, the
# guests, KUnit and DKMS pick a supported kernel, and every other one is
# skipped with a message naming the kernels the tree builds for; a KDIR
# of another kernel fails before Kbuild with that message.
# Prints "N passed, N failed".
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
pass=0 fail=0
ok()  { echo "ok   - $*"; pass=$((pass + 1)); }
nok() { echo "FAIL - $*"; fail=$((fail + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else nok "$what"; fi; }

T=$(mktemp -d /tmp/xrdma-kernels.XXXXXX)
trap 'rm -rf "$T"' EXIT
K=scripts/kernels.sh
SERIES=$($K series)
OLD=${SERIES%% *}
echo "the tree builds for: $SERIES"

# the newest series the tree builds for, plus one ("6.1" -> "6.2"): a
# kernel it does not
NEW=$(tr ' ' '\n' <<<"$SERIES" | sort -V | tail -n 1)
NEW="${NEW%.*}.$((${NEW#*.} + 1))"
while [[ " $SERIES " == *" $NEW "* ]]; do NEW="${NEW%.*}.$((${NEW#*.} + 1))"; done
GOOD_OLD=$OLD.0-9-amd64 GOOD=$OLD.0-57-amd64 BAD=$NEW.7+deb12-amd64

# fake_kernel RELEASE: headers, image and module tree
fake_kernel() {
	local h=$T/usr/src/linux-headers-$1
	mkdir -p "$h/include/generated" "$T/boot" "$T/lib/modules/$1"
	echo "# fake" >"$h/Makefile"
	echo "#define UTS_RELEASE \"$1\"" >"$h/include/generated/utsrelease.h"
	: >"$T/boot/vmlinuz-$1"
	ln -s "$h" "$T/lib/modules/$1/build"
}
for r in "$GOOD_OLD" "$GOOD" "$BAD"; do
	fake_kernel "$r"
done
: >"$T/usr/src/linux-source-$OLD.tar.xz"
: >"$T/usr/src/linux-source-$NEW.tar.xz"
export XRDMA_SYSROOT=$T

kdir=$($K kdir 2>"$T/kdir.err")
check "kdir: the newest supported headers ($GOOD), not $BAD" \
	test "$kdir" = "$T/usr/src/linux-headers-$GOOD"
check "kdir: $BAD named as skipped, with the series the tree builds for" \
	grep -q "skipped Linux $BAD .*builds for Linux $SERIES" "$T/kdir.err"
check "kdir: nothing else skipped" test "$(wc -l <"$T/kdir.err")" = 1

check "guest-kver: $GOOD" test "$($K guest-kver 2>"$T/g.err")" = "$GOOD"
check "guest-kver: $BAD named as skipped" grep -q "skipped Linux $BAD " "$T/g.err"
check "source-tar: linux-source-$OLD" \
	test "$($K source-tar 2>"$T/s.err")" = "$T/usr/src/linux-source-$OLD.tar.xz"
check "source-tar: linux-source-$NEW named as skipped" \
	grep -q "skipped .*linux-source-$NEW.tar.xz" "$T/s.err"

# the running kernel's build tree wins when the tree builds for it
mkdir -p "$T/lib/modules/$(uname -r)"
ln -sfn "$T/usr/src/linux-headers-$GOOD_OLD" "$T/lib/modules/$(uname -r)/build"
check "kdir: the running kernel's tree first ($GOOD_OLD)" \
	test "$($K kdir 2>/dev/null)" = "$T/usr/src/linux-headers-$GOOD_OLD"
ln -sfn "$T/usr/src/linux-headers-$BAD" "$T/lib/modules/$(uname -r)/build"
check "kdir: a running kernel the tree does not build for is skipped" \
	test "$($K kdir 2>/dev/null)" = "$T/usr/src/linux-headers-$GOOD"
rm -rf "$T/lib/modules/$(uname -r)"

# only kernels the tree does not build for: no pick, and a message
rm -rf "$T/usr/src/linux-headers-$GOOD" "$T/usr/src/linux-headers-$GOOD_OLD"
check "kdir: none when only $BAD is installed" \
	test -z "$($K kdir 2>"$T/none.err")"
check "kdir: ... and $BAD named as skipped" grep -q "skipped Linux $BAD " "$T/none.err"

# make: the default KDIR, and a KDIR of another kernel fails before Kbuild
make -s modules >"$T/make.out" 2>&1
check "make without supported headers fails" test $? -ne 0
check "... naming the kernels the tree builds for" \
	grep -q "builds for Linux $SERIES" "$T/make.out"
check "... before Kbuild ran" sh -c "! grep -q 'Entering directory' '$T/make.out'"
unset XRDMA_SYSROOT
make -s modules KDIR="$T/usr/src/linux-headers-$BAD" >"$T/make2.out" 2>&1
check "make KDIR=<$BAD> fails" test $? -ne 0
check "... naming $BAD and the kernels the tree builds for" \
	grep -q "is Linux $BAD: xrdma builds for Linux $SERIES" "$T/make2.out"

# DKMS skips the kernels the tree does not build for (and only those)
scripts/dkms-source.sh "$T/dk" >/dev/null
re=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$T/dk/dkms.conf")
check "dkms.conf: BUILD_EXCLUSIVE_KERNEL set" test -n "$re"
for s in $SERIES; do
	check "dkms.conf: builds for $s.0-57-amd64 and $s.12+deb12-amd64" \
		bash -c "[[ $s.0-57-amd64 =~ \$1 && $s.12+deb12-amd64 =~ \$1 ]]" - "$re"
done
check "dkms.conf: skips $BAD and ${OLD}0.1-amd64" \
	bash -c "! [[ $BAD =~ \$1 || ${OLD}0.1-amd64 =~ \$1 ]]" - "$re"

# make check builds and boots one kernel of each series: kdirs and
# guest-kvers give the newest of each, and fail naming a missing series
T2=$T/multi
for s in $SERIES; do
	for r in "$s.0-9-amd64" "$s.3+deb12-amd64" "$s.11+deb12-amd64"; do
		T=$T2 fake_kernel "$r"
	done
done
T=$T2 fake_kernel "$BAD"
want_k="" want_v=""
for s in $SERIES; do
	want_k="$want_k$T2/usr/src/linux-headers-$s.11+deb12-amd64 "
	want_v="$want_v$s.11+deb12-amd64 "
done
got_k=$(XRDMA_SYSROOT=$T2 $K kdirs 2>/dev/null | tr '\n' ' ')
got_v=$(XRDMA_SYSROOT=$T2 $K guest-kvers 2>/dev/null | tr '\n' ' ')
check "kdirs: the newest of each series ($want_k)" test "$got_k" = "$want_k"
check "guest-kvers: the newest of each series ($want_v)" test "$got_v" = "$want_v"
for s in $SERIES; do
	check "series-of: $s.11+deb12-amd64 and its build tree are $s" \
		test "$($K series-of "$s.11+deb12-amd64")/$(XRDMA_SYSROOT=$T2 $K series-of "$T2/usr/src/linux-headers-$s.11+deb12-amd64")" = "$s/$s"
done
last=$(tr ' ' '\n' <<<"$SERIES" | tail -n 1)
rm -rf "$T2"/usr/src/linux-headers-"$last".*
XRDMA_SYSROOT=$T2 $K kdirs >"$T/kd.out" 2>"$T/kd.err"
check "kdirs: fails without headers of $last" test $? -ne 0
check "... naming it" grep -q "no kernel headers of Linux $last installed" "$T/kd.err"
check "... and still lists the others" \
	test "$(wc -l <"$T/kd.out")" = "$(($(wc -w <<<"$SERIES") - 1))"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
