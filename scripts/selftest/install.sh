#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check stage "install": the ways to install the stack outside a
# guest, tested without changing the host (everything goes to scratch
# directories; dkms runs in a private mount namespace):
#  - make install-user / uninstall-user with DESTDIR and PREFIX;
#  - make install-modules / uninstall with INSTALL_MOD_PATH (depmod -b),
#    for each kernel the tree builds for;
#  - make dkms-source, then dkms add + build against the headers of every
#    kernel the tree builds for (Debian 12's 6.1, backports' 6.12) in a
#    scratch DKMS tree (scripts/dkms-scratch.sh): five modules, vermagic
#    of that kernel, none of the test fixtures;
#  - make deb: the two packages' contents, and lintian without errors or
#    warnings (packaging/lintian-suppress lists what does not apply).
# Nothing it does may change the host: the places an install writes to are
# listed before and compared after (a machine where DKMS ran before keeps
# its MOK key in /var/lib/dkms; that must stay as it was, not be absent).
# The packages installed and used in a guest: tools/testing/ulp/install_deb.sh.
# Prints "N passed, N failed".
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
pass=0 fail=0
ok()  { echo "ok   - $*"; pass=$((pass + 1)); }
nok() { echo "FAIL - $*"; fail=$((fail + 1)); }
check() { local what=$1; shift; if "$@"; then ok "$what"; else nok "$what"; fi; }

MODS="xrdma_core xrdma_uverbs xnic xnic_sim xrdma_ib"
T=$(mktemp -d /tmp/xrdma-install.XXXXXX)
trap 'rm -rf "$T"' EXIT
echo "kernels $(scripts/kernels.sh series), scratch $T"

