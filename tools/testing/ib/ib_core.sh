# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 180
# XRDMA_DEBIAN_MODULES: ib_core rdma_cm null_blk nvmet nvmet_rdma nvme_rdma
# XRDMA_PROGRAMS: /usr/bin/rdma /usr/bin/ip /usr/bin/dd /usr/bin/cmp
#
# xrdma_ib (drivers/ib): xnic devices as ib_core devices, with Debian's
# unmodified ib_core and ULPs (Documentation/core.rst, "xrdma_ib"):
#   sysfs   xnic0 appears in /sys/class/infiniband with the xrdma device's
#           node GUID, CA node type, the xnic platform device as parent
#           (device/numa_node), an ACTIVE Ethernet port with RoCE v1 and v2
#           GIDs on the port's netdev; "rdma dev", "rdma link" and
#           "rdma res" show it.  A device without a netdev is registered
#           only with roce_only=0 (for a tree without the Ethernet function)
#   gsi     ib_mad's QP1 on xnic0 (GSI: QPN 1, RTS) in "rdma res show qp"
#   unload  unload in both orders: xrdma_ib first (the ib device goes, xnic
#           keeps working, no object left on it), then xnic first while
#           ib_core and rdma_cm hold the ib device; every module unloads
#   nvme    rdma_cm loopback smoke: nvmet-rdma (use_srq=1: its receives
#           through SRQs) listens on the xnic netdev's address and exports
#           a file, nvme-rdma connects through
#           /dev/nvme-fabrics, 1 MiB of random data written and read back
#           with direct I/O is the same, the ULPs' PDs and RC QPs are in
#           "rdma res", disconnect, and the stack unloads
#   remove  rmmod xnic under a live NVMe-oF connection with writes running:
#           rmmod completes, the writer ends, the controller goes away,
#           everything unloads (no splat: the harness checks the console)
# XRDMA_SUBTEST: sysfs 120
# XRDMA_SUBTEST: gsi 120
# XRDMA_SUBTEST: unload 180
# XRDMA_SUBTEST: nvme 300
# XRDMA_SUBTEST: remove 300

# not built against a kernel without ib_core (the debug guest kernel)
require_ko xrdma_ib
ib=$(xko xrdma_ib) || exit 1
IBD=/sys/class/infiniband/xnic0
IP=198.18.0.1

# ib_down: unload what this test loads, ours and the ULPs' modules
ib_down() {
	module_loaded xrdma_ib && rmmod xrdma_ib
	xnic_stack_down
	# the ULPs the header loads: no later test finds them holding rdma_cm
	for _m in $(mod_order nvme_rdma nvme_fabrics nvme_core nvmet_rdma nvmet null_blk); do
		! module_loaded "$_m" || rmmod "$_m"
	done
}

bail() {
	ib_down 2>/dev/null
	fail "$*"
}

# xnic0's netdev (the xnic Ethernet function), empty if it has none
xnic_netdev() {
	_pd=$(readlink -f /sys/class/xrdma_device/xnic0/device)
	for _n in /sys/class/net/*; do
		[ "$(readlink -f "$_n/device" 2>/dev/null)" = "$_pd" ] || continue
		echo "${_n##*/}"
		return 0
	done
}

# ib_up: the xnic stack and xrdma_ib; NETDEV is xnic0's netdev or empty
# (then roce_only=0, after checking that the default registers nothing)
ib_up() {
	xnic_stack_up 1
	mount_debugfs
	wait_xrdma_dev xnic0 || bail "xnic0 did not appear"
	NETDEV=$(xnic_netdev)
	if [ -n "$NETDEV" ]; then
		insmod "$ib" || bail "insmod xrdma_ib"
	else
		note "xnic0 has no netdev (no Ethernet function): roce_only=0"
		insmod "$ib" || bail "insmod xrdma_ib"
		sleep 1
		[ ! -e $IBD ] || bail "xnic0 registered without a netdev"
		rmmod xrdma_ib || bail "rmmod xrdma_ib"
		insmod "$ib" roce_only=0 || bail "insmod xrdma_ib roce_only=0"
	fi
	wait_for 10 test -d $IBD || bail "no $IBD"
}

need_netdev() {
	[ -n "$NETDEV" ] || bail "xnic0 has no netdev: needs the Ethernet function"
}

