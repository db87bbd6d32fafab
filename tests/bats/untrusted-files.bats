#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Files found by convention, not named by the traced program's mappings
# (issue 44, findings 2 and 8): perf maps /tmp/perf-PID.map, debug files
# by build id or .gnu_debuglink, the debuginfod cache. Anyone may have put
# them where we look, so they are opened as perf opens a perf map: a
# regular file owned by root or the user running (live, a perf map also by
# the traced process's owner), no symbolic link of another user; a file
# refused is said once and its frames say why. Then the JIT map's index
# (one binary search per look-up, whatever the overlaps) and the cap on
# all debuginfod look-ups of a run.

bats_require_minimum_version 1.5.0
load helpers
load elf

SYM="$ROOT/tests/tools/ustack-symbolize"
RPROGS="$ROOT/tests/progs/resolve"
NOBODY=65534

setup_file() {
	make -s -C "$ROOT" tests/tools/ustack-symbolize >&2
	make -s -C "$RPROGS" >&2
}

setup() {
	[ "$(id -u)" = 0 ] || skip "needs root (files of other users)"
	TMP="$(mktemp -d)"
	chmod 755 "$TMP"
	# a pid no process has (beyond pid_max), one per bats run: /tmp is shared
	FAKE=$(($(cat /proc/sys/kernel/pid_max) + $$))
	MAP="/tmp/perf-$FAKE.map"
}

teardown() {
	[ -z "${HOLD:-}" ] || kill "$HOLD" 2>/dev/null || true
	[ -z "${MAP:-}" ] || rm -f "$MAP"
	[ -z "${JIT_PID:-}" ] || rm -f "/tmp/perf-$JIT_PID.map"
	instance_teardown
}

# jit ADDR...: "[jit] ADDR" lines for the symbolizer
jit() {
	printf '[jit] %s\n' "$@"
}

# proc_owned_by PID UID: /proc/PID is UID's (checked anew at each call)
proc_owned_by() {
	[ "$(stat -c %u "/proc/$1" 2>/dev/null)" = "$2" ]
}

# warnings_about FILE: how many lines of $stderr name FILE
warnings_about() {
	grep -cF "trace-cmd ustack: $1" <<< "$stderr" || true
}

@test "perf map owned by another user (nobody): not read, frames 'file not trusted', one warning naming it" {
	printf '1000 100 planted_name\n' > "$MAP"
	chown "$NOBODY" "$MAP"
	run --separate-stderr "$SYM" --why --pid "$FAKE" < <(jit 0x1010 0x1020 0x1030)
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[ "$(grep -cx '\[unknown\] (\[jit\]) # file not trusted' <<< "$output")" -eq 3 ]
	[[ "$output" != *planted_name* ]]
	[ "$(warnings_about "$MAP")" -eq 1 ]
	[[ "$stderr" == *"$MAP: not used: owned by uid $NOBODY, not root or the user running"* ]]
}

@test "perf map: a symlink of another user to a 0600 root file is not followed, its content never printed" {
	printf '1000 100 root_secret_line\n' > "$TMP/secret"
	chmod 600 "$TMP/secret"
	ln -s "$TMP/secret" "$MAP"
	chown -h "$NOBODY" "$MAP"
	run --separate-stderr "$SYM" --why --pid "$FAKE" < <(jit 0x1010)
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$output" = "[unknown] ([jit]) # file not trusted" ]
	[[ "$output$stderr" != *root_secret_line* ]]
	[[ "$stderr" == *"$MAP: not used: a symbolic link owned by uid $NOBODY, not root or the user running"* ]]
	# root's own link is followed (perf's lstat() rule): the file is root's
	chown -h 0 "$MAP"
	run --separate-stderr "$SYM" --why --pid "$FAKE" < <(jit 0x1010)
	[ "$output" = "root_secret_line+0x10 ([jit])" ]
	# ... but what it leads to must pass too
	chown "$NOBODY" "$TMP/secret"
	run --separate-stderr "$SYM" --why --pid "$FAKE" < <(jit 0x1010)
	[ "$output" = "[unknown] ([jit]) # file not trusted" ]
	[[ "$stderr" == *"$TMP/secret (from $MAP): not used: owned by uid $NOBODY"* ]]
}

