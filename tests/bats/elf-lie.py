#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# elf-lie.py FILE WHAT VALUE: make a 64-bit little-endian ELF file's headers
# lie, in place (the reliability tests' hostile files):
#   shnum N          e_shnum 0 and section 0's sh_size N (extended count)
#   phnum N          e_phnum PN_XNUM and section 0's sh_info N
#   symtab-size N    sh_size of .symtab
#   size NAME N      sh_size of section NAME (a DWARF section, say)
#   chsize NAME N    ch_size of the SHF_COMPRESSED section NAME
# Only the header fields change; the test makes the file long enough
# (sparse, truncate -s) when the lie must fit inside it.
import struct
import sys


def sections(b):
    shoff, = struct.unpack_from('<Q', b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 0x3a)
    strtab_off, = struct.unpack_from('<Q', b, shoff + shstrndx * shentsize + 0x18)
    for i in range(shnum):
        off = shoff + i * shentsize
        name_off, = struct.unpack_from('<I', b, off)
        end = b.index(b'\0', strtab_off + name_off)
        yield b[strtab_off + name_off:end].decode(), off


def main():
    path, what, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(path, 'r+b') as f:
        b = bytearray(f.read(1 << 20))
        assert b[:4] == b'\x7fELF' and b[4] == 2 and b[5] == 1, 'not ELF64 LE'
        shoff, = struct.unpack_from('<Q', b, 0x28)
        if what == 'shnum':
            struct.pack_into('<H', b, 0x3c, 0)
            struct.pack_into('<Q', b, shoff + 0x20, int(args[0]))
        elif what == 'phnum':
            struct.pack_into('<H', b, 0x38, 0xffff)
            struct.pack_into('<I', b, shoff + 0x2c, int(args[0]))
        elif what == 'symtab-size':
            off = dict(sections(b))['.symtab']
            struct.pack_into('<Q', b, off + 0x20, int(args[0]))
        elif what == 'size':
            off = dict(sections(b))[args[0]]
            struct.pack_into('<Q', b, off + 0x20, int(args[1]))
        elif what == 'chsize':
            off = dict(sections(b))[args[0]]
            flags, data = struct.unpack_from('<Q', b, off + 8)[0], \
                struct.unpack_from('<Q', b, off + 0x18)[0]
            assert flags & 0x800, args[0] + ' is not SHF_COMPRESSED'
            struct.pack_into('<Q', b, data + 8, int(args[1]))
        else:
            sys.exit('unknown lie ' + what)
        f.seek(0)
        f.write(b)


main()