# the ib_core address of xnic0's port 1 up on its netdev
netdev_ip_up() {
	need_netdev
	ip link set "$NETDEV" up || bail "ip link set $NETDEV up"
	ip addr add $IP/24 dev "$NETDEV" || bail "ip addr add $IP on $NETDEV"
	# roce_gid_mgmt adds ::ffff:198.18.0.1 (v1 and v2) from the address
	wait_for 10 grep -qs "^0000:0000:0000:0000:0000:ffff:c612:0001$" \
		$IBD/ports/1/gids/* || {
		grep -s . $IBD/ports/1/gids/* | grep -v ':0000$'
		bail "no GID for $IP in xnic0's table"
	}
}

t_sysfs() {
	ib_up
	uv=$(uverbs_of xnic0) || bail "no uverbs device of xnic0"
	guid=$(cat "/sys/class/xrdma/$uv/node_guid")
	assert_eq "$(cat $IBD/node_guid)" "$guid" "ib node_guid"
	assert_eq "$(cat $IBD/sys_image_guid)" "$guid" "ib sys_image_guid"
	assert_eq "$(cat $IBD/node_type)" "1: CA" "node_type"
	assert_eq "$(readlink -f $IBD/device)" \
		"$(readlink -f /sys/class/xrdma_device/xnic0/device)" "parent"
	# (a kernel without CONFIG_NUMA, the debug guest's, has no such
	# attribute on any device)
	[ ! -d /sys/devices/system/node ] ||
		grep -qE '^-?[0-9]+$' $IBD/device/numa_node || fail "no device/numa_node"
	assert_eq "$(cat $IBD/ports/1/link_layer)" "Ethernet" "link_layer"
	assert_eq "$(cat $IBD/ports/1/state)" "4: ACTIVE" "port state"
	assert_eq "$(cat $IBD/ports/1/phys_state)" "5: LinkUp" "phys_state"
	assert_exists $IBD/ports/1/gid_attrs/types/0
	assert_absent /dev/infiniband/uverbs0
	rdma dev show xnic0 >"$XRDMA_TMP/dev" 2>&1
	cat "$XRDMA_TMP/dev"
	grep -q "xnic0: node_type ca.* node_guid $guid " "$XRDMA_TMP/dev" ||
		bail "rdma dev: no CA xnic0 with node_guid $guid"
	rdma link show xnic0/1 >"$XRDMA_TMP/link" 2>&1
	cat "$XRDMA_TMP/link"
	grep -q "xnic0/1 state ACTIVE physical_state LINK_UP" "$XRDMA_TMP/link" ||
		bail "rdma link: xnic0/1 not ACTIVE/LINK_UP"
	rdma res show >"$XRDMA_TMP/res" 2>&1
	cat "$XRDMA_TMP/res"
	grep -q "^[0-9]*: xnic0: " "$XRDMA_TMP/res" || bail "rdma res: no xnic0"

	if [ -n "$NETDEV" ]; then
		# the default GIDs fe80::<node GUID>, v1 and v2, on the netdev
		g=$(echo "$guid" | tr -d :)
		want=fe80:0000:0000:0000:$(echo "$g" | cut -c1-4):$(echo "$g" | cut -c5-8):$(echo "$g" | cut -c9-12):$(echo "$g" | cut -c13-16)
		assert_eq "$(cat $IBD/ports/1/gids/0)" "$want" "GID 0"
		assert_eq "$(cat $IBD/ports/1/gids/1)" "$want" "GID 1"
		assert_eq "$(cat $IBD/ports/1/gid_attrs/types/0)" "IB/RoCE v1" \
			"GID 0 type"
		assert_eq "$(cat $IBD/ports/1/gid_attrs/types/1)" "RoCE v2" \
			"GID 1 type"
		assert_eq "$(cat $IBD/ports/1/gid_attrs/ndevs/0)" "$NETDEV" \
			"GID 0 netdev"
		grep -q "netdev $NETDEV" "$XRDMA_TMP/link" ||
			bail "rdma link: no netdev $NETDEV"
		netdev_ip_up
	else
		note "no netdev: GID checks left out"
	fi
	ib_down
	assert_absent $IBD
}

t_gsi() {
	ib_up
	# ib_mad (in ib_core) creates QP1 when the device registers
	wait_for 10 sh -c 'rdma res show qp link xnic0/1 lqpn 1 2>/dev/null |
		grep -q "lqpn 1 .*type GSI state RTS"' || {
		rdma res show qp
		dmesg | grep -i 'mad\|xnic0' | tail -n 20
		bail "no GSI QP1 in RTS on xnic0"
	}
	rdma res show qp link xnic0/1
	ib_down
}

t_unload() {
	ib_up
	# xrdma_ib first: the ib device goes, ib_core's objects with it
	rmmod_timed xrdma_ib || bail "rmmod xrdma_ib"
	assert_absent $IBD
	xnic_no_objects xnic0 || {
		cat "$XRDMA_DEBUGFS/xrdma/xnic0/resources"
		bail "objects left on xnic0 after rmmod xrdma_ib"
	}
	# and back, then the device goes away under ib_core and rdma_cm
	if [ -n "$NETDEV" ]; then
		insmod "$ib" || bail "insmod xrdma_ib again"
	else
		insmod "$ib" roce_only=0 || bail "insmod xrdma_ib again"
	fi
	wait_for 10 test -d $IBD || bail "no $IBD after insmod again"
	rmmod_timed xnic || bail "rmmod xnic under ib_core"
	assert_absent $IBD
	rmmod_timed xrdma_ib || bail "rmmod xrdma_ib after xnic"
	xnic_stack_down
	for m in xrdma_ib xnic xnic_sim xrdma_uverbs xrdma_core; do
		! module_loaded $m || fail "module $m still loaded"
	done
}

NVMET=/sys/kernel/config/nvmet

nvmet_down() {
	rm -f $NVMET/ports/1/subsystems/xib 2>/dev/null
	rmdir $NVMET/ports/1 2>/dev/null
	[ -d $NVMET/subsystems/xib/namespaces/1 ] &&
		echo 0 >$NVMET/subsystems/xib/namespaces/1/enable
	rmdir $NVMET/subsystems/xib/namespaces/1 2>/dev/null
	rmdir $NVMET/subsystems/xib 2>/dev/null
}

# nvme_connect: nvmet-rdma exports a 4 MiB file at $IP on xnic0's netdev
# and nvme-rdma connects to it; CTRL is the host's controller (nvmeN)
nvme_connect() {
	ib_up
	netdev_ip_up
	img=$XRDMA_TMP/ns.img
	dd if=/dev/zero of="$img" bs=1M count=4 2>/dev/null || bail "$img"
	grep -q " /sys/kernel/config " /proc/mounts ||
		mount -t configfs none /sys/kernel/config || bail "configfs"
	s=$NVMET/subsystems/xib
	if ! { mkdir $s && echo 1 >$s/attr_allow_any_host &&
		mkdir $s/namespaces/1 &&
		echo -n "$img" >$s/namespaces/1/device_path &&
		echo 1 >$s/namespaces/1/buffered_io &&
		echo 1 >$s/namespaces/1/enable &&
		mkdir $NVMET/ports/1 &&
		echo rdma >$NVMET/ports/1/addr_trtype &&
		echo ipv4 >$NVMET/ports/1/addr_adrfam &&
		echo $IP >$NVMET/ports/1/addr_traddr &&
		echo 4420 >$NVMET/ports/1/addr_trsvcid &&
		ln -s $s $NVMET/ports/1/subsystems/xib; }; then
		nvmet_down
		bail "nvmet configuration"
	fi
	exec 3<>/dev/nvme-fabrics || { nvmet_down; bail "no /dev/nvme-fabrics"; }
	echo "transport=rdma,traddr=$IP,trsvcid=4420,nqn=xib" >&3 || {
		exec 3>&-
		dmesg | tail -n 30
		nvmet_down
		bail "nvme-rdma connect to $IP over xnic0 failed"
	}
	read -r line <&3
	exec 3>&-
	note "connected: $line"
	inst=$(echo "$line" | sed -n 's/^instance=\([0-9]*\),.*/\1/p')
	[ -n "$inst" ] || { nvmet_down; bail "no instance in '$line'"; }
	CTRL=nvme$inst
	wait_for 10 test -b "/dev/${CTRL}n1" || {
		echo 1 >"/sys/class/nvme/$CTRL"/delete_controller
		nvmet_down
		bail "no /dev/${CTRL}n1"
	}
	assert_eq "$(cat "/sys/class/nvme/$CTRL"/transport)" rdma "transport"
}

