# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# SMB Direct in a guest: ksmbd serving a share over RDMA and the SMB client
# (cifs) mounting it with "-o rdma", both built with SMB Direct by
# scripts/smbdirect-modules.sh (Debian compiles it out) and shipped at
# $SMB_KO_DIR by the test header line
#     # XRDMA_PREPARE: scripts/smbdirect-modules.sh /xrdma/smbdirect
# Used by tools/testing/ulp/smb/ulp_smb.sh and the bench
# (tools/testing/bench/bench-smb.sh).  The RDMA transport is the caller's
# (lib/ulp.sh's ulp_fabric_up): an RDMA device whose netdev holds $1 of
# smb_up.  The functions print why they failed and return 1; they do not
# call fail, so the bench can use them too.
#
# The header must also ship (besides lib/ulp.sh's needs):
#     # XRDMA_DEBIAN_MODULES: rdma_cm nls_utf8 sha512_generic cmac ecb gcm ccm md4
# The Debian modules cifs.ko and ksmbd.ko depend on differ by kernel
# (fscache on 6.1, netfs and nls_ucs2_utils on 6.12): modinfo of the
# fixture names them, to tools/testing/harness/host/mkinitramfs.sh, which ships them,
# and to smb_modules_up / smb_down here.
#     # XRDMA_PROGRAMS: ksmbd.mountd ksmbd.adduser ksmbd.control mount.cifs
#     # XRDMA_PROGRAMS: tools/testing/ulp/smb/ksmbd_compat.so
#
# smb_modules_up / smb_modules_down
#     modprobe what they depend on, insmod (by path, in place of
#     Debian's) / rmmod cifs.ko and ksmbd.ko
# smb_server_up
#     a tmpfs at $SMB_SHARE exported as "share" (user $SMB_USER) by
#     ksmbd.mountd with its configuration in $SMB_ETC
# smb_mount IP [OPTIONS]
#     mount.cifs //IP/share $SMB_MNT -o rdma,vers=3.1.1,...[,OPTIONS]
# smb_is_rdma
#     /proc/fs/cifs/DebugData shows an SMB Direct connection of the mount
#     (prints its lines)
# smb_counter NAME
#     one counter of the SMB Direct connection (DebugData, hex -> decimal)
# smb_down
#     umount, stop ksmbd (ksmbd.control -s), rmmod cifs and ksmbd, the
#     Debian modules they depend on but ib_core (none with
#     SMB_KEEP_DEPS=1) and what those depend on in turn unless something
#     else holds it (configfs, mounted by ulp_nvme.sh...), the tmpfs; 1
#     when something stays (printed)

SMB_KO_DIR=/xrdma/smbdirect
SMB_ROOT=${XRDMA_TMP:-/tmp}/smb
SMB_SHARE=$SMB_ROOT/share
SMB_MNT=$SMB_ROOT/mnt
SMB_ETC=$SMB_ROOT/etc
SMB_USER=xrdma
SMB_PASS=xrdma-smb-test
# what cifs.ko and ksmbd.ko ask of the crypto API and NLS (their
# softdeps, the mount's options); the modules they depend on are their
# modinfo's (_smb_deps)
SMB_CRYPTO="nls_utf8 sha512_generic cmac ecb gcm ccm md4"

_smb_err() { echo "smb: $*" >&2; }

# _smb_deps: the modules cifs.ko and ksmbd.ko depend on (modinfo), a line
# each, ib_core and rdma_cm among them
_smb_deps() {
	_sd=$(modinfo -F depends "$SMB_KO_DIR/cifs.ko") || return 1
	_sd="$_sd,$(modinfo -F depends "$SMB_KO_DIR/ksmbd.ko")" || return 1
	echo "$_sd" | tr ',' '\n' | awk 'NF && !seen[$0]++'
}

