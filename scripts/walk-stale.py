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
missing; a --global FILE (the top Makefile) is newer than STAMP, or a
--makefile FILE (a Makefile or Kbuild file of the series, a path in the
source tree, DIR/source: the flags and objects of its directory and those
below) in the target's directory or above it; one of its objects has no
command file, or no output; a source or header its command files list
(fixdep's dependencies of each object) is newer than STAMP; or a symbol
whose value differs between DIR's configuration (.config) and the one its
last build synced (include/config/auto.conf) is one an object of it reads
(fixdep's include/config/SYMBOL), or one a Makefile or Kbuild file of its
directory, above it or below it names (which objects and flags it builds
with).  A symbol a --global FILE names makes every target stale.  What is
left, make would find up to date: the prefix walk does not run make for
it, whose reading of each directory's Makefiles and command files costs
seconds per directory even when nothing is compiled.
"""
import os
import re
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


def changed_symbols(dot, synced):
    """The names of the symbols whose value differs (set in one file only
    included)."""
    a, b = dict(unquoted(dot)), dict(unquoted(synced))
    return {k for k in a.keys() | b.keys() if a.get(k) != b.get(k)}


WILDCARD_CONFIG = re.compile(r'^\$\(wildcard include/config/(\w+)\)$')


def deps(cmd):
    """The files a command file (.NAME.cmd) lists, source and deps, and
    the symbols it reads: fixdep's $(wildcard include/config/SYMBOL)."""
    files, symbols = [], set()
    with open(cmd, errors='replace') as f:
        for line in f:
            if line.startswith('source_'):
                files.append(line.split(':=', 1)[1].strip())
                continue
            if not line.startswith(' '):
                continue
            word = line.strip().rstrip('\\').strip()
            m = WILDCARD_CONFIG.match(word)
            if m:
                symbols.add('CONFIG_' + m.group(1))
            elif word and not word.startswith('$('):
                files.append(word)
    return files, symbols


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
    if dot is None or synced is None:
        return all_stale('no configuration synced')
    changed = changed_symbols(dot, synced)
    names = re.compile(r'\b(' + '|'.join(sorted(changed)) + r')\b') if changed else None
    src = os.path.join(build, 'source')
    named_cache = {}

    def named(path):
        """A changed symbol the Makefile at @path names, or None."""
        if names is None:
            return None
        r = named_cache.get(path, False)
        if r is False:
            try:
                with open(path, errors='replace') as f:
                    m = names.search(f.read())
            except OSError:
                m = None
            r = named_cache[path] = m.group(1) if m else None
        return r

    for g in globs:
        sym = named(g)
        if sym:
            return all_stale(f'{sym} changed, named in {os.path.basename(g)}')

    def makefiles_of(t):
        """The Makefiles and Kbuild files that decide how make builds t:
        of its directory and those above, and for a directory those below."""
        d = t.rstrip('/') if t.endswith('/') else os.path.dirname(t)
        out = []
        if t.endswith('/'):
            for dd, _, fs in os.walk(os.path.join(src, d)):
                out += [os.path.join(dd, f) for f in fs if f in ('Makefile', 'Kbuild')]
            d = os.path.dirname(d)
        while d:
            out += [os.path.join(src, d, f) for f in ('Makefile', 'Kbuild')]
            d = os.path.dirname(d)
        return out
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
        for m in makefiles_of(t):
            sym = named(m)
            if sym:
                return f'{sym} changed, named in {os.path.relpath(m, src)}'
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
            files, symbols = deps(c)
            for dep in files:
                if newer(dep):
                    return f'{dep.rsplit("/", 1)[-1]} changed'
            if symbols & changed:
                return f'{min(symbols & changed)} changed'
        return None

    for t in targets:
        why = reason(t)
        if why:
            print(f'{t}\t{why}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
