#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# symcheck.sh: check that a built xverbs libibverbs.so.1 is a drop-in for
# Debian 12's rdma-core 44 libibverbs.so.1.
#
#   tools/lib/xverbs/symcheck.sh PATH/TO/libibverbs.so.1
#
# Checks, all with objdump:
#  - the SONAME is libibverbs.so.1;
#  - every default-versioned (@@, i.e. not hidden) IBVERBS_* symbol of the
#    reference library is exported with the same default version (the
#    hidden IBVERBS_1.0 compat aliases are not required);
#  - every IBVERBS_* symbol that libmlx5.so.1 and libefa.so.1 import (what
#    perftest loads with BIND_NOW) is defined with the version they ask for.
# Prints each problem; last line "symcheck: ok" (exit 0) or
# "symcheck: FAILED (N problems)" (exit 1).  Exit 2 on usage errors.
#
# Environment: SYMCHECK_REF (default /usr/lib/x86_64-linux-gnu/libibverbs.so.1)
#              SYMCHECK_IMPORTERS (default: libmlx5.so.1 and libefa.so.1 in
#              /usr/lib/x86_64-linux-gnu; missing ones are skipped)
set -uo pipefail

LIBDIR=/usr/lib/x86_64-linux-gnu
REF=${SYMCHECK_REF:-$LIBDIR/libibverbs.so.1}
IMPORTERS=${SYMCHECK_IMPORTERS:-$LIBDIR/libmlx5.so.1 $LIBDIR/libefa.so.1}

usage() {
	echo "usage: $0 PATH/TO/libibverbs.so.1" >&2
	exit 2
}

[ $# -eq 1 ] || usage
LIB=$1
[ -f "$LIB" ] || { echo "symcheck: no such file: $LIB" >&2; exit 2; }
[ -f "$REF" ] || { echo "symcheck: no reference library $REF" >&2; exit 2; }
command -v objdump >/dev/null || { echo "symcheck: objdump not found" >&2; exit 2; }

# defined_syms FILE: "VERSION NAME DEFAULT|HIDDEN" for each defined symbol
# with an IBVERBS_* version, without the version-definition symbols
# themselves.  objdump -T prints hidden versions in parentheses; the last
# two fields of a line are always the version and the name.
defined_syms() {
	objdump -T "$1" | awk '
		NF >= 6 && $0 !~ /\*UND\*/ {
			ver = $(NF - 1); name = $NF; kind = "DEFAULT"
			if (ver ~ /^\(.*\)$/) {
				ver = substr(ver, 2, length(ver) - 2)
				kind = "HIDDEN"
			}
			if (ver ~ /^IBVERBS_/ && ver != name)
				print ver, name, kind
		}' | LC_ALL=C sort -u
}

# imported_syms FILE: "VERSION NAME" for each undefined IBVERBS_* reference
imported_syms() {
	objdump -T "$1" | awk '
		NF >= 5 && $0 ~ /\*UND\*/ {
			ver = $(NF - 1); name = $NF
			gsub(/[()]/, "", ver)
			if (ver ~ /^IBVERBS_/)
				print ver, name
		}' | LC_ALL=C sort -u
}

problems=0
problem() {
	echo "$*"
	problems=$((problems + 1))
}

# SONAME
soname=$(objdump -p "$LIB" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = libibverbs.so.1 ] ||
	problem "SONAME is '${soname:-<none>}', expected libibverbs.so.1"

lib_syms=$(defined_syms "$LIB")
ref_syms=$(defined_syms "$REF")
[ -n "$ref_syms" ] || problem "no IBVERBS_* symbols in reference $REF"

# Default-versioned symbols of the reference library
nref=0
while read -r ver name kind; do
	[ "$kind" = DEFAULT ] || continue
	nref=$((nref + 1))
	if grep -qxF "$ver $name DEFAULT" <<<"$lib_syms"; then
		continue
	fi
	have=$(awk -v n="$name" '$2 == n {
			printf "%s%s", sep, ($3 == "HIDDEN" ? $1 : $1 "@@")
			sep = " " }' <<<"$lib_syms")
	if [ -n "$have" ]; then
		problem "wrong version: $name@@$ver expected, have $have"
	else
		problem "missing: $name@@$ver"
	fi
done <<<"$ref_syms"

# Symbols the directly linked providers import
nimp=0
for imp in $IMPORTERS; do
	if [ ! -f "$imp" ]; then
		echo "symcheck: note: $imp not found, skipped"
		continue
	fi
	while read -r ver name; do
		[ -n "$name" ] || continue
		nimp=$((nimp + 1))
		grep -qxF -e "$ver $name DEFAULT" -e "$ver $name HIDDEN" \
			<<<"$lib_syms" ||
			problem "missing for $(basename "$imp"): $name@$ver"
	done < <(imported_syms "$imp")
done

if [ $problems -gt 0 ]; then
	echo "symcheck: FAILED ($problems problems)"
	exit 1
fi
echo "symcheck: $nref default-versioned symbols, $nimp provider imports checked"
echo "symcheck: ok"
