#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side test of the user ABI headers (uapi/xrdma/*.h), as promised by
# Documentation/uverbs.rst: each header
#   - includes nothing but <linux/types.h> and <linux/ioctl.h>;
#   - compiles on its own and after <linux/types.h> as C99 -pedantic, C89
#     with GNU extensions, C++98 and C++17 -pedantic (gcc/g++, and clang);
#   - has no implicit padding (-Wpadded), on x86_64 and i386;
#   - lays out every struct member at the same offset, and every struct
#     with the same size, on i386 as on x86_64 (from the DWARF of both
#     builds), so a 32-bit process can talk to the 64-bit kernel.
# Also: the XRDMA_IOC_* numbers are distinct and each encodes its struct;
# every command struct has its XRDMA_CMD_<NAME>_SIZE_VER0, not larger than
# the struct; and the layout is pinned (io_uring's BUILD_BUG_SQE_ELEM idea):
# the offset of every member, the size of every struct and every
# _SIZE_VER0 (x86_64, from the DWARF) must be exactly as listed in
# abi-layout.txt here.  A moved, resized or removed field fails; so does a
# new one until it is added to the list with
#   header-test.sh --update      (rewrites abi-layout.txt; review the diff:
#                                 an ABI change shows as a changed line)
#
# Output: one "ok - ..." / "not ok - ..." line per check, then
#   N passed, N failed[, N skipped]
# Exit status 0 only if nothing failed.
set -u

ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
UAPI=$ROOT/uapi
PINNED=$ROOT/tools/testing/uverbs/abi-layout.txt
update=0
[ "${1:-}" = --update ] && update=1
TMP=$(mktemp -d /tmp/xrdma-hdr.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

pass=0 fail=0 skip=0
ok() {
	echo "ok - $*"
	pass=$((pass + 1))
}
nok() {
	echo "not ok - $*"
	fail=$((fail + 1))
}
skp() {
	echo "skip - $*"
	skip=$((skip + 1))
}
# t NAME CMD...: a check that passes when CMD succeeds
t() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$name"
	else
		nok "$name"
		echo "$out" | head -n 20 | sed 's/^/    /'
	fi
}

# i386 has no asm/ headers of its own on a plain amd64 host; the x86_64
# ones are generic (int-ll64) and identical for i386
M32_INC=(-idirafter /usr/include/x86_64-linux-gnu)
have_m32=0
echo 'int x;' >"$TMP/m32.c"
gcc -m32 "${M32_INC[@]}" -c "$TMP/m32.c" -o "$TMP/m32.o" 2>/dev/null && have_m32=1
have_clang=0
command -v clang >/dev/null && have_clang=1

CW=(-Wall -Wextra -Werror -I"$UAPI" -fsyntax-only)

# readelf --debug-dump=info -> "sizeof STRUCT SIZE" and
# "offsetof STRUCT.MEMBER OFFSET" lines (nested members get a dotted path)
# shellcheck disable=SC2016 # awk program, not shell
LAYOUT_AWK='
function flush() {
	if (tag == "DW_TAG_structure_type" || tag == "DW_TAG_union_type") {
		nm[depth] = (name == "" ? "<anon>" : name)
		if (depth == 1 && name != "")
			print "sizeof " name " " size
		instr[depth] = 1
	} else {
		instr[depth] = 0
		if (tag == "DW_TAG_member" && instr[depth - 1]) {
			p = ""
			for (i = 1; i < depth; i++)
				p = p nm[i] "."
			print "offsetof " p name " " off
		}
	}
	tag = ""
}
/^ *<[0-9]+><[0-9a-f]+>:/ {
	flush()
	match($0, /<[0-9]+>/)
	depth = substr($0, RSTART + 1, RLENGTH - 2) + 0
	if (match($0, /\(DW_TAG_[a-z_]+\)/))
		tag = substr($0, RSTART + 1, RLENGTH - 2)
	name = ""
	size = ""
	off = ""
	next
}
/DW_AT_name/ { n = split($0, a, ": "); name = a[n]; sub(/[ \t]+$/, "", name) }
/DW_AT_byte_size/ { size = $NF }
/DW_AT_data_member_location/ { off = $NF }
END { flush() }
'

