#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The SMB Direct test fixture: cifs.ko (the SMB client) and ksmbd.ko (the
# SMB server) of Debian's linux-source-X.Y of the guest kernel's series
# (6.1 for Debian 12's 6.1.0-*, 6.12 for bookworm-backports' 6.12.*),
# built out of tree against Debian's headers with SMB Direct on.  Debian
# compiles it out of both (CONFIG_CIFS_SMB_DIRECT and
# CONFIG_SMB_SERVER_SMBDIRECT unset in 6.1's and 6.12's config), so the
# stock modules cannot run over RDMA at all.  The modules are cached and
# never installed: the guest test tools/testing/ulp/smb/ulp_smb.sh insmods
# them by path in place of Debian's.  Nothing of the source is changed.
#
#   scripts/smbdirect-modules.sh [KVER]     (default: the guest kernel,
#                                            as scripts/guest-test.sh picks it)
#
# Output (stdout): the directory holding cifs.ko and ksmbd.ko (debug info
# stripped; the build tree keeps the full ones).  Progress goes to stderr,
# make's output to build.log in the cache directory.  Idempotent: a second run finds
# the modules in the cache and builds nothing.
#
# How (each step needed because the headers package is not a source tree):
#   - fs/smb/{client,server,common}, fs/internal.h (ksmbd includes
#     "../../internal.h"), fs/nls (6.12's ksmbd includes
#     "../../nls/nls_ucs2_utils.h") and scripts/asn1_compiler.c are taken
#     from the extracted linux-source tree in the cache (scripts/kunit.sh's)
#     or from /usr/src/linux-source-X.Y.tar.xz (scripts/kernels.sh
#     source-tar, of KVER's series); copied into a build dir of ours
#   - the *.asn1.c/*.asn1.h files are generated beforehand by asn1_compiler
#     compiled from that source: linux-kbuild-X.Y does not ship it, and
#     kbuild's pattern rule for them, lacking its prerequisite, then keeps
#     the generated files as they are
#   - make M=... CONFIG_CIFS_SMB_DIRECT=y CONFIG_SMB_SERVER_SMBDIRECT=y
#     selects the objects (smbdirect.o, transport_rdma.o); the same names
#     in KCFLAGS (-D...) switch the #ifdefs, since Debian's autoconf.h has
#     them unset
#   - two fixes in the copy, nothing else changed:
#     - 6.1.192's smb2_open() calls opinfo_put() on a NULL opinfo for
#       every directory open (the share's root at mount time included),
#       and its opinfo_put() lacks the NULL check upstream has: ksmbd
#       oopses on the first mount.  The script adds that check (skipped
#       when the source has it already, as 6.12.118's has).
#     - 6.12.118's send_done() (fs/smb/client/smbdirect.c) frees a send
#       that completed in error and disconnects without dropping
#       send_pending or waking its waiters: after a link failure a
#       writer waits in smbd_send() for ever holding the server mutex,
#       and cifsd's reconnect blocks behind it (ulp_smb_flap_xnic).
#       6.1's send_done() and later mainline drop the count on both
#       paths; the script adds the decrement and the wake-ups to the
#       error path (skipped when the source has no such path).
# The results depend on ib_core and rdma_cm, and cifs.ko on cifs_arc4 and
# cifs_md4 (fs/smb/common) and more that differs by kernel (fscache on
# 6.1, netfs and nls_ucs2_utils on 6.12): Debian's modules of KVER, whose
# symbol CRCs are the Module.symvers we build against; modinfo of the
# results names them (tools/testing/harness/host/mkinitramfs.sh ships them so).
#
# Environment:
#   XRDMA_CACHE   cache dir (default /var/cache/xrdma):
#                 smbdirect-<KVER>-<pkgversion>-r<REV>/: modules/ (the
#                         output), build.log, src/ (the build tree); the
#                         .lock next to it serialises its users
#   KDIR          kernel build dir (default /usr/src/linux-headers-KVER)
#   JOBS          make -j (default nproc)
#   XRDMA_PROGRESS_INTERVAL  seconds between progress lines on stderr
#                 (default 30, scripts/progress.sh): objects compiled vs
#                 the last build's count ($XRDMA_CACHE/progress/smbdirect)
set -euo pipefail

# shellcheck source=scripts/progress.sh
. "$(dirname "$0")/progress.sh"

CACHE=${XRDMA_CACHE:-/var/cache/xrdma}
JOBS=${JOBS:-$(nproc)}

log() { echo "smbdirect-modules: $*" >&2; }
die() {
	progress_stop
	log "error: $*"
	exit 1
}

