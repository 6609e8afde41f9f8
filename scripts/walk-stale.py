#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The targets of a prefix build that make would rebuild.

    walk-stale.py DIR STAMP [--global FILE]... [--makefile FILE]... TARGET...

DIR is a kernel build directory (O=), STAMP a file touched after the last
build of DIR that passed, TARGET a directory ("drivers/gpu/grtrace/") or
an object ("kernel/relay.o") as given to make.  Prints, one per line, the
targets whose build would do something, each with its reason:

    TARGET<TAB>REASON

A target is stale when make would look at it with new eyes: STAMP is
missing; DIR's configuration (.config) is not the one its last build
synced (include/config/auto.conf); a --global FILE (the top Makefile) is
newer than STAMP, or a --makefile FILE (a Makefile or Kbuild file of the
series, a path in the source tree, DIR/source: the flags and objects of
its directory and those below) in the target's directory or above it;
one of its
objects has no command file, or no output; or a source or header its
command files list (fixdep's dependencies of each object) is newer than
STAMP.  What is left, make would find up to date: the prefix walk does
not run make for it, whose reading of each directory's Makefiles and
command files costs seconds per directory even when nothing is compiled.
"""
import os
import sys


def config(path):
    """The symbols set in a .config or auto.conf, as (name, value): a
    string is quoted in .config only."""
    try:
        with open(path) as f:
            return {tuple(l.strip().split('=', 1)) for l in f
                    if l.startswith('CONFIG_')}
    except OSError:
        return None


def unquoted(cfg):
    return {(k, v[1:-1] if len(v) > 1 and v[0] == v[-1] == '"' else v)
            for k, v in cfg}


def deps(cmd):
    """The files a command file (.NAME.cmd) lists: source and deps."""
    out = []
    with open(cmd, errors='replace') as f:
        for line in f:
            if line.startswith('source_'):
                out.append(line.split(':=', 1)[1].strip())
                continue
            if not line.startswith(' '):
                continue
            word = line.strip().rstrip('\\').strip()
            # $(wildcard include/config/X): the configuration, compared
            # whole above; anything else is a file.
            if word and not word.startswith('$('):
                out.append(word)
    return out


def main(argv):
    if len(argv) < 3:
        sys.exit('usage: walk-stale.py DIR STAMP [--global FILE]... '
                 '[--makefile FILE]... TARGET...')
    build, stamp = argv[1], argv[2]
    rest = argv[3:]
    globs, makefiles = [], []
    while len(rest) >= 2 and rest[0] in ('--global', '--makefile'):
        (globs if rest[0] == '--global' else makefiles).append(rest[1])
        rest = rest[2:]
    targets = rest

    def all_stale(why):
        print('\n'.join(f'{t}\t{why}' for t in targets))
        return 0

    try:
        since = os.stat(stamp).st_mtime_ns
    except OSError:
        return all_stale('no earlier build')
    dot, synced = config(os.path.join(build, '.config')), \
        config(os.path.join(build, 'include/config/auto.conf'))
    if dot is None or synced is None or unquoted(dot) != unquoted(synced):
        return all_stale('configuration changed')
    newer_cache = {}

    def newer(path):
        if not os.path.isabs(path):
            path = os.path.join(build, path)
        r = newer_cache.get(path)
        if r is None:
            try:
                r = os.stat(path).st_mtime_ns > since
            except OSError:
                r = True    # gone: make would fail or rebuild
            newer_cache[path] = r
        return r

    for g in globs:
        if os.path.exists(g) and newer(g):
            return all_stale(f'{os.path.basename(g)} changed')

    def reason(t):
        """Why make would rebuild target t, or None."""
        for m in makefiles:
            if t.startswith(os.path.dirname(m) + '/') and \
                    newer(os.path.join(build, 'source', m)):
                return f'{m} changed'
        if t.endswith('/'):
            cmds = [os.path.join(d, f)
                    for d, _, fs in os.walk(os.path.join(build, t))
                    for f in fs if f.startswith('.') and f.endswith('.cmd')]
        else:
            d, f = os.path.split(t)
            cmds = [os.path.join(build, d, f'.{f}.cmd')]
        if not cmds or not all(os.path.exists(c) for c in cmds):
            return 'not built before'
        for c in cmds:
            d, f = os.path.split(c)
            output = os.path.join(d, f[1:-4])
            if not os.path.exists(output):
                return f'{os.path.relpath(output, build)} missing'
            for dep in deps(c):
                if newer(dep):
                    return f'{dep.rsplit("/", 1)[-1]} changed'
        return None

    for t in targets:
        why = reason(t)
        if why:
            print(f'{t}\t{why}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
