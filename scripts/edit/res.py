#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""res.py FILE [show | CHOICES...]: resolve conflict blocks in order; a choice
is o (old), n (new), e (empty), b (both, old first) or @PATH (text of PATH)."""
import sys, re
f = sys.argv[1]; args = sys.argv[2:]
lines = open(f).read().split('\n')
blocks = []; out = []; i = 0
while i < len(lines):
    if lines[i].startswith('<<<<<<< '):
        j = i + 1; old = []; new = []
        while not lines[j].startswith('======='): old.append(lines[j]); j += 1
        j += 1
        while not lines[j].startswith('>>>>>>> '): new.append(lines[j]); j += 1
        blocks.append((len(out), old, new)); out.append(None); i = j + 1
    else:
        out.append(lines[i]); i += 1
if not args or args[0] == 'show':
    for n, (pos, old, new) in enumerate(blocks):
        print(f'=== block {n} at out line {pos}: old {len(old)} lines, new {len(new)} lines')
        print('--- old'); print('\n'.join(old)); print('--- new'); print('\n'.join(new))
    sys.exit(0)
assert len(args) == len(blocks), (len(args), len(blocks))
res = []
for (pos, old, new), c in zip(blocks, args):
    res.append({'o': old, 'n': new, 'e': [], 'b': old + new}.get(c) if not c.startswith('@') else open(c[1:]).read().rstrip('\n').split('\n'))
final = []
k = 0
for l in out:
    if l is None: final += res[k]; k += 1
    else: final.append(l)
open(f, 'w').write('\n'.join(final))
