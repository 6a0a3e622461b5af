# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 200
# XRDMA_PROGRAMS: tools/testing/uverbs/uverbs_fuzz
#
# The ABI fuzzer (tools/testing/uverbs/uverbs_fuzz.c) on two xnic devices:
# random and mutated ioctls (every command up to OPEN_QP, 0x1f: XRC, device
# memory, CQ resizing, context imports too), hostile WQEs, doorbells and
# ring garbage from several threads of an unprivileged process, fds closed
# and children forked at random; the XRC sequences (a tmpfs unmounted under
# a domain in a user namespace: EBUSY; another uid's OPEN_QP handle
# modifying our XRC_RECV QP: EPERM).  Passes if the fuzzer's own checks pass (no object left
# in the resource tracking or the model, nothing pinned, a fresh context
# still moves data), xrdma_uverbs is not held, every module unloads, and
# the kernel log of the run has no oops, BUG, WARNING, KASAN, UBSAN,
# lockdep or hung-task report (the harness also fails the run on any
# console splat).
#
# Settings (from the environment; make fuzz passes them as xrdma.env.*):
#   XRDMA_FUZZ_SEED        default: today's UTC date as YYYYMMDD, so a CI
#                          run is reproducible from its log
#   XRDMA_FUZZ_SECONDS     fuzzing time, default 45
#   XRDMA_FUZZ_ITERATIONS  action budget, default 1000000
#   XRDMA_FUZZ_THREADS     default 3
#   XRDMA_FUZZ_SKIP        actions to leave out (uverbs_fuzz --skip)
#   XRDMA_FUZZ_DISJOINT_MRS=1  MRs never share pages (uverbs_fuzz
#                          --disjoint-mrs).  Default: 1 on a kernel with
#                          DMA-API debugging (the debug guest kernel),
#                          which reports the overlapping DMA mappings xnic
#                          makes for MRs on shared pages (a known report,
#                          Documentation/testing.rst), else 0
# A failure prints the make command that replays the run.

command -v uverbs_fuzz >/dev/null || fail "uverbs_fuzz not in the guest (not built?)"
mount_debugfs

seed=${XRDMA_FUZZ_SEED:-$(date -u +%Y%m%d)}
secs=${XRDMA_FUZZ_SECONDS:-45}
iters=${XRDMA_FUZZ_ITERATIONS:-1000000}
threads=${XRDMA_FUZZ_THREADS:-3}
skip=${XRDMA_FUZZ_SKIP:-}
replay="make fuzz SEED=$seed SECONDS=$secs"
[ -n "${XRDMA_FUZZ_ITERATIONS:-}" ] && replay="$replay ITERATIONS=$iters"
[ -n "$skip" ] && replay="$replay FUZZ_SKIP=$skip"
disjoint=
if [ -z "${XRDMA_FUZZ_DISJOINT_MRS:-}" ] && [ -d "$XRDMA_DEBUGFS/dma-api" ]; then
	note "DMA-API debugging is on: MRs on pages of their own (XRDMA_FUZZ_DISJOINT_MRS=0 to overlap them)"
	XRDMA_FUZZ_DISJOINT_MRS=1
fi
if [ "${XRDMA_FUZZ_DISJOINT_MRS:-0}" = 1 ]; then
	disjoint=--disjoint-mrs
	replay="$replay FUZZ_DISJOINT_MRS=1"
fi
dbg=$(tr ' ' '\n' </proc/cmdline | grep -E '^(slub_debug|page_poison|init_on_free|kasan)' | tr '\n' ' ')
[ -n "$dbg" ] && note "kernel debug options: $dbg"
note "seed $seed, $secs s, $iters iterations, $threads threads${skip:+, skipping $skip}; replay: $replay"

errs=$XRDMA_TMP/errors
: >"$errs"
dmesg >"$XRDMA_TMP/dmesg.before"
xnic_stack_up 2

uverbs_fuzz --seed "$seed" --seconds "$secs" --threads "$threads" \
	${XRDMA_FUZZ_ITERATIONS:+--iterations "$iters"} ${skip:+--skip "$skip"} \
	$disjoint >"$XRDMA_TMP/out" 2>&1
rc=$?
cat "$XRDMA_TMP/out"
[ $rc = 0 ] || echo "uverbs_fuzz rc=$rc: $(grep -m1 'FAIL' "$XRDMA_TMP/out")" >>"$errs"

refs=$(cat /sys/module/xrdma_uverbs/refcnt)
[ "$refs" = 0 ] || echo "xrdma_uverbs refcnt $refs after the fuzzer ended" >>"$errs"
xnic_stack_end xnic0 xnic1

# the kernel log of this run (the console gate sees it too)
dmesg >"$XRDMA_TMP/dmesg.after"
tail -n +"$(($(wc -l <"$XRDMA_TMP/dmesg.before") + 1))" "$XRDMA_TMP/dmesg.after" |
	grep -E 'BUG[: ]|WARNING:|Oops|KASAN|UBSAN|lockdep|circular locking|INFO: task|general protection|refcount_t|Call Trace|Poison overwritten|memory corruption|corrupted' |
	head -n 5 | sed 's/^/dmesg: /' >>"$errs"

if [ -s "$errs" ]; then
	cat "$errs"
	note "replay: $replay"
	fail "$(head -n 1 "$errs") (seed $seed; replay: $replay)"
fi
