#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The xrdma debug guest kernel: Debian's linux-source-6.1 configured as
# allnoconfig + tools/testing/harness/host/debug-kernel.config (KASAN generic inline,
# lockdep, kmemleak, DEBUG_LIST/OBJECTS/VM/SG, DMA-API debug, UBSAN,
# hardened usercopy, FORTIFY_SOURCE, KUnit), with the fixes of
# tools/testing/harness/host/debug-kernel.patches/*.patch applied to its
# source, built once and cached.
#
#   scripts/debug-kernel.sh            build it or find it in the cache
#
# Output (stdout, shell assignments, for eval):
#   XRDMA_DEBUGK_KVER=...     its kernel release (modules' vermagic)
#   XRDMA_DEBUGK_KDIR=...     build tree: make -C $KDIR M=... modules
#   XRDMA_DEBUGK_BZIMAGE=...  arch/x86/boot/bzImage
#   XRDMA_DEBUGK_VMLINUX=...  the ELF vmlinux (QEMU boots it via PVH: faster
#                             under TCG than decompressing the bzImage)
#   XRDMA_DEBUGK_MODROOT=...  modules_install root (lib/modules/KVER with
#                             modules.builtin, for modprobe -d / depmod -b)
#   XRDMA_DEBUGK_COST=...     "cold Ns" (built now) or "warm Ns" (cached)
# Progress and make's output go to stderr / $KDIR/make.log.
#
# Environment:
#   XRDMA_CACHE            cache dir (default /var/cache/xrdma), outside the
#                          clone:
#                          debugk-src-<pkgversion>-<pkey>/  extracted kernel
#                                  tree with the patches applied, of its own
#                                  (scripts/kunit.sh hooks drivers/xrdma into
#                                  linux-<pkgversion>/ while it runs,
#                                  scripts/smbdirect-modules.sh copies from
#                                  that one: neither sees our patches); pkey
#                                  = hash of the patches' names and contents
#                          debugk-<key>/  O= build dir (debugk-<key>.lock
#                                  serialises its users), key = hash of the
#                                  config fragment (minus comments) +
#                                  linux-source version + gcc version + pkey
#                          A changed fragment or patch costs one cold build;
#                          the trees of earlier keys stay until removed by
#                          hand (rm -rf $XRDMA_CACHE/debugk-*, no run going).
#   XRDMA_DEBUGK_CONFIG    fragment (default tools/testing/harness/host/debug-kernel.config)
#   XRDMA_DEBUGK_PATCHES   directory of the patches (default
#                          tools/testing/harness/host/debug-kernel.patches):
#                          every *.patch in it, in C-locale order, applied
#                          with patch -p1 --forward --fuzz=0 to the fresh
#                          extraction; one that does not apply fails the
#                          build (its output on stderr)
#   JOBS                   make -j (default nproc)
#   XRDMA_PROGRESS_INTERVAL  seconds between progress lines (default 30):
#                          while it extracts or builds, a line on stderr says
#                          how far along (objects compiled vs the count the
#                          last build left, $XRDMA_CACHE/progress/debugk, and
#                          the time left at this run's pace)
set -euo pipefail

PROJ=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/progress.sh
. "$PROJ/scripts/progress.sh"
CACHE=${XRDMA_CACHE:-/var/cache/xrdma}
FRAG=$(readlink -f "${XRDMA_DEBUGK_CONFIG:-$PROJ/tools/testing/harness/host/debug-kernel.config}")
PATCHDIR=$(readlink -f "${XRDMA_DEBUGK_PATCHES:-$PROJ/tools/testing/harness/host/debug-kernel.patches}")
JOBS=${JOBS:-$(nproc)}
t_start=$(date +%s)

log() { echo "debug-kernel: $*" >&2; }
die() {
	progress_stop
	log "error: $*"
	exit 1
}

TAR=$("$PROJ/scripts/kernels.sh" source-tar || true)
[ -n "$TAR" ] || die "no /usr/src/linux-source-X.Y.tar.xz of Linux $("$PROJ/scripts/kernels.sh" series) (run: make deps)"
PKG=$(basename "$TAR" .tar.xz)
st=$(dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null || true)
[ "$st" = "install ok installed" ] ||
	die "package $PKG is not fully installed ('$st'); run: make deps"
PKGVER=$(dpkg-query -W -f='${Version}' "$PKG")
[ -f "$FRAG" ] || die "no config fragment $FRAG"
[ -d "$PATCHDIR" ] || die "no patch directory $PATCHDIR"
for t in bc flex bison gcc make patch; do
	command -v "$t" >/dev/null || die "$t missing (run: make deps)"
done
[ -e /usr/include/libelf.h ] || die "libelf-dev missing (run: make deps)"

# the fragment's settings, comments dropped, sorted
frag_lines() {
	grep -E '^(CONFIG_[A-Za-z0-9_]+=|# CONFIG_[A-Za-z0-9_]+ is not set)' "$FRAG" |
		LC_ALL=C sort
}
# the patches, in the order they apply
mapfile -t PATCHES < <(find "$PATCHDIR" -maxdepth 1 -type f -name '*.patch' |
	LC_ALL=C sort)
# their names and contents: a changed patch is a new source tree and kernel
PKEY=$(for p in "${PATCHES[@]}"; do
	echo "${p##*/} $(sha256sum <"$p")"
done | sha256sum | cut -c1-12)
KEY=$( { frag_lines; echo "$PKG $PKGVER"; gcc --version | head -n 1; echo "patches $PKEY"; } |
	sha256sum | cut -c1-16)
SRC=$CACHE/debugk-src-$PKGVER-$PKEY
BUILD=$CACHE/debugk-$KEY
MODROOT=$BUILD/modroot
DONE=$BUILD/.xrdma-debugk-done

