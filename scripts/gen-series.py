#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate patches/ from the source folders, or check that they match.

Every line of `series` names a patch.  A patch with a description in
scripts/series/<stem>.msg is generated: its header and body come from the
.msg file, the files it creates (listed in the `Files:` header) from the
source folders, and its changes to files that already exist (kernel files,
or files created by an earlier patch of the series) from the hand-kept diff
scripts/series/<stem>.diff.  A patch without a .msg file is kept by hand in
patches/ as it is.

The folders hold the final state of every new file.  The state of a new file
after an earlier patch is found by reverse-applying the .diff hunks of the
later patches that touch it, so the whole series is derived from the folders
plus the hand-kept diffs, and `--check` fails when patches/ drifts from them.

usage: gen-series.py [--check] [--out DIR]
"""

import argparse
import hashlib
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# kernel path prefix -> folder of this repository
FOLDERS = [
    ('drivers/gpu/grtrace/', 'drivers-gpu-grtrace/'),
    ('include/trace/events/', 'include-trace-events/'),
    ('include/uapi/linux/', 'include-uapi-linux/'),
    ('include/linux/', 'include-linux/'),
    ('Documentation/', 'Documentation/'),
    ('tools/', 'tools/'),
]


def die(msg):
    sys.exit('gen-series: ' + msg)


def folder_path(kpath):
    for kp, fp in FOLDERS:
        if kpath.startswith(kp):
            return os.path.join(ROOT, fp + kpath[len(kp):])
    die(f'{kpath}: no source folder for this path')


def read_series():
    names = []
    with open(os.path.join(ROOT, 'series')) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if line:
                names.append(line)
    return names


def parse_msg(path):
    with open(path) as f:
        text = f.read()
    head, _, body = text.partition('\n\n')
    hdr = {}
    for line in head.splitlines():
        key, sep, val = line.partition(':')
        if not sep:
            die(f'{path}: bad header line "{line}"')
        hdr[key.strip().lower()] = val.strip()
    for key in ('from', 'date', 'subject'):
        if key not in hdr:
            die(f'{path}: missing {key}:')
    hdr['files'] = hdr.get('files', '').split()
    if 'Signed-off-by:' not in body:
        die(f'{path}: no Signed-off-by')
    return hdr, body.rstrip('\n') + '\n'


def split_diff(text):
    """Split a unified diff into {path: text of that file's part}."""
    parts, cur, path = {}, [], None
    for line in text.splitlines(keepends=True):
        if line.startswith('diff --git '):
            if path:
                parts[path] = ''.join(cur)
            cur = []
            path = line.split()[3][2:]
        cur.append(line)
    if path:
        parts[path] = ''.join(cur)
    return parts


def reverse_apply(kpath, content, diff):
    with tempfile.TemporaryDirectory() as tmp:
        target = os.path.join(tmp, kpath)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, 'w') as f:
            f.write(content)
        r = subprocess.run(['patch', '-R', '-p1', '-s', '-f', '-F0',
                            '--no-backup-if-mismatch', '-d', tmp],
                           input=diff, text=True, capture_output=True)
        if r.returncode:
            die(f'{kpath}: hand-kept diff does not reverse-apply to the '
                f'folder version:\n{r.stdout}{r.stderr}')
        with open(target) as f:
            return f.read()


def new_file_diff(kpath, content):
    data = content.encode()
    blob = hashlib.sha1(b'blob %d\0' % len(data) + data).hexdigest()[:12]
    lines = content.splitlines(keepends=True)
    mode = '100755' if os.access(folder_path(kpath), os.X_OK) else '100644'
    out = [f'diff --git a/{kpath} b/{kpath}\n',
           f'new file mode {mode}\n',
           f'index 000000000000..{blob}\n',
           '--- /dev/null\n',
           f'+++ b/{kpath}\n',
           f'@@ -0,0 +1,{len(lines)} @@\n' if len(lines) != 1 else '@@ -0,0 +1 @@\n']
    for line in lines:
        out.append('+' + line)
    if lines and not lines[-1].endswith('\n'):
        out.append('\n\\ No newline at end of file\n')
    return ''.join(out)


def diffstat(diff):
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run(['git', 'apply', '--stat', '--summary', '-'],
                           input=diff, text=True, capture_output=True,
                           cwd=tmp)
    if r.returncode:
        die('git apply --stat failed: ' + r.stderr)
    return r.stdout


