#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Reliability (issue 12): hostile command lines, corrupt and untrusted
# trace.dat files, output faults (full or missing file systems), two runs
# at once and instances left by killed runs.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
}

setup() {
	tmp_setup
}

teardown() {
	# a run a failed test left in the background: stopped the way ^C does
	if [ -n "${BG_PID:-}" ] && kill -INT "$BG_PID" 2>/dev/null; then
		wait "$BG_PID" || true
	fi
	if mountpoint -q "$TMP/small" 2>/dev/null; then
		umount "$TMP/small"
	fi
	instance_teardown
}

@test "-P: a pid beyond int range is refused, not wrapped to another pid" {
	run --separate-stderr "$USTACK" -P 4294967297 -- true
	[ "$status" -ne 0 ]
	[[ "${stderr_lines[0]}" == "trace-cmd ustack: bad pid '4294967297'" ]]
	run --separate-stderr "$USTACK" -P 1,99999999999999999999
	[ "$status" -ne 0 ]
	[[ "${stderr_lines[0]}" == "trace-cmd ustack: bad pid '99999999999999999999'" ]]
}

@test "-B: '..', '', '.', '../x' and 'a/b' are refused by name; the top-level buffer is untouched" {
	local before name

	before=$(cat "$TRACEFS/buffer_size_kb" 2>/dev/null || echo none)
	for name in .. '' . ../x a/b; do
		run --separate-stderr "$USTACK" -B "$name" -b 8192 -- true
		[ "$status" -ne 0 ]
		[[ "${stderr_lines[0]}" == "trace-cmd ustack: bad instance name '$name'"* ]]
	done
	[ "$(cat "$TRACEFS/buffer_size_kb" 2>/dev/null || echo none)" = "$before" ]
}

# An uncompressed copy of a test file whose records can be patched
v6_copy() {
	trace-cmd convert -i "$DATA/$1" -o "$2" --file-version 6 >/dev/null 2>&1 ||
		skip "trace-cmd convert cannot write file version 6"
}