# _smb_unload_order: _smb_deps and what they depend on in turn, but
# ib_core and its own dependencies (the fabric's, lib/ulp.sh), "NAME
# named|dep" a line, every module before those it depends on (mod_order)
_smb_unload_order() {
	_skeep=" $(mod_order -a ib_core | cut -d' ' -f1 | tr '\n' ' ') "
	# shellcheck disable=SC2046 # a list
	mod_order -a $(_smb_deps) | while read -r _sm _sw; do
		case $_skeep in *" $_sm "*) ;; *) echo "$_sm $_sw" ;; esac
	done
}

smb_modules_up() {
	for _sm in cifs ksmbd; do
		if module_loaded $_sm; then
			_smb_err "$_sm is already loaded (Debian's, without SMB Direct?)"
			return 1
		fi
		[ -f "$SMB_KO_DIR/$_sm.ko" ] || {
			_smb_err "$SMB_KO_DIR/$_sm.ko missing: scripts/smbdirect-modules.sh did not run or failed (see the host's guest-test output)"
			return 1
		}
	done
	_sdeps=$(_smb_deps) || {
		_smb_err "modinfo cannot read $SMB_KO_DIR/cifs.ko or ksmbd.ko"
		return 1
	}
	for _sm in $_sdeps $SMB_CRYPTO; do
		module_loaded "$_sm" || modprobe "$_sm" || {
			_smb_err "modprobe $_sm failed"
			return 1
		}
	done
	for _sm in cifs ksmbd; do
		insmod "$SMB_KO_DIR/$_sm.ko" || {
			_smb_err "insmod $SMB_KO_DIR/$_sm.ko failed"
			return 1
		}
	done
}

smb_server_up() {
	mkdir -p "$SMB_SHARE" "$SMB_MNT" "$SMB_ETC" || return 1
	mount -t tmpfs -o size=160m smbshare "$SMB_SHARE" || {
		_smb_err "cannot mount a tmpfs at $SMB_SHARE"
		return 1
	}
	# ksmbd maps its users and its guest account to system accounts
	[ -f "$SMB_ROOT/passwd.orig" ] || cp /etc/passwd "$SMB_ROOT/passwd.orig"
	grep -q '^nobody:' /etc/passwd ||
		echo 'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' >>/etc/passwd
	grep -q "^$SMB_USER:" /etc/passwd ||
		echo "$SMB_USER:x:0:0:$SMB_USER:/root:/bin/sh" >>/etc/passwd
	cat >"$SMB_ETC/ksmbd.conf" <<EOF
[global]
	netbios name = XRDMA
	server signing = disabled
	server multi channel support = no
	smb3 encryption = no
	map to guest = never
	; 6.1.192's ksmbd dereferences a NULL oplock of a file (close,
	; smb2_open) unless the file has one: oplocks on, and the client
	; asks for oplocks rather than leases (nolease; its lease paths
	; corrupted a list now and then)
	smb2 leases = no
[share]
	path = $SMB_SHARE
	read only = no
	browseable = yes
	valid users = $SMB_USER
	store dos attributes = no
	oplocks = yes
EOF
	# a user database of an earlier run in this boot: adduser refuses it
	rm -f "$SMB_ETC/ksmbdpwd.db"
	ksmbd.adduser -c "$SMB_ETC/ksmbd.conf" -i "$SMB_ETC/ksmbdpwd.db" \
		-a "$SMB_USER" -p "$SMB_PASS" >"$SMB_ROOT/adduser.log" 2>&1 || {
		cat "$SMB_ROOT/adduser.log" >&2
		_smb_err "ksmbd.adduser failed"
		return 1
	}
	# ksmbd-tools log to syslog: busybox syslogd into a file
	if ! pidof syslogd >/dev/null 2>&1; then
		syslogd -O "$SMB_ROOT/syslog" && echo 1 >"$SMB_ROOT/syslogd.ours"
	fi
	echo all >/sys/class/ksmbd-control/debug 2>/dev/null
	# in the foreground of a background job: its log in mountd.log
	# Debian 12's ksmbd-tools 3.4.7 predate the share config reply's
	# payload_sz that its 6.1 kernel checks (tools/testing/ulp/smb/ksmbd_compat.c)
	_spre=
	[ -f /usr/bin/ksmbd_compat.so ] && _spre=/usr/bin/ksmbd_compat.so
	LD_PRELOAD=$_spre ksmbd.mountd -n -v -c "$SMB_ETC/ksmbd.conf" -u "$SMB_ETC/ksmbdpwd.db" \
		>"$SMB_ROOT/mountd.log" 2>&1 &
	echo $! >"$SMB_ROOT/mountd.pid"
	# the kernel server runs once mountd has started it
	_sn=0
	until [ "$(cat /sys/class/ksmbd-control/stats 2>/dev/null)" != "" ] &&
		grep -q 'running' /sys/class/ksmbd-control/stats 2>/dev/null; do
		_sn=$((_sn + 1))
		[ $_sn -le $((100 * ${XRDMA_TIMEOUT_SCALE:-1})) ] || {
			cat "$SMB_ROOT/mountd.log" >&2
			_smb_err "ksmbd not running 10 s after ksmbd.mountd ($(cat /sys/class/ksmbd-control/stats 2>/dev/null))"
			return 1
		}
		sleep 0.1
	done
}

