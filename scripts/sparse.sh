#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make sparse: build the out-of-tree modules with sparse on every source file
#   make -C $KDIR M=<project> $XRDMA_CONFIG C=2 CF="-Wsparse-error" modules
# ($XRDMA_CONFIG as in the top-level Makefile, at least CONFIG_XRDMA_CORE=m)
# and fail if make fails, if sparse did not check any of our files, or if
# anything at all is printed about a file of our tree (sparse or gcc).
#
# Environment:
#   KDIR                 default: scripts/kernels.sh's pick (the running
#                        kernel's build tree, else the newest installed
#                        headers of a kernel the tree builds for)
#   XRDMA_SPARSE_CONFIG  CONFIG_XRDMA_*=m list (default: the Makefile's
#                        XRDMA_CONFIG, else CONFIG_XRDMA_CORE=m)
#   XRDMA_SPARSE_M       module dir (default: this project; the self-test
#                        scripts/selftest/sparse-catches.sh points it elsewhere)
#   JOBS                 default nproc
# Full log: build/sparse.log.  Last line: "sparse: OK (N files checked, ...)"
# or "sparse: FAILED (...)".
set -uo pipefail

PROJ=$(cd "${XRDMA_SPARSE_M:-$(dirname "$0")/..}" && pwd)
JOBS=${JOBS:-$(nproc)}
# The module set the top-level Makefile builds (its XRDMA_CONFIG), so sparse
# covers whatever "make" covers; CONFIG_XRDMA_CORE=m if that cannot be read.
makefile_config() {
	[ -f "$PROJ/Makefile" ] || return 0
	printf 'xrdma-print-config:\n\t@echo $(XRDMA_CONFIG)\n' |
		make -s --no-print-directory -C "$PROJ" -f Makefile -f - \
			xrdma-print-config 2>/dev/null | tail -n 1
}
if [ -n "${XRDMA_SPARSE_CONFIG+set}" ]; then
	cfg=$XRDMA_SPARSE_CONFIG
else
	cfg=$(makefile_config)
	cfg=${cfg:-CONFIG_XRDMA_CORE=m}
fi
read -r -a XCONFIG <<<"$cfg"

KDIR=${KDIR:-$("$(dirname "$0")/kernels.sh" kdir)}
if ! "$(dirname "$0")/kernels.sh" check "$KDIR"; then
	echo "sparse: FAILED (no kernel headers; set KDIR or run: make deps)"
	exit 1
fi
if ! command -v sparse >/dev/null; then
	echo "sparse: FAILED (sparse not installed; run: make deps)"
	exit 1
fi

LOG=$PROJ/build/sparse.log
mkdir -p "$PROJ/build"
echo "sparse: $(sparse --version 2>&1 | head -n 1), KDIR=$KDIR, ${XCONFIG[*]}"
make -C "$KDIR" M="$PROJ" "${XCONFIG[@]}" C=2 CF="-Wsparse-error" \
	-k -j"$JOBS" modules >"$LOG" 2>&1
mrc=$?

fail=""
checked=$(grep -cE "^ +CHECK +$PROJ/" "$LOG")
# Everything mentioning our tree is a diagnostic, except kbuild's progress
# lines ("  CC [M]  /x"), make's own lines (its exit status counts instead)
# and the BTF note Debian's headers print for every module.
ours=$(grep -F "$PROJ/" "$LOG" |
	grep -vE '^  [A-Z][A-Z0-9_]*( \[M\])? +/' |
	grep -vE '^make(\[[0-9]+\])?: ' |
	grep -vE '^Skipping BTF generation for .* due to unavailability of vmlinux$')
if [ -n "$ours" ]; then
	echo "sparse: diagnostics about our files:"
	echo "$ours" | sed 's/^/    /'
	fail="$fail, $(echo "$ours" | wc -l) diagnostic line(s) about our files"
fi
if [ $mrc -ne 0 ]; then
	if [ -z "$ours" ]; then
		echo "sparse: make failed (exit $mrc); last lines of $LOG:"
		tail -n 30 "$LOG" | sed 's/^/    /'
	fi
	fail="$fail, make exit $mrc"
fi
if [ "$checked" -eq 0 ]; then
	fail="$fail, sparse checked none of our files"
fi

if [ -n "$fail" ]; then
	echo "sparse: FAILED (${fail#, }; log: $LOG)"
	exit 1
fi
echo "sparse: OK ($checked files checked, log: $LOG)"
