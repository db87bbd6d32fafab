#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The README's set-up (issue 46, item 8): its first command, which .ci/run
# runs, leaves `trace-cmd ustack` working, and the demo runs the commands
# it prints, through the `trace-cmd` of PATH. The install goes to a
# prefix of the test's own, never to this machine's /usr/local.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	tmp_setup
}

teardown() {
	instance_teardown
}

# The README's set-up command: the line of its first sh block
setup_line() {
	sed -n '/^```sh$/{n;p;q}' "$ROOT/README.md"
}

# The make targets of the set-up command but the demo, in order
setup_targets() {
	setup_line | tr '&' '\n' | sed -n 's/^ *make *\([a-z-]*\) *$/\1/p' | grep -vx 'demo\|' || true
}

@test "README's set-up is .ci/run's, and its steps leave trace-cmd ustack running this build" {
	line=$(setup_line)
	[[ "$line" == "scripts/install-deps && make"* ]] || { echo "set-up: $line"; return 1; }
	[[ "$line" == *"make demo" ]]
	grep -qxF "$line" "$ROOT/.ci/run"
	targets=$(setup_targets)
	[ -n "$targets" ] || { echo "no install step in: $line"; return 1; }
	# shellcheck disable=SC2086
	make -s -C "$ROOT" $targets prefix="$TMP/p" >/dev/null
	run env PATH="$TMP/p/bin:$PATH" trace-cmd ustack --version
	[ "$status" -eq 0 ]
	[ "$output" = "$("$USTACK" --version)" ]
	# trace-cmd's own commands still go to trace-cmd
	if command -v trace-cmd >/dev/null; then
		run env PATH="$TMP/p/bin:$PATH" trace-cmd list -o
		[ "$status" -eq 0 ]
	fi
}

@test "demo: runs each command it prints through trace-cmd of PATH, and prints what that command prints" {
	require_capture
	make -s -C "$ROOT" install-wrapper prefix="$TMP/p" >/dev/null
	run --separate-stderr env PATH="$TMP/p/bin:$PATH" "$ROOT/scripts/demo"
	[ "$status" -eq 0 ] || { echo "$stderr"; return 1; }
	echo "$output" >"$TMP/demo"
	# every command it shows is what a user types
	[ "$(grep -c '^# ' "$TMP/demo")" -ge 3 ]
	! grep '^# ' "$TMP/demo" | grep -v '^# trace-cmd ustack ' || false
	# the folded section, run again as printed, prints the same
	cmd=$(sed -n 's/^# \(trace-cmd ustack -q --folded .*threads 5\)$/\1/p' "$TMP/demo")
	[ -n "$cmd" ]
	want=$(sed -n "/^# trace-cmd ustack -q --folded .*threads 5\$/,/^\$/p" "$TMP/demo" | sed '1d;/^$/d')
	got=$(cd "$ROOT" && PATH="$TMP/p/bin:$PATH" sh -c "$cmd" 2>/dev/null)
	[ "$got" = "$want" ]
	[[ "$got" == *"threads;start_thread;alpha_thread;alpha_1;alpha_2;leaf_syscall 5"* ]]
}

@test "demo: where trace-cmd ustack is not this build it says so and runs nothing, exit 1" {
	require_capture
	# a trace-cmd-ustack of another build beside the dispatcher
	mkdir -p "$TMP/p/bin"
	cp "$ROOT/scripts/trace-cmd-wrapper" "$TMP/p/bin/trace-cmd"
	printf '#!/bin/sh\necho other build\n' >"$TMP/p/bin/trace-cmd-ustack"
	chmod +x "$TMP/p/bin/trace-cmd-ustack"
	run --separate-stderr env PATH="$TMP/p/bin:$PATH" "$ROOT/scripts/demo"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "demo: \`trace-cmd ustack\` runs $TMP/p/bin/trace-cmd-ustack, not this build: make install-wrapper again" ]]
	[ -z "$output" ]
}