mkdir -p "$CACHE"
# A source tree is shared by every build key with the same patches, each
# build dir by every clone on this machine: one lock for extracting, one
# per build dir.
exec 8>"$CACHE/debugk-src.lock"
if ! flock -n 8; then
	progress_start debug-kernel progress_say "waiting for $CACHE/debugk-src.lock (another run extracting the source)"
	flock 8
	progress_stop
fi
if [ ! -f "$SRC/.xrdma-extracted" ]; then
	log "extracting $TAR into $SRC (once)..."
	rm -rf "$SRC" "$SRC.tmp"
	mkdir -p "$SRC.tmp"
	progress_start debug-kernel progress_size "$SRC.tmp" 1400 "extracting the kernel source"
	tar -xf "$TAR" -C "$SRC.tmp" --strip-components=1
	progress_stop
	# (a patch that fails leaves $SRC.tmp as it got, for a look, until
	# the next run starts over)
	: >"$SRC.tmp/.xrdma-patches"
	for p in "${PATCHES[@]}"; do
		log "applying ${p#"$PROJ"/}"
		if ! patch -p1 --forward --fuzz=0 --no-backup-if-mismatch \
			-d "$SRC.tmp" -i "$p" >"$SRC.tmp/.xrdma-patch.log" 2>&1; then
			cat "$SRC.tmp/.xrdma-patch.log" >&2
			die "${p#"$PROJ"/} does not apply to $PKG $PKGVER (tree: $SRC.tmp)"
		fi
		echo "${p##*/}" >>"$SRC.tmp/.xrdma-patches"
	done
	rm -f "$SRC.tmp/.xrdma-patch.log"
	touch "$SRC.tmp/.xrdma-extracted"
	mv "$SRC.tmp" "$SRC"
fi
exec 8>&-
exec 9>"$BUILD.lock"
if ! flock -n 9; then
	log "waiting for $BUILD.lock (another build of this kernel)..."
	progress_start debug-kernel progress_say "waiting for $BUILD.lock (another build of this kernel)"
	flock 9
	progress_stop
fi

kmake() { make -C "$SRC" O="$BUILD" -j"$JOBS" "$@"; }

cost=warm
if [ ! -f "$DONE" ] || [ ! -s "$BUILD/vmlinux" ] ||
	[ ! -s "$BUILD/arch/x86/boot/bzImage" ]; then
	cost=cold
	rm -f "$DONE"
	mkdir -p "$BUILD"
	log "building in $BUILD (log: $BUILD/make.log), $JOBS jobs; a cold build takes 5-20 min on 2 cores (idle-busy)"
	last=$(progress_recall debugk secs)
	log "built once${last:+ ($(progress_about "$last") last time on this machine)}: later runs find it there;" \
		"only XRDMA_GUEST_KERNEL=debug (make check's guest-debug stage) needs it"
	frag_lines >"$BUILD/fragment"
	[ ${#PATCHES[@]} -eq 0 ] ||
		log "source $SRC, patched with: $(paste -sd ' ' "$SRC/.xrdma-patches")"
	# (an interrupted allnoconfig may leave a partial .config: redo it)
	if [ ! -f "$BUILD/.xrdma-configured" ]; then
		kmake KCONFIG_ALLCONFIG="$BUILD/fragment" allnoconfig >"$BUILD/make.log" 2>&1 ||
			{ tail -n 30 "$BUILD/make.log" >&2; die "allnoconfig failed"; }
		touch "$BUILD/.xrdma-configured"
	fi
	# what Kconfig dropped (unmet dependencies) would silently weaken the kernel
	missing=$(grep -vxF -f "$BUILD/.config" "$BUILD/fragment" || true)
	if [ -n "$missing" ]; then
		echo "$missing" >&2
		die "the .config lacks the fragment lines above (unmet dependencies?)"
	fi
	t_build=$(date +%s)
	# objects of the build with this fragment on 6.1.192
	# (Documentation/testing.rst), when no build here has left its count
	PROGRESS_EXPECT=$(progress_recall debugk objects)
	PROGRESS_EXPECT=${PROGRESS_EXPECT:-1385}
	build_progress() {
		progress_objects "$BUILD"
		PROGRESS_MSG="building the debug kernel: $PROGRESS_MSG"
	}
	progress_start debug-kernel build_progress
	if ! kmake vmlinux bzImage modules >>"$BUILD/make.log" 2>&1; then
		progress_stop
		tail -n 40 "$BUILD/make.log" >&2
		die "kernel build failed (log: $BUILD/make.log)"
	fi
	progress_stop
	progress_record debugk $(($(date +%s) - t_build)) "$BUILD"
	rm -rf "$MODROOT"
	kmake INSTALL_MOD_PATH="$MODROOT" modules_install >>"$BUILD/make.log" 2>&1 ||
		die "modules_install failed (log: $BUILD/make.log)"
	make -s -C "$SRC" O="$BUILD" kernelrelease >"$DONE"
fi
KVER=$(cat "$DONE")
[ -d "$MODROOT/lib/modules/$KVER" ] || die "no $MODROOT/lib/modules/$KVER"
secs=$(($(date +%s) - t_start))
log "$cost: $KVER in $BUILD (${secs}s)"

cat <<EOF
XRDMA_DEBUGK_KVER=$KVER
XRDMA_DEBUGK_KDIR=$BUILD
XRDMA_DEBUGK_BZIMAGE=$BUILD/arch/x86/boot/bzImage
XRDMA_DEBUGK_VMLINUX=$BUILD/vmlinux
XRDMA_DEBUGK_MODROOT=$MODROOT
XRDMA_DEBUGK_COST='$cost ${secs}s'
EOF