@test "perf map: a FIFO at /tmp/perf-PID.map is refused without hanging, said once" {
	mkfifo "$MAP"
	run --separate-stderr timeout 10 "$SYM" --why --pid "$FAKE" < <(jit 0x1010 0x1020)
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$(grep -cx '\[unknown\] (\[jit\]) # no file' <<< "$output")" -eq 2 ]
	[ "$(warnings_about "$MAP: not used: not a regular file")" -eq 1 ]
}

@test "perf map owned by root (or under --symfs) still names JIT frames" {
	printf '1000 100 root_jit\n' > "$MAP"
	run --separate-stderr "$SYM" --why --pid "$FAKE" < <(jit 0x1010)
	[ "$output" = "root_jit+0x10 ([jit])" ]
	[ -z "$stderr" ]
	mkdir -p "$TMP/root/tmp"
	printf '1000 100 symfs_jit\n' > "$TMP/root/tmp/perf-4242.map"
	run --separate-stderr "$SYM" --why --pid 4242 --symfs "$TMP/root" < <(jit 0x1010)
	[ "$output" = "symfs_jit+0x10 ([jit])" ]
	# under --symfs the same rule: another user's map is not read
	chown "$NOBODY" "$TMP/root/tmp/perf-4242.map"
	run --separate-stderr "$SYM" --why --pid 4242 --symfs "$TMP/root" < <(jit 0x1010)
	[ "$output" = "[unknown] ([jit]) # file not trusted" ]
}

@test "live: the traced process's owner may own its perf map; a third user may not, and not without --live" {
	command -v setpriv >/dev/null || skip "no setpriv"
	setpriv --reuid="$NOBODY" --regid="$NOBODY" --clear-groups sleep 600 &
	HOLD=$!
	# /proc/PID is root's until setpriv has exec'd sleep (not dumpable before)
	poll_until 10 proc_owned_by "$HOLD" "$NOBODY"
	MAP="/tmp/perf-$HOLD.map"
	printf '1000 100 its_own_jit\n' > "$MAP"
	chown "$NOBODY" "$MAP"
	run --separate-stderr "$SYM" --why --live --pid "$HOLD" < <(jit 0x1010)
	echo "$output"; echo "$stderr"
	[ "$output" = "its_own_jit+0x10 ([jit])" ]
	# a report (not live) knows no process: root or the user running only
	run --separate-stderr "$SYM" --why --pid "$HOLD" < <(jit 0x1010)
	[ "$output" = "[unknown] ([jit]) # file not trusted" ]
	chown "$((NOBODY - 1))" "$MAP"
	run --separate-stderr "$SYM" --why --live --pid "$HOLD" < <(jit 0x1010)
	echo "$stderr"
	[ "$output" = "[unknown] ([jit]) # file not trusted" ]
	[[ "$stderr" == *"owned by uid $((NOBODY - 1)), not root or the user running, nor the traced process's owner (uid $NOBODY)"* ]]
}

# The end to end path: a recorded JIT program, its map given to nobody
# afterwards; report then leaves the JIT frames unresolved, says why.
@test "report: JIT frames of a map another user owns are '[unknown]' with 'file not trusted', summary counts them" {
	require_capture
	has_deferred && skip "the fallback path: this kernel has deferred stacks"
	[ "$(uname -m)" = x86_64 ] || skip "sb-jit is x86-64 only"
	build_progs
	NAME=$(instance_name)
	"$USTACK" record -B "$NAME" -q -o "$TMP/t.dat" -e syscalls:sys_enter_getppid \
		-- "$PROGS/sideband/sb-jit" 20 2> "$TMP/err"
	run --separate-stderr "$USTACK" report -i "$TMP/t.dat" --why
	JIT_PID=$(sed -n 's/^ *sb-jit-\([0-9]*\) .*/\1/p' <<< "$output" | head -1)
	[ -n "$JIT_PID" ] && [ -f "/tmp/perf-$JIT_PID.map" ]
	# precondition: root's map names them
	[ "$(grep -c '^  jit_getppid+0x[0-9a-f]* (\[jit\])$' <<< "$output")" -eq 20 ]
	chown "$NOBODY" "/tmp/perf-$JIT_PID.map"
	run --separate-stderr "$USTACK" report -i "$TMP/t.dat" --why
	echo "$output" | head -20; echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^  \[unknown\] .*# file not trusted$' <<< "$output")" -eq 20 ]
	[[ "$output" != *jit_getppid* ]]
	[ "$(warnings_about "/tmp/perf-$JIT_PID.map: not used: owned by uid $NOBODY")" -eq 1 ]
	[[ "$stderr" == *"file not trusted 20"* ]]
}