@test "report: a record whose length runs past its sub-buffer is skipped, named, and fails the run" {
	v6_copy deep-deferred.dat "$TMP/v6.dat"
	"$ROOT/tests/bats/tracedat-corrupt.py" "$TMP/v6.dat" "$TMP/huge.dat"
	run --separate-stderr "$USTACK" report -q -i "$TMP/huge.dat"
	[ "$status" -eq 1 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "${stderr_lines[0]}" = "trace-cmd ustack: $TMP/huge.dat: 1 corrupt record (length past the sub-buffer) skipped" ]
	# the intact copy reads without complaint
	run --separate-stderr "$USTACK" report -q -i "$TMP/v6.dat"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "upstream reproducers (tests/data/README.md): the structure check refuses each in one line, exit 1" {
	v6_copy deep-deferred.dat "$TMP/v6.dat"
	"$DATA/make-repro.py" "$TMP/v6.dat" "$TMP"
	local f stock

	for f in close-null-list page-size-zero kbuffer-lost; do
		# as information: does stock trace-cmd still crash on it?
		stock=0
		trace-cmd report -i "$TMP/$f.dat" > /dev/null 2>&1 || stock=$?
		echo "# stock trace-cmd report on $f.dat: exit $stock" >&3
	done
	run --separate-stderr "$USTACK" report -q -i "$TMP/close-null-list.dat" --folded
	assert_only_error "$TMP/close-null-list.dat: corrupt trace.dat: CPU 0 data at 1662976 (1675264 bytes) runs past the end of the file"
	[ "$status" -eq 1 ]
	run --separate-stderr "$USTACK" report -q -i "$TMP/page-size-zero.dat" --folded
	assert_only_error "$TMP/page-size-zero.dat: corrupt trace.dat: file page size 0 (want a power of two from 1024 to 16777216)"
	[ "$status" -eq 1 ]
	run --separate-stderr "$USTACK" report -q -i "$TMP/kbuffer-lost.dat" --folded
	assert_only_error "$TMP/kbuffer-lost.dat: corrupt trace.dat: CPU 0: sub-buffer at 1667072 claims 134152192 bytes of 4080"
	[ "$status" -eq 1 ]
	# the intact copy: no message, exit 0
	run --separate-stderr "$USTACK" report -q -i "$TMP/v6.dat" --folded
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "crash guard: the report dying of SIGSEGV (sent to it while its output is blocked): one line naming file and signal, no guess at where, exit 70" {
	# no known file crashes the libraries any more (the bad sub-buffer
	# header of issue 44 is tracedat-hostile.bats'): the signal is sent
	"$ROOT/tests/tools/ustack-tracedat-gen" -i "$DATA/deep-deferred.dat" -o "$TMP/g.dat" \
		-n 40 -F inode_cache >/dev/null 2>&1
	mkfifo "$TMP/out"
	# the crash must reach the guard as a signal, not as ASan's report
	env ASAN_OPTIONS="${ASAN_OPTIONS:-}:handle_segv=0:handle_sigbus=0:handle_sigfpe=0" \
		"$USTACK" report -q -i "$TMP/g.dat" > "$TMP/out" 2> "$TMP/err" &
	BG_PID=$!
	# opened, not read: the report's 400 stacks fill the pipe and it waits there
	local rd child
	exec {rd}< "$TMP/out"
	until child=$(pgrep -P "$BG_PID"); do kill -0 "$BG_PID"; done
	kill -SEGV "$child"
	local status=0
	wait "$BG_PID" || status=$?
	BG_PID=
	exec {rd}<&-
	cat "$TMP/err"
	[ "$status" -eq 70 ]
	[ "$(cat "$TMP/err")" = "trace-cmd ustack: $TMP/g.dat: crashed reading it (Segmentation fault): damage no check caught, or a bug" ]
}

# Each of tracedat-mutate.py's files from $1 is refused in one line, exit 1
assert_mutants_refused() {
	local f n=0

	"$ROOT/tests/bats/tracedat-mutate.py" "$1" "$TMP/m"
	for f in "$TMP"/m/*.dat; do
		run --separate-stderr env ASAN_OPTIONS="${ASAN_OPTIONS:-}:handle_segv=0:handle_sigbus=0:handle_sigfpe=0" \
			timeout 60 "$USTACK" report -q --folded -i "$f"
		echo "$f: $status: $stderr"
		[ "$status" -eq 1 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "${stderr_lines[0]}" != *crash* ]]
		n=$((n + 1))
		# decompressed by our reader alone (issue 44): the rest of the file is read
		if [ "${f##*/}" = chunk-garbled.dat ]; then
			[ "${stderr_lines[0]}" = "trace-cmd ustack: $f: CPU 0: chunk 0 (byte 0 of its data) does not decompress: the rest of the CPU is skipped" ]
			continue
		fi
		[[ "${stderr_lines[0]}" == "trace-cmd ustack: $f: corrupt trace.dat: "* ]]
		[ -z "$output" ]
	done
	[ "$n" -ge 15 ]
	rm -rf "$TMP/m"
}

@test "trace.dat structure (v7, compressed): page sizes, loops of option sections, offsets and sizes past the end, cut files, a chunk that does not decompress: one line each (no library line), exit 1, never a crash" {
	assert_mutants_refused "$DATA/deep-deferred.dat"
}

@test "trace.dat structure (v7, uncompressed): the same damages refused the same way" {
	trace-cmd convert -i "$DATA/threads-deferred.dat" -o "$TMP/v7.dat" --compression none >/dev/null 2>&1 ||
		skip "trace-cmd convert cannot write an uncompressed file"
	assert_mutants_refused "$TMP/v7.dat"
}

@test "trace.dat structure: every intact file reads clean (v6, v7, compressed or not)" {
	local f

	v6_copy shlib-deferred.dat "$TMP/v6.dat"
	trace-cmd convert -i "$DATA/shlib-deferred.dat" -o "$TMP/v7n.dat" --compression none >/dev/null 2>&1
	for f in "$DATA"/*.dat "$TMP"/v6.dat "$TMP"/v7n.dat; do
		run --separate-stderr "$USTACK" report -q --folded -i "$f"
		echo "$f: $status: $stderr"
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		[ -n "$output" ]
	done
}

@test "fuzz: every saved finding (tests/fuzz/regress) runs clean under ASan+UBSan" {
	command -v clang >/dev/null || skip "no clang (scripts/install-deps)"
	# the harnesses have the sanitizers in every build: tests/run-asan
	# would only build them a second time, in its copy of the tree
	[ -z "${USTACK_ASAN:-}" ] || skip "the same harnesses as the unsanitized run's"
	make -s -j2 -C "$ROOT" fuzz-build >&2
	local h f n=0

	for h in session resolve demangle sideband tracedat samples; do
		for f in "$ROOT"/tests/fuzz/regress/$h/*; do
			[ -e "$f" ] || continue
			run "$ROOT/.fuzz/fuzz-$h" -timeout=20 "$f"
			[ "$status" -eq 0 ] || { echo "$h: $f: $output" | tail -5; false; }
			n=$((n + 1))
		done
	done
	[ "$n" -ge 2 ]
}

# Exactly one line on stderr, non-zero exit, the line being $1
assert_only_error() {
	[ "$status" -ne 0 ]
	printf '%s\n' "${stderr_lines[@]}"
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "${stderr_lines[0]}" = "trace-cmd ustack: $1" ]
}

@test "record -o in a missing directory: the directory is named, nothing traced" {
	require_capture
	name=$(instance_name)
	run --separate-stderr "$USTACK" record -B "$name" -o "$TMP/none/out.dat" -- true
	assert_only_error "cannot write $TMP/none/out.dat: directory $TMP/none: No such file or directory"
	assert_no_instance "$name"
}

@test "record -o on a read-only file system: the directory is named" {
	require_capture
	name=$(instance_name)
	mkdir "$TMP/small"
	mount -t tmpfs -o ro,size=64k tmpfs "$TMP/small"
	run --separate-stderr "$USTACK" record -B "$name" -o "$TMP/small/out.dat" -- true
	assert_only_error "cannot write $TMP/small/out.dat: directory $TMP/small: Read-only file system"
	assert_no_instance "$name"
}

@test "record on a full file system: one clear error, no file left that looks valid" {
	require_capture
	name=$(instance_name)
	mkdir "$TMP/small"
	mount -t tmpfs -o size=64k tmpfs "$TMP/small"
	# --kernel: the file then keeps the kernel's symbols, far past 64 KiB
	run --separate-stderr "$USTACK" record -q -B "$name" -o "$TMP/small/out.dat" --kernel \
		-e syscalls:sys_enter_getppid -- "$PROGS/deep" 3
	assert_only_error "cannot write $TMP/small/out.dat: No space left on device"
	[ -z "$(ls -A "$TMP/small")" ]
	assert_no_instance "$name"
}

@test "record -o a character device (null, full made with mknod): written into, the node stays, /dev is never used" {
	require_capture
	name=$(instance_name)
	mknod "$TMP/null" c 1 3
	mknod "$TMP/full" c 1 7
	run --separate-stderr "$USTACK" record -B "$name" -o "$TMP/null" \
		-e syscalls:sys_enter_getppid -- "$PROGS/deep" 1
	[ "$status" -eq 0 ]
	[ -c "$TMP/null" ]
	[[ "$stderr" == *"wrote $TMP/null"* ]]
	# /dev/full takes nothing: the run fails by name, the node stays a node
	run --separate-stderr "$USTACK" record -q -B "$name" -o "$TMP/full" \
		-e syscalls:sys_enter_getppid -- "$PROGS/deep" 1
	assert_only_error "cannot write $TMP/full: No space left on device"
	[ -c "$TMP/full" ]
	# no temporary was made beside the nodes
	[ "$(ls -A "$TMP" | sort | tr '\n' ' ')" = "full null " ]
	assert_no_instance "$name"
}

@test "record -o a FIFO: the reader gets a whole trace.dat that report reads, the FIFO stays" {
	require_capture
	name=$(instance_name)
	mkfifo "$TMP/fifo"
	# the reader gives up after 60 s: the old code renamed over the FIFO
	timeout 60 cat "$TMP/fifo" > "$TMP/got.dat" &
	reader=$!
	run --separate-stderr "$USTACK" record -q -B "$name" -o "$TMP/fifo" \
		-e syscalls:sys_enter_getppid -- "$PROGS/deep" 2
	[ "$status" -eq 0 ]
	[ -p "$TMP/fifo" ]
	wait "$reader"
	run "$USTACK" report -q --folded -i "$TMP/got.dat"
	[ "$status" -eq 0 ]
	[[ "$output" == *"chain_20 2"* ]]
	assert_no_instance "$name"
}

@test "record -o a directory or a socket: refused by kind before tracing, nothing renamed over it" {
	require_capture
	name=$(instance_name)
	mkdir "$TMP/dir"
	run --separate-stderr "$USTACK" record -B "$name" -o "$TMP/dir" -- true
	assert_only_error "cannot write $TMP/dir: a directory (a recording goes to a regular file, a character device or a FIFO)"
	[ -d "$TMP/dir" ]
	/usr/bin/python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$TMP/sock"
	run --separate-stderr "$USTACK" record -B "$name" -o "$TMP/sock" -- true
	assert_only_error "cannot write $TMP/sock: a socket (a recording goes to a regular file, a character device or a FIFO)"
	[ -S "$TMP/sock" ]
	assert_no_instance "$name"
}

@test "record -o a symlink to a file: the file is replaced, the link stays a link" {
	require_capture
	name=$(instance_name)
	echo old > "$TMP/real.dat"
	ln -s real.dat "$TMP/link.dat"
	run --separate-stderr "$USTACK" record -q -B "$name" -o "$TMP/link.dat" \
		-e syscalls:sys_enter_getppid -- "$PROGS/deep" 1
	[ "$status" -eq 0 ]
	[ -L "$TMP/link.dat" ]
	[ "$(readlink "$TMP/link.dat")" = real.dat ]
	run "$USTACK" report -q --folded -i "$TMP/real.dat"
	[[ "$output" == *"chain_20 1"* ]]
	assert_no_instance "$name"
}

@test "record SIGKILLed while tracing: no per-CPU, side-band or trace.dat temporaries stay in the output directory" {
	require_capture
	name=$(instance_name)
	mkdir "$TMP/out"
	"$USTACK" record -q -B "$name" -o "$TMP/out/k.dat" -e syscalls:sys_enter_getppid -- \
		sh -c "'$PROGS/deep' 2; exec sleep 600" > /dev/null 2>&1 &
	pid=$!
	BG_PID=$pid
	wait_tracing "$name" syscalls/sys_enter_getppid
	child=$(pgrep -P "$pid" || true)
	kill -9 "$pid"
	wait "$pid" || true
	BG_PID=
	[ -z "$child" ] || kill "$child" 2>/dev/null || true
	ls -A "$TMP/out"
	[ -z "$(ls -A "$TMP/out")" ]
	# the killed run's instance goes with the next run (as SIGKILL, above)
	rmdir "$TRACEFS/instances/$name"
}

@test "record: a command that cannot start leaves no per-CPU temporaries" {
	require_capture
	name=$(instance_name)
	run --separate-stderr "$USTACK" record -q -B "$name" -o "$TMP/out.dat" -- "$TMP/no-such-program"
	[ "$status" -ne 0 ]
	[ -z "$(ls -A "$TMP")" ]
	assert_no_instance "$name"
}

@test "record: saved_cmdlines changing while libtracecmd copies it: the file is written again, reads, nothing said" {
	require_capture
	command -v gdb >/dev/null || skip "no gdb"
	# The race (a task starting between libtracecmd's size of the file
	# and its copy) cannot be made on demand: gdb says at the first
	# write of saved_cmdlines what libtracecmd says then. Left so, the
	# file had a section whose size was not its length: unreadable, and
	# exit 0 (about once in 50 records beside another test run).
	printf '%s\n' 'set pagination off' 'set confirm off' 'set $n = 0' \
		'break tracecmd_write_cmdlines' 'commands' 'silent' 'set $n = $n + 1' \
		'printf "cmdlines written %d\n", $n' 'if $n == 1' \
		"  call (int)ustack_tracedat_lib_warning(\"error in size of file 'saved_cmdlines'\")" \
		'end' 'continue' 'end' 'run' > "$TMP/gdb"
	# the program itself: $USTACK is a wrapper script with USTACK_SOURCE
	gdb -q -batch -x "$TMP/gdb" --args "$ROOT/tracecmd/trace-cmd-ustack" \
		${USTACK_SOURCE:+--stack-source="$USTACK_SOURCE"} record -q -B "$(instance_name)" \
		-o "$TMP/out.dat" -e syscalls:sys_enter_getppid -- "$PROGS/deep" 2 \
		> "$TMP/gdb.out" 2> "$TMP/err"
	cat "$TMP/gdb.out" "$TMP/err"
	grep -q '^cmdlines written 2$' "$TMP/gdb.out"
	[ "$(grep -c 'trace-cmd ustack' "$TMP/err")" -eq 0 ]
	run --separate-stderr "$USTACK" report -q --folded -i "$TMP/out.dat"
	[ "$status" -eq 0 ]
	[[ "$output" == "deep;"*"chain_20 2" ]]
}

@test "two records to one -o at once: both complete, the file is one whole run, no temporaries left" {
	require_capture
	a=$(instance_name)-a
	b=$(instance_name)-b
	# A holds its command until B has run from start to end
	"$USTACK" record -q -B "$a" -o "$TMP/out.dat" -e syscalls:sys_enter_getppid -- \
		sh -c "while [ ! -e '$TMP/go' ]; do sleep 0.05; done; exec '$PROGS/deep' 3" \
		2> "$TMP/a.err" &
	pid=$!
	BG_PID=$pid
	wait_tracing "$a" syscalls/sys_enter_getppid
	run --separate-stderr "$USTACK" record -q -B "$b" -o "$TMP/out.dat" \
		-e syscalls:sys_enter_getppid -- "$PROGS/deep" 2
	[ "$status" -eq 0 ]
	run "$USTACK" report -q --folded -i "$TMP/out.dat"
	echo "$output"
	[[ "$output" == "deep;"*"chain_20 2" ]]
	touch "$TMP/go"
	wait "$pid"
	[ ! -s "$TMP/a.err" ]
	run "$USTACK" report -q --folded -i "$TMP/out.dat"
	echo "$output"
	[ "$(grep -c "^deep;.*chain_20 3$" <<< "$output")" -eq 1 ]
	rm "$TMP/go" "$TMP/a.err" "$TMP/out.dat"
	[ -z "$(ls -A "$TMP")" ]
	assert_no_instance "$a"
	assert_no_instance "$b"
}

@test "the fallback notice is one line, and -q prints none" {
	require_capture
	has_deferred && skip "deferred stacks: no fallback notice"
	name=$(instance_name)
	run --separate-stderr "$USTACK" -B "$name" -e syscalls:sys_enter_getppid -- "$PROGS/deep" 1
	[ "$status" -eq 0 ]
	[ "$(grep -c 'no deferred user stacks' <<< "$stderr")" -eq 1 ]
	[[ "${stderr_lines[0]}" == "trace-cmd ustack: no deferred user stacks on this kernel"*"at most $(frames_max) frames"*"addresses mapped through"* ]]
	[[ "${stderr_lines[1]}" != "  "* ]]
	run --separate-stderr "$USTACK" -q -B "$name" -e syscalls:sys_enter_getppid -- "$PROGS/deep" 1
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	assert_no_instance "$name"
}

@test "report -i on a FIFO or a device: refused by name at once, never opened" {
	mkfifo "$TMP/fifo"
	run --separate-stderr timeout 10 "$USTACK" report -i "$TMP/fifo"
	[ "$status" -eq 1 ]
	[ "$stderr" = "trace-cmd ustack: $TMP/fifo is not a regular file" ]
	run --separate-stderr timeout 10 "$USTACK" report -i /dev/null
	[ "$status" -eq 1 ]
	[ "$stderr" = "trace-cmd ustack: /dev/null is not a regular file" ]
}

@test "resolver: a FIFO named as a mapping's file is not opened (no hang), the frame says why" {
	make -s -C "$ROOT" tests/tools/ustack-symbolize >&2
	mkfifo "$TMP/lib.so"
	run --separate-stderr timeout 10 "$ROOT/tests/tools/ustack-symbolize" --why <<< "$TMP/lib.so 0x1000"
	[ "$status" -eq 0 ]
	[ "$output" = "[unknown] (lib.so) # no file" ]
	[ "$stderr" = "ustack-symbolize: $TMP/lib.so: not a regular file" ]
}

@test "resolver without --symfs: files of proc, sysfs and tracefs a trace names are refused unopened: 'not a regular file'" {
	make -s -C "$ROOT" tests/tools/ustack-symbolize >&2
	local f files=(/proc/self/environ /sys/kernel/notes)

	[ -e "$TRACEFS/trace_pipe" ] && files+=("$TRACEFS/trace_pipe")
	for f in "${files[@]}"; do
		[ -f "$f" ] || continue
		run --separate-stderr timeout 10 "$ROOT/tests/tools/ustack-symbolize" --why <<< "$f 0x10"
		[ "$status" -eq 0 ]
		[ "$output" = "[unknown] (${f##*/}) # no file" ]
		[ "$stderr" = "ustack-symbolize: $f: not a regular file" ]
	done
}

