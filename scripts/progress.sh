# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Progress lines for the long steps (kernel builds, guest runs, the
# benchmark), sourced by the scripts that run them.  A step that takes
# minutes says at least every $XRDMA_PROGRESS_INTERVAL seconds (default 30)
# what it is doing, for how long, and how far along it is:
#
#   LABEL: [M:SS] WHAT
#   kunit.sh: [4:30] building the KUnit kernel: 610/~1356 objects (45%), ~5m left
#
# on stderr (stdout of some scripts is parsed).  A step shorter than the
# interval prints nothing.  The lines never begin with a number, so they
# never look like a test tally ("N passed, N failed"); scripts/check.sh
# relays the last one of a running stage's log ($PROGRESS_RE).
#
#   progress_start LABEL FN [ARG...]   heartbeat in the background: every
#                                      interval, FN ARG... sets PROGRESS_MSG
#                                      (state kept in globals persists from
#                                      one call to the next); one at a time
#                                      per shell
#   progress_stop                      end it (call before the last output)
#   progress_begin LABEL / progress_tick FN [ARG...]
#                                      the same from a loop of one's own
#                                      (call progress_tick about every second)
#   progress_objects DIR...            an FN: *.o files under DIR vs the
#                                      expected count ($PROGRESS_EXPECT)
#   progress_size DIR MB [WHAT]        an FN: DIR's size vs MB (extracting)
#   progress_say TEXT...               an FN: a fixed text (elapsed only)
#   progress_record NAME SECS DIR...   keep the object count and duration
#                                      of a finished build for next time
#   progress_keep NAME KEY=VALUE...    keep values for next time
#   progress_recall NAME KEY           a kept value ("" if none)
#   progress_time SECONDS              M:SS (H:MM:SS from an hour)
#   progress_last FILE                 the last progress line in FILE
#
# What is kept between runs lives in $XRDMA_CACHE/progress (default
# /var/cache/xrdma/progress): the caches it describes live there too, and
# "make clean" empties build/.  Keeping it is best effort, never an error.

PROGRESS_INTERVAL=${XRDMA_PROGRESS_INTERVAL:-30}
case $PROGRESS_INTERVAL in
'' | *[!0-9]* | 0) PROGRESS_INTERVAL=30 ;;
esac
PROGRESS_STATE=${XRDMA_CACHE:-/var/cache/xrdma}/progress
# shellcheck disable=SC2034 # for the scripts that relay progress lines
PROGRESS_RE='^[A-Za-z][A-Za-z0-9_. -]*: \[[0-9]+(:[0-9][0-9]){1,2}\] '
# (sourced twice, e.g. by a script and the library it sources, it keeps
# the heartbeat it may have started)
PROGRESS_PID=${PROGRESS_PID:-}
PROGRESS_MSG=""

progress_time() {
	local s=$1
	if [ "$s" -ge 3600 ]; then
		printf '%d:%02d:%02d' $((s / 3600)) $((s % 3600 / 60)) $((s % 60))
	else
		printf '%d:%02d' $((s / 60)) $((s % 60))
	fi
}

# a rough duration: "40s", "7m", "1h05m"
progress_about() {
	local s=$1
	if [ "$s" -lt 90 ]; then
		echo "${s}s"
	elif [ "$s" -lt 3600 ]; then
		echo "$(((s + 30) / 60))m"
	else
		printf '%dh%02dm\n' $((s / 3600)) $((s % 3600 / 60))
	fi
}

progress_begin() {
	PROGRESS_LABEL=$1
	PROGRESS_T0=$(date +%s)
	PROGRESS_NEXT=$((PROGRESS_T0 + PROGRESS_INTERVAL))
}

progress_tick() {
	local now
	now=$(date +%s)
	[ "$now" -ge "$PROGRESS_NEXT" ] || return 0
	PROGRESS_NEXT=$((now + PROGRESS_INTERVAL))
	PROGRESS_MSG=""
	"$@" >/dev/null 2>&1
	printf '%s: [%s] %s\n' "$PROGRESS_LABEL" \
		"$(progress_time $((now - PROGRESS_T0)))" "${PROGRESS_MSG:-running}" >&2
}

