#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""retop.py OLD NEW TIP: replay OLD..TIP onto NEW without a checkout, for
commits that do not touch the files OLD and NEW differ in; prints the new tip."""
import os, subprocess, sys, tempfile
old, new, tip = sys.argv[1:4]
def git(*a, inp=None, env=None):
    return subprocess.run(['git'] + list(a), input=inp, capture_output=True, env=env, check=True).stdout.decode()
files = git('diff', '--name-only', old, new).split()
commits = git('rev-list', '--reverse', f'{old}..{tip}').split()
for c in commits:
    touched = set(git('diff-tree', '--no-commit-id', '--name-only', '-r', c).split())
    assert not touched & set(files), (c, touched & set(files))
idx = tempfile.mktemp(); prev = new
for c in commits:
    env = dict(os.environ, GIT_INDEX_FILE=idx)
    git('read-tree', c, env=env)
    for f in files:
        ls = git('ls-tree', new, f).split()
        if ls:
            git('update-index', '--add', '--cacheinfo', f'{ls[0]},{ls[2]},{f}', env=env)
        else:
            subprocess.run(['git', 'update-index', '--force-remove', f], env=env, check=True)
    tree = git('write-tree', env=env).strip()
    info = git('log', '-1', '--format=%an%x00%ae%x00%ad%x00%cd%x00%B', '--date=raw', c).split('\0', 4)
    cenv = dict(os.environ, GIT_AUTHOR_NAME=info[0], GIT_AUTHOR_EMAIL=info[1], GIT_AUTHOR_DATE=info[2],
                GIT_COMMITTER_NAME='grtrace', GIT_COMMITTER_EMAIL='grtrace@localhost', GIT_COMMITTER_DATE=info[3])
    prev = subprocess.run(['git', 'commit-tree', tree, '-p', prev], input=(info[4].rstrip('\n') + '\n').encode(), capture_output=True, env=cenv, check=True).stdout.decode().strip()
os.unlink(idx)
print(prev)