# the guest kernel: newest Debian kernel with headers (tools/testing/harness/host/lib.sh)
guest_kver() {
	# shellcheck source=tools/testing/harness/host/lib.sh
	. "$(dirname "$0")/../tools/testing/harness/host/lib.sh"
	xrdma_kver
}
KVER=${1:-$(guest_kver)}
KDIR=${KDIR:-/usr/src/linux-headers-$KVER}
[ -f "$KDIR/Module.symvers" ] ||
	die "no $KDIR/Module.symvers (install linux-headers-$KVER: make deps)"

# the source of KVER's own series: 6.1's fs/smb does not build against
# 6.12's headers (__assign_str() lost an argument in 6.10, ...)
SERIES=$("$(dirname "$0")/kernels.sh" series-of "$KVER")
[ -n "$SERIES" ] || die "cannot tell the series of kernel '$KVER'"
TAR=$("$(dirname "$0")/kernels.sh" source-tar "$SERIES" || true)
[ -n "$TAR" ] || die "no /usr/src/linux-source-$SERIES.tar.xz for $KVER (run: make deps)"
PKG=$(basename "$TAR" .tar.xz)
PKGVER=$(dpkg-query -W -f='${Version}' "$PKG" 2>/dev/null || true)
[ -n "$PKGVER" ] || die "package $PKG is not installed (run: make deps)"
for t in gcc make; do
	command -v "$t" >/dev/null || die "$t missing (run: make deps)"
done

# the fixture's own revision: bump it when the build changes
REV=3
OUT=$CACHE/smbdirect-$KVER-$PKGVER-r$REV
MODDIR=$OUT/modules
DONE=$OUT/.xrdma-smbdirect-done
MODS="cifs ksmbd"

mkdir -p "$CACHE"
exec 9>"$OUT.lock"
if ! flock -n 9; then
	log "waiting for $OUT.lock (another build of these modules)..."
	progress_start smbdirect-modules progress_say "waiting for $OUT.lock (another build of these modules)"
	flock 9
	progress_stop
fi

# cached: the modules are there and still match KVER's headers
if [ -f "$DONE" ] && [ "$DONE" -nt "$KDIR/Module.symvers" ]; then
	ok=1
	for m in $MODS; do
		[ -s "$MODDIR/$m.ko" ] || ok=0
	done
	if [ "$ok" = 1 ]; then
		log "cached in $MODDIR"
		echo "$MODDIR"
		exit 0
	fi
fi

t0=$(date +%s)
rm -rf "$OUT"
mkdir -p "$OUT"
SRC=$OUT/src
WANT="fs/smb fs/internal.h fs/nls scripts/asn1_compiler.c include/linux/asn1.h
	include/linux/asn1_ber_bytecode.h"

# the source: the extracted tree of the same package in the cache
# (kunit.sh's; read only) or the tarball.  Not debug-kernel.sh's: its
# trees carry the debug kernel's patches.
tree=""
if [ -f "$CACHE/linux-$PKGVER/.xrdma-extracted" ]; then
	tree=$CACHE/linux-$PKGVER
fi
mkdir -p "$SRC"
if [ -n "$tree" ]; then
	log "copying fs/smb, fs/internal.h, fs/nls, scripts/asn1_compiler.c from $tree"
	for p in $WANT; do
		mkdir -p "$SRC/$(dirname "$p")"
		cp -a "$tree/$p" "$SRC/$p"
	done
