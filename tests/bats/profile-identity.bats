#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Issue 46, item 9: frames of a stripped binary keep their file and
# offset ("gzip+0xd0f9", as the stacks output shows them) in every
# aggregated output (folded, flame graph, pprof, speedscope), and pprof's
# main binary (its first mapping) is the traced program. On real stripped
# binaries: Debian's /usr/bin/gzip and a stripped copy of
# tests/progs/profile/fanout.

bats_require_minimum_version 1.5.0
load helpers

setup_file() {
	build_progs
}

setup() {
	capture_setup
}

teardown() {
	instance_teardown
}

need_go() {
	command -v go >/dev/null || {
		echo "go is missing: install Debian's golang-go (scripts/install-deps)" >&2
		return 1
	}
}

# Debian's gzip, stripped as the distribution ships it, and input for it
gzip_setup() {
	file -L /usr/bin/gzip | grep -q ', stripped' || {
		echo "/usr/bin/gzip is not stripped on this host" >&2
		return 1
	}
	head -c 2000000 /dev/urandom > "$TMP/big"
}

# The gzip+0xOFFSET names in a file, sorted, once each
gzip_frames() {
	grep -oE 'gzip\+0x[0-9a-f]+' "$1" | sort -u
}

# The stacks output as folded lines (comm;outermost;...;leaf), one per event
stacks_as_folded() {
	awk '
		function flush(  s, i) {
			if (!comm)
				return
			s = comm
			for (i = n; i >= 1; i--)
				s = s ";" f[i]
			print s
		}
		/^[^ ]/ || /^ +[^ ]+-[0-9]+ +\[[0-9]+\]/ && !/^  [^ ]/ {
			flush(); n = 0
			comm = $1; sub(/-[0-9]+$/, "", comm)
			next
		}
		/^  \[unknown\] \(/ { sub(/^  \[unknown\] \(/, ""); sub(/\).*/, ""); f[++n] = $0; next }
		/^  \[/ { sub(/^  /, ""); f[++n] = $0; next }
		/^  / { sub(/^  /, ""); sub(/\+0x[0-9a-f]+ \(.*/, ""); f[++n] = $0; next }
		END { flush() }'
}

@test "stripped gzip: folded, flame graph, pprof and speedscope name its frames gzip+0xOFFSET as the stacks output does, never one [gzip] box" {
	need_go
	gzip_setup
	"$USTACK" record -B "$NAME" -q -o "$TMP/t.dat" --call-graph=dwarf \
		-e syscalls:sys_enter_write -- gzip -9 -c "$TMP/big" > /dev/null
	"$USTACK" report -i "$TMP/t.dat" -q > "$TMP/stacks"
	"$USTACK" report -i "$TMP/t.dat" -q --folded --flamegraph "$TMP/g.svg" \
		--pprof "$TMP/g.pb.gz" --speedscope "$TMP/g.json" > "$TMP/folded"
	go tool pprof -traces -symbolize=none "$TMP/g.pb.gz" > "$TMP/pprof" 2>&1
	jq -r '.shared.frames[].name' "$TMP/g.json" > "$TMP/speedscope"
	head -40 "$TMP/stacks"; cat "$TMP/folded"
	# the stacks output names them so, at several offsets
	gzip_frames "$TMP/stacks" > "$TMP/want"
	cat "$TMP/want"
	[ "$(wc -l < "$TMP/want")" -ge 3 ]
	# every output has the same frames, and none merged into "[gzip]"
	for f in folded g.svg pprof speedscope; do
		echo "== $f"
		gzip_frames "$TMP/$f" | diff "$TMP/want" -
		! grep -qF '[gzip]' "$TMP/$f"
	done
}

@test "stripped fanout: one folded line per distinct path (same file and offset merge, other offsets do not), each as the stacks output shows it" {
	cp "$PROGS/profile/fanout" "$TMP/stripped"
	strip -s "$TMP/stripped"
	file "$TMP/stripped" | grep -q ', stripped'
	"$USTACK" record -B "$NAME" -q -o "$TMP/t.dat" -e syscalls:sys_enter_getppid \
		-- "$TMP/stripped" 16
	"$USTACK" report -i "$TMP/t.dat" -q > "$TMP/stacks"
	"$USTACK" report -i "$TMP/t.dat" -q --folded > "$TMP/folded"
	cat "$TMP/stacks" "$TMP/folded"
	# fanout's four paths, (left,a) 6, (left,b) 6, (right,a) 2, (right,b) 2,
	# stay four lines, their leaves a() and b() at offsets of their own
	[ "$(wc -l < "$TMP/folded")" -eq 4 ]
	[ "$(awk '{ print $NF }' "$TMP/folded" | sort -n | tr '\n' ' ')" = "2 2 6 6 " ]
	[ "$(sed -E 's/ [0-9]+$//; s/.*;//' "$TMP/folded" | sort -u | wc -l)" -eq 2 ]
	grep -qE '^stripped;.*stripped\+0x[0-9a-f]+;stripped\+0x[0-9a-f]+ [0-9]+$' "$TMP/folded"
	! grep -qF '[stripped]' "$TMP/folded"
	# the same names and the same counts as the stacks output's frames
	want=$(stacks_as_folded < "$TMP/stacks" | sort | uniq -c | awk '{ print $2 " " $1 }')
	echo "want:"; echo "$want"
	[ "$(sort "$TMP/folded")" = "$want" ]
}

@test "folded: a stripped file's frames have the same file+0xOFFSET names with and without --raw" {
	cp "$PROGS/profile/fanout" "$TMP/stripped"
	strip -s "$TMP/stripped"
	"$USTACK" record -B "$NAME" -q -o "$TMP/t.dat" -e syscalls:sys_enter_getppid \
		-- "$TMP/stripped" 4
	"$USTACK" report -i "$TMP/t.dat" -q --folded --raw > "$TMP/raw"
	"$USTACK" report -i "$TMP/t.dat" -q --folded > "$TMP/folded"
	cat "$TMP/raw" "$TMP/folded"
	# the names of file frames are the same with and without --raw
	# (offsets in both); a name without a file has no +0x part
	[ "$(grep -oE 'stripped\+0x[0-9a-f]+' "$TMP/raw" | sort -u)" = \
	  "$(grep -oE 'stripped\+0x[0-9a-f]+' "$TMP/folded" | sort -u)" ]
	! grep -qE '(^|;)\+0x' "$TMP/folded"
}

# The file of pprof's first mapping, its main binary
pprof_main() {
	go tool pprof -raw -symbolize=none "$1" 2>/dev/null |
		awk '/^Mappings/ { m = 1; next } m && /^[0-9]+: / { print $3; exit }'
}

@test "pprof: the first mapping (go tool pprof's File:) is the traced command's file, even when no stack reaches it, not ld.so" {
	need_go
	gzip_setup
	# frame pointers stop in libc: no stack has a frame of gzip
	"$USTACK" -B "$NAME" -q --call-graph=fp -e syscalls:sys_enter_openat \
		--pprof "$TMP/fp.pb.gz" -- gzip -c "$TMP/big" > /dev/null
	go tool pprof -raw -symbolize=none "$TMP/fp.pb.gz" 2>&1 | sed -n '/^Mappings/,$p'
	[ "$(pprof_main "$TMP/fp.pb.gz")" = /usr/bin/gzip ]
	go tool pprof -top -symbolize=none "$TMP/fp.pb.gz" 2>&1 | grep -qx 'File: gzip'
	# its build id is the file's
	id=$(readelf -n /usr/bin/gzip | awk '/Build ID/ { print $3 }')
	go tool pprof -raw -symbolize=none "$TMP/fp.pb.gz" 2>&1 |
		grep -qE "^1: 0x[0-9a-f]+/0x[0-9a-f]+/0x0 /usr/bin/gzip $id"
}

@test "pprof: the program the samples are in is the main binary when the command exec'd it (sh -c 'exec gzip'), and in report, where no command is known" {
	need_go
	gzip_setup
	"$USTACK" -B "$NAME" -q --call-graph=dwarf -e syscalls:sys_enter_write \
		--pprof "$TMP/live.pb.gz" -- sh -c "exec gzip -c '$TMP/big'" > /dev/null
	[ "$(pprof_main "$TMP/live.pb.gz")" = /usr/bin/gzip ]
	"$USTACK" record -B "$NAME" -q -o "$TMP/t.dat" --call-graph=dwarf \
		-e syscalls:sys_enter_write -- gzip -c "$TMP/big" > /dev/null
	"$USTACK" report -i "$TMP/t.dat" -q --pprof "$TMP/rep.pb.gz"
	go tool pprof -raw -symbolize=none "$TMP/rep.pb.gz" 2>&1 | sed -n '/^Mappings/,$p'
	[ "$(pprof_main "$TMP/rep.pb.gz")" = /usr/bin/gzip ]
}

@test "pprof: with --kernel the kernel's mapping is not the main binary" {
	need_go
	"$USTACK" -B "$NAME" -q --kernel --stack-source=userstacktrace -e syscalls:sys_enter_getppid \
		--pprof "$TMP/k.pb.gz" -- "$PROGS/profile/fanout" 4
	go tool pprof -raw -symbolize=none "$TMP/k.pb.gz" 2>&1 | sed -n '/^Mappings/,$p'
	go tool pprof -raw -symbolize=none "$TMP/k.pb.gz" 2>&1 | grep -q 'kernel.kallsyms'
	[ "$(pprof_main "$TMP/k.pb.gz")" = "$PROGS/profile/fanout" ]
}

@test "pprof: a file the trace names that is now a FIFO is not opened to find the main binary (report does not hang)" {
	need_go
	cp "$PROGS/profile/fanout" "$TMP/prog"
	"$USTACK" record -B "$NAME" -q -o "$TMP/t.dat" -e syscalls:sys_enter_getppid -- "$TMP/prog" 4
	rm "$TMP/prog"
	mkfifo "$TMP/prog"
	run --separate-stderr timeout 60 "$USTACK" report -i "$TMP/t.dat" -q --pprof "$TMP/p.pb.gz"
	echo "$stderr"
	[ "$status" -eq 0 ]
	go tool pprof -raw -symbolize=none "$TMP/p.pb.gz" 2>&1 | grep -q "$TMP/prog"
}
