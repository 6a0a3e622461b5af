#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The pyverbs test fixture: rdma-core 44's own test suite (tests/ of
# rdma-core, which Debian's python3-pyverbs ships in
# /usr/share/doc/rdma-core/tests/, its larger files gzipped by
# dh_compress), unpacked into build/pyverbs/tests for the guest test
# tools/testing/ulp/pyverbs.sh.  Nothing of the suite is changed.
#
#   scripts/pyverbs-tests.sh [KVER]     (KVER is ignored: XRDMA_PREPARE)
#
# Output (stdout): the directory holding tests/ (run_tests.py in it).
set -euo pipefail
src=${XRDMA_PYVERBS_TESTS:-/usr/share/doc/rdma-core/tests}
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/pyverbs

[ -f "$src/run_tests.py" ] || {
	echo "pyverbs-tests.sh: no $src/run_tests.py (apt-get install python3-pyverbs; scripts/install-deps.sh)" >&2
	exit 1
}
rm -rf "$out"
mkdir -p "$out"
cp -r "$src" "$out/tests"
find "$out/tests" -name '*.gz' -exec gunzip -f {} +
echo "$out"