# host_state DIR...: every file and directory under DIR (name, type, size,
# mode, mtime), sorted; nothing for a DIR that does not exist
host_state() {
	find "$@" -printf '%p %y %s %m %T@\n' 2>/dev/null | LC_ALL=C sort
}
HOST_DIRS=(/var/lib/dkms /etc/dkms /usr/local /etc/udev/rules.d)
# kernels' module trees: their top (modules.dep & co) and what we install to
host_modules() {
	local d
	for d in /lib/modules/*; do
		host_state "$d" -maxdepth 1
		host_state "$d/updates" "$d/extra"
	done
	host_state /usr/src -maxdepth 1
}
host_state "${HOST_DIRS[@]}" >"$T/host.before"
host_modules >>"$T/host.before"

# --- make install-user / uninstall-user
D=$T/dest
make -s install-user DESTDIR="$D" PREFIX=/opt/xr >"$T/iu.log" 2>&1
check "make install-user" test $? = 0
for f in /opt/xr/lib/xrdma/libibverbs.so.1 /opt/xr/bin/xrdma-run \
	/opt/xr/share/man/man1/xrdma-run.1.gz /etc/udev/rules.d/60-xrdma.rules \
	/opt/xr/share/doc/xrdma/modules-load.d-xrdma.conf \
	/opt/xr/sbin/xrdma-fault /opt/xr/share/man/man8/xrdma-fault.8.gz; do
	check "installed $f" test -f "$D$f"
done
check "nothing installed beyond the list" \
	test "$(find "$D" -type f | wc -l)" = 8
check "xrdma-run knows where its library went" \
	grep -qx "XRDMA_LIBDIR=/opt/xr/lib/xrdma" "$D/opt/xr/bin/xrdma-run"
check "the staged xrdma-run finds the staged library" \
	test "$("$D/opt/xr/bin/xrdma-run" --libdir)" = "$D/opt/xr/lib/xrdma"
check "xrdma-run(1) renders without warnings" \
	test -z "$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$D/opt/xr/share/man/man1/xrdma-run.1.gz" 2>&1 >/dev/null)"
check "xrdma-fault(8) renders without warnings" \
	test -z "$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$D/opt/xr/share/man/man8/xrdma-fault.8.gz" 2>&1 >/dev/null)"
check "the library is ours (soname libibverbs.so.1, xrdma's symbol)" \
	sh -c "objdump -p '$D/opt/xr/lib/xrdma/libibverbs.so.1' | grep -q 'SONAME *libibverbs.so.1'"
make -s uninstall-user DESTDIR="$D" PREFIX=/opt/xr >/dev/null 2>&1
check "make uninstall-user removes every file" test "$(find "$D" -type f | wc -l)" = 0

# --- make install-modules / uninstall, for each kernel the tree builds
# for (kbuild compresses the modules as the kernel's own: 6.12's .ko.xz)
mapfile -t KDIRS < <(scripts/kernels.sh kdirs)
for kd in "${KDIRS[@]}"; do
	kv=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$kd/include/generated/utsrelease.h")
	M=$T/mods-$kv
	make -s install-modules KDIR="$kd" INSTALL_MOD_PATH="$M" >"$T/im-$kv.log" 2>&1
	check "make install-modules ($kv)" test $? = 0
	for m in $MODS; do
		check "module $m installed ($kv)" \
			test -n "$(find "$M/lib/modules/$kv/extra/xrdma" -name "$m.ko*")"
	done
	check "no test fixture installed ($kv)" \
		test "$(find "$M" -name '*.ko*' | wc -l)" = 5
	check "depmod ran: modules.dep has xnic ($kv)" \
		grep -qE "^extra/xrdma/drivers/hw/xnic/xnic.ko(\.[a-z]+)?: extra/xrdma/drivers/core/xrdma_core.ko" \
		"$M/lib/modules/$kv/modules.dep"
	make -s uninstall KDIR="$kd" INSTALL_MOD_PATH="$M" DESTDIR="$T/none" >/dev/null 2>&1
	check "make uninstall removes the modules ($kv)" \
		test "$(find "$M" -name '*.ko*' | wc -l)" = 0
	check "make uninstall reran depmod ($kv)" \
		sh -c "! grep -q xnic '$M/lib/modules/$kv/modules.dep'"
done

# --- DKMS
make -s dkms-source DESTDIR="$T/dk" >/dev/null 2>&1
VER=$(cat VERSION)
check "make dkms-source" test -f "$T/dk/usr/src/xrdma-$VER/dkms.conf"
# every kernel the tree builds for, each with its headers (make deps
# installs one of each series): DKMS builds for every installed kernel
mapfile -t KVERS < <(scripts/kernels.sh guest-kvers)
check "headers of every series the tree builds for ($(scripts/kernels.sh series))" \
	test "${#KVERS[@]}" = "$(scripts/kernels.sh series | wc -w)"
for kv in "${KVERS[@]}"; do
	if scripts/dkms-scratch.sh "$T/dk/usr/src/xrdma-$VER" "$kv" "$T/dkko-$kv" >"$T/dkms-$kv.log" 2>&1; then
		ok "dkms add + build for $kv"
	else
		nok "dkms add + build for $kv"
		tail -n 20 "$T/dkms-$kv.log"
	fi
	check "dkms status: built for $kv" grep -q "xrdma/$VER, $kv, x86_64: built" "$T/dkms-$kv.log"
	for m in $MODS; do
		check "dkms built $m for $kv" \
			test "$(modinfo -F vermagic "$T/dkko-$kv/$m".ko* 2>/dev/null | cut -d' ' -f1)" = "$kv"
	done
	check "dkms built only the stack's modules for $kv" \
		test "$(find "$T/dkko-$kv" -name '*.ko*' | wc -l)" = 5
done
check "dkms left /var/lib/dkms and /etc/dkms as they were" \
	cmp -s <(grep -E '^/(var/lib|etc)/dkms[/ ]' "$T/host.before") \
	<(host_state /var/lib/dkms /etc/dkms)

# --- make deb
make -s deb >"$T/deb.log" 2>&1
check "make deb" test $? = 0
DEB=build/deb/xrdma_$VER-1_amd64.deb
DKMSDEB=build/deb/xrdma-dkms_$VER-1_all.deb
dpkg-deb -c "$DEB" >"$T/deb.list"
dpkg-deb -c "$DKMSDEB" >"$T/dkmsdeb.list"
for f in ./usr/lib/xrdma/libibverbs.so.1 ./usr/bin/xrdma-run \
	./usr/share/man/man1/xrdma-run.1.gz ./lib/udev/rules.d/60-xrdma.rules \
	./usr/sbin/xrdma-fault ./usr/share/man/man8/xrdma-fault.8.gz \
	./usr/share/doc/xrdma/copyright; do
	check "xrdma.deb holds $f" grep -q " $f\$" "$T/deb.list"
done
check "xrdma.deb does not replace the system's libibverbs" \
	sh -c "! grep -q 'x86_64-linux-gnu/libibverbs' '$T/deb.list'"
check "xrdma-dkms.deb holds dkms.conf" \
	grep -q " ./usr/src/xrdma-$VER/dkms.conf\$" "$T/dkmsdeb.list"
check "xrdma-dkms.deb's postinst runs dkms" \
	sh -c "dpkg-deb -I '$DKMSDEB' postinst | grep -q 'common.postinst xrdma $VER'"
check "xrdma-dkms depends on dkms" \
	sh -c "dpkg-deb -f '$DKMSDEB' Depends | grep -q dkms"
if command -v lintian >/dev/null; then
	grep -E '^[EW]: ' build/deb/lintian.txt
	check "lintian: no error or warning" \
		sh -c "! grep -qE '^[EW]: ' build/deb/lintian.txt"
else
	nok "lintian is not installed (make deps)"
fi

host_state "${HOST_DIRS[@]}" >"$T/host.after"
host_modules >>"$T/host.after"
if cmp -s "$T/host.before" "$T/host.after"; then
	ok "the host is as it was (${HOST_DIRS[*]}, /lib/modules, /usr/src)"
else
	nok "the host changed (${HOST_DIRS[*]}, /lib/modules, /usr/src)"
	diff "$T/host.before" "$T/host.after" | head -n 20
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
