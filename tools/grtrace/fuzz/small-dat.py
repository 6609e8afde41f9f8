#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Cut a trace-cmd recording down to a seed for grtrace-fuzz.

usage: small-dat.py IN.dat OUT.dat [PAGES]

OUT.dat keeps the headers and event formats of IN.dat, its saved command
lines and options, and the first PAGES pages (default 1) of each CPU's
ring buffer; it drops the kallsyms, the trace_printk formats and the
formats of the ftrace events, which are most of a recording and which
grtrace does not read.  A file of another
version than 6 or compressed is converted first (trace-cmd convert).
The layout is trace-cmd.dat.v6(5).
"""
import os
import struct
import subprocess
import sys
import tempfile

MAGIC = b"\x17\x08\x44tracing"
OPTION_BUFFER = 3       # offsets of another buffer's data: dropped


class Reader:
    def __init__(self, data):
        self.d, self.o = data, 0

    def take(self, n):
        if self.o + n > len(self.d):
            sys.exit("small-dat: truncated input at %d" % self.o)
        b = self.d[self.o:self.o + n]
        self.o += n
        return b

    def num(self, fmt):
        return struct.unpack("<" + fmt, self.take(struct.calcsize(fmt)))[0]

    def cstr(self):
        end = self.d.index(b"\0", self.o)
        return self.take(end - self.o + 1)

    def sized(self, fmt):
        """a size field and the bytes it counts, as they are"""
        n = self.num(fmt)
        return struct.pack("<" + fmt, n) + self.take(n)


def v6(path, tmp):
    """path, or a version 6 uncompressed copy of it in tmp"""
    with open(path, "rb") as f:
        head = f.read(16)
    if head.startswith(MAGIC + b"6\0"):
        return path
    out = os.path.join(tmp, "v6.dat")
    subprocess.run(["trace-cmd", "convert", "-i", path, "-o", out, "--file-version", "6",
                    "--compression", "none"], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return out


def main():
    src, dst = sys.argv[1], sys.argv[2]
    pages = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    with tempfile.TemporaryDirectory() as tmp:
        r = Reader(open(v6(src, tmp), "rb").read())
    out = [r.take(len(MAGIC)), r.cstr()]
    if r.d[r.o] != 0:
        sys.exit("small-dat: big endian input")
    out.append(r.take(2))
    page = r.num("I")
    out.append(struct.pack("<I", page))
    for name in (b"header_page\0", b"header_event\0"):
        if r.take(len(name)) != name:
            sys.exit("small-dat: no %s" % name.decode().strip("\0"))
        out += [name, r.sized("Q")]
    n = r.num("I")                      # ftrace formats: dropped
    out.append(struct.pack("<I", 0))
    for _ in range(n):
        r.sized("Q")
    n = r.num("I")                      # event systems
    out.append(struct.pack("<I", n))
    for _ in range(n):
        out.append(r.cstr())
        k = r.num("I")
        out.append(struct.pack("<I", k))
        out += [r.sized("Q") for _ in range(k)]
    r.sized("I")                        # kallsyms
    r.sized("I")                        # trace_printk
    out += [struct.pack("<II", 0, 0), r.sized("Q")]   # and the cmdlines
    cpus = r.num("I")
    out.append(struct.pack("<I", cpus))
    name = r.take(10)
    if name == b"options  \0":
        out.append(name)
        while True:
            oid = r.num("H")
            if not oid:
                break
            opt = r.sized("I")
            if oid != OPTION_BUFFER:
                out += [struct.pack("<H", oid), opt]
        out.append(struct.pack("<H", 0))
        name = r.take(10)
    if name != b"flyrecord\0":
        sys.exit("small-dat: no flyrecord data (a latency trace?)")
    out.append(name)
    cpu = [(r.num("Q"), r.num("Q")) for _ in range(cpus)]
    head = b"".join(out)
    off = (len(head) + cpus * 16 + page - 1) // page * page
    index, data = [], []
    for o, size in cpu:
        size = min(size, pages * page)
        index.append(struct.pack("<QQ", off if size else 0, size))
        data.append(r.d[o:o + size] + bytes(-size % page))
        off += len(data[-1])
    head += b"".join(index)
    with open(dst, "wb") as f:
        f.write(head + bytes(-len(head) % page) + b"".join(data))


if __name__ == "__main__":
    main()
