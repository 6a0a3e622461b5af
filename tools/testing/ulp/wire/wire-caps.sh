#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# wire-caps.sh KVER: the host fixture of the xnic wire tests (their
# XRDMA_PREPARE line): prints a directory, shipped to the guest as
# /xrdma/wire, holding xnic_transport, one line:
#   "yes"              xnic_sim's RoCEv2 requester and responder are built
#   "no: REASON"       they are not (yet): the tests that need them skip
# The model's transport is there when xnic_sim_wreq.c and xnic_sim_wresp.c
# are no longer the stubs the wire's interfaces came with (their head
# comment says "To be written").
set -eu
ROOT=$(cd "$(dirname "$0")/../../../.." && pwd)
D=$ROOT/build/wire-caps
mkdir -p "$D"
why=""
for f in xnic_sim_wreq.c xnic_sim_wresp.c; do
	p=$ROOT/drivers/hw/xnic/sim/$f
	if [ ! -f "$p" ]; then
		why="$why${why:+, }no $f"
	elif head -n 8 "$p" | tr -s ' \n*' ' ' | grep -q 'To be written'; then
		why="$why${why:+, }$f is the stub"
	fi
done
if [ -z "$why" ]; then
	echo yes >"$D/xnic_transport"
else
	echo "no: $why" >"$D/xnic_transport"
fi
echo "$D"