# debug_setup: a stripped copy of resolve-pie at $TMP/root/opt/app/prog, its
# debug file in $TMP/prog.debug, $OFF an offset in rp_middle, $ID its build id
debug_setup() {
	local a

	mkdir -p "$TMP/root/opt/app"
	objcopy --only-keep-debug "$RPROGS/resolve-pie" "$TMP/prog.debug"
	strip --strip-all -o "$TMP/root/opt/app/prog" "$RPROGS/resolve-pie"
	a=$(nm "$RPROGS/resolve-pie" | awk '$3 == "rp_middle" { print $1; exit }')
	OFF=$(vaddr_to_off "$RPROGS/resolve-pie" "$(printf '%x' $((0x$a + 2)))")
	ID=$(readelf -n "$RPROGS/resolve-pie" | awk '/Build ID:/ { print $3; exit }')
	BID="$TMP/root/usr/lib/debug/.build-id/${ID:0:2}"
	mkdir -p "$BID"
}

# sym_prog: symbolize $OFF of /opt/app/prog under $TMP/root, --why
sym_prog() {
	run --separate-stderr "$SYM" --leaf --why --no-debuginfod --symfs "$TMP/root" \
		<<< "/opt/app/prog $OFF"$'\n'"/opt/app/prog $OFF"
	echo "$output"; echo "$stderr"
}

@test "debug file by build id owned by another user: not used, frames 'file not trusted', one warning" {
	debug_setup
	cp "$TMP/prog.debug" "$BID/${ID:2}.debug"
	sym_prog
	[ "${lines[0]}" = "rp_middle+0x2 (prog)" ]
	chown "$NOBODY" "$BID/${ID:2}.debug"
	sym_prog
	[ "${lines[0]}" = "[unknown] (prog) # file not trusted" ]
	[ "${lines[1]}" = "[unknown] (prog) # file not trusted" ]
	[ "$(warnings_about "$BID/${ID:2}.debug: not used: owned by uid $NOBODY")" -eq 1 ]
}

@test "debug file: root's build-id symlink (Fedora's layout) is followed, another user's is not" {
	debug_setup
	mkdir -p "$TMP/root/usr/lib/debug/opt/app"
	cp "$TMP/prog.debug" "$TMP/root/usr/lib/debug/opt/app/prog.debug"
	ln -s "../../opt/app/prog.debug" "$BID/${ID:2}.debug"
	sym_prog
	[ "${lines[0]}" = "rp_middle+0x2 (prog)" ]
	chown -h "$NOBODY" "$BID/${ID:2}.debug"
	sym_prog
	[ "${lines[0]}" = "[unknown] (prog) # file not trusted" ]
	[ "$(warnings_about "$BID/${ID:2}.debug: not used: a symbolic link owned by uid $NOBODY")" -eq 1 ]
}

@test "debug file by .gnu_debuglink next to the binary, owned by another user: not used" {
	debug_setup
	objcopy --add-gnu-debuglink="$TMP/prog.debug" "$TMP/root/opt/app/prog"
	cp "$TMP/prog.debug" "$TMP/root/opt/app/prog.debug"
	sym_prog
	[ "${lines[0]}" = "rp_middle+0x2 (prog)" ]
	chown "$NOBODY" "$TMP/root/opt/app/prog.debug"
	sym_prog
	[ "${lines[0]}" = "[unknown] (prog) # file not trusted" ]
	[ "$(warnings_about "$TMP/root/opt/app/prog.debug: not used: owned by uid $NOBODY")" -eq 1 ]
	# the binary itself is not held to the rule: a user's own program
	chown "$NOBODY" "$TMP/root/opt/app/prog"
	chown 0 "$TMP/root/opt/app/prog.debug"
	sym_prog
	[ "${lines[0]}" = "rp_middle+0x2 (prog)" ]
}

