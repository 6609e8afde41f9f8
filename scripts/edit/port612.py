#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""port612.py FILE...: carry mainline's change of FILEs to the 6.12 backport.

For each commit of branch grtrace-6.12 (edit/linux-6.12), the mainline
commit of the same subject before the change ($OLD_REF, default branch
grtrace-old) and after it (branch grtrace) of edit/linux: where the 6.12
file equals mainline's old one, it becomes mainline's new one (with 6.12's
kvzalloc() for kvzalloc_obj()); where it differs, a three-way merge, and
conflicts go to /tmp/fold612/<commit>/, resolutions to
/tmp/fold612/override/<commit>/.  A commit message that mainline changed
and 6.12 had unchanged follows.  Prints the new tip: git reset --hard."""
import os, subprocess, sys, tempfile
M = os.path.expanduser('~/.cache/grtrace/edit/linux')
B = os.path.expanduser('~/.cache/grtrace/edit/linux-6.12')
FILES = sys.argv[1:]
def git(repo, *a, inp=None, env=None, check=True):
    r = subprocess.run(['git', '-C', repo] + list(a), input=inp, capture_output=True, env=env)
    if check and r.returncode: raise SystemExit(r.stderr.decode())
    return r
def show(repo, c, f):
    r = git(repo, 'show', f'{c}:{f}', check=False)
    return r.stdout if r.returncode == 0 else None
def subjects(repo, rng):
    out = {}
    for l in git(repo, 'log', '--format=%H %s', rng).stdout.decode().splitlines():
        h, s = l.split(' ', 1); out.setdefault(s, h)
    return out
old_m = subjects(M, 'grtrace-base..' + os.environ.get('OLD_REF', 'grtrace-old')); new_m = subjects(M, 'grtrace-base..grtrace')
commits = git(B, 'rev-list', '--reverse', 'grtrace-base-6.12..grtrace-6.12').stdout.decode().split()
def fix612(f, data):
    if data and f.endswith('grtrace_govern.c'):
        data = data.replace(b'kvzalloc_obj(*c->cur)', b'kvzalloc(sizeof(*c->cur), GFP_KERNEL)')
        data = data.replace(b'kvzalloc_obj(*c->spare)', b'kvzalloc(sizeof(*c->spare), GFP_KERNEL)')
    if data and f.endswith('grtrace_stream.c'):
        # 6.12's subbuf_start callback also takes the previous padding.
        data = data.replace(b'\t\t\t\tvoid *prev_subbuf)\n', b'\t\t\t\tvoid *prev_subbuf, size_t prev_padding)\n')
        data = data.replace(b'kzalloc_obj(*p);', b'kzalloc(sizeof(*p), GFP_KERNEL);')
    return data
conf = 0; plan = []; last = {}
for c in commits:
    s = git(B, 'log', '-1', '--format=%s', c).stdout.decode().strip()
    row = {}
    if s not in new_m:
        # A commit of the backport's own: it keeps the files it does not
        # touch as the commit before it has them now.
        for f in FILES:
            o612 = show(B, c, f)
            if o612 != show(B, c + '~1', f):
                conf += 1; print(f'conflict {c[:10]} {s}: {f}: a backport commit of its own changes it')
            elif last.get(f, o612) != o612:
                row[f] = last[f]
        plan.append((c, row))
        continue
    # A commit new in mainline has no old version: its files as the new one.
    nm = new_m[s]; om = old_m.get(s, nm)
    for f in FILES:
        o612, oM, nM = show(B, c, f), show(M, om, f), show(M, nm, f)
        if o612 == oM:
            new = fix612(f, nM)
        elif oM == nM:
            new = o612
        else:
            with tempfile.TemporaryDirectory() as td:
                a, b, d = (os.path.join(td, x) for x in 'abd')
                open(a, 'wb').write(o612 or b''); open(b, 'wb').write(oM or b''); open(d, 'wb').write(nM or b'')
                r = subprocess.run(['git', 'merge-file', '-p', a, b, d], capture_output=True)
                if r.returncode:
                    conf += r.returncode
                    p = f'/tmp/fold612/{c[:10]}/{f}'; os.makedirs(os.path.dirname(p), exist_ok=True)
                    ov = f'/tmp/fold612/override/{c[:10]}/{f}'
                    if os.path.exists(ov):
                        conf -= r.returncode; new = open(ov, 'rb').read()
                    else:
                        open(p, 'wb').write(r.stdout); print(f'conflict {c[:10]} {s}: {f} -> {p}')
                        new = r.stdout
                else:
                    new = r.stdout
        if new != o612: row[f] = new
        last[f] = new
    plan.append((c, row))
if conf:
    print(f'{conf} conflicts'); sys.exit(1)
prev = 'grtrace-base-6.12'; prev = git(B, 'rev-parse', prev).stdout.decode().strip()
idx = tempfile.mktemp()
for c, row in plan:
    env = dict(os.environ, GIT_INDEX_FILE=idx)
    git(B, 'read-tree', c, env=env)
    for f, v in row.items():
        if v is None:
            git(B, 'update-index', '--force-remove', f, env=env)
        else:
            h = git(B, 'hash-object', '-w', '--stdin', inp=v).stdout.decode().strip()
            git(B, 'update-index', '--add', '--cacheinfo', f'100644,{h},{f}', env=env)
    tree = git(B, 'write-tree', env=env).stdout.decode().strip()
    info = git(B, 'log', '-1', '--format=%an%x00%ae%x00%ad%x00%cd%x00%B', '--date=raw', c).stdout.decode().split('\0', 4)
    cenv = dict(os.environ, GIT_AUTHOR_NAME=info[0], GIT_AUTHOR_EMAIL=info[1], GIT_AUTHOR_DATE=info[2],
                GIT_COMMITTER_NAME='grtrace', GIT_COMMITTER_EMAIL='grtrace@localhost', GIT_COMMITTER_DATE=info[3])
    # the commit message: mainline's new one when mainline's changed
    s = info[4]
    subj = git(B, 'log', '-1', '--format=%s', c).stdout.decode().strip()
    nm = new_m.get(subj); om = old_m.get(subj, nm)
    mo = mn = None
    if nm:
        mo = git(M, 'log', '-1', '--format=%B', om).stdout.decode(); mn = git(M, 'log', '-1', '--format=%B', nm).stdout.decode()
    if mo != mn:
        if s == mo: s = mn
        else: print(f'note: {c[:10]}: the 6.12 message differs from mainline\'s; mainline changed it', file=sys.stderr)
    prev = subprocess.run(['git', '-C', B, 'commit-tree', tree, '-p', prev], input=(s.rstrip('\n') + '\n').encode(), capture_output=True, env=cenv, check=True).stdout.decode().strip()
os.unlink(idx)
print(prev)
