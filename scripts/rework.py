#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The rework of a series: for each patch, the lines it removes ('-' lines)
from files that an earlier patch of the same series created.  A series cut
for review has none but those named in a justified list.

usage: rework.py DIR       (DIR holds the patches and their quilt series)"""
import sys, re, os
d=sys.argv[1]
names=[l.strip() for l in open(os.path.join(d,'series')) if l.strip() and not l.startswith('#')]
created={}
tot=0
for i,n in enumerate(names):
    # Each series on its own: a file the kernel series created is not
    # the user-space series' to rework, nor the reverse.
    if i and os.path.dirname(n)!=os.path.dirname(names[i-1]): created={}
    cur=None; rm={}
    for line in open(os.path.join(d,n),errors='replace'):
        m=re.match(r'^diff --git a/(\S+) b/',line)
        if m: cur=m.group(1); continue
        if line.startswith('new file mode') and cur: created.setdefault(cur,i)
        if line.startswith('-') and not line.startswith('---') and cur in created and created[cur]<i:
            rm[cur]=rm.get(cur,0)+1
    s=sum(rm.values()); tot+=s
    if s: print(f"{n[:n.index('-')]} {s:5d} " + ' '.join(f"{k.split('/')[-1]}:{v}" for k,v in sorted(rm.items(),key=lambda x:-x[1])[:4]))
print('total',tot)
