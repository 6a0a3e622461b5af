# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 180
# XRDMA_PREPARE: tools/testing/harness/host/prepare-debs.sh /xrdma/debs
# XRDMA_PROGRAMS: ibv_devinfo ibv_rc_pingpong
#
# The Debian packages of "make deb", installed into the guest's root and
# used as a user would: the xrdma package's xrdma-run and library, the
# xrdma-dkms package's source tree, and the modules its postinst's dkms
# build makes (built by the host fixture from the package's own source:
# the guest has no compiler) in /lib/modules/KVER/updates/dkms.  The tree's
# own copies of those modules are moved away first, so modprobe can only
# find the packaged ones.  Then: xrdma-run refuses to run without the
# stack and says what to load; the documented modprobe commands load it;
# ibv_devinfo and ibv_rc_pingpong (with its data check) run through the
# installed xrdma-run; everything is restored afterwards.

D=/xrdma/debs
KVER=$(uname -r)
MODS="xrdma_core xrdma_uverbs xnic_sim xnic xrdma_ib"
SAVE=$XRDMA_TMP/saved
mkdir -p "$SAVE"
[ -d $D/dkms ] || fail "no packages: the host fixture failed (prepare-debs.sh log)"

restore() {
	rmmod xrdma_uverbs xnic xnic_sim xrdma_core 2>/dev/null
	rm -rf "/lib/modules/$KVER/updates/dkms" /usr/lib/xrdma /usr/src/xrdma-* \
		/lib/udev/rules.d/60-xrdma.rules /usr/share/man/man1/xrdma-run.1.gz \
		/usr/share/doc/xrdma /usr/share/doc/xrdma-dkms /usr/bin/xrdma-run
	for f in "$SAVE"/*.ko; do
		[ -e "$f" ] && mv "$f" "/lib/modules/$KVER/extra/"
	done
	[ -e "$SAVE/xrdma-run" ] && mv "$SAVE/xrdma-run" /usr/bin/xrdma-run
	depmod
}
trap restore EXIT

[ -e /usr/bin/xrdma-run ] && mv /usr/bin/xrdma-run "$SAVE/"
for deb in "$D"/xrdma_*_amd64.deb "$D"/xrdma-dkms_*_all.deb; do
	dpkg-deb -x "$deb" / || fail "dpkg-deb -x $deb"
done
for f in /usr/bin/xrdma-run /usr/lib/xrdma/libibverbs.so.1 \
	/lib/udev/rules.d/60-xrdma.rules /usr/share/man/man1/xrdma-run.1.gz \
	/usr/share/doc/xrdma/copyright /usr/share/doc/xrdma/examples/modules-load.d-xrdma.conf; do
	assert_exists "$f"
done
src=$(ls -d /usr/src/xrdma-*) || fail "xrdma-dkms installed no /usr/src/xrdma-*"
assert_exists "$src/dkms.conf"
assert_exists "$src/drivers/hw/xnic/sim/xnic_sim_main.c"
assert_eq "$(xrdma-run --libdir)" /usr/lib/xrdma "the installed xrdma-run's library"
xrdma-run --help | grep -q '^usage: xrdma-run' || fail "xrdma-run --help"

# what the dkms package's postinst installs: compressed as the kernel's
# own modules are (Debian's 6.12: .ko.xz; 6.1: .ko), which modprobe reads
mkdir -p "/lib/modules/$KVER/updates/dkms"
for m in $MODS; do
	ko=""
	for f in "$D/dkms/$m.ko" "$D/dkms/$m.ko.xz" "$D/dkms/$m.ko.gz" "$D/dkms/$m.ko.zst"; do
		[ -e "$f" ] && ko=$f
	done
	[ -n "$ko" ] || fail "missing: $D/dkms/$m.ko (nor .ko.xz, .ko.gz, .ko.zst)"
	cp "$ko" "/lib/modules/$KVER/updates/dkms/"
	[ -e "/lib/modules/$KVER/extra/$m.ko" ] && mv "/lib/modules/$KVER/extra/$m.ko" "$SAVE/"
	refute test -e "/lib/modules/$KVER/extra/$m.ko"
done
depmod || fail depmod

out=$XRDMA_TMP/out
# no stack: xrdma-run says what is missing, exit 1, the program never runs
xrdma-run ibv_devinfo >"$out" 2>&1
assert_eq "$?" 1 "xrdma-run's exit status without the stack"
grep -q "not loaded.*modprobe xnic_sim && modprobe xnic && modprobe xrdma_uverbs" "$out" ||
	fail "xrdma-run without the stack: $(cat "$out")"

# the commands the man page and README give
for m in xnic_sim xnic xrdma_uverbs; do
	modprobe $m || fail "modprobe $m (the packaged module)"
done
grep -q "updates/dkms/xnic.ko" "/lib/modules/$KVER/modules.dep" ||
	fail "modules.dep has no updates/dkms/xnic.ko"
wait_for 10 test -e /sys/class/xrdma/uverbs0 || fail "no uverbs0 after modprobe"

xrdma-run ibv_devinfo >"$out" 2>&1 || fail "xrdma-run ibv_devinfo: $(cat "$out")"
grep -q "hca_id:	xnic0" "$out" || fail "ibv_devinfo: no xnic0: $(cat "$out")"
timeout 60 xrdma-run ibv_rc_pingpong -d xnic0 -g 0 -c -n 200 -p 18600 >"$XRDMA_TMP/srv" 2>&1 &
srv=$!
# the server listens before the client connects
wait_for 10 sh -c 'netstat -ltn 2>/dev/null | grep -q ":18600 "' ||
	fail "ibv_rc_pingpong server never listened: $(cat "$XRDMA_TMP/srv")"
timeout 60 xrdma-run ibv_rc_pingpong -d xnic0 -g 0 -c -n 200 -p 18600 127.0.0.1 >"$out" 2>&1
crc=$?
wait $srv
src_rc=$?
assert_eq "$crc" 0 "ibv_rc_pingpong client ($(tail -n 3 "$out"))"
assert_eq "$src_rc" 0 "ibv_rc_pingpong server ($(tail -n 3 "$XRDMA_TMP/srv"))"
grep -Eq "^200 iters in [0-9.]+ seconds" "$out" || fail "ibv_rc_pingpong: $(cat "$out")"