progress_start() {
	progress_stop
	(
		set +eu
		trap - EXIT INT HUP
		trap 'exit 0' TERM
		progress_begin "$1"
		shift
		# until stopped, or the script that started it is gone
		while kill -0 $$ 2>/dev/null; do
			sleep 1 &
			wait $!
			progress_tick "$@"
		done
	) &
	PROGRESS_PID=$!
}

progress_stop() {
	[ -n "$PROGRESS_PID" ] || return 0
	kill "$PROGRESS_PID" 2>/dev/null || true
	wait "$PROGRESS_PID" 2>/dev/null || true
	PROGRESS_PID=""
	return 0
}

# progress_objects DIR...: "610/~1356 objects (45%), ~5m left" while far
# from the expected count ($PROGRESS_EXPECT, e.g. from progress_recall) at
# the first call, else "N objects compiled" (an incremental build).
# PROGRESS_OBJ0 and PROGRESS_OBJT0 keep the first call's count and time.
PROGRESS_OBJ0=""
progress_objects() {
	local now n new rate left e=${PROGRESS_EXPECT:-}
	now=$(date +%s)
	read -r n new < <(find "$@" -name .git -prune -o -name '*.o' -type f \
		-printf '%T@\n' 2>/dev/null |
		awk -v t0="${PROGRESS_T0:-$now}" '{ n++; if ($1 >= t0) new++ }
			END { print n + 0, new + 0 }')
	if [ -z "$PROGRESS_OBJ0" ]; then
		PROGRESS_OBJ0=$((n - new))
		PROGRESS_OBJT0=${PROGRESS_T0:-$now}
	fi
	if [ -z "$e" ] || [ $((PROGRESS_OBJ0 * 10)) -ge $((e * 9)) ]; then
		PROGRESS_MSG="$new objects compiled"
		return 0
	fi
	[ "$n" -le "$e" ] || e=$n
	PROGRESS_MSG="$n/~$e objects ($((n * 100 / e))%)"
	# the rate of this run, once it means something
	if [ "$new" -ge 20 ] && [ $((now - PROGRESS_OBJT0)) -ge 30 ]; then
		rate=$((new * 1000 / (now - PROGRESS_OBJT0)))
		left=$(((e - n) * 1000 / (rate > 0 ? rate : 1)))
		PROGRESS_MSG="$PROGRESS_MSG, ~$(progress_about "$left") left"
	fi
}

# progress_size DIR MB [WHAT]: "WHAT: 610/~1400 MB (43%)", for an extraction
progress_size() {
	local n
	n=$(du -sm "$1" 2>/dev/null | cut -f1)
	PROGRESS_MSG="${3:+$3: }${n:-0}/~$2 MB ($((${n:-0} * 100 / $2))%)"
}

progress_say() {
	PROGRESS_MSG="$*"
}

# progress_keep NAME KEY=VALUE...: replaces what NAME kept
progress_keep() {
	local name=$1
	shift
	{
		mkdir -p "$PROGRESS_STATE" &&
			printf '%s\n' "$@" >"$PROGRESS_STATE/$name.tmp.$$" &&
			mv "$PROGRESS_STATE/$name.tmp.$$" "$PROGRESS_STATE/$name"
	} 2>/dev/null
	return 0
}

# progress_record NAME SECONDS DIR...: the finished build's object count
progress_record() {
	local name=$1 secs=$2 n
	shift 2
	n=$(find "$@" -name .git -prune -o -name '*.o' -type f -print 2>/dev/null | wc -l)
	progress_keep "$name" "objects=$n" "secs=$secs"
}

# progress_recall NAME KEY: a value progress_record kept (objects, secs)
progress_recall() {
	sed -n "s/^$2=//p" "$PROGRESS_STATE/$1" 2>/dev/null | tail -n 1
	return 0
}

# progress_last FILE: the last progress line of a log ("" if none)
progress_last() {
	grep -aE "$PROGRESS_RE" "$1" 2>/dev/null | tail -n 1 | cut -c1-200
	return 0
}
