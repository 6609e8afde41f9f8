#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A large trace.dat of the kernel's own GPU events, made of a real one.

  gen-tracedat.py SEED.DAT OUT.DAT MB

SEED.DAT is a recording of "grtrace record" on a kernel without grtrace
(step stock's, of Debian's 7.3: virtio_gpu_cmd_queue and _response,
dma_fence_signaled).  OUT.DAT holds its events again and again, about MB
megabytes of them: each copy later than the one before by the seed's span
and a millisecond, its fence ids and seqnos (every field named fence_id,
when not 0, or seqno) past the seed's highest, so that each copy's
commands are new jobs and a fence still signals its own command.  The
seed is read as trace-cmd converts it to version 6, uncompressed; OUT.DAT
is that file with the per-CPU data made again, page by page, in the ring
buffer's layout (include/linux/ring_buffer.h).  Prints the events per copy
and the copies.
"""
import re
import struct
import subprocess
import sys
import tempfile

PAD, TIME_EXTEND, TIME_STAMP = 29, 30, 31


def event_formats(path):
    """{event name: (id, {field: (offset, size)})} of a recording's events,
    as trace-cmd dump --events prints their formats"""
    out = subprocess.run(['trace-cmd', 'dump', '--events', '-i', path], check=True,
                         capture_output=True, text=True).stdout
    fmts, name = {}, None
    for line in out.splitlines():
        m = re.match(r'name: (\S+)', line)
        if m:
            name = m.group(1)
            continue
        m = re.match(r'ID: (\d+)', line)
        if m and name:
            fmts[name] = (int(m.group(1)), {})
            continue
        m = re.search(r'field:.*?(\w+)(\[\d*\])?;\s*offset:(\d+);\s*size:(\d+);', line)
        if m and name in fmts:
            fmts[name][1][m.group(1)] = (int(m.group(3)), int(m.group(4)))
    return fmts


def formats(path):
    """{event id: [(offset, size, name)] of the fields to renumber}"""
    return {eid: [(o, s, f) for f, (o, s) in fields.items() if f in ('seqno', 'fence_id')]
            for eid, fields in event_formats(path).values()}


def cpu_table(data):
    """Offset of the flyrecord table and its (offset, size) per CPU, read by
    trace-cmd.dat.v6(5)'s layout"""
    assert data[:10] == b'\x17\x08Dtracing' and data[10:12] == b'6\0', 'not a v6 trace.dat'
    assert data[12] == 0 and data[13] == 8, 'not little endian with 8-byte longs'
    p = 18
    for name in (b'header_page\0', b'header_event\0'):
        assert data[p:p + len(name)] == name
        p += len(name)
        p += 8 + struct.unpack_from('<Q', data, p)[0]
    n = struct.unpack_from('<I', data, p)[0]              # ftrace formats
    p += 4
    for _ in range(n):
        p += 8 + struct.unpack_from('<Q', data, p)[0]
    systems = struct.unpack_from('<I', data, p)[0]
    p += 4
    for _ in range(systems):
        p = data.index(b'\0', p) + 1
        n = struct.unpack_from('<I', data, p)[0]
        p += 4
        for _ in range(n):
            p += 8 + struct.unpack_from('<Q', data, p)[0]
    for _ in range(2):                                    # kallsyms, printk
        p += 4 + struct.unpack_from('<I', data, p)[0]
    p += 8 + struct.unpack_from('<Q', data, p)[0]         # cmdlines
    cpus = struct.unpack_from('<I', data, p)[0]
    p += 4
    assert data[p:p + 10] == b'options  \0', 'no options section'
    p += 10
    while struct.unpack_from('<H', data, p)[0]:          # options to the 0 that ends them
        p += 6 + struct.unpack_from('<I', data, p + 2)[0]
    p += 2
    assert data[p:p + 10] == b'flyrecord\0', 'not a flyrecord'
    p += 10
    return p, [struct.unpack_from('<QQ', data, p + 16 * i) for i in range(cpus)]


def write_table(out, table, cpus):
    """The flyrecord table at @table: each CPU's (offset, size) of @cpus"""
    out.seek(table)
    for off, size in cpus:
        out.write(struct.pack('<QQ', off, size))