@test "resolver: a regular file that is not ELF is read no further than its identification bytes (strace)" {
	command -v strace >/dev/null || skip "no strace"
	make -s -C "$ROOT" tests/tools/ustack-symbolize >&2
	head -c 200000 /dev/zero > "$TMP/secret"
	run strace -o "$TMP/st" -e trace=openat,read,pread64,mmap "$ROOT/tests/tools/ustack-symbolize" --why <<< "$TMP/secret 0x10"
	[ "$status" -eq 0 ]
	[[ "$output" == *"[unknown] (secret) # no file" ]]
	[[ "$output" == *"$TMP/secret: not an ELF file"* ]]
	local fd
	fd=$(sed -n "s|^openat(.*\"$TMP/secret\".*= \([0-9]*\)\$|\1|p" "$TMP/st")
	[ -n "$fd" ]
	# from its opening on: one read of 16 bytes at offset 0, no mapping
	sed -n "\|\"$TMP/secret\"|,\$p" "$TMP/st" > "$TMP/after"
	cat "$TMP/after" >&2
	[ "$(grep -c "^pread64($fd, .*, 16, 0) = 16" "$TMP/after")" -eq 1 ]
	[ "$(grep -c "^\(pread64\|read\|mmap\)(.*\b$fd\b" "$TMP/after")" -eq 1 ]
}

@test "report: formats that make every record unknown fail with one line, not a silent exit 0" {
	v6_copy deep-deferred.dat "$TMP/v6.dat"
	# every "ID: N" of the event formats becomes 9...9: no record has its format
	python3 -c '
import re, sys
b = open(sys.argv[1], "rb").read()
b = re.sub(rb"\nID: (\d+)\n", lambda m: b"\nID: " + b"9" * len(m.group(1)) + b"\n", b)
open(sys.argv[2], "wb").write(b)' "$TMP/v6.dat" "$TMP/noid.dat"
	run --separate-stderr "$USTACK" report -q --folded -i "$TMP/noid.dat"
	[ "$status" -eq 1 ]
	[ "$stderr" = "trace-cmd ustack: $TMP/noid.dat: none of its 12 records has a known event format (corrupt formats)" ]
}

@test "report: formats libtraceevent cannot parse (no 'format:' line) fail with one line, not events: 0 and exit 0" {
	v6_copy deep-deferred.dat "$TMP/v6.dat"
	# every format loses its field list: not even common_type is known
	python3 -c '
import sys
b = open(sys.argv[1], "rb").read().replace(b"\nformat:\n", b"\nformxt:\n")
open(sys.argv[2], "wb").write(b)' "$TMP/v6.dat" "$TMP/nofmt.dat"
	for a in -q --folded --raw; do
		run --separate-stderr "$USTACK" report -q $a -i "$TMP/nofmt.dat"
		[ "$status" -eq 1 ]
		[ "$stderr" = "trace-cmd ustack: $TMP/nofmt.dat: none of its 12 records has a known event format (corrupt formats)" ]
	done
}

@test "report: records of one unknown type among known ones: counted in one line, the rest printed, exit 0" {
	v6_copy deep-deferred.dat "$TMP/v6.dat"
	python3 -c '
import re, sys
b = open(sys.argv[1], "rb").read()
b = re.sub(rb"(name: sys_enter_getppid\nID: )(\d+)\n", lambda m: m.group(1) + b"9" * len(m.group(2)) + b"\n", b)
open(sys.argv[2], "wb").write(b)' "$TMP/v6.dat" "$TMP/oneid.dat"
	run --separate-stderr "$USTACK" report -q --folded -i "$TMP/oneid.dat"
	[ "$status" -eq 0 ]
	[ "$stderr" = "trace-cmd ustack: $TMP/oneid.dat: 3 of its 12 records have no known event format (shown as [UNKNOWN EVENT])" ]
	[ -n "$output" ]
}

# killed_then_run NAME: our run SIGKILL'ed while tracing, then a run of
# instance NAME; sets KILLED (the killed run's pid), LIVE_LEFT (whether
# the instance named as this live shell's was left) and run's status and
# stderr. Returns 2 when the killed run's instance went without our run
# saying so: another run beside this one (another test run) reaped it,
# as any run must.
killed_then_run() {
	local name=$1 pid child

	"$USTACK" -q -e syscalls:sys_enter_getppid -- sleep 60 > /dev/null 2>&1 &
	pid=$!
	BG_PID=$pid
	KILLED=$pid
	wait_tracing "ustack-$pid" syscalls/sys_enter_getppid
	# an instance named as this shell's would be: its owner lives
	mkdir "$TRACEFS/instances/ustack-$$"
	child=$(pgrep -P "$pid" || true)
	kill -9 "$pid"
	wait "$pid" || true
	BG_PID=
	[ -z "$child" ] || kill "$child" 2>/dev/null || true
	if [ ! -d "$TRACEFS/instances/ustack-$pid" ]; then
		rmdir "$TRACEFS/instances/ustack-$$"
		return 2
	fi
	run --separate-stderr "$USTACK" -q -B "$name" -e syscalls:sys_enter_getppid -- true
	LIVE_LEFT=no
	[ -d "$TRACEFS/instances/ustack-$$" ] && LIVE_LEFT=yes
	rmdir "$TRACEFS/instances/ustack-$$"
	# gone, but not said by ours: reaped by another between the look
	# above and our run's own (a run that reaps and never says it fails
	# each try so)
	if [[ "$stderr" != *"removed instance ustack-$pid: its run was killed"* ]] &&
	   [ ! -e "$TRACEFS/instances/ustack-$pid" ]; then
		return 2
	fi
	return 0
}

@test "SIGKILL: the next run removes the instance of the killed run, and not a live owner's" {
	require_capture
	name=$(instance_name)
	# beside another test run, its runs reap too: a killed run's
	# instance it reaped first is tried again (three times at most)
	for try in 1 2 3; do
		rc=0
		killed_then_run "$name" || rc=$?
		[ "$rc" -eq 2 ] || break
		echo "try $try: another run reaped ustack-$KILLED first"
	done
	[ "$rc" -eq 0 ]
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"trace-cmd ustack: removed instance ustack-$KILLED: its run was killed"* ]]
	[ ! -e "$TRACEFS/instances/ustack-$KILLED" ]
	[ "$LIVE_LEFT" = yes ]
	assert_no_instance "$name"
}