t_nvme() {
	# the target receives through SRQs (ULP path of the SRQ verbs)
	{ rmmod nvmet_rdma && modprobe nvmet_rdma use_srq=1; } ||
		fail "modprobe nvmet_rdma use_srq=1"
	nvme_connect
	ctrl=$CTRL
	grep -q "^srq [1-9]" "$XRDMA_DEBUGFS/xrdma/xnic0/resources" || {
		cat "$XRDMA_DEBUGFS/xrdma/xnic0/resources"
		echo 1 >"/sys/class/nvme/$ctrl"/delete_controller
		nvmet_down
		bail "nvmet_rdma use_srq=1 made no SRQ on xnic0"
	}
	rdma res show qp link xnic0/1 >"$XRDMA_TMP/qps" 2>&1
	rdma res show pd dev xnic0 >"$XRDMA_TMP/pds" 2>&1
	cat "$XRDMA_TMP/qps" "$XRDMA_TMP/pds"
	ok=1
	# admin and I/O queue, each a QP pair (host and target)
	[ "$(grep -c "type RC state RTS" "$XRDMA_TMP/qps")" -ge 4 ] || ok=0
	grep -q "comm \[nvme_rdma\]" "$XRDMA_TMP/pds" || ok=0
	grep -q "comm \[nvmet_rdma\]" "$XRDMA_TMP/pds" || ok=0
	dd if=/dev/urandom of="$XRDMA_TMP/pat" bs=4096 count=256 2>/dev/null
	/usr/bin/dd if="$XRDMA_TMP/pat" of="/dev/${ctrl}n1" bs=64k conv=nocreat \
		oflag=direct 2>/dev/null || ok=2
	[ $ok != 1 ] || /usr/bin/dd if="/dev/${ctrl}n1" of="$XRDMA_TMP/back" \
		bs=64k count=16 iflag=direct 2>/dev/null || ok=3
	[ $ok != 1 ] || cmp "$XRDMA_TMP/pat" "$XRDMA_TMP/back" || ok=4
	echo 1 >"/sys/class/nvme/$ctrl"/delete_controller
	wait_for 20 test ! -e "/sys/class/nvme/$ctrl" ||
		note "$ctrl still there after delete_controller"
	nvmet_down
	[ $ok = 1 ] || bail "nvme over xnic0 (0: QPs/PDs missing in rdma res, 2: write, 3: read, 4: data differ): $ok"
	for m in nvme_rdma nvmet_rdma; do
		rmmod_timed $m || bail "rmmod $m"
	done
	ib_down
	! module_loaded xrdma_ib || fail "xrdma_ib still loaded"
}

