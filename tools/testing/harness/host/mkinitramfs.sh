#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the xrdma guest initramfs: busybox-static, our modules, the guest
# tests, the programs and Debian modules they declare, and the test runner
# (tools/testing/harness/guest/init.sh) as /init.
#
# Usage: mkinitramfs.sh -o OUT.cpio[.gz] [-k KVER] [-K MODULE.ko]...
#                       [-T TESTDIR]... [-m "debian modules"] [-b "programs"]
#                       [-x "/host/path[:/guest/path] ..."]
#   -K  one of our modules; copied to /lib/modules/KVER/extra/NAME.ko and
#       listed in /xrdma/modules.list.  Debian modules it depends on are
#       shipped and loaded at boot.
#   -T  directory of guest tests; its *.sh become /xrdma/tests/, its lib/
#       becomes /xrdma/tests/lib/.  Without -T: the repo's tests
#       (xrdma_repo_tests in lib.sh: the *.sh under tools/testing/ with an
#       "# XRDMA_KEY:" header line) and those of $XRDMA_EXTRA_TESTS, with
#       the guest shell library tools/testing/harness/guest/lib/; two test
#       files of one name fail.  The tests the files hold are listed in
#       /xrdma/tests.list (one per file, or one per "# XRDMA_SUBTEST:"
#       line).  Header lines "# XRDMA_DEBIAN_MODULES:" /
#       "# XRDMA_PROGRAMS:" / "# XRDMA_FILES:" (as -x) are honoured.
#   -m  further Debian modules to ship (deps resolved with modprobe -S KVER
#       --show-depends); the guest can modprobe them.
#   -b  further programs (names or paths) to ship with their ldd libraries.
#   -x  further files or directories (host path, or host:guest), ELF
#       files (and the *.so* files in directories) with their ldd libraries,
#       kernel modules (*.ko, *.ko.xz...) with the Debian modules they
#       depend on (modinfo -F depends; shipped as -m ones are) but those
#       of -K and -x.
# An OUT ending in .gz is gzip'ed; otherwise the cpio is left uncompressed,
# which boots faster under TCG.
# XRDMA_MODROOT=DIR: the kernel's modules are DIR/lib/modules/KVER instead of
# the host's /lib/modules/KVER (the debug kernel, scripts/debug-kernel.sh).
set -euo pipefail

# shellcheck source=tools/testing/harness/host/lib.sh
. "$(dirname "$0")/lib.sh"

OUT=""
KVER=""
KOS=()
TDIRS=()
MODS=""
BINS=""
EXTRA=""
while getopts "o:k:K:T:m:b:x:" o; do
	case $o in
	o) OUT=$OPTARG ;;
	k) KVER=$OPTARG ;;
	K) KOS+=("$OPTARG") ;;
	T) TDIRS+=("$OPTARG") ;;
	m) MODS="$MODS $OPTARG" ;;
	b) BINS="$BINS $OPTARG" ;;
	x) EXTRA="$EXTRA $OPTARG" ;;
	*) xrdma_die "usage: see the head of $0" ;;
	esac
done
[ -n "$OUT" ] || xrdma_die "mkinitramfs: need -o OUT"
[ -n "$KVER" ] || KVER=$(xrdma_kver)
OUT=$(realpath -m "$OUT")
MD=/lib/modules/$KVER
MODROOT=${XRDMA_MODROOT:-}
MODROOT=${MODROOT%/}
[ -d "$MODROOT$MD" ] || xrdma_die "no $MODROOT$MD on the host (install linux-image-$KVER)"
MODPROBE_D=()
[ -n "$MODROOT" ] && MODPROBE_D=(-d "$MODROOT")

R=$(mktemp -d /tmp/xrdma-initramfs.XXXXXX)
chmod 755 "$R"	# the guest's /: unprivileged test processes reach /dev, /sys
trap 'rm -rf "$R"' EXIT
mkdir -p "$R"/{bin,sbin,usr/bin,usr/sbin,etc/xrdma,proc,sys,dev,tmp,run,root,lib64,mnt}
mkdir -p "$R"/lib/x86_64-linux-gnu "$R$MD/extra" "$R"/xrdma/tests/lib

# --- busybox (static) and its applet links
[ -x /bin/busybox ] || xrdma_die "busybox missing (apt-get install busybox-static)"
file -L /bin/busybox | grep -q 'statically linked' ||
	xrdma_die "/bin/busybox is not static (apt-get install busybox-static)"
cp /bin/busybox "$R"/bin/busybox
# one process instead of ~270 ln(1); the links point at the host's path
/bin/busybox --install -s "$R"/bin
bb=$(readlink "$R"/bin/sh)
if [ "$bb" != /bin/busybox ]; then
	mkdir -p "$R$(dirname "$bb")"
	ln -sf /bin/busybox "$R$bb"
fi