# --- untrusted paths: --symfs confinement and size caps ---------------------

load elf

SYM="$ROOT/tests/tools/ustack-symbolize"
LIE="$ROOT/tests/bats/elf-lie.py"

# cc_prog OUT [CFLAGS...]: a small program with a function "leaf"; LEAF_OFF
# is the file offset of leaf+1 (from nm and readelf, not the code under test)
cc_prog() {
	local out="$1" a
	shift
	make -s -C "$ROOT" tests/tools/ustack-symbolize >&2
	printf '%s\n' 'int leaf(int x) { return x * 3 + 1; }' \
		'int main(int c, char **v) { (void)v; return leaf(c); }' > "$TMP/prog.c"
	gcc -O1 -fno-omit-frame-pointer "$@" -o "$out" "$TMP/prog.c"
	a=$(nm "$out" | awk '$3 == "leaf" { print $1 }')
	LEAF_OFF=$(vaddr_to_off "$out" "$(printf '%x' $((0x$a + 1)))")
}

# peak_kib CMD...: run CMD (stdin passed on), its output in $TMP/out and
# $TMP/err, its peak resident memory (KiB) printed
peak_kib() {
	/usr/bin/time -f %M -o "$TMP/rss" "$@" > "$TMP/out" 2> "$TMP/err" || true
	tail -1 "$TMP/rss"
}