def generate():
    names = read_series()
    gen = {}
    for name in names:
        stem = re.sub(r'\.patch$', '', name)
        msg = os.path.join(ROOT, 'scripts/series', stem + '.msg')
        if not os.path.exists(msg):
            continue
        hdr, body = parse_msg(msg)
        dpath = os.path.join(ROOT, 'scripts/series', stem + '.diff')
        delta = open(dpath).read() if os.path.exists(dpath) else ''
        gen[name] = (hdr, body, delta)

    created = {}
    for name, (hdr, _, _) in gen.items():
        for kpath in hdr['files']:
            if kpath in created:
                die(f'{kpath} created by both {created[kpath]} and {name}')
            created[kpath] = name

    # Walk back from the final state to find each new file after each patch.
    state = {}
    for kpath in created:
        with open(folder_path(kpath)) as f:
            state[kpath] = f.read()
    after = {}
    for name in reversed(names):
        if name not in gen:
            continue
        hdr, _, delta = gen[name]
        after[name] = dict(state)
        for kpath, part in split_diff(delta).items():
            if kpath in state:
                state[kpath] = reverse_apply(kpath, state[kpath], part)
        for kpath in hdr['files']:
            del state[kpath]

    total = len(names)
    out = {}
    for i, name in enumerate(names, 1):
        if name not in gen:
            continue
        hdr, body, delta = gen[name]
        diff = ''.join(new_file_diff(k, after[name][k])
                       for k in sorted(hdr['files'])) + delta
        text = ('From 0000000000000000000000000000000000000000 '
                'Mon Sep 17 00:00:00 2001\n'
                f'From: {hdr["from"]}\n'
                f'Date: {hdr["date"]}\n'
                f'Subject: [PATCH {i:02d}/{total:02d}] {hdr["subject"]}\n'
                '\n' + body + '---\n' + diffstat(diff) + '\n' + diff +
                '-- \n2.39.5\n\n')
        out[name] = text
    # The cover letter: its text, the subjects and the diffstat of the series.
    cover = os.path.join(ROOT, 'scripts/series/0000-cover-letter.msg')
    if os.path.exists(cover):
        hdr, body = parse_msg(cover)
        shortlog = ''.join(f'  {i:02d}/{total:02d} '
                           f'{gen[n][0]["subject"] if n in gen else n}\n'
                           for i, n in enumerate(names, 1))
        diffs = ''.join(out[n][out[n].index('diff --git'):] for n in names if n in out)
        out['0000-cover-letter.patch'] = (
            'From 0000000000000000000000000000000000000000 '
            'Mon Sep 17 00:00:00 2001\n'
            f'From: {hdr["from"]}\n'
            f'Date: {hdr["date"]}\n'
            f'Subject: [PATCH 00/{total:02d}] {hdr["subject"]}\n'
            '\n' + body + '\n' + shortlog + '\n' + diffstat(diffs) +
            '\n-- \n2.39.5\n\n')
    return names, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--check', action='store_true',
                    help='fail if patches/ differs from what would be generated')
    args = ap.parse_args()

    names, out = generate()
    pdir = os.path.join(ROOT, 'patches')
    stale = []
    for name in names + (['0000-cover-letter.patch']
                         if '0000-cover-letter.patch' in out else []):
        path = os.path.join(pdir, name)
        if name not in out:
            if not os.path.exists(path):
                stale.append(f'{name}: hand-kept patch missing')
            continue
        old = open(path).read() if os.path.exists(path) else None
        if old != out[name]:
            if args.check:
                stale.append(f'{name}: differs from its sources')
            else:
                with open(path, 'w') as f:
                    f.write(out[name])
                print(f'wrote patches/{name}')
    listed = set(names) | {'0000-cover-letter.patch'}
    for f in sorted(os.listdir(pdir)):
        if f.endswith('.patch') and f not in listed:
            stale.append(f'{f}: in patches/ but not in series')
    if stale:
        for s in stale:
            print('gen-series: ' + s, file=sys.stderr)
        if args.check:
            print('gen-series: patches/ is stale; run "make series"',
                  file=sys.stderr)
        sys.exit(1)


if __name__ == '__main__':
    main()