# the device goes away under a live NVMe-oF connection with I/O running:
# rmmod xnic completes, ib_core's DEVICE_REMOVAL reaches nvme-rdma and
# nvmet-rdma, whose own error handling ends the I/O with an error
t_remove() {
	nvme_connect
	# writes over the whole namespace, again and again until one fails
	(
		n=0
		# conv=nocreat: once the node is gone, no regular file in its
		# place (a later controller's namespace could not appear)
		while /usr/bin/dd if=/dev/zero of="/dev/${CTRL}n1" bs=64k \
			count=64 conv=nocreat oflag=direct 2>"$XRDMA_TMP/dd.out"; do
			n=$((n + 1))
		done
		echo "$n passes, then: $(tail -n 1 "$XRDMA_TMP/dd.out")" \
			>"$XRDMA_TMP/dd.res"
	) &
	ddpid=$!
	sleep 1
	rmmod_timed xnic || bail "rmmod xnic under a live nvme connection"
	assert_absent $IBD
	# the writer ends: its device went away
	wait_for 60 sh -c "! kill -0 $ddpid 2>/dev/null" || {
		kill -9 $ddpid
		bail "I/O to /dev/${CTRL}n1 hangs after rmmod xnic"
	}
	wait $ddpid
	note "writer: $(cat "$XRDMA_TMP/dd.res")"
	[ ! -f "/dev/${CTRL}n1" ] || {
		rm -f "/dev/${CTRL}n1"
		fail "the writer left a regular file /dev/${CTRL}n1"
	}
	# nvme-rdma's ib_client removed the controller with the device
	wait_for 60 test ! -e "/sys/class/nvme/$CTRL" ||
		bail "$CTRL still there 60 s after the device went away"
	nvmet_down
	for m in nvme_rdma nvmet_rdma xrdma_ib; do
		rmmod_timed $m || bail "rmmod $m"
	done
	xnic_stack_down
	for m in xrdma_ib xnic xnic_sim xrdma_uverbs xrdma_core; do
		! module_loaded $m || fail "module $m still loaded"
	done
}

case ${XRDMA_SUBTEST:-} in
sysfs) t_sysfs ;;
gsi) t_gsi ;;
unload) t_unload ;;
nvme) t_nvme ;;
remove) t_remove ;;
*) fail "no such subtest: '${XRDMA_SUBTEST:-}'" ;;
esac
ib_down
exit 0