smb_mount() {
	# cifs sizes its receive queue to exactly its receive credits (255)
	# and posts them all; at teardown ib_drain_rq() then finds no room
	# for its drain WR ("failed to drain recv queue: -12", a WARN, seen
	# on rxe).  One credit less leaves a slot free (rxe rounds 255 up to
	# 255 usable entries): a limitation of 6.1's cifs, not of the stack
	echo 254 >/proc/fs/cifs/smbd_receive_credit_max || {
		_smb_err "cannot set /proc/fs/cifs/smbd_receive_credit_max"
		return 1
	}
	_so="rdma,vers=3.1.1,username=$SMB_USER,password=$SMB_PASS,cache=none"
	_so="$_so,noserverino,nolease${2:+,$2}"
	mount.cifs "//$1/share" "$SMB_MNT" -o "$_so" >"$SMB_ROOT/mount.log" 2>&1 || {
		cat "$SMB_ROOT/mount.log" >&2
		tail -n 30 "$SMB_ROOT/mountd.log" "$SMB_ROOT/syslog" >&2
		ps >&2
		dmesg | grep -iE 'cifs|smb|ksmbd' | tail -n 20 >&2
		_smb_err "mount.cifs //$1/share -o rdma,... failed"
		return 1
	}
	grep -q " $SMB_MNT cifs " /proc/mounts || {
		_smb_err "mount.cifs succeeded but $SMB_MNT is no cifs mount"
		return 1
	}
}

smb_is_rdma() {
	_sd=$(cat /proc/fs/cifs/DebugData 2>/dev/null)
	echo "$_sd" | grep -E 'SMBDirect|Conn |Debug count|Read Queue|Send Queue|MR '
	echo "$_sd" | grep -q 'SMBDirect (in hex) protocol version: 100 ' || return 1
	echo "$_sd" | grep -q 'SMBDirect transport not available' && return 1
	return 0
}

smb_counter() {
	_sv=$(sed -n "s/.*[ \t]$1: \([0-9a-f]*\).*/\1/p" /proc/fs/cifs/DebugData |
		head -n 1)
	[ -n "$_sv" ] || return 1
	echo $((0x$_sv))
}

# _smb_server_conns: ksmbd's rdma_cm ids that are not listeners, one a line
_smb_server_conns() {
	/usr/bin/rdma res show cm_id 2>/dev/null | grep 'comm \[ksmbd\]' |
		grep -v 'state LISTEN'
}

_smb_no_server_conns() { [ -z "$(_smb_server_conns)" ]; }

# _smb_unused MODULE: nothing holds MODULE (its refcnt is 0)
_smb_unused() { [ "$(cat /sys/module/"$1"/refcnt 2>/dev/null)" = 0 ]; }

