#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The function-symbol table of the symbolizer (lib/ustack-resolve-symtab.c;
# the truncated files are lib/ustack-resolve-elf.c's checks)
# on a hand-made library whose symbols are the awkward cases: a sized and
# a sizeless symbol at one address, a sizeless one before a sized one
# with padding, nested functions, functions more than 4 MiB apart, an
# undefined symbol with a value, untyped labels (inside a function, at a
# function's address, after a sizeless one), assembler locals, data in
# code, and a truncated file without section headers. Expected answers come from the assembler source and nm.

load helpers
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
	.globl	c_label
c_label:
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
	.fill	0x40, 1, 0x90
	.globl	e_label
e_label:
	.fill	0x70, 1, 0x90
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
	.fill	0x10, 1, 0xcc
	/* untyped labels of hand-written assembly, an assembler local and
	   an ARM-style mapping symbol kept in the table (-Wa,-L), data */
	.globl	j_label
j_label:
	.fill	0x10, 1, 0x90
.Lj_local:
	.fill	0x10, 1, 0x90
"$x":
	.fill	0x10, 1, 0x90
	.globl	k_data
	.type	k_data, @object
k_data:
	.fill	0x10, 1, 0
	.size	k_data, 0x10
	/* aliases: global, weak, and global with leading underscores */
	.globl	m_global
	.type	m_global, @function
	.weak	m_weak
	.type	m_weak, @function
	.globl	__m_under
	.type	__m_under, @function
m_weak:
__m_under:
m_global:
	.fill	0x10, 1, 0x90
	.size	m_global, 0x10
	.size	m_weak, 0x10
	.size	__m_under, 0x10
	/* an end marker of .text: where the next code section starts */
	.globl	a_end
a_end:
	.section .qtext, "ax", @progbits
	.globl	q_entry
q_entry:
	.fill	0x10, 1, 0x90
	.size	q_entry, 0x10
	/* the last function, three pages long */
	.globl	z_big
	.type	z_big, @function
z_big:
	.fill	0x3000, 1, 0x90
	.size	z_big, 0x3000
EOF
	gcc -shared -nostdlib -Wa,-L -Wl,--build-id=none -o "$BATS_FILE_TMPDIR/syms.so" \
		"$BATS_FILE_TMPDIR/syms.s"
}

setup() {
	TMP="$(mktemp -d)"
	F="$BATS_FILE_TMPDIR/syms.so"
}

