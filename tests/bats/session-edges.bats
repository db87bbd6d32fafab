#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Edges of the session and its outputs no other test reached (issue 50),
# through tests/tools/ustack-session-test as session.bats drives it: the
# reason --why gives a frame in anonymous memory and one in no mapping,
# --comm's whole-name match, a /proc maps snapshot missing a part.

load helpers
DRV="${USTACK_SESSION_TEST:-$ROOT/tests/tools/ustack-session-test}"
FMT="$ROOT/tests/data/formats"
SFMT="$ROOT/tests/data/session"

setup_file() {
	[ -n "${USTACK_SESSION_TEST:-}" ] || make -s -C "$ROOT" tests/tools/ustack-session-test >&2
}

setup() {
	TMP="$(mktemp -d)"
	S="$TMP/script"
	cat > "$S" <<EOF
format ftrace $FMT/user_unwind_cookie.format
format ftrace $FMT/user_unwind_stack.format
format inode_cache $FMT/inode_cache.format
format ftrace $SFMT/kernel_stack.format
format ftrace $SFMT/user_stack.format
format test $SFMT/sys_enter_test.format
format ftrace $SFMT/print.format
comm 100 prog
comm 200 progx
comm 300 pro
EOF
}

teardown() {
	instance_teardown
}

# drv [options]: the driver on $S, its output in $output
drv() {
	run "$DRV" "$@" "$S"
	[ "$status" -eq 0 ] || { echo "driver failed ($status): $output" >&2; return 1; }
}

# sb TS TEXT...: a side-band record of process 100 as a print event
sb() {
	local ts="$1" text

	shift
	text="$*"
	echo "1 $ts 100 print buf=ustack-sb\\s${text// /\\s}" >> "$S"
}

# event TS PID CALLERS: an event of PID and its synchronous user stack
event() {
	printf '0 %s %s sys_enter_test __syscall_nr=1\n0 %s %s user_stack tgid=%s caller=%s\n' \
		"$1" "$2" "$(($1 + 1))" "$2" "$2" "$3" >> "$S"
}

@test "--why: a frame in anonymous memory says 'anonymous memory', one in no mapping 'no mapping'; the dump, folded and perf-script outputs agree" {
	sb 100 mmap pid=100 tid=100 start=0x55d000001000 len=0x1000 pgoff=0x1000 prot=5 flags=0x2 dev=8:1 ino=1234 path=/usr/bin/prog
	sb 200 mmap pid=100 tid=100 start=0x7f0000000000 len=0x10000 pgoff=0 prot=7 flags=0x22 dev=0:0 ino=0 path=//anon
	event 6000 100 0x7f0000000100,0x1000,0x55d000001010
	event 7000 100 0x2000,0x7f0000000200,0x55d000001010
	drv --dump
	echo "$output"
	grep -qx 'sample ts=6000 .* frames=0x7f0000000100:anon,0x1000:nomap,0x1010:/usr/bin/prog' <<< "$output"
	grep -qx 'sample ts=7000 .* frames=0x2000:nomap,0x7f0000000200:anon,0x1010:/usr/bin/prog' <<< "$output"
	drv --stacks --why
	echo "$output"
	[ "$(grep -c '^  \[unknown\] 0x7f0000000[12]00 # anonymous memory$' <<< "$output")" = 2 ]
	[ "$(grep -c '^  \[unknown\] 0x[12]000 # no mapping$' <<< "$output")" = 2 ]
	! grep -q '0x7f0000000[12]00 # no mapping\|0x[12]000 # anonymous' <<< "$output"
	# folded and perf-script name both alike, and keep their order
	drv --folded
	echo "$output"
	[ "$output" = "prog;prog+0x1010;[unknown];[unknown] 2" ]
	drv --perf-script
	[ "$(grep -c $'^\t7f0000000[12]00 \\[unknown\\] (\\[unknown\\])$' <<< "$output")" = 2 ]
	[ "$(grep -c $'^\t[12]000 \\[unknown\\] (\\[unknown\\])$' <<< "$output")" = 2 ]
}

@test "--comm matches the whole name: 'pro' takes neither 'prog' nor 'progx', 'prog' not 'progx' nor 'pro'" {
	event 1000 100 0x10
	event 2000 200 0x10
	event 3000 300 0x10
	drv --dump --comm prog
	[ "$(grep -c '^sample ' <<< "$output")" = 1 ]
	grep -q '^sample ts=1000 .* comm=prog ' <<< "$output"
	drv --dump --comm pro
	[ "$(grep -c '^sample ' <<< "$output")" = 1 ]
	grep -q '^sample ts=3000 .* comm=pro ' <<< "$output"
	drv --dump --comm progx --comm pro
	[ "$(grep -c '^sample ' <<< "$output")" = 2 ]
	! grep -q 'comm=prog ' <<< "$output"
	drv --dump --comm pr
	! grep -q '^sample ' <<< "$output"
}

# snapshot TS PART/PARTS LINE: one marker part of process 100's snapshot
snapshot() {
	printf 'marker\nustack-maps 100 %s %s\n%s\nend\n' "$1" "$2" "$3" >> "$S"
}

@test "fallback: a maps snapshot that lost parts is dropped, its parts never joined with those of the next snapshot or the parts before the gap" {
	snapshot 500 1/1 "55d000001000-55d000002000 r-xp 00001000 08:01 1234 /usr/bin/prog"
	# ts 5000: part 1 of 3 only; then ts 6000's part 1 lost, its 2/2 read:
	# the two parts read in a row are of two snapshots
	snapshot 5000 1/3 "7f0000000000-7f0000100000 r-xp 00020000 08:01 99 /usr/lib/libA.so"
	snapshot 6000 2/2 "7f1000000000-7f1000100000 r-xp 00020000 08:01 98 /usr/lib/libB.so"
	event 6500 100 0x55d000001010,0x7f0000000100,0x7f1000000100
	# ts 7000 whole, after the ones that lost parts
	snapshot 7000 1/1 "55d000001000-55d000002000 r-xp 00001000 08:01 1234 /usr/bin/prog3"
	event 8000 100 0x55d000001010,0x7f0000000100,0x7f1000000100
	drv --dump
	echo "$output"
	grep -qx 'sample ts=6500 .*status=SYNC frames=0x1010:/usr/bin/prog,0x7f0000000100:nomap,0x7f1000000100:nomap' <<< "$output"
	grep -qx 'sample ts=8000 .*status=SYNC frames=0x1010:/usr/bin/prog3,0x7f0000000100:nomap,0x7f1000000100:nomap' <<< "$output"
}
