#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Symbolizer (lib/ustack-resolve*.c) through tests/tools/ustack-symbolize.
# Expected answers are computed here from nm/readelf on the test programs
# in tests/progs/resolve, never taken from the code under test.

ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
SYM="$ROOT/tests/tools/ustack-symbolize"
PROGS="$ROOT/tests/progs/resolve"

setup_file() {
	make -s -C "$PROGS" >&2
	[ -x "$SYM" ] || make -s -C "$ROOT" tests/tools/ustack-symbolize >&2
}

setup() {
	TMP="$(mktemp -d)"
}

teardown() {
	rm -rf "$TMP"
}

# sym_addr FILE SYMBOL: the symbol's virtual address (hex, no 0x)
sym_addr() {
	nm "$1" | awk -v s="$2" '$3 == s { print $1; exit }'
}

# sym_size FILE SYMBOL: st_size in decimal (0 when nm shows none)
sym_size() {
	local sz
	sz=$(nm -S "$1" | awk -v s="$2" 'NF == 4 && $4 == s { print $2; exit }')
	printf '%d\n' "0x${sz:-0}"
}

# vaddr_to_off FILE VADDR_HEX: file offset through the PT_LOAD holding it
vaddr_to_off() {
	local a=$((0x$2)) type off va pa fsz rest
	while read -r type off va pa fsz rest; do
		[ "$type" = LOAD ] || continue
		if [ "$a" -ge $((va)) ] && [ "$a" -lt $((va + fsz)) ]; then
			printf '0x%x\n' $((a - va + off))
			return 0
		fi
	done < <(readelf -lW "$1")
	echo "0x$2 is in no PT_LOAD of $1" >&2
	return 1
}

# sym_off FILE SYMBOL [DELTA]: file offset of SYMBOL+DELTA
sym_off() {
	local a
	a=$(sym_addr "$1" "$2")
	[ -n "$a" ] || { echo "no symbol $2 in $1" >&2; return 1; }
	vaddr_to_off "$1" "$(printf '%x' $((0x$a + ${3:-0})))"
}

build_id() {
	readelf -n "$1" | awk '/Build ID:/ { print $3; exit }'
}

@test "PIE: file offset inside rp_leaf names rp_leaf+offset" {
	f="$PROGS/resolve-pie"
	off=$(sym_off "$f" rp_leaf 4)
	run "$SYM" --leaf <<<"$f $off"
	[ "$status" -eq 0 ]
	[ "$output" = "rp_leaf+0x4 (resolve-pie)" ]
}

@test "non-PIE ET_EXEC: file offset goes through PT_LOAD (vaddr != offset)" {
	f="$PROGS/resolve-nopie"
	a=$(sym_addr "$f" rp_middle)
	off=$(sym_off "$f" rp_middle 3)
	# The test only means something if the two spaces differ.
	[ "$(printf '%x' $((0x$a + 3)))" != "${off#0x}" ]
	run "$SYM" --leaf <<<"$f $off"
	[ "$output" = "rp_middle+0x3 (resolve-nopie)" ]
}

@test "non-PIE ET_EXEC: a virtual address given as offset is not resolved" {
	f="$PROGS/resolve-nopie"
	a=$(sym_addr "$f" rp_middle)
	run "$SYM" --leaf <<<"$f 0x$a"
	[ "$output" = "[unknown] (resolve-nopie)" ]
}

@test "shared library: offset in lib_square resolves in libresolve.so" {
	f="$PROGS/libresolve.so"
	off=$(sym_off "$f" lib_square 1)
	run "$SYM" --leaf <<<"$f $off"
	[ "$output" = "lib_square+0x1 (libresolve.so)" ]
}

@test "return address at a function's end names the caller, not the next function" {
	f="$PROGS/resolve-pie"
	size=$(sym_size "$f" rp_ends_with_call)
	off=$(sym_off "$f" rp_ends_with_call "$size")
	# Precondition: the next function starts exactly at that address.
	[ "$(sym_off "$f" rp_after)" = "$off" ]
	run "$SYM" <<<"$f $off"
	[ "$output" = "$(printf 'rp_ends_with_call+0x%x (resolve-pie)' "$size")" ]
	# The same offset as a leaf (an interrupted instruction) is rp_after.
	run "$SYM" --leaf <<<"$f $off"
	[ "$output" = "rp_after+0x0 (resolve-pie)" ]
}

@test "sizeless function symbol extends to the next symbol" {
	f="$PROGS/resolve-pie"
	[ "$(sym_size "$f" rp_nosize)" -eq 0 ]
	off=$(sym_off "$f" rp_nosize 3)
	run "$SYM" --leaf <<<"$f $off"
	[ "$output" = "rp_nosize+0x3 (resolve-pie)" ]
}

@test "offset outside every executable PT_LOAD is unresolved (ELF header)" {
	run "$SYM" --leaf <<<"$PROGS/resolve-pie 0x10"
	[ "$output" = "[unknown] (resolve-pie)" ]
}

@test "matching build id resolves" {
	f="$PROGS/resolve-pie"
	off=$(sym_off "$f" rp_middle 2)
	run "$SYM" --leaf <<<"$f $off $(build_id "$f")"
	[ "$output" = "rp_middle+0x2 (resolve-pie)" ]
}

