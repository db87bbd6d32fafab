#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# --call-graph=auto per process at exec (issue 46, item 1), on this
# machine's stock kernel (the perf source): a run that chose the
# frame-pointer walk (its program keeps frame pointers) gives a program
# without them that it executes later (Debian's gzip) stack copies of its
# own, unwound with CFI, from the moment the tool sees the exec; one
# stack an event; what came before, or any frame-pointer walk of such a
# program, ends in "[unwind: ...]" and is counted.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	[ -x "$USTACK" ] || make -s -C "$ROOT" tracecmd/trace-cmd-ustack >&2
	# main -> start_gzip (fork + exec gzip on a pipe), then, once "go"
	# comes on stdin, feed -> write(): 256 KiB gzip compresses to many
	# writes of its own, every one of them after "go"
	cat > "$BATS_FILE_TMPDIR/feed.c" <<-'EOF2'
	#include <fcntl.h>
	#include <stdlib.h>
	#include <string.h>
	#include <sys/wait.h>
	#include <unistd.h>
	__attribute__((noinline)) pid_t start_gzip(int *wfd)
	{
		int p[2];
		pid_t pid;

		if (pipe(p))
			exit(2);
		pid = fork();
		if (pid == 0) {
			dup2(p[0], 0);
			dup2(open("/dev/null", O_WRONLY), 1);
			close(p[1]);
			execl("/usr/bin/gzip", "gzip", "-1", "-c", (char *)NULL);
			_exit(127);
		}
		close(p[0]);
		*wfd = p[1];
		return pid;
	}
	__attribute__((noinline)) void wait_go(void)
	{
		char c;

		while (read(0, &c, 1) == 1 && c != 'g')
			;
	}
	__attribute__((noinline)) void feed(int fd)
	{
		unsigned int x = 1;
		char buf[1024];

		for (int i = 0; i < 256; i++) {
			/* compresses badly: gzip's output is as big */
			for (size_t j = 0; j < sizeof(buf); j++) {
				x = x * 1103515245 + 12345;
				buf[j] = x >> 16;
			}
			if (write(fd, buf, sizeof(buf)) != sizeof(buf))
				exit(3);
		}
		close(fd);
	}
	int main(void)
	{
		int fd, st;
		pid_t pid = start_gzip(&fd);

		wait_go();
		feed(fd);
		waitpid(pid, &st, 0);
		return !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	EOF2
	gcc -O1 -fno-omit-frame-pointer -o "$BATS_FILE_TMPDIR/feed" "$BATS_FILE_TMPDIR/feed.c"
}

setup() {
	perf_host_setup
}

teardown() {
	exec 7>&- 2> /dev/null || true
	instance_teardown
}

# run_feed WAIT ARGS...: the tool on feed, write events, folded stacks to
# $TMP/out, stderr to $TMP/err. Feed is told to go once the tool said
# that gzip's events come with copies (WAIT=copies: at most 30 s, then
# anyway), or at once (WAIT=now). Sets $status.
run_feed() {
	local wait="$1" pid i

	shift
	rm -f "$TMP/go"
	mkfifo "$TMP/go"
	# read-write: opening it blocks no one
	exec 7<> "$TMP/go"
	"$USTACK" -B "$NAME" -c -e syscalls:sys_enter_write --folded "$@" \
		-- "$BATS_FILE_TMPDIR/feed" <&7 > "$TMP/out" 2> "$TMP/err" &
	pid=$!
	for ((i = 0; i < 300; i++)); do
		[ "$wait" = copies ] || break
		grep -q 'come with stack copies' "$TMP/err" && break
		kill -0 "$pid" 2> /dev/null || break
		sleep 0.1
	done
	echo go >&7
	status=0
	wait "$pid" || status=$?
	exec 7>&-
	cat "$TMP/err"
	cat "$TMP/out"
}

# gzip_stacks: "REACHED ALL UNWIND": gzip's stacks in $TMP/out, those that
# reach _start (a stripped program's calls __libc_start_main), those that
# end in "[unwind: ...]"
gzip_stacks() {
	awk 'index($0, "gzip;") == 1 {
			n += $NF
			split($0, f, ";")
			if (f[2] == "_start" || f[3] ~ /^__libc_start_main/)
				r += $NF
			if (index($0, "[unwind: "))
				u += $NF
		}
		END { print r + 0, n + 0, u + 0 }' "$TMP/out"
}

@test "exec: a frame-pointer run gives an executed program without frame pointers stack copies, its stacks reach _start" {
	run_feed copies
	[ "$status" -eq 0 ]
	[[ "$(cat "$TMP/err")" == *"--call-graph=auto: $BATS_FILE_TMPDIR/feed keeps frame pointers"*"the kernel's frame-pointer walk"* ]]
	grep -q '^trace-cmd ustack: /usr/bin/gzip (pid [0-9]*) has no frame pointers: its events (and its new children.s) come with stack copies unwound with the files. CFI from now on$' "$TMP/err"
	grep -q '^  copies after exec:    1 of 1 processes without frame pointers (over the cap of 64: 0, refused by perf: 0)$' "$TMP/err"
	read -r reached all unwind <<< "$(gzip_stacks)"
	# gzip -1 of 256 KiB that does not compress: writes of its own, each unwound
	[ "$all" -ge 2 ]
	[ "$reached" -eq "$all" ]
	[ "$unwind" -eq 0 ]
	grep -q "^  stacks unwound:       $all (stack copies, CFI)$" "$TMP/err"
}

@test "exec: the frame-pointer program keeps the frame-pointer walk, and each event has one stack" {
	run_feed copies
	[ "$status" -eq 0 ]
	# the kernel's walk: no _start (CFI finds it), a leaf wrapper's
	# caller skipped (feed); exactly its 256 writes
	grep -q '^feed;__libc_start_call_main;main;write 256$' "$TMP/out"
	[ "$(grep -c '^feed;' "$TMP/out")" -eq 1 ]
	# as many gzip writes, all unwound, as a run that copies every
	# stack: none twice
	read -r reached all unwind <<< "$(gzip_stacks)"
	grep -q "^  stacks unwound:       $all (stack copies, CFI)$" "$TMP/err"
	run_feed now --call-graph=dwarf
	[ "$status" -eq 0 ]
	read -r dreached dall dunwind <<< "$(gzip_stacks)"
	echo "auto: $all dwarf: $dall"
	[ "$all" -eq "$dall" ]
	events=$(awk '{ n += $NF } END { print n }' "$TMP/out")
	grep -q "^  events:               $events$" "$TMP/err"
}

@test "exec: a forced frame-pointer walk of an executed program without frame pointers ends in [unwind: ...], counted and told" {
	run_feed now --call-graph=fp
	[ "$status" -eq 0 ]
	read -r reached all unwind <<< "$(gzip_stacks)"
	[ "$all" -ge 2 ]
	[ "$unwind" -eq "$all" ]
	grep -q '^gzip;\[unwind: frame-pointer walk of code without frame pointers\];' "$TMP/out"
	grep -q "^  unwind stopped:       $all (frame-pointer walk of code without frame pointers $all)$" "$TMP/err"
	grep -q '^trace-cmd ustack: /usr/bin/gzip (pid [0-9]*) has no frame pointers, and its stacks are frame-pointer walks here: they end in "\[unwind: ...\]"' "$TMP/err"
	# forced: no events of its own
	! grep -q 'copies after exec' "$TMP/err"
	grep -q '^feed;__libc_start_call_main;main;write 256$' "$TMP/out"
}