else
	log "extracting fs/smb, fs/internal.h, fs/nls, scripts/asn1_compiler.c from $TAR (a minute)"
	top=$(tar -tf "$TAR" | head -n 1 || true)
	top=${top%%/*}
	progress_start smbdirect-modules progress_say "extracting from $TAR"
	# shellcheck disable=SC2046 # the member names, one word each
	tar -xf "$TAR" -C "$SRC" --strip-components=1 $(for p in $WANT; do echo "$top/$p"; done)
	progress_stop
fi
if [ ! -f "$SRC/fs/smb/client/smbdirect.c" ] ||
	[ ! -f "$SRC/fs/smb/server/transport_rdma.c" ]; then
	die "$PKG has no fs/smb/client/smbdirect.c or fs/smb/server/transport_rdma.c"
fi

# opinfo_put(NULL) from smb2_open() (see the head of this file)
OPL=$SRC/fs/smb/server/oplock.c
if ! grep -A2 '^void opinfo_put(struct oplock_info \*opinfo)$' "$OPL" |
	grep 'if (!opinfo)' >/dev/null; then
	log "fixing ksmbd's opinfo_put(NULL) oops (fs/smb/server/oplock.c)"
	sed -i '/^void opinfo_put(struct oplock_info \*opinfo)$/,/^}/ s/^{$/{\n\tif (!opinfo)\n\t\treturn;\n/' "$OPL"
	grep -A3 '^void opinfo_put(struct oplock_info \*opinfo)$' "$OPL" |
		grep 'if (!opinfo)' >/dev/null ||
		die "cannot add the NULL check to opinfo_put() in $OPL"
fi

# send_done()'s error path keeps send_pending (see the head of this file)
SDC=$SRC/fs/smb/client/smbdirect.c
if grep -B1 '^		smbd_disconnect_rdma_connection(info);$' "$SDC" |
	grep '^		mempool_free(request, info->request_mempool);$' >/dev/null; then
	log "fixing send_done()'s error path (fs/smb/client/smbdirect.c)"
	perl -0pi -e 's/(\t\tmempool_free\(request, info->request_mempool\);\n\t\tsmbd_disconnect_rdma_connection\(info\);\n\t\treturn;\n)/\t\tif (atomic_dec_and_test(&info->send_pending))\n\t\t\twake_up(&info->wait_send_pending);\n\t\twake_up(&info->wait_post_send);\n$1/' "$SDC"
	grep -B3 '^		mempool_free(request, info->request_mempool);$' "$SDC" |
		grep 'wake_up(&info->wait_post_send);' >/dev/null ||
		die "cannot fix send_done()'s error path in $SDC"
fi

log "compiling asn1_compiler"
ASN1C=$OUT/asn1_compiler
gcc -O2 -I"$SRC/include" -o "$ASN1C" "$SRC/scripts/asn1_compiler.c" ||
	die "cannot compile scripts/asn1_compiler.c"
for a in "$SRC"/fs/smb/client/*.asn1 "$SRC"/fs/smb/server/*.asn1; do
	log "generating ${a#"$SRC"/}.c/.h"
	"$ASN1C" "$a" "$a.c" "$a.h" || die "asn1_compiler failed on $a"
done

# kmake DIR CONFIG=y...: one module directory, out of tree
kmake() {
	local dir=$1
	shift
	make -C "$KDIR" M="$SRC/$dir" -j"$JOBS" "$@" \
		KCFLAGS="${KCFLAGS_SMB:-}" \
		modules >>"$OUT/build.log" 2>&1 ||
		{
			tail -n 30 "$OUT/build.log" >&2
			die "building $dir failed (log: $OUT/build.log)"
		}
}
: >"$OUT/build.log"
log "building cifs.ko with SMB Direct against $KDIR (log: $OUT/build.log; ~2 min)"
log "(once: later runs find the modules in $MODDIR)"
# objects of both modules (73 on 6.1.192), when no build here of this
# series has left its count
PROGRESS_EXPECT=$(progress_recall "smbdirect-$SERIES" objects)
PROGRESS_EXPECT=${PROGRESS_EXPECT:-73}
smb_progress() {
	progress_objects "$SRC/fs/smb"
	PROGRESS_MSG="building cifs.ko and ksmbd.ko: $PROGRESS_MSG"
}
progress_start smbdirect-modules smb_progress
KCFLAGS_SMB=-DCONFIG_CIFS_SMB_DIRECT kmake fs/smb/client \
	CONFIG_CIFS=m CONFIG_CIFS_SMB_DIRECT=y
log "building ksmbd.ko with SMB Direct"
KCFLAGS_SMB=-DCONFIG_SMB_SERVER_SMBDIRECT kmake fs/smb/server \
	CONFIG_SMB_SERVER=m CONFIG_SMB_SERVER_SMBDIRECT=y
progress_stop
progress_record "smbdirect-$SERIES" $(($(date +%s) - t0)) "$SRC/fs/smb"

mkdir -p "$MODDIR"
for m in fs/smb/client/cifs fs/smb/server/ksmbd; do
	strip --strip-debug -o "$MODDIR/${m##*/}.ko" "$SRC/$m.ko"
done
# the proof that SMB Direct is in: its entry points and RDMA dependencies
for m in $MODS; do
	vm=$(modinfo -F vermagic "$MODDIR/$m.ko" | awk '{print $1}')
	[ "$vm" = "$KVER" ] || die "$m.ko has vermagic '$vm', want $KVER"
	deps=$(modinfo -F depends "$MODDIR/$m.ko")
	case ",$deps," in
	*,rdma_cm,*) ;;
	*) die "$m.ko does not depend on rdma_cm (depends: $deps): SMB Direct not built in" ;;
	esac
	log "$m.ko: depends $deps"
done
# (grep without -q: nm must not die of SIGPIPE under pipefail)
nm "$MODDIR/cifs.ko" | grep ' T smbd_get_connection$' >/dev/null ||
	die "cifs.ko lacks smbd_get_connection"
nm "$MODDIR/ksmbd.ko" | grep ' T ksmbd_rdma_init$' >/dev/null ||
	die "ksmbd.ko lacks ksmbd_rdma_init"
touch "$DONE"
log "built in $MODDIR ($(($(date +%s) - t0))s)"
echo "$MODDIR"