# --- files, plus the shared libraries of ELF files (ldd)
copy_one() { # SRC [DST]
	local src=$1 dst=${2:-$1}
	mkdir -p "$R$(dirname "$dst")"
	cp -L "$src" "$R$dst"
}
twin_link() { # EXISTING TWIN
	if [ -e "$R$2" ] || [ -L "$R$2" ]; then
		return 0
	fi
	mkdir -p "$R$(dirname "$2")"
	ln -s "$1" "$R$2"
}
copy_with_libs() { # SRC [DST]
	copy_one "$1" "${2:-$1}"
	file -L "$1" | grep -q 'ELF.*dynamically linked\|ELF.*shared object' || return 0
	copy_libs "$1"
}
copy_libs() { # ELF...: the shared libraries they load (one ldd for all)
	local lib
	# ldd names each file on a line of its own when given several;
	# the libraries are the indented lines
	ldd "$@" 2>/dev/null |
		awk '/=>/ {print $3} !/=>/ && /^[ \t]+\// {print $1}' | sort -u |
		while read -r lib; do
			if [ -z "$lib" ] || [ ! -e "$lib" ]; then
				continue
			fi
			[ -e "$R$lib" ] || copy_one "$lib"
			# the merged-/usr twin path as well, as a symlink
			case $lib in
			/lib/*) twin_link "$lib" "/usr$lib" ;;
			/usr/lib/*) twin_link "$lib" "${lib#/usr}" ;;
			esac
		done
}

# --- guest tests and the programs / Debian modules they declare; the
# tests, "NAME LIMIT SUBTEST FILE" a line (xrdma_tests_of), in
# /xrdma/tests.list for the runner
: >"$R/xrdma/tests.unsorted"
# the test files (-T DIR: DIR/*.sh) and the lib/ directories to ship
TFILES=()
TLIBS=()
if [ ${#TDIRS[@]} -gt 0 ]; then
	for d in "${TDIRS[@]}"; do
		[ -d "$d" ] || xrdma_die "no test directory $d"
		for t in "$d"/*.sh; do
			[ -f "$t" ] && TFILES+=("$t")
		done
		TLIBS+=("$d/lib")
	done
else
	xrdma_check_tests || xrdma_die "guest test names must be unique"
	mapfile -t TFILES < <(xrdma_test_files)
	TLIBS=("$XRDMA_GUEST_LIB")
	while read -r d; do TLIBS+=("$d/lib"); done < <(xrdma_extra_dirs)
fi
for t in "${TFILES[@]}"; do
	cp "$t" "$R/xrdma/tests/"
	xrdma_tests_of "$t" | while read -r n l s _; do
		echo "$n $l $s /xrdma/tests/${t##*/}"
	done >>"$R/xrdma/tests.unsorted"
	MODS="$MODS $(xrdma_test_field "$t" DEBIAN_MODULES)"
	BINS="$BINS $(xrdma_test_field "$t" PROGRAMS)"
	EXTRA="$EXTRA $(xrdma_test_field "$t" FILES)"
done
for d in "${TLIBS[@]}"; do
	if [ -d "$d" ]; then cp -a "$d/." "$R/xrdma/tests/lib/"; fi
done
sort -k1,1 "$R/xrdma/tests.unsorted" >"$R/xrdma/tests.list"
rm "$R/xrdma/tests.unsorted"
chmod -R a+rX "$R/xrdma"

for b in $BINS; do
	p=""
	if [ -e "$XRDMA_ROOT/$b" ]; then
		p=$XRDMA_ROOT/$b
	elif [ -e "$b" ]; then
		p=$b
	else
		p=$(command -v "$b" || true)
	fi
	if [ -z "$p" ]; then
		# the tests that need it fail on their own; the others still run
		xrdma_log "warning: program $b not found (not built?), not shipped"
		continue
	fi
	p=$(realpath "$p")
	copy_with_libs "$p" "/usr/bin/$(basename "$b")"
done