@test "build id mismatch: unresolved and one warning naming file and both ids" {
	f="$PROGS/resolve-pie"
	off=$(sym_off "$f" rp_middle 2)
	want=0123456789abcdef0123456789abcdef01234567
	have=$(build_id "$f")
	printf '%s %s %s\n' "$f" "$off" "$want" "$f" "$off" "$want" >"$TMP/in"
	"$SYM" --leaf --no-debuginfod "$TMP/in" >"$TMP/out" 2>"$TMP/err"
	[ "$(cat "$TMP/out")" = "$(printf '[unknown] (resolve-pie)\n[unknown] (resolve-pie)')" ]
	[ "$(grep -c 'does not match' "$TMP/err")" -eq 1 ]
	grep 'does not match' "$TMP/err" | grep -F "$f" | grep -F "$want" | grep -qF "$have"
}

@test "missing file: unresolved with an error, no crash" {
	run "$SYM" <<<"/nonexistent/libgone.so 0x1234"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "ustack-symbolize: /nonexistent/libgone.so: No such file or directory" ]
	[ "${lines[1]}" = "[unknown] (libgone.so)" ]
}

@test "not an ELF file: unresolved with an error" {
	printf 'hello, not ELF at all\n' >"$TMP/notelf"
	run "$SYM" <<<"$TMP/notelf 0x4"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *"not an ELF file"* ]]
	[ "${lines[1]}" = "[unknown] (notelf)" ]
}

@test "truncated ELF at many sizes: no crash, one error line, unresolved" {
	f="$PROGS/resolve-pie"
	off=$(sym_off "$f" rp_middle 2)
	total=$(stat -c %s "$f")
	for size in 1 16 63 64 65 200 600 4096 5000 $((total / 2)) $((total - 100)); do
		head -c "$size" "$f" >"$TMP/trunc"
		"$SYM" --leaf --lines --inlines "$TMP/trunc" <<<"" >/dev/null
		echo "$TMP/trunc $off" | "$SYM" --leaf --lines --inlines \
			>"$TMP/out" 2>"$TMP/err" || { echo "size $size: exit $?"; false; }
		[ "$(cat "$TMP/out")" = "[unknown] (trunc)" ] || { echo "size $size"; false; }
		[ "$(wc -l <"$TMP/err")" -eq 1 ] || { echo "size $size"; cat "$TMP/err"; false; }
		if [ "$size" -ge 64 ]; then
			grep -q "truncated ELF file" "$TMP/err" || { echo "size $size"; cat "$TMP/err"; false; }
		fi
	done
}

@test "ELF without section headers: no crash, unresolved" {
	f="$PROGS/resolve-pie"
	cp "$f" "$TMP/noshdr"
	# Zero e_shoff (offset 0x28), e_shnum (0x3c) and e_shstrndx (0x3e).
	printf '\0\0\0\0\0\0\0\0' | dd of="$TMP/noshdr" bs=1 seek=40 conv=notrunc 2>/dev/null
	printf '\0\0\0\0' | dd of="$TMP/noshdr" bs=1 seek=60 conv=notrunc 2>/dev/null
	run "$SYM" --leaf <<<"$TMP/noshdr $(sym_off "$f" rp_middle 2)"
	[ "$status" -eq 0 ]
	[ "$output" = "[unknown] (noshdr)" ]
}

@test "32-bit ELF (compat task): m32_func resolves" {
	f="$PROGS/resolve-m32"
	[ -f "$f" ] || skip "gcc -m32 cannot build even a libc-free 32-bit program"
	off=$(sym_off "$f" m32_func 2)
	run "$SYM" --leaf <<<"$f $off"
	[ "$output" = "m32_func+0x2 (resolve-m32)" ]
}

@test "symfs: the announced path is looked up under --symfs" {
	mkdir -p "$TMP/root/opt/app"
	cp "$PROGS/resolve-pie" "$TMP/root/opt/app/prog"
	off=$(sym_off "$PROGS/resolve-pie" rp_leaf 1)
	run "$SYM" --leaf --symfs "$TMP/root" <<<"/opt/app/prog $off"
	[ "$output" = "rp_leaf+0x1 (prog)" ]
	run "$SYM" --leaf <<<"/opt/app/prog $off"
	[ "${lines[1]}" = "[unknown] (prog)" ]
}

@test "one output frame per input frame, in order, over several files" {
	p="$PROGS/resolve-pie"
	l="$PROGS/libresolve.so"
	{
		echo "$p $(sym_off "$p" rp_leaf 1)"
		echo "$l $(sym_off "$l" lib_helper 1)"
		echo "/nonexistent 0x10"
		echo "$p $(sym_off "$p" rp_middle 1)"
	} >"$TMP/in"
	run "$SYM" --leaf --no-debuginfod "$TMP/in"
	[ "${lines[1]}" = "rp_leaf+0x1 (resolve-pie)" ]
	[ "${lines[2]}" = "lib_helper+0x1 (libresolve.so)" ]
	[ "${lines[3]}" = "[unknown] (nonexistent)" ]
	[ "${lines[4]}" = "rp_middle+0x1 (resolve-pie)" ]
}
