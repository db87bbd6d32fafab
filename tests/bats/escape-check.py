#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# escape-check.py FORMAT FILE: read a profile the way its readers do, and
# print the strings it names, one per line, as JSON strings (non-ASCII as
# it is, control characters as \u00XX) (tests/bats/escape.bats):
#   svg     the flame graph must be well-formed XML (xml.etree, and
#           xmllint when installed); its title and box labels, then the
#           names of its script's FRAMES table (which must be JSON)
#   json    the speedscope file must parse as JSON: its frame names
#   pprof   a gzipped profile.proto: every string of its string table
#           (field 6) must be valid UTF-8, read with a minimal protobuf
#           reader
# Exit 1, with the reason, when the file is not what it must be.
import gzip
import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

SVG = '{http://www.w3.org/2000/svg}'


def show(s):
    print(json.dumps(s, ensure_ascii=False))


def check_svg(path):
    if shutil.which('xmllint'):
        subprocess.run(['xmllint', '--noout', path], check=True)
    root = ET.parse(path).getroot()
    for el in root.iter():
        if el.tag in (SVG + 'title', SVG + 'text') and el.text and el.text.strip():
            show(el.text)
    script = ''.join(el.text or '' for el in root.iter(SVG + 'script'))
    frames = re.search(r'^var FRAMES = (.*);$', script, re.M | re.S)
    for f in json.loads(frames.group(1).split(';\nvar ')[0]):
        show(f[0])


def check_json(path):
    with open(path, encoding='utf-8', errors='strict') as f:
        doc = json.load(f)
    for f in doc['shared']['frames']:
        show(f['name'])


def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << shift
        shift += 7
        if not c & 0x80:
            return v, i


def check_pprof(path):
    b = gzip.open(path).read()
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            _, i = varint(b, i)
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        elif wire == 2:
            n, i = varint(b, i)
            if field == 6:
                show(b[i:i + n].decode('utf-8', errors='strict'))
            i += n
        else:
            sys.exit('bad wire type %d at %d' % (wire, i))


def main():
    fmt, path = sys.argv[1], sys.argv[2]
    try:
        {'svg': check_svg, 'json': check_json, 'pprof': check_pprof}[fmt](path)
    except (ET.ParseError, ValueError, subprocess.CalledProcessError) as e:
        sys.exit('%s: %s' % (path, e))


main()