headers=("$UAPI"/xrdma/*.h)
[ -e "${headers[0]}" ] || {
	nok "no headers in $UAPI/xrdma"
	echo "$pass passed, $fail failed, $skip skipped"
	exit 1
}

for h in "${headers[@]}"; do
	rel=xrdma/$(basename "$h")

	bad=$(grep -E '^[[:space:]]*#[[:space:]]*include' "$h" |
		grep -vE '<linux/types\.h>|<linux/ioctl\.h>')
	if [ -z "$bad" ]; then
		ok "$rel: includes only <linux/types.h> and <linux/ioctl.h>"
	else
		nok "$rel: includes only <linux/types.h> and <linux/ioctl.h>"
		echo "    $bad"
	fi

	printf '#include <linux/types.h>\n#include <%s>\n#include <%s>\n' \
		"$rel" "$rel" >"$TMP/with.c"
	printf '#include <%s>\n' "$rel" >"$TMP/alone.c"
	cp "$TMP/with.c" "$TMP/with.cc"
	cp "$TMP/alone.c" "$TMP/alone.cc"

	t "$rel: gcc -std=c99 -pedantic (twice, guard)" \
		gcc -std=c99 -pedantic "${CW[@]}" "$TMP/with.c"
	t "$rel: gcc -std=c99 -pedantic, self-contained" \
		gcc -std=c99 -pedantic "${CW[@]}" "$TMP/alone.c"
	t "$rel: gcc -std=gnu89" gcc -std=gnu89 "${CW[@]}" "$TMP/with.c"
	t "$rel: g++ -std=c++98 -pedantic" \
		g++ -std=c++98 -pedantic "${CW[@]}" "$TMP/with.cc"
	t "$rel: g++ -std=c++17 -pedantic, self-contained" \
		g++ -std=c++17 -pedantic "${CW[@]}" "$TMP/alone.cc"
	if [ $have_clang = 1 ]; then
		t "$rel: clang -std=c99 -pedantic" \
			clang -std=c99 -pedantic "${CW[@]}" "$TMP/with.c"
		t "$rel: clang++ -std=c++11 -pedantic" \
			clang++ -std=c++11 -pedantic "${CW[@]}" "$TMP/with.cc"
	else
		skp "$rel: clang (not installed)"
	fi
	t "$rel: no implicit padding (-Wpadded, x86_64)" \
		gcc -std=c99 -Wpadded "${CW[@]}" "$TMP/with.c"

	structs=$(sed -n 's/^struct \([A-Za-z0-9_]*\) {.*/\1/p' "$h")
	if [ $have_m32 = 0 ]; then
		skp "$rel: i386 checks (gcc -m32 unusable)"
		continue
	fi
	t "$rel: no implicit padding (-Wpadded, i386)" \
		gcc -m32 "${M32_INC[@]}" -std=c99 -Wpadded "${CW[@]}" "$TMP/with.c"
	[ -n "$structs" ] || continue
	# member offsets and struct sizes from the DWARF of both builds
	{
		printf '#include <linux/types.h>\n#include <%s>\n' "$rel"
		for s in $structs; do
			printf 'struct %s v_%s;\n' "$s" "$s"
		done
	} >"$TMP/layout.c"
	if gcc -g -c -I"$UAPI" "$TMP/layout.c" -o "$TMP/l64.o" 2>"$TMP/err" &&
		gcc -m32 "${M32_INC[@]}" -g -c -I"$UAPI" "$TMP/layout.c" \
			-o "$TMP/l32.o" 2>>"$TMP/err"; then
		readelf --debug-dump=info "$TMP/l64.o" | awk "$LAYOUT_AWK" >"$TMP/l64"
		readelf --debug-dump=info "$TMP/l32.o" | awk "$LAYOUT_AWK" >"$TMP/l32"
		nm=$(grep -c '^sizeof ' "$TMP/l64")
		nf=$(grep -c '^offsetof ' "$TMP/l64")
		if [ "$nm" -gt 0 ] && diff "$TMP/l64" "$TMP/l32" >"$TMP/diff"; then
			ok "$rel: $nm structs, $nf members: same layout on i386 and x86_64"
		else
			nok "$rel: $nm structs, $nf members: same layout on i386 and x86_64"
			sed 's/^/    /' "$TMP/diff" | head -n 20
		fi
	else
		nok "$rel: build for the layout comparison"
		sed 's/^/    /' "$TMP/err" | head -n 20
	fi
done

# ioctl numbers: distinct (duplicate case labels fail to compile), magic
# XRDMA_IOC_MAGIC, read/write, size of the struct named in the header
abi=$UAPI/xrdma/xrdma-abi.h
if [ -f "$abi" ]; then
	mapfile -t ioc < <(sed -n 's/^#define \(XRDMA_IOC_[A-Z_]*\)[[:space:]]*_IOWR(XRDMA_IOC_MAGIC, *\(0x[0-9a-f]*\), *struct \([a-z_0-9]*\)).*/\1 \2 \3/p' "$abi")
	{
		printf '#include <linux/types.h>\n#include <xrdma/xrdma-abi.h>\n'
		printf 'int f(unsigned long c);\nint f(unsigned long c)\n{\n\tswitch (c) {\n'
		for l in "${ioc[@]}"; do
			read -r name _ <<<"$l"
			printf '\tcase %s: return 1;\n' "$name"
		done
		printf '\tdefault: return 0;\n\t}\n}\n'
		for l in "${ioc[@]}"; do
			read -r name nr st <<<"$l"
			printf '_Static_assert(_IOC_TYPE(%s) == XRDMA_IOC_MAGIC && _IOC_NR(%s) == %s && _IOC_SIZE(%s) == sizeof(struct %s) && _IOC_DIR(%s) == (_IOC_READ | _IOC_WRITE), "%s");\n' \
				"$name" "$name" "$nr" "$name" "$st" "$name" "$name"
		done
	} >"$TMP/ioc.c"
	n=$(grep -c '^#define XRDMA_IOC_[A-Z_]*[[:space:]]*_IO' "$abi")
	if [ "${#ioc[@]}" -gt 0 ] && [ "${#ioc[@]}" = "$n" ]; then
		t "xrdma-abi.h: ${#ioc[@]} ioctl numbers distinct, _IOWR, sizes match" \
			gcc -std=c11 "${CW[@]}" "$TMP/ioc.c"
	else
		nok "xrdma-abi.h: every XRDMA_IOC_* is _IOWR(XRDMA_IOC_MAGIC, nr, struct ...) (parsed ${#ioc[@]} of $n)"
	fi
fi

# _SIZE_VER0 of every command struct, then the pinned layout of all headers
if [ -f "$abi" ]; then
	{
		printf '#include <stdio.h>\n#include <linux/types.h>\n'
		for h in "${headers[@]}"; do
			printf '#include <xrdma/%s>\n' "$(basename "$h")"
		done
		printf 'int main(void)\n{\n'
		for l in "${ioc[@]}"; do
			read -r _ _ st <<<"$l"
			v=$(echo "$st" | tr '[:lower:]' '[:upper:]')_SIZE_VER0
			printf '\t_Static_assert(%s <= sizeof(struct %s), "%s");\n' \
				"$v" "$st" "$v"
			printf '\tprintf("ver0 %s %%d\\n", (int)%s);\n' "$v" "$v"
		done
		printf '\treturn 0;\n}\n'
	} >"$TMP/ver0.c"
	if gcc -std=c11 -Wall -Werror -I"$UAPI" "$TMP/ver0.c" \
		-o "$TMP/ver0" 2>"$TMP/err"; then
		ok "xrdma-abi.h: every command struct has XRDMA_CMD_<NAME>_SIZE_VER0 <= its size"
	else
		nok "xrdma-abi.h: every command struct has XRDMA_CMD_<NAME>_SIZE_VER0 <= its size"
		sed 's/^/    /' "$TMP/err" | head -n 20
	fi
fi
{
	printf '#include <linux/types.h>\n'
	for h in "${headers[@]}"; do
		printf '#include <xrdma/%s>\n' "$(basename "$h")"
		structs=$(sed -n 's/^struct \([A-Za-z0-9_]*\) {.*/\1/p' "$h")
		for s in $structs; do
			printf 'struct %s v_%s;\n' "$s" "$s"
		done
	done
} >"$TMP/all.c"
if gcc -g -c -I"$UAPI" "$TMP/all.c" -o "$TMP/all.o" 2>"$TMP/err" &&
	[ -x "$TMP/ver0" ]; then
	{
		readelf --debug-dump=info "$TMP/all.o" | awk "$LAYOUT_AWK"
		"$TMP/ver0"
	} >"$TMP/layout"
	if [ $update = 1 ]; then
		{
			echo "# Pinned uapi layout (x86_64): generated by header-test.sh --update."
			echo "# A changed line is an ABI break; only additions are compatible."
			cat "$TMP/layout"
		} >"$PINNED"
		echo "# wrote $PINNED"
	fi
	grep -v "^#" "$PINNED" 2>/dev/null | sort -u >"$TMP/pinned"
	sort -u "$TMP/layout" >"$TMP/now"
	n=$(wc -l <"$TMP/pinned")
	gone=$(comm -23 "$TMP/pinned" "$TMP/now")
	# new: a member, struct or _SIZE_VER0 the list does not name at all
	new=$(awk 'NR == FNR { k[$1 " " $2] = 1; next } !(($1 " " $2) in k)' \
		"$TMP/pinned" "$TMP/now")
	if [ "$n" -gt 0 ] && [ -z "$gone" ]; then
		ok "abi-layout.txt: all $n pinned offsets, sizes and _SIZE_VER0 unchanged"
	else
		nok "abi-layout.txt: all $n pinned offsets, sizes and _SIZE_VER0 unchanged"
		echo "$gone" | head -n 20 | sed 's/^/    pinned: /'
		comm -13 "$TMP/pinned" "$TMP/now" | head -n 20 |
			sed 's/^/    now:    /'
	fi
	if [ -z "$new" ]; then
		ok "abi-layout.txt: every member, struct and _SIZE_VER0 is pinned"
	else
		nok "abi-layout.txt: every member, struct and _SIZE_VER0 is pinned (new ones: review, then header-test.sh --update)"
		echo "$new" | head -n 20 | sed 's/^/    /'
	fi
else
	nok "build for the pinned layout"
	sed 's/^/    /' "$TMP/err" | head -n 20
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