@test "--symfs: symlinks (absolute, relative) and '..' leading out of DIR are refused: 'outside --symfs'" {
	cc_prog "$TMP/outside.so"
	mkdir -p "$TMP/root/usr/lib"
	ln -s "$TMP/outside.so" "$TMP/root/usr/lib/abs.so"
	ln -s ../../../outside.so "$TMP/root/usr/lib/rel.so"
	# a directory symlink in the middle of the path
	ln -s "$TMP" "$TMP/root/usr/lib/dir"
	for env in "" USTACK_TEST_NO_OPENAT2=1; do
		for p in /usr/lib/abs.so /usr/lib/rel.so /usr/lib/dir/outside.so /../outside.so \
			 /usr/../../outside.so; do
			run --separate-stderr env $env "$SYM" --leaf --why --no-debuginfod \
				--symfs "$TMP/root" <<< "$p $LEAF_OFF"
			echo "$env $p: $output / $stderr"
			[ "$status" -eq 0 ]
			[ "$output" = "[unknown] (${p##*/}) # outside --symfs" ]
			[ "$stderr" = "ustack-symbolize: $p: outside --symfs" ]
		done
	done
	# the file itself resolves: the refusal is the confinement's
	run "$SYM" --leaf --no-debuginfod <<< "$TMP/outside.so $LEAF_OFF"
	[ "$output" = "leaf+0x1 (outside.so)" ]
}