XKOS=" "
XDEPS=""
for x in $EXTRA; do
	src=${x%%:*}
	dst=${x#*:}
	[ "$dst" = "$x" ] && dst=$src
	if [ -d "$src" ]; then
		mkdir -p "$R$dst"
		cp -a "$src"/. "$R$dst"/
		# plugin directories (Open MPI's components, UCX's
		# transports): the libraries their ELF files need
		mapfile -d '' -t sos < <(find "$src" -type f -name '*.so*' -print0)
		[ ${#sos[@]} = 0 ] || copy_libs "${sos[@]}"
	else
		copy_with_libs "$src" "$dst"
	fi
	# kernel modules (a host fixture's, scripts/smbdirect-modules.sh):
	# what they depend on, by what modinfo says of each, since that
	# differs by kernel (6.1's cifs.ko needs fscache, 6.12's netfs and
	# nls_ucs2_utils); Debian's modules among it are shipped below
	while IFS= read -r -d '' ko; do
		n=${ko##*/}
		n=${n%%.ko*}
		XKOS="$XKOS ${n//-/_} "
		XDEPS="$XDEPS $(modinfo -F depends "$ko" | tr ',' ' ')"
	done < <(find "$src" -type f \( -name '*.ko' -o -name '*.ko.xz' \
		-o -name '*.ko.gz' -o -name '*.ko.zst' \) -print0)
done
# glibc dlopen()s libgcc_s for pthread_cancel/exit
l=/lib/x86_64-linux-gnu/libgcc_s.so.1
if [ -e "$l" ]; then
	copy_one "$l"
	twin_link "$l" "/usr$l"
fi
[ -e "$R"/lib64/ld-linux-x86-64.so.2 ] || cp -L /lib64/ld-linux-x86-64.so.2 "$R"/lib64/
[ -d /etc/iproute2 ] && cp -a /etc/iproute2 "$R"/etc/

# --- our modules
: >"$R"/xrdma/modules.list
ours=" "
for ko in "${KOS[@]}"; do
	ko=$(realpath "$ko")
	name=$(basename "$ko" .ko)
	rel=""
	for root in $(tr ':' ' ' <<<"${XRDMA_KO_DIRS:-}") "$XRDMA_ROOT"; do
		root=$(realpath "$root")
		case $ko in "$root"/*) rel=${ko#"$root"/}; break ;; esac
	done
	[ -n "$rel" ] || rel=$name.ko
	[ -e "$R$MD/extra/$name.ko" ] && xrdma_die "two modules named $name"
	# DWARF only bloats the initramfs (decode oopses with the host's .ko)
	strip --strip-debug -o "$R$MD/extra/$name.ko" "$ko"
	echo "$name $rel" >>"$R"/xrdma/modules.list
	ours="$ours$name "
done
# Debian modules our modules depend on are loaded at boot
: >"$R"/etc/xrdma/preload
for ko in "${KOS[@]}"; do
	for dep in $(modinfo -F depends "$ko" | tr ',' ' '); do
		case $ours in *" $dep "* | *" ${dep//-/_} "*) continue ;; esac
		echo "$dep" >>"$R"/etc/xrdma/preload
		MODS="$MODS $dep"
	done
done
# those the -x modules depend on are shipped, unless -x or -K has them (the
# DKMS fixture's xrdma_ib needs its own xrdma_core)
for dep in $XDEPS; do
	case $ours$XKOS in *" ${dep//-/_} "*) continue ;; esac
	MODS="$MODS $dep"
done

# --- Debian modules, with dependencies resolved on the host
for m in $MODS; do
	if [ -n "$MODROOT" ]; then
		# a kernel of our own (debug) lacks what it was not built
		# with (rdma_rxe...): the tests needing it fail on their own
		modprobe "${MODPROBE_D[@]}" -S "$KVER" --show-depends "$m" 2>/dev/null ||
			xrdma_log "warning: module $m not in $MODROOT$MD, not shipped"
		continue
	fi
	modprobe -S "$KVER" --show-depends "$m" ||
		xrdma_die "Debian module $m not found for $KVER"
done | awk '$1=="insmod" {print $2}' | awk '!seen[$0]++' | while read -r ko; do
	rel=${ko#"$MODROOT$MD"/}
	dst=$R$MD/${rel%.xz}
	dst=${dst%.zst}
	dst=${dst%.gz}
	mkdir -p "$(dirname "$dst")"
	case $ko in
	*.ko.xz) xz -dc "$ko" >"$dst" ;;
	*.ko.zst) zstd -qdc "$ko" >"$dst" ;;
	*.ko.gz) gzip -dc "$ko" >"$dst" ;;
	*) cp "$ko" "$dst" ;;
	esac
	for fw in $(modinfo -F firmware "$ko" 2>/dev/null); do
		if [ -e "/lib/firmware/$fw" ]; then
			copy_one "/lib/firmware/$fw"
		else
			xrdma_log "warning: firmware $fw not on the host"
		fi
	done
done
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -e "$MODROOT$MD/$f" ] && cp "$MODROOT$MD/$f" "$R$MD/"
done
depmod -b "$R" "$KVER"

# --- runner, configuration
echo "$KVER" >"$R"/etc/xrdma/kver
# the kernel's request_module() runs /sbin/modprobe
ln -sf ../bin/busybox "$R"/sbin/modprobe
# Debian's busybox-static runs its own applets before $PATH, so shipped
# programs sharing an applet's name get wrapper functions (sourced by tests).
: >"$R"/etc/xrdma/funcs
for f in "$R"/usr/bin/* "$R"/usr/sbin/*; do
	[ -e "$f" ] || continue
	n=$(basename "$f")
	if [ -L "$R/bin/$n" ]; then
		echo "$n() { ${f#"$R"} \"\$@\"; }" >>"$R"/etc/xrdma/funcs
	fi
done
echo "root:x:0:0:root:/root:/bin/sh" >"$R"/etc/passwd
echo "root:x:0:" >"$R"/etc/group
printf '127.0.0.1 localhost\n' >"$R"/etc/hosts
install -m 0755 "$XRDMA_HARNESS/guest/init.sh" "$R"/init

mkdir -p "$(dirname "$OUT")"
case $OUT in
*.gz) (cd "$R" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$OUT" ;;
*) (cd "$R" && find . -print0 | cpio --null -o -H newc --quiet) >"$OUT" ;;
esac
xrdma_log "built $OUT ($(du -h "$OUT" | cut -f1); modules:$ours)"
