#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The function-symbol table of the symbolizer (lib/ustack-resolve-elf.c)
# on a hand-made library whose symbols are the awkward cases: a sized and
# a sizeless symbol at one address, a sizeless one before a sized one
# with padding, nested functions, functions more than 4 MiB apart, an
# undefined symbol with a value, and a truncated file without section
# headers. Expected answers come from the assembler source and nm.

ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
SYM="$ROOT/tests/tools/ustack-symbolize"

load elf

setup_file() {
	[ -x "$SYM" ] || make -s -C "$ROOT" tests/tools/ustack-symbolize >&2
	cat > "$BATS_FILE_TMPDIR/syms.s" <<'EOF'
	.text
	.globl	a_twin
	.type	a_twin, @function
	.globl	b_sized
	.type	b_sized, @function
a_twin:
b_sized:
	.fill	0x20, 1, 0x90
	.size	b_sized, 0x20
	.globl	c_nosize
	.type	c_nosize, @function
c_nosize:
	.fill	0x20, 1, 0x90
	.globl	d_sized
	.type	d_sized, @function
d_sized:
	.fill	0x10, 1, 0x90
	.size	d_sized, 0x10
	.fill	0x10, 1, 0xcc
	.globl	e_outer
	.type	e_outer, @function
e_outer:
	.fill	0x40, 1, 0x90
	.globl	f_inner
	.type	f_inner, @function
f_inner:
	.fill	0x10, 1, 0x90
	.size	f_inner, 0x10
	.fill	0xb0, 1, 0x90
	.size	e_outer, 0x100
	.globl	g_undef
	.type	g_undef, @function
g_undef:
	.fill	0x20, 1, 0x90
	.size	g_undef, 0x20
	.fill	0x10, 1, 0xcc
	/* h_far: 4 MiB + 0x50 after the first symbol */
	.skip	0x3ffec0, 0x90
	.globl	h_far
	.type	h_far, @function
h_far:
	.fill	0x20, 1, 0x90
	.size	h_far, 0x20
EOF
	gcc -shared -nostdlib -Wl,--build-id=none -o "$BATS_FILE_TMPDIR/syms.so" \
		"$BATS_FILE_TMPDIR/syms.s"
}

setup() {
	TMP="$(mktemp -d)"
	F="$BATS_FILE_TMPDIR/syms.so"
}

teardown() {
	rm -rf "$TMP"
}

# at SYMBOL DELTA: "FILE OFFSET" of SYMBOL+DELTA in $F (from nm and readelf)
at() {
	local a

	a=$(nm "$F" | awk -v s="$1" '$3 == s { print $1; exit }')
	[ -n "$a" ] || { echo "no symbol $1" >&2; return 1; }
	echo "$F $(vaddr_to_off "$F" "$(printf '%x' $((0x$a + $2)))")"
}

