# SPDX-License-Identifier: GPL-2.0
#
# ELF helpers of the bats tests: expected answers computed from readelf,
# independently of the code under test.

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