# The JIT index: a map of 200k small regions under one written first that
# covers them all. The look-up used to walk back from the nearest start
# over every region that might still cover the address (here all of
# them); an index makes it one binary search. The check is structural:
# the steps the look-ups took (--stats), not the time.
@test "JIT index: 1000 look-ups in a 200k-region map with one region over all take one binary search each" {
	mkdir -p "$TMP/root/tmp"
	awk 'BEGIN {
		printf "10000 10000000 whole_heap\n"
		for (i = 0; i < 200000; i++)
			printf "%x 10 fn_%d\n", 65536 + i * 32, i
	}' > "$TMP/root/tmp/perf-4242.map"
	# in a small region, between two of them (the big one), after them all
	awk 'BEGIN {
		for (i = 0; i < 1000; i++) {
			k = (i * 197) % 200000
			if (i % 2) printf "[jit] %x\n", 65536 + k * 32 + 3
			else printf "[jit] %x\n", 65536 + k * 32 + 20
		}
	}' > "$TMP/in"
	run --separate-stderr "$SYM" --leaf --stats --pid 4242 --symfs "$TMP/root" "$TMP/in"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1000 ]
	[ "${lines[0]}" = "whole_heap+0x14 ([jit])" ]
	[ "${lines[1]}" = "fn_197+0x3 ([jit])" ]
	[ "$(grep -c '^fn_[0-9]*+0x3 (\[jit\])$' <<< "$output")" -eq 500 ]
	[ "$(grep -c '^whole_heap+0x[0-9a-f]* (\[jit\])$' <<< "$output")" -eq 500 ]
	probes=$(sed -n 's/^jit probes \([0-9]*\)$/\1/p' <<< "$stderr")
	# at most 2 * 200001 + 1 ranges: 19 steps a look-up
	[ -n "$probes" ] && [ "$probes" -le $((1000 * 20)) ]
}

@test "JIT map: overlapping regions, random: the last line written wins, as a brute-force scan says, in one binary search" {
	mkdir -p "$TMP/root/tmp"
	python3 - "$TMP/root/tmp/perf-4242.map" "$TMP/in" "$TMP/expect" <<-'PY'
	import random, sys
	random.seed(44)
	regs = []
	for i in range(3000):
	    start = random.randrange(0x1000, 0x9000)
	    size = random.choice([1, 2, 0x10, 0x40, 0x100, 0x1000, random.randrange(1, 0x800)])
	    regs.append((start, size, 'n%d' % i))
	regs.insert(0, (0x500, 0x100000, 'first'))
	regs.append((0x1000, 2**64 - 1, 'to_the_end'))    # its end is past 2^64
	with open(sys.argv[1], 'w') as f:
	    for s, sz, n in regs:
	        f.write('%x %x %s\n' % (s, sz, n))
	addrs = [random.randrange(0x400, 0xa000) for _ in range(3000)] + [2**64 - 2, 0x3ff]
	with open(sys.argv[2], 'w') as f, open(sys.argv[3], 'w') as e:
	    for a in addrs:
	        f.write('[jit] %x\n' % a)
	        best = None
	        for s, sz, n in regs:
	            if s <= a < min(s + sz, 2**64 - 1):
	                best = (s, n)
	        e.write('%s+0x%x ([jit])\n' % (best[1], a - best[0]) if best else '[unknown] ([jit])\n')
	PY
	"$SYM" --leaf --stats --pid 4242 --symfs "$TMP/root" "$TMP/in" > "$TMP/got" 2> "$TMP/stats"
	diff "$TMP/expect" "$TMP/got"
	# 'first' and 'to_the_end' cover all the others: still a binary search
	probes=$(sed -n 's/^jit probes \([0-9]*\)$/\1/p' "$TMP/stats")
	[ -n "$probes" ] && [ "$probes" -le $((3002 * 15)) ]
}

