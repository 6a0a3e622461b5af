#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prove that scripts/sparse.sh really runs sparse: build two tiny external
# modules in a temp dir through scripts/sparse.sh, one with deliberate
# __user pointer misuse (must FAIL, with sparse's address-space diagnostics
# in the output) and the same module without it (must pass).
# Prints "N passed, N failed"; exits non-zero on any failure.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SPARSE=$HERE/../sparse.sh
TMP=$(mktemp -d /tmp/xrdma-sparse-selftest.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

pass=0 fail=0
ok()  { echo "ok   - $*"; pass=$((pass + 1)); }
nok() { echo "FAIL - $*"; fail=$((fail + 1)); }

mkmod() {	# mkmod DIR BAD(0|1)
	mkdir -p "$1"
	echo 'obj-m := xrdma_sparse_demo.o' >"$1/Kbuild"
	cat >"$1/xrdma_sparse_demo.c" <<'EOC'
// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
#include <linux/uaccess.h>

int xrdma_sparse_demo_read(const int __user *uptr, int *val);
int xrdma_sparse_demo_read(const int __user *uptr, int *val)
{
#ifdef XRDMA_SPARSE_BAD
	const int *kptr = uptr;		/* drops __user: different address spaces */

	*val = *uptr;			/* dereference of a __user pointer */
	return kptr ? 0 : -EFAULT;
#else
	return get_user(*val, uptr);
#endif
}
EXPORT_SYMBOL_GPL(xrdma_sparse_demo_read);
MODULE_LICENSE("GPL");
EOC
	if [ "$2" = 1 ]; then
		echo 'ccflags-y += -DXRDMA_SPARSE_BAD' >>"$1/Kbuild"
	fi
}

mkmod "$TMP/bad" 1
mkmod "$TMP/good" 0

out=$(XRDMA_SPARSE_M=$TMP/bad XRDMA_SPARSE_CONFIG='' "$SPARSE" 2>&1)
rc=$?
echo "$out" | sed 's/^/    | /'
if [ $rc -ne 0 ]; then
	ok "sparse.sh fails on the __user misuse (exit $rc)"
else
	nok "sparse.sh passed a module with __user misuse"
fi
if echo "$out" | grep -q 'xrdma_sparse_demo.c:[0-9]*:[0-9]*: .*different address spaces'; then
	ok "sparse reports 'different address spaces' at our file"
else
	nok "no 'different address spaces' report"
fi
if echo "$out" | grep -q 'xrdma_sparse_demo.c:[0-9]*:[0-9]*: .*dereference of noderef'; then
	ok "sparse reports 'dereference of noderef expression' at our file"
else
	nok "no 'dereference of noderef expression' report"
fi

out=$(XRDMA_SPARSE_M=$TMP/good XRDMA_SPARSE_CONFIG='' "$SPARSE" 2>&1)
rc=$?
echo "$out" | sed 's/^/    | /'
if [ $rc -eq 0 ] && echo "$out" | grep -q 'sparse: OK (1 files checked'; then
	ok "sparse.sh passes the clean module (and checked it)"
else
	nok "sparse.sh rejected the clean module (exit $rc)"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