def events(page, psize):
    """(offset of the event's data, its length) of a page, the offsets of
    its absolute time stamps, and the time of its last event"""
    commit = struct.unpack_from('<Q', page, 8)[0] & 0xfffff
    p, end, out, stamps = 16, 16 + min(commit, psize - 16), [], []
    ts = struct.unpack_from('<Q', page, 0)[0]
    while p < end:
        h = struct.unpack_from('<I', page, p)[0]
        tl, delta = h & 0x1f, h >> 5
        if tl == PAD:
            if not delta:
                break
            p += 4 + struct.unpack_from('<I', page, p + 4)[0]
        elif tl == TIME_EXTEND:
            ts += (struct.unpack_from('<I', page, p + 4)[0] << 27) | delta
            p += 8
        elif tl == TIME_STAMP:
            stamps.append(p)
            ts = (struct.unpack_from('<I', page, p + 4)[0] << 27) | delta
            p += 8
        elif tl == 0:
            ts += delta
            n = struct.unpack_from('<I', page, p + 4)[0]
            out.append((p + 8, n - 4))
            p += 4 + n
        else:
            ts += delta
            out.append((p + 4, tl * 4))
            p += 4 + tl * 4
    return out, stamps, ts


def main():
    seed, dest, mb = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with tempfile.TemporaryDirectory() as tmp:
        v6 = tmp + '/seed.dat'
        subprocess.run(['trace-cmd', 'convert', '-i', seed, '-o', v6, '--file-version', '6',
                        '--compression', 'none'], check=True, capture_output=True)
        data = open(v6, 'rb').read()
        fields = formats(v6)
    table, cpus = cpu_table(data)
    psize = struct.unpack_from('<I', data, 14)[0]
    pages = []                      # per CPU: [(bytearray, [event spans], [stamps])]
    top, first, last = 0, None, 0
    for off, size in cpus:
        cpu = []
        for q in range(off, off + size, psize):
            page = bytearray(data[q:q + psize])
            ev, st, end = events(page, psize)
            cpu.append((page, ev, st))
            ts = struct.unpack_from('<Q', page, 0)[0]
            first = ts if first is None else min(first, ts)
            last = max(last, end)
            for at, n in ev:
                for fo, fs, _ in fields.get(struct.unpack_from('<H', page, at)[0], []):
                    if fo + fs <= n:
                        top = max(top, int.from_bytes(page[at + fo:at + fo + fs], 'little'))
        pages.append(cpu)
    per_copy = sum(len(ev) for cpu in pages for _, ev, _ in cpu)
    span = last - first + 1_000_000
    seed_bytes = sum(size for _, size in cpus)
    copies = max(1, mb * 1_000_000 // max(seed_bytes, 1))
    with open(dest, 'wb') as out:
        # the header up to the data, the table filled in below
        out.write(data[:cpus[0][0]])
        pos = cpus[0][0]
        new_table = []
        for cpu in pages:
            at = pos
            for c in range(copies):
                shift, renum = c * span, c * (top + 1)
                for page, ev, st in cpu:
                    pg = bytearray(page)
                    struct.pack_into('<Q', pg, 0, struct.unpack_from('<Q', pg, 0)[0] + shift)
                    for s in st:
                        h, hi = struct.unpack_from('<II', pg, s)
                        t = ((hi << 27) | (h >> 5)) + shift
                        struct.pack_into('<II', pg, s, ((t & 0x7ffffff) << 5) | TIME_STAMP,
                                         t >> 27)
                    for e, n in ev:
                        for fo, fs, name in fields.get(struct.unpack_from('<H', pg, e)[0], []):
                            if fo + fs > n:
                                continue
                            v = int.from_bytes(pg[e + fo:e + fo + fs], 'little')
                            if name == 'fence_id' and not v:
                                continue
                            v = (v + renum) % (1 << (8 * fs))
                            pg[e + fo:e + fo + fs] = v.to_bytes(fs, 'little')
                    out.write(pg)
                    pos += psize
            new_table.append((at, pos - at))
        write_table(out, table, new_table)
    print('%d events a copy, %d copies, %d events, %.0f MB' % (
        per_copy, copies, per_copy * copies, (pos - cpus[0][0]) / 1e6))


if __name__ == '__main__':
    main()