@test "--symfs: symlinks that stay inside DIR resolve; an absolute one resolves with DIR as the root" {
	cc_prog "$TMP/prog"
	mkdir -p "$TMP/root/usr/lib/x86_64-linux-gnu" "$TMP/root/lib"
	cp "$TMP/prog" "$TMP/root/usr/lib/x86_64-linux-gnu/libp.so.1"
	ln -s libp.so.1 "$TMP/root/usr/lib/x86_64-linux-gnu/libp.so"
	ln -s ../usr/lib/x86_64-linux-gnu/libp.so.1 "$TMP/root/lib/rel.so"
	# as copied from another machine: the target is absolute on that machine
	ln -s /usr/lib/x86_64-linux-gnu/libp.so.1 "$TMP/root/lib/abs.so"
	for p in /usr/lib/x86_64-linux-gnu/libp.so /lib/rel.so /lib/abs.so /lib/../lib/rel.so; do
		run --separate-stderr "$SYM" --leaf --why --no-debuginfod --symfs "$TMP/root/" <<< "$p $LEAF_OFF"
		echo "$p: $output / $stderr"
		[ "$output" = "leaf+0x1 (${p##*/})" ]
		[ -z "$stderr" ]
	done
	# without openat2 (kernels before 5.6) relative links inside still work
	run --separate-stderr env USTACK_TEST_NO_OPENAT2=1 "$SYM" --leaf --no-debuginfod \
		--symfs "$TMP/root" <<< "/lib/rel.so $LEAF_OFF"
	[ "$output" = "leaf+0x1 (rel.so)" ]
}

@test "--symfs: a debug file reached through a symlink out of DIR is not used" {
	cc_prog "$TMP/prog" -g
	mkdir -p "$TMP/root/opt/app" "$TMP/elsewhere"
	objcopy --only-keep-debug "$TMP/prog" "$TMP/elsewhere/prog.debug"
	strip --strip-all -o "$TMP/root/opt/app/prog" "$TMP/prog"
	objcopy --add-gnu-debuglink="$TMP/elsewhere/prog.debug" "$TMP/root/opt/app/prog"
	id=$(readelf -n "$TMP/prog" | awk '/Build ID:/ { print $3; exit }')
	mkdir -p "$TMP/root/usr/lib/debug/.build-id/${id:0:2}"
	ln -s "$TMP/elsewhere/prog.debug" "$TMP/root/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
	ln -s ../../../elsewhere/prog.debug "$TMP/root/opt/app/prog.debug"
	run "$SYM" --leaf --why --no-debuginfod --symfs "$TMP/root" <<< "/opt/app/prog $LEAF_OFF"
	[ "$output" = "[unknown] (prog) # stripped" ]
	# the same debug file copied inside DIR is found
	rm "$TMP/root/opt/app/prog.debug"
	cp "$TMP/elsewhere/prog.debug" "$TMP/root/opt/app/prog.debug"
	run "$SYM" --leaf --why --no-debuginfod --symfs "$TMP/root" <<< "/opt/app/prog $LEAF_OFF"
	[ "$output" = "leaf+0x1 (prog)" ]
}

@test "report --symfs: a traced binary that is a symlink out of DIR: its frames 'outside --symfs'" {
	cp -a "$DATA/symfs" "$TMP/symfs"
	mv "$TMP/symfs/tmp/ustack-fixtures/deep" "$TMP/deep"
	ln -s "$TMP/deep" "$TMP/symfs/tmp/ustack-fixtures/deep"
	run --separate-stderr "$USTACK" report -i "$DATA/deep-deferred.dat" --symfs "$TMP/symfs" \
		--folded --no-debuginfod
	[ "$status" -eq 0 ]
	echo "$output"; echo "$stderr"
	# stripped or not found, a frame keeps its file and offset
	[[ "$output" =~ ^deep\;libc\.so\.6\+0x[0-9a-f]+\;deep\+0x[0-9a-f]+\;deep\+0x[0-9a-f]+\;.*deep\+0x[0-9a-f]+\ 3$ ]]
	[[ "$stderr" == *"frames unresolved:    66 of 66 (no file 3, outside --symfs 63)"* ]]
}

@test "a sparse 64 GiB file named in a trace: refused by the file size cap, one warning, memory bounded" {
	cp -a "$DATA/symfs" "$TMP/symfs"
	f="$TMP/symfs/tmp/ustack-fixtures/deep"
	# an ELF file at its start, then a 64 GiB hole
	truncate -s 64G "$f" || skip "no sparse files here"
	kib=$(peak_kib "$USTACK" report -i "$DATA/deep-deferred.dat" --symfs "$TMP/symfs" \
		--folded --no-debuginfod)
	cat "$TMP/out" "$TMP/err"
	echo "peak $kib KiB"
	[ "$kib" -lt 102400 ]
	[ "$(grep -c 'over the cap' "$TMP/err")" -eq 1 ]
	grep -qx "trace-cmd ustack: $f: 68719476736 bytes in the file, over the cap of 17179869184: file not used" "$TMP/err"
	grep -q "frames unresolved:    66 of 66 (no file 3, over a size cap 63)" "$TMP/err"
	grep -qE '^deep;libc\.so\.6\+0x[0-9a-f]+;deep\+0x[0-9a-f]+;' "$TMP/out"
}