# names SYMBOL DELTA...: the symbolizer's leaf answer for each pair
names() {
	while [ $# -gt 1 ]; do
		at "$1" "$2"
		shift 2
	done | "$SYM" --leaf
}

@test "elf symbols: a sized and a sizeless symbol at one address: the sized one names it" {
	[ "$(nm "$F" | awk '$3 == "a_twin" { print $1 }')" = "$(nm "$F" | awk '$3 == "b_sized" { print $1 }')" ]
	run names b_sized 0x10
	[ "$output" = "b_sized+0x10 (syms.so)" ]
}

@test "elf symbols: a sizeless symbol ends where the next starts, not in the next one's padding" {
	run names c_nosize 0x4 c_nosize 0x1f d_sized 0x8 d_sized 0x18
	echo "$output"
	[ "${lines[0]}" = "c_nosize+0x4 (syms.so)" ]
	[ "${lines[1]}" = "c_nosize+0x1f (syms.so)" ]
	[ "${lines[2]}" = "d_sized+0x8 (syms.so)" ]
	# past d_sized's size: padding, named by nobody
	[ "${lines[3]}" = "[unknown] (syms.so)" ]
}

@test "elf symbols: nested functions: the inner one inside it, the outer one around it" {
	run names e_outer 0x8 f_inner 0x4 e_outer 0x80 e_outer 0xff
	echo "$output"
	[ "${lines[0]}" = "e_outer+0x8 (syms.so)" ]
	[ "${lines[1]}" = "f_inner+0x4 (syms.so)" ]
	[ "${lines[2]}" = "e_outer+0x80 (syms.so)" ]
	[ "${lines[3]}" = "e_outer+0xff (syms.so)" ]
}

@test "elf symbols: functions more than 4 MiB apart are all found" {
	a=$(nm "$F" | awk '$3 == "a_twin" { print $1 }')
	h=$(nm "$F" | awk '$3 == "h_far" { print $1 }')
	[ $((0x$h - 0x$a)) -gt $((4 << 20)) ]
	run names b_sized 0x1 c_nosize 0x2 d_sized 0x3 e_outer 0x4 g_undef 0x5 h_far 0x6
	echo "$output"
	[ "$output" = "$(printf '%s (syms.so)\n' b_sized+0x1 c_nosize+0x2 d_sized+0x3 e_outer+0x4 g_undef+0x5 h_far+0x6)" ]
}

@test "elf symbols: an undefined symbol never names code, whatever its value" {
	cp "$F" "$TMP/undef.so"
	# g_undef's entries in .dynsym and .symtab: st_shndx (offset 6 of
	# an Elf64_Sym) set to SHN_UNDEF, value and size kept
	for tab in .dynsym .symtab; do
		read -r symoff entsize < <(readelf -SW "$F" | sed 's/^ *\[ *[0-9]*\]//' |
			awk -v t="$tab" '$1 == t { print $4, $6 }')
		idx=$(readelf -sW "$F" | awk -v t="'$tab'" '
			/^Symbol table/ { cur = $3 }
			cur == t && $8 == "g_undef" { sub(":", "", $1); print $1 }')
		[ -n "$idx" ] && [ -n "$symoff" ]
		printf '\0\0' | dd of="$TMP/undef.so" bs=1 conv=notrunc \
			seek=$((0x$symoff + 0x$entsize * idx + 6)) 2>/dev/null
	done
	readelf -sW "$TMP/undef.so" | grep -E ' UND g_undef$'
	run "$SYM" --leaf <<<"$TMP/undef.so $(at g_undef 4 | cut -d' ' -f2)"
	[ "$output" = "[unknown] (undef.so)" ]
	# and the table still names the others
	run "$SYM" --leaf <<<"$TMP/undef.so $(at h_far 4 | cut -d' ' -f2)"
	[ "$output" = "h_far+0x4 (undef.so)" ]
}

@test "elf: a loaded segment cut off by a truncated file without section headers is refused" {
	f="$ROOT/tests/progs/resolve/resolve-pie"
	make -s -C "$ROOT/tests/progs/resolve" >&2
	cp "$f" "$TMP/cut"
	# Zero e_shoff (offset 0x28), e_shnum (0x3c) and e_shstrndx (0x3e).
	printf '\0\0\0\0\0\0\0\0' | dd of="$TMP/cut" bs=1 seek=40 conv=notrunc 2>/dev/null
	printf '\0\0\0\0' | dd of="$TMP/cut" bs=1 seek=60 conv=notrunc 2>/dev/null
	# end the file inside its executable segment
	read -r off fsz < <(readelf -lW "$f" | awk '$1 == "LOAD" && / R E / { print $2, $5; exit }')
	truncate -s $((off + fsz / 2)) "$TMP/cut"
	run "$SYM" --leaf <<<"$TMP/cut 0x$(printf '%x' $((off + 4)))"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == *"truncated ELF file"* ]]
	[ "${lines[1]}" = "[unknown] (cut)" ]
}