@test "JIT map: a name longer than 1024 bytes is cut on a character boundary" {
	mkdir -p "$TMP/root/tmp"
	# 'a' then 1500 two-byte characters: byte 1024 is inside one
	name="a$(printf '\xc3\xa9%.0s' $(seq 1500))"
	printf '1000 100 %s\n2000 10 short\n' "$name" > "$TMP/root/tmp/perf-4242.map"
	run "$SYM" --leaf --pid 4242 --symfs "$TMP/root" < <(jit 0x1010 0x2001)
	[ "${lines[1]}" = "short+0x1 ([jit])" ]
	got=${lines[0]%+0x10 (\[jit\])}
	[ "$got" = "$(printf '%s' "$name" | head -c 1023)" ]
	printf '%s' "$got" | iconv -f UTF-8 -t UTF-8 > /dev/null
}

# A debuginfod server that answers nothing: it logs each request line and
# holds the connection until killed (a file says when it listens). The
# build ids asked for are made up: no server has them, the stall is what
# is being capped.
stall_server() {
	cat > "$TMP/stall.py" <<-'PY'
	import socket, sys
	s = socket.socket()
	s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
	s.bind(('127.0.0.1', int(sys.argv[1])))
	s.listen(64)
	log = open(sys.argv[2], 'a', buffering=1)
	open(sys.argv[3], 'w').close()
	held = []
	while True:
	    c, _ = s.accept()
	    held.append(c)
	    c.settimeout(5)
	    try:
	        log.write(c.recv(4096).split(b'\r\n', 1)[0].decode(errors='replace') + '\n')
	    except OSError:
	        log.write('?\n')
	PY
}

@test "debuginfod: all look-ups of a run stop at USTACK_DEBUGINFOD_TOTAL: a stalling server is asked once for 5 build ids, said once" {
	grep -q debuginfod_begin "$SYM" || skip "built without libdebuginfod"
	command -v python3 >/dev/null || skip "no python3"
	unshare -n true 2>/dev/null || skip "cannot create a network namespace"
	stall_server
	for i in 1 2 3 4 5; do
		printf '/nonexistent/lib%d.so 0x1000 %040x\n' "$i" $((0xabc0 + i))
	done > "$TMP/in"
	# Each look-up alone may take DEBUGINFOD_TIMEOUT (5 s here, tried again
	# on failure): before the cap the 5 took half a minute or more.
	run --separate-stderr timeout 120 unshare -n bash -c '
		ip link set lo up
		python3 "$1/stall.py" 18004 "$1/requests" "$1/listening" & sp=$!
		for i in $(seq 100); do
			[ -e "$1/listening" ] && break
			sleep 0.1
		done
		DEBUGINFOD_URLS=http://127.0.0.1:18004 DEBUGINFOD_CACHE_PATH="$1/cache" \
			DEBUGINFOD_TIMEOUT=5 USTACK_DEBUGINFOD_TOTAL=2 \
			"$2" --leaf --why "$1/in"; rc=$?
		kill $sp; wait $sp 2>/dev/null
		exit $rc' bash "$TMP" "$SYM"
	echo "$output"; echo "$stderr"; cat "$TMP/requests"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^\[unknown\] (lib[1-5].so)' <<< "$output")" -eq 5 ]
	# only the first build id was asked for: the cap ended it, no more made
	[ "$(grep -c 'GET /buildid/' "$TMP/requests")" -ge 1 ]
	[ "$(grep -v '0\{36\}abc1/' "$TMP/requests" | grep -c 'GET /buildid/')" -eq 0 ]
	[ "$(grep -c 'debuginfod: looking up' <<< "$stderr")" -eq 1 ]
	[ "$(grep -c 'debuginfod: look-ups stopped after [0-9]* s, the cap for all of a run.s (USTACK_DEBUGINFOD_TOTAL=2): no more are made' <<< "$stderr")" -eq 1 ]
}