# lie_check FILE LINE: FILE is refused with the warning LINE (after the
# path), its frame is unresolved "over a size cap", under 100 MiB of memory
lie_check() {
	local kib

	kib=$(peak_kib "$SYM" --leaf --why --lines --no-debuginfod <<< "$1 $LEAF_OFF")
	echo "$1: peak $kib KiB"; cat "$TMP/out" "$TMP/err"
	[ "$kib" -lt 102400 ]
	[ "$(cat "$TMP/out")" = "[unknown] (${1##*/}) # over a size cap" ]
	[ "$(grep -c 'over the cap' "$TMP/err")" -eq 1 ]
	grep -qx "trace-cmd ustack: $1: $2: file not used" "$TMP/err"
}

@test "ELF headers that lie (e_shnum, e_phnum, .symtab sh_size, ch_size) in sparse files: capped, said, memory bounded" {
	cc_prog "$TMP/prog" -g
	# the counts fit in the (sparse) file, so only the caps stop them
	cp "$TMP/prog" "$TMP/shnum"
	"$LIE" "$TMP/shnum" shnum 4194304
	truncate -s 1G "$TMP/shnum"
	lie_check "$TMP/shnum" "4194304 section headers, over the cap of 65536"
	cp "$TMP/prog" "$TMP/phnum"
	"$LIE" "$TMP/phnum" phnum 4194304
	truncate -s 1G "$TMP/phnum"
	lie_check "$TMP/phnum" "4194304 program headers, over the cap of 65536"
	# 20 Mi entries of 24 bytes: 480 MiB of symbols to scan
	cp "$TMP/prog" "$TMP/symtab"
	"$LIE" "$TMP/symtab" symtab-size $(( (20 << 20) * 24 ))
	truncate -s 1G "$TMP/symtab"
	lie_check "$TMP/symtab" "20971520 entries in .symtab, over the cap of 16777216"
	# beyond the end of the (not sparse) file: the file is the cap
	cp "$TMP/prog" "$TMP/symtab2"
	"$LIE" "$TMP/symtab2" symtab-size $((1 << 30))
	run --separate-stderr "$SYM" --leaf --why --no-debuginfod <<< "$TMP/symtab2 $LEAF_OFF"
	[ "$output" = "[unknown] (symtab2) # over a size cap" ]
	[[ "$stderr" == *"44739242 entries in .symtab, over the cap of "* ]]
	# and the intact file resolves
	run "$SYM" --leaf --no-debuginfod <<< "$TMP/prog $LEAF_OFF"
	[ "$output" = "leaf+0x1 (prog)" ]
}

@test "a compressed DWARF section that claims 1 TiB: capped before libelf inflates it" {
	cc_prog "$TMP/prog" -g -gz=zlib 2>/dev/null || skip "gcc cannot -gz=zlib"
	readelf -SW "$TMP/prog" | grep -q ' \.debug_info .* C ' || skip "no SHF_COMPRESSED .debug_info"
	"$LIE" "$TMP/prog" chsize .debug_info $((1 << 40))
	size=$(readelf -SW "$TMP/prog" |
		sed -n 's/.*\] \.debug_info  *[A-Z]*  *[0-9a-f]* [0-9a-f]* \([0-9a-f]*\) .*/\1/p')
	size=$((0x$size))
	lie_check "$TMP/prog" "1099511627776 bytes decompressed from $size in .debug_info, over the cap of $((size * 1032))"
}

@test "a zlib-compressed DWARF section whose data is damaged: the name stays, no line, said once" {
	cc_prog "$TMP/prog" -g -gz=zlib 2>/dev/null || skip "gcc cannot -gz=zlib"
	readelf -SW "$TMP/prog" | grep -q ' \.debug_info .* C ' || skip "no SHF_COMPRESSED .debug_info"
	run "$SYM" --leaf --lines --no-debuginfod <<< "$TMP/prog $LEAF_OFF"
	[[ "$output" == "leaf+0x1 (prog) $TMP/prog.c:1" ]]
	# 16 bytes of 0xff into the deflate stream, past its headers
	off=$(readelf -SW "$TMP/prog" |
		sed -n 's/.*\] \.debug_info  *[A-Z]*  *[0-9a-f]* \([0-9a-f]*\) .*/\1/p')
	cp "$TMP/prog" "$TMP/badz"
	printf '\377%.0s' {1..16} |
		dd of="$TMP/badz" bs=1 seek=$((0x$off + 32)) conv=notrunc status=none
	# twice: the warning is said once per file
	run --separate-stderr "$SYM" --leaf --lines --no-debuginfod \
		<<< "$TMP/badz $LEAF_OFF"$'\n'"$TMP/badz $LEAF_OFF"
	[ "$status" -eq 0 ]
	[ "$output" = "leaf+0x1 (badz)"$'\n'"leaf+0x1 (badz)" ]
	[ "$stderr" = "trace-cmd ustack: $TMP/badz: bad zlib data in a compressed section: no lines or inlines from it" ]
}

