# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 900
#
# In-kernel verbs tests of the xnic driver and device model through the
# xrdma core API (tools/testing/core/ulp_test): xrdma_core, xnic_sim ndev=2 (two
# cabled devices), xnic, xnic_ulp_test; every case of the module runs once
# in loopback (xnic0 alone) and once device to device (xnic0 <-> xnic1),
# one at a time.  Each must print "XRDMA_CASE <name> PASS"; afterwards
# both devices must hold no object (debugfs xrdma/<dev>/resources) and the
# modules must unload in reverse order.

core=$(xko xrdma_core) || exit 1
sim=$(xko xnic_sim) || exit 1
drv=$(xko xnic) || exit 1
ulp=$(xko xnic_ulp_test) || exit 1
mount_debugfs

unload() {
	for m in xnic_ulp_test xnic xnic_sim xrdma_core; do
		module_loaded $m || continue
		rmmod $m || echo "rmmod $m failed" >>"$XRDMA_TMP/errors"
	done
}

: >"$XRDMA_TMP/errors"
assert insmod "$core"
assert insmod "$sim" ndev=2
if ! insmod "$drv"; then
	unload
	fail "insmod xnic"
fi
if ! wait_xrdma_dev xnic0 || ! wait_xrdma_dev xnic1; then
	ls "$XRDMA_DEBUGFS/xrdma" >&2
	unload
	fail "xnic0 and xnic1 did not appear"
fi
if ! insmod "$ulp"; then
	unload
	fail "insmod xnic_ulp_test"
fi

run=$XRDMA_DEBUGFS/xnic_ulp/run
res=$XRDMA_DEBUGFS/xnic_ulp/results
all=$XRDMA_TMP/results
: >"$all"
cat "$XRDMA_DEBUGFS/xnic_ulp/cases" >"$XRDMA_TMP/cases"
ncases=$(wc -l <"$XRDMA_TMP/cases")
note "$ncases cases"
while read -r c; do
	if ! echo "$c" >"$run"; then
		echo "XRDMA_CASE $c FAIL the run file refused it" >>"$all"
		continue
	fi
	grep '^XRDMA_CASE ' "$res" >>"$all"
	grep '^XRDMA_CASE ' "$res" | sed 's/^/# /'
done <"$XRDMA_TMP/cases"

for d in xnic0 xnic1; do
	if ! xnic_no_objects $d; then
		echo "objects left on $d:" >>"$XRDMA_TMP/errors"
		cat "$XRDMA_DEBUGFS/xrdma/$d/resources" >>"$XRDMA_TMP/errors"
	fi
done
unload
for m in xnic_ulp_test xnic xnic_sim xrdma_core; do
	module_loaded $m && echo "$m still loaded" >>"$XRDMA_TMP/errors"
done

npass=$(grep -c '^XRDMA_CASE [^ ]* PASS' "$all")
nfail=$(grep -c '^XRDMA_CASE [^ ]* FAIL' "$all")
note "$npass of $ncases cases passed, $nfail failed"
if [ "$nfail" != 0 ]; then
	echo "failed cases:"
	grep '^XRDMA_CASE [^ ]* FAIL' "$all"
fi
if [ -s "$XRDMA_TMP/errors" ]; then
	cat "$XRDMA_TMP/errors"
	fail "$(head -n 1 "$XRDMA_TMP/errors")"
fi
[ "$nfail" = 0 ] || fail "$nfail of $ncases cases failed, first: $(grep '^XRDMA_CASE [^ ]* FAIL' "$all" | head -n 1)"
[ "$npass" = "$ncases" ] || fail "$npass of $ncases cases reported PASS"
