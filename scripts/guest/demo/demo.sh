# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# XRDMA_TIMEOUT: 60
#
# Guest side of scripts/demo.sh: load the xrdma stack (our modules under
# drivers/), show what it registered, unload it.

mount_debugfs

section() { printf '\n== %s\n' "$*"; }

# The stack: our modules built from drivers/, core first, test fixtures
# (names containing "test") left out, unless the kernel command line names
# them: xrdma.demo_modules=a,b,c (scripts/demo.sh: XRDMA_DEMO_MODULES).
stack=$(awk '$2 ~ /^drivers\// && $1 !~ /test/ {
	print ($2 ~ /^drivers\/core\// ? 0 : 1), $1 }' /xrdma/modules.list |
	sort | awk '{ print $2 }')
read -r cmdline </proc/cmdline
for kv in $cmdline; do
	case $kv in xrdma.demo_modules=*) stack=$(echo "${kv#*=}" | tr ',' ' ') ;; esac
done

section "modules built"
awk '{ printf "  %-20s %s\n", $1, $2 }' /xrdma/modules.list

section "loading the stack"
[ -n "$stack" ] || fail "no module under drivers/ was built"
for m in $stack; do
	modprobe "$m" || fail "modprobe $m failed"
	echo "  loaded $m"
done

section "loaded modules (name size refcount users)"
for m in $stack; do
	grep "^$m " /proc/modules | awk '{ printf "  %-20s %8s %s %s\n", $1, $2, $3, $4 }'
done

section "xrdma devices (/sys/class/xrdma_device)"
if [ ! -d /sys/class/xrdma_device ]; then
	echo "  (class xrdma_device not registered)"
elif [ -z "$(ls /sys/class/xrdma_device)" ]; then
	echo "  (no devices)"
else
	for d in /sys/class/xrdma_device/*; do
		echo "  ${d##*/}"
		for a in "$d"/*; do
			[ -f "$a" ] || continue
			case ${a##*/} in uevent) continue ;; esac
			printf '    %-18s %s\n' "${a##*/}" "$(head -c 200 "$a" 2>/dev/null | tr '\n' ' ')"
		done
	done
fi

section "debugfs ($XRDMA_DEBUGFS/xrdma)"
if [ ! -d "$XRDMA_DEBUGFS/xrdma" ]; then
	echo "  (no xrdma debugfs directory)"
else
	find "$XRDMA_DEBUGFS/xrdma" | sed "s|^$XRDMA_DEBUGFS/|  |"
	find "$XRDMA_DEBUGFS/xrdma" -type f | while read -r f; do
		echo "  --- ${f#"$XRDMA_DEBUGFS"/}"
		out=$(head -n 40 "$f" 2>&1)
		echo "${out:-(empty)}" | sed 's/^/    /'
	done
fi

section "character devices"
devs=$(find /dev -name 'xrdma*' -o -path '/dev/infiniband/*' |
	sort | xargs -r ls -ld)
echo "${devs:-(none)}" | sed 's/^/  /'

section "unloading the stack"
for m in $(echo "$stack" | sed '1!G;h;$!d'); do
	module_loaded "$m" || continue
	rmmod "$m" || fail "rmmod $m failed"
	echo "  unloaded $m"
done