@test "DWARF sections that claim 2 GiB (.debug_line sh_size, sparse file): not handed to libdw, said once, 'over a size cap', memory bounded" {
	cc_prog "$TMP/prog" -g
	# no symbol table: only the DWARF could name leaf
	strip --strip-all --keep-section='.debug_*' -o "$TMP/nosym" "$TMP/prog"
	run "$SYM" --leaf --why --lines --no-debuginfod <<< "$TMP/nosym $LEAF_OFF"
	[[ "$output" == "leaf+0x1 (nosym) $TMP/prog.c:1" ]]
	cp "$TMP/nosym" "$TMP/lines"
	"$LIE" "$TMP/lines" size .debug_line $((2 << 30))
	truncate -s 3G "$TMP/lines"
	# twice: the warning is said once per file
	kib=$(peak_kib "$SYM" --leaf --why --lines --inlines --no-debuginfod \
		<<< "$TMP/lines $LEAF_OFF"$'\n'"$TMP/lines $(printf '0x%x' $((LEAF_OFF + 1)))")
	echo "peak $kib KiB"; cat "$TMP/out" "$TMP/err"
	[ "$kib" -lt 102400 ]
	[ "$(sed -n 1p "$TMP/out")" = "[unknown] (lines) # over a size cap" ]
	[ "$(sed -n 2p "$TMP/out")" = "[unknown] (lines) # over a size cap" ]
	[ "$(wc -l < "$TMP/err")" -eq 1 ]
	grep -qx "trace-cmd ustack: $TMP/lines: 2147[0-9]* bytes of DWARF, over the cap of 1073741824: no lines or inlines from it" "$TMP/err"
	# with its symbol table the name stays, without a line
	cp "$TMP/prog" "$TMP/withsym"
	"$LIE" "$TMP/withsym" size .debug_line $((2 << 30))
	truncate -s 3G "$TMP/withsym"
	run --separate-stderr "$SYM" --leaf --why --lines --no-debuginfod <<< "$TMP/withsym $LEAF_OFF"
	[ "$output" = "leaf+0x1 (withsym)" ]
	[[ "$stderr" == *"withsym: "*" bytes of DWARF, over the cap of 1073741824: no lines or inlines from it" ]]
}

@test "MiniDebugInfo that decompresses past 1032 times its size (an xz bomb): capped, said once" {
	command -v xz >/dev/null || skip "xz not installed"
	cc_prog "$TMP/prog"
	head -c 64M /dev/zero | xz -0 > "$TMP/bomb.xz"
	strip --strip-all -o "$TMP/stripped" "$TMP/prog"
	objcopy --add-section .gnu_debugdata="$TMP/bomb.xz" "$TMP/stripped"
	kib=$(peak_kib "$SYM" --leaf --why --no-debuginfod <<< "$TMP/stripped $LEAF_OFF")
	cat "$TMP/out" "$TMP/err"
	[ "$kib" -lt 102400 ]
	[ "$(cat "$TMP/out")" = "[unknown] (stripped) # over a size cap" ]
	[ "$(wc -l < "$TMP/err")" -eq 1 ]
	grep -q "^trace-cmd ustack: $TMP/stripped: .gnu_debugdata decompresses past the caps" "$TMP/err"
}

@test "a FIFO as a JIT perf map (/tmp/perf-PID.map under --symfs) is not opened: no hang" {
	make -s -C "$ROOT" tests/tools/ustack-symbolize >&2
	mkdir -p "$TMP/root/tmp"
	mkfifo "$TMP/root/tmp/perf-4242.map"
	run --separate-stderr timeout 10 "$SYM" --why --pid 4242 --symfs "$TMP/root" <<< "[jit] 0x1000"
	[ "$status" -eq 0 ]
	[[ "$output" == "[unknown] "* ]]
	[[ "$stderr" == *"perf-4242.map: not used: not a regular file"* ]]
}

@test "--symfs: a dwz file (.gnu_debugaltlink) is looked up inside DIR, never by libdw outside it, a FIFO not opened" {
	command -v dwz >/dev/null || skip "dwz not installed"
	make -s -C "$ROOT" tests/tools/ustack-symbolize >&2
	cd "$TMP"
	printf '%s\n' 'struct point { int x, y; long z[4]; };' \
		'struct shape { struct point a, b; const char *name; };' \
		'static inline int area(const struct shape *s) { return (s->b.x - s->a.x) * (s->b.y - s->a.y); }' > common.h
	printf '#include "common.h"\nint leaf(struct shape *s) { return area(s) + 1; }\nint main(void) { struct shape s = {{0,0,{0}},{2,3,{0}},"x"}; return leaf(&s); }\n' > a.c
	printf '#include "common.h"\nint other(struct shape *s) { return area(s) + 2; }\nint main(void) { struct shape s = {{0,0,{0}},{2,4,{0}},"y"}; return other(&s); }\n' > b.c
	gcc -g -O1 -fno-omit-frame-pointer -o a a.c
	gcc -g -O1 -fno-omit-frame-pointer -o b b.c
	# the inlined area() now lives in the dwz file, named by an absolute path
	dwz -m common.debug -M /usr/lib/debug/.dwz/common.debug a b
	a=$(nm a | awk '$3 == "leaf" { print $1 }')
	off=$(vaddr_to_off a "$(printf '%x' $((0x$a + 1)))")
	mkdir -p root/opt root/usr/lib/debug/.dwz
	cp a root/opt/a
	cp common.debug root/usr/lib/debug/.dwz/common.debug
	run "$SYM" --leaf --lines --inlines --no-debuginfod --symfs "$TMP/root" <<< "/opt/a $off"
	[ "${lines[0]}" = "area (a) $TMP/common.h:3 [inlined]" ]
	[ "${lines[1]}" = "leaf+0x1 (a) $TMP/a.c:2" ]
	# a symlink out of DIR, and a FIFO: not used; the name stays, without DWARF
	rm root/usr/lib/debug/.dwz/common.debug
	ln -s "$TMP/common.debug" root/usr/lib/debug/.dwz/common.debug
	run "$SYM" --leaf --lines --inlines --no-debuginfod --symfs "$TMP/root" <<< "/opt/a $off"
	[ "$output" = "leaf+0x1 (a)" ]
	rm root/usr/lib/debug/.dwz/common.debug
	mkfifo root/usr/lib/debug/.dwz/common.debug
	run --separate-stderr timeout 10 "$SYM" --leaf --lines --inlines --no-debuginfod --symfs "$TMP/root" <<< "/opt/a $off"
	[ "$status" -eq 0 ]
	[ "$output" = "leaf+0x1 (a)" ]
}