smb_down() {
	_sbad=0
	if grep -q " $SMB_MNT cifs " /proc/mounts; then
		umount "$SMB_MNT" || { _smb_err "umount $SMB_MNT failed"; _sbad=1; }
	fi
	# ksmbd 6.1's stop_sessions (ksmbd.control -s) walks its list of
	# connections and drops the list's lock around each one's shutdown:
	# a connection ending meanwhile -- its client has just unmounted,
	# and the server tears it down on its own -- is freed under the walk
	# (a general protection fault in ksmbd_conn_transport_destroy, seen
	# in the bench).  So the server stops only once its connections are
	# gone: no rdma_cm id of ksmbd but its listeners (free_transport
	# destroys a connection's id, then frees the connection).
	if [ -e /sys/class/ksmbd-control/kill_server ] &&
		! wait_for 10 _smb_no_server_conns; then
		_smb_err "ksmbd still has connections 10 s after the umount: $(_smb_server_conns | tr '\n' ';')"
		_sbad=1
	fi
	if [ -e /sys/class/ksmbd-control/kill_server ]; then
		ksmbd.control -s >/dev/null 2>&1 ||
			echo hard >/sys/class/ksmbd-control/kill_server 2>/dev/null
	fi
	# mountd's processes end once the server is down
	_sn=0
	while pidof ksmbd.mountd >/dev/null 2>&1; do
		_sn=$((_sn + 1))
		if [ $_sn -gt 100 ]; then
			_smb_err "ksmbd.mountd still running 10 s after ksmbd.control -s"
			pidof ksmbd.mountd | xargs kill -9 2>/dev/null
			_sbad=1
			break
		fi
		sleep 0.1
	done
	# cifs's demultiplex thread (cifsd) ends after the umount returns
	# and drops its module reference as it exits (module_put_and_
	# kthread_exit), ksmbd's connection handlers likewise: rmmod at once
	# can find the module still in use (EAGAIN).  Wait for the last
	# reference, bounded; rmmod then says what is left.
	for _sm in cifs ksmbd; do
		module_loaded $_sm || continue
		wait_for 10 _smb_unused $_sm ||
			echo "# smb: $_sm still referenced 10 s after its users ended (refcnt $(cat /sys/module/$_sm/refcnt 2>/dev/null))"
		rmmod_timed $_sm || { _smb_err "rmmod $_sm failed"; _sbad=1; }
	done
	# SMB_KEEP_DEPS=1 (the bench, whose other rows use rdma_cm and NFS):
	# only cifs and ksmbd go
	_sdeps=""
	[ "${SMB_KEEP_DEPS:-0}" = 1 ] || _sdeps=$(_smb_unload_order)
	_sdirect=""
	while read -r _sm _sk; do
		[ -n "$_sm" ] || continue
		[ "$_sk" = named ] && _sdirect="$_sdirect $_sm"
		module_loaded "$_sm" || continue
		# a dependency of a dependency that something else holds
		# stays (configfs under a mount, ...)
		if [ "$_sk" = dep ] &&
			[ "$(cat /sys/module/"$_sm"/refcnt 2>/dev/null)" != 0 ]; then
			echo "# smb: $_sm stays loaded (refcnt $(cat /sys/module/"$_sm"/refcnt))"
			continue
		fi
		rmmod_timed "$_sm" || { _smb_err "rmmod $_sm failed"; _sbad=1; }
	done <<EOF
$_sdeps
EOF
	# library modules: nls_utf8 keeps a reference after cifs and ksmbd
	# are gone (6.1.192; not ours to fix), so these are only noted
	for _sm in $SMB_CRYPTO; do
		module_loaded "$_sm" || continue
		rmmod "$_sm" 2>/dev/null ||
			echo "# smb: $_sm stays loaded (refcnt $(cat /sys/module/"$_sm"/refcnt))"
	done
	grep -q " $SMB_SHARE tmpfs " /proc/mounts && umount "$SMB_SHARE"
	[ -f "$SMB_ROOT/passwd.orig" ] && cp "$SMB_ROOT/passwd.orig" /etc/passwd
	for _sm in cifs ksmbd $_sdirect; do
		module_loaded "$_sm" && { _smb_err "$_sm still loaded"; _sbad=1; }
	done
	return $_sbad
}
