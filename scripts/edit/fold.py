#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""fold.py BASE TOP [--write]: fold the work tree's changes (against TOP) into
the commits BASE..TOP that added the lines they change, run in the edit tree.

Walks back from TOP: each commit's new version of a changed file is a
three-way merge of its old version with the next commit's change from old
to new.  Conflicts (a change to lines a later commit added) are written to
$FOLD_DIR/<k>/<path> (default /tmp/fold); resolve them with res.py and copy
the result to $FOLD_DIR/override/<k>/<path>, which is then taken as commit
k's version.  FOLD_OURS=1 resolves every conflict to the old side;
DUMP_K=k,... writes those commits' versions to $FOLD_DIR/dump/<k>/;
FOLD_FILES="path ..." walks files whose top is unchanged (to apply
overrides).  With --write, commits the new chain (authors, dates and
messages kept) and prints its tip: git reset to it."""
import os, subprocess, sys, tempfile
base, top = sys.argv[1], sys.argv[2]
write = '--write' in sys.argv
FD = os.environ.get('FOLD_DIR', '/tmp/fold')
def git(*a, inp=None, env=None):
    return subprocess.run(['git'] + list(a), input=inp, capture_output=True, env=env, check=True).stdout
commits = git('rev-list', '--reverse', f'{base}..{top}').decode().split()
files = sorted(set(git('diff', '--name-only', top).decode().split() + os.environ.get('FOLD_FILES', '').split()))
def content(c, f):
    r = subprocess.run(['git', 'show', f'{c}:{f}'], capture_output=True)
    return r.stdout if r.returncode == 0 else None
N = len(commits)
chain = [base] + commits     # chain[k] = commit k (0 = base)
new = {}                     # (k, f) -> bytes or None
conflicts = 0
for f in files:
    cur = open(f, 'rb').read() if os.path.exists(f) else None
    new[(N, f)] = cur
    for k in range(N - 1, -1, -1):
        o_k, o_k1 = content(chain[k], f), content(chain[k + 1], f)
        n_k1 = new[(k + 1, f)]
        ov = os.path.join(FD, 'override', str(k), f)
        if os.path.exists(ov):
            new[(k, f)] = open(ov, 'rb').read(); continue
        if o_k == o_k1:
            new[(k, f)] = n_k1; continue
        if o_k is None:
            new[(k, f)] = None; continue
        if n_k1 == o_k1:
            new[(k, f)] = o_k; continue
        with tempfile.TemporaryDirectory() as td:
            a, b, c = (os.path.join(td, x) for x in 'abc')
            open(a, 'wb').write(o_k); open(b, 'wb').write(o_k1); open(c, 'wb').write(n_k1 or b'')
            r = subprocess.run(['git', 'merge-file', '-p'] + (['--ours'] if os.environ.get('FOLD_OURS') else []) + [ '-L', 'old', '-L', 'base', '-L', 'new', a, b, c], capture_output=True)
            if r.returncode:
                conflicts += r.returncode
                p = os.path.join(FD, str(k), f); os.makedirs(os.path.dirname(p), exist_ok=True)
                open(p, 'wb').write(r.stdout)
                print(f'conflict: commit {k} ({chain[k][:10]}) {f}: {r.returncode} regions -> {p}')
            new[(k, f)] = r.stdout
for k in [int(x) for x in os.environ.get('DUMP_K', '').split(',') if x]:
    for f in files:
        if new[(k, f)] is not None:
            p = os.path.join(FD, 'dump', str(k), f); os.makedirs(os.path.dirname(p), exist_ok=True)
            open(p, 'wb').write(new[(k, f)])
for k in range(1, N + 1):
    ch = [f for f in files if new[(k, f)] != content(chain[k], f)]
    if ch: print(f'{k:2d} {chain[k][:10]} changes {" ".join(ch)}')
if not write:
    print(f'{conflicts} conflict regions'); sys.exit(0)
if conflicts:
    print('conflicts left: resolve with overrides first'); sys.exit(1)
prev = base
idx = tempfile.mktemp()
for k in range(1, N + 1):
    c = chain[k]
    env = dict(os.environ, GIT_INDEX_FILE=idx)
    git('read-tree', c, env=env)
    for f in files:
        v = new[(k, f)]
        if v is None:
            subprocess.run(['git', 'update-index', '--force-remove', f], env=env, check=True)
        else:
            h = git('hash-object', '-w', '--stdin', inp=v).decode().strip()
            mode = '100755' if os.path.exists(f) and os.access(f, os.X_OK) else '100644'
            git('update-index', '--add', '--cacheinfo', f'{mode},{h},{f}', env=env)
    tree = git('write-tree', env=env).decode().strip()
    info = git('log', '-1', '--format=%an%x00%ae%x00%ad%x00%B', '--date=raw', c).decode().split('\0', 3)
    cenv = dict(os.environ, GIT_AUTHOR_NAME=info[0], GIT_AUTHOR_EMAIL=info[1], GIT_AUTHOR_DATE=info[2],
                GIT_COMMITTER_NAME='grtrace', GIT_COMMITTER_EMAIL='grtrace@localhost', GIT_COMMITTER_DATE=info[2])
    prev = subprocess.run(['git', 'commit-tree', tree, '-p', prev], input=(info[3].rstrip('\n') + '\n').encode(), capture_output=True, env=cenv, check=True).stdout.decode().strip()
os.unlink(idx)
print(prev)