teardown() {
	instance_teardown
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

@test "elf symbols: a sized function covers [start, start + size): its last byte, not the one after" {
	# d_sized is 0x10 bytes followed by int3 padding no symbol covers
	run names d_sized 0x0 d_sized 0xf d_sized 0x10
	echo "$output"
	[ "${lines[0]}" = "d_sized+0x0 (syms.so)" ]
	[ "${lines[1]}" = "d_sized+0xf (syms.so)" ]
	[ "${lines[2]}" = "[unknown] (syms.so)" ]
}

@test "elf symbols: nested functions: the inner one inside it, the outer one around it" {
	run names e_outer 0x8 f_inner 0x4 e_outer 0x80 e_outer 0xff
	echo "$output"
	[ "${lines[0]}" = "e_outer+0x8 (syms.so)" ]
	[ "${lines[1]}" = "f_inner+0x4 (syms.so)" ]
	[ "${lines[2]}" = "e_outer+0x80 (syms.so)" ]
	[ "${lines[3]}" = "e_outer+0xff (syms.so)" ]
}

@test "elf symbols: an untyped label in code names it up to the next name, after a sizeless function too" {
	# hand-written assembly often has no .type; .L locals and $x mapping
	# symbols are not names, so j_label reaches over them
	run names j_label 0x8 j_label 0x14 j_label 0x24
	echo "$output"
	[ "${lines[0]}" = "j_label+0x8 (syms.so)" ]
	[ "${lines[1]}" = "j_label+0x14 (syms.so)" ]
	[ "${lines[2]}" = "j_label+0x24 (syms.so)" ]
}

@test "elf symbols: a label inside a sized function does not name its code" {
	run names e_label 0x4
	[ "$output" = "e_outer+0x94 (syms.so)" ]
}

@test "elf symbols: an untyped label with a .size still names the code up to the next name" {
	# The gABI gives st_size a meaning by the symbol's type (a function's
	# bytes, an object's bytes); STT_NOTYPE says nothing, so a label's
	# .size is no end: like any label, s_label names the code up to the
	# next name, past its .size and up to the label t_label inside it
	cat > "$TMP/sized-label.s" <<'EOF'
	.text
	.globl	r_func
	.type	r_func, @function
r_func:
	.fill	0x10, 1, 0x90
	.size	r_func, 0x10
	.globl	s_label
s_label:
	.fill	0x20, 1, 0x90
	.globl	t_label
t_label:
	.fill	0x20, 1, 0x90
	.size	s_label, 0x30
	.size	t_label, 0x8
	.globl	u_func
	.type	u_func, @function
u_func:
	.fill	0x10, 1, 0x90
	.size	u_func, 0x10
EOF
	gcc -shared -nostdlib -Wl,--build-id=none -o "$TMP/sized-label.so" "$TMP/sized-label.s"
	F="$TMP/sized-label.so"
	# the labels are untyped and keep their sizes in the file
	readelf -sW "$F" | grep -E ' 48 NOTYPE  GLOBAL DEFAULT +[0-9]+ s_label$'
	readelf -sW "$F" | grep -E ' 8 NOTYPE  GLOBAL DEFAULT +[0-9]+ t_label$'
	run names s_label 0x4 t_label 0x4 t_label 0x10 t_label 0x1f u_func 0x4
	echo "$output"
	[ "${lines[0]}" = "s_label+0x4 (sized-label.so)" ]
	[ "${lines[1]}" = "t_label+0x4 (sized-label.so)" ]
	[ "${lines[2]}" = "t_label+0x10 (sized-label.so)" ]
	[ "${lines[3]}" = "t_label+0x1f (sized-label.so)" ]
	[ "${lines[4]}" = "u_func+0x4 (sized-label.so)" ]
}

@test "elf symbols: a function and a label at one address: the function names it" {
	[ "$(nm "$F" | awk '$3 == "c_label" { print $1 }')" = "$(nm "$F" | awk '$3 == "c_nosize" { print $1 }')" ]
	run names c_label 0x4
	[ "$output" = "c_nosize+0x4 (syms.so)" ]
}

@test "elf symbols: a data object in code is not a function" {
	run names k_data 0x4
	echo "$output"
	[[ "$output" != k_data* ]]
}

@test "elf symbols: aliases at one address: the global name without leading underscores names it" {
	# like glibc's __libc_foo, foo and a weak foo: the public name
	run names m_weak 0x4
	[ "$output" = "m_global+0x4 (syms.so)" ]
}

@test "elf symbols: a label at the end of its section does not hide the next section's code" {
	[ "$(nm "$F" | awk '$3 == "a_end" { print $1 }')" = "$(nm "$F" | awk '$3 == "q_entry" { print $1 }')" ]
	run names q_entry 0x4
	[ "$output" = "q_entry+0x4 (syms.so)" ]
}

@test "elf symbols: an address in the page after the last symbol's is found, no read outside the page index (valgrind)" {
	line=$(at z_big 0x1004)
	# an ASan build (tests/run-asan) checks its reads itself
	if [ -n "${USTACK_ASAN:-}" ]; then
		run "$SYM" --leaf <<< "$line"
	else
		command -v valgrind >/dev/null || skip "valgrind not installed"
		run valgrind -q --error-exitcode=9 "$SYM" --leaf <<< "$line"
	fi
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "z_big+0x1004 (syms.so)" ]
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

@test "elf: a file cut inside its last loaded segment is refused, even with its code whole" {
	f="$ROOT/tests/progs/resolve/resolve-pie"
	make -s -C "$ROOT/tests/progs/resolve" >&2
	cp "$f" "$TMP/cut"
	# no section headers (they were at the end), as above
	printf '\0\0\0\0\0\0\0\0' | dd of="$TMP/cut" bs=1 seek=40 conv=notrunc 2>/dev/null
	printf '\0\0\0\0' | dd of="$TMP/cut" bs=1 seek=60 conv=notrunc 2>/dev/null
	# every segment starts inside the file, the last one (data) ends past it
	read -r loff lfsz < <(readelf -lW "$f" | awk '$1 == "LOAD" && $5 != "0x000000" { o = $2; s = $5 } END { print o, s }')
	read -r off fsz < <(readelf -lW "$f" | awk '$1 == "LOAD" && / R E / { print $2, $5; exit }')
	[ $((off + fsz)) -lt $((loff)) ]
	truncate -s $((loff + lfsz / 2)) "$TMP/cut"
	run "$SYM" --leaf <<<"$TMP/cut 0x$(printf '%x' $((off + 4)))"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == *"truncated ELF file"* ]]
	[ "${lines[1]}" = "[unknown] (cut)" ]
}

@test "elf: program headers running past the end of the file: refused as truncated" {
	f="$ROOT/tests/progs/resolve/resolve-pie"
	make -s -C "$ROOT/tests/progs/resolve" >&2
	cp "$f" "$TMP/phoff"
	# e_phoff (offset 0x20): 20 bytes before the end, the table does not fit
	size=$(stat -c %s "$f")
	python3 -c 'import struct, sys; sys.stdout.buffer.write(struct.pack("<Q", int(sys.argv[1])))' \
		$((size - 20)) | dd of="$TMP/phoff" bs=1 seek=32 conv=notrunc 2>/dev/null
	run "$SYM" --leaf <<<"$TMP/phoff 0x1004"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == *"truncated ELF file"* ]]
	[ "${lines[1]}" = "[unknown] (phoff)" ]
}
