#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The targets of a prefix build that make would rebuild.

    walk-stale.py DIR STAMP [--global FILE]... [--like YDIR] [--owed FILE] TARGET...
    walk-stale.py --needs-sync DIR

DIR is a kernel build directory (O=) whose configuration is synced, as
make syncs it before a build when .config or a Kconfig file changed
("make syncconfig": it touches include/config/SYMBOL of each symbol whose
value changed; --needs-sync says why it is due and exits 0, or exits 1
when it is not), STAMP a file touched after
the last build of DIR that passed, TARGET a directory ("drivers/gpu/grtrace/")
or an object ("kernel/relay.o") as given to make.  Prints, one per line,
the targets whose build would do something, each with its reason:

    TARGET<TAB>REASON

What make would look at with new eyes, as it does: a file newer than
STAMP, a symbol being a file include/config/SYMBOL newer than STAMP.
Every target is stale when STAMP is missing; when a --global FILE (the
top Makefile and Kbuild, the architecture's, Kbuild's own) is newer or
names a changed symbol; when a generated header would be made again (its
generator's command file lists a newer file or a changed symbol, or the
symbol is one of x86's feature masks).  A target is stale when a Makefile
or Kbuild file of its directory, above it or, for a directory, below it
is newer or names a changed symbol (which objects and flags make builds
with); when one of its objects has no command file or no output; or when
a source, header or symbol its command files list (fixdep's dependencies
of each object) is newer.  What is left, make would find up to date: the
prefix walk does not run make for it, whose reading of each directory's
Makefiles and command files costs seconds per directory even when
nothing is compiled.

--like YDIR: YDIR is the build directory of another configuration of the
same tree (=y's, where DIR is =m's or =n's), built at this prefix just
before.  A stale target whose build reads no symbol that has another
value in YDIR's configuration than in DIR's (auto.conf: a Makefile or
Kbuild file of its, a global file, a generator or one of its objects'
command files in YDIR names it) and whose every object YDIR built too
would compile here as it did there: it is printed as "# TARGET<TAB>REASON;
compiled in YDIR", and not built.  Its objects in DIR are then older than
their sources, with the command files of an older build: --owed FILE
lists the targets a build left so (the prefix walk keeps them in
DIR/.walk-owed), stale until a build makes them.
"""
import os
import re
import sys

# The generated headers every object may include, by their generators'
# command files (the build directory's), and the symbols x86's feature
# masks (arch/x86/include/generated/asm/cpufeaturemasks.h) are made of.
GENERATORS = ['arch/x86/kernel/.asm-offsets.s.cmd', 'kernel/.bounds.s.cmd',
              'kernel/sched/.rq-offsets.s.cmd']
FEATURE_MASKS = re.compile(r'^X86_(DISABLED|REQUIRED)_FEATURE')
SYMBOL = re.compile(r'^[A-Z0-9_]+$')
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
                symbols.add(m.group(1))
            elif word and not word.startswith('$('):
                files.append(word)
    return files, symbols


def needs_sync(build):
    """Why make would sync DIR's configuration first, or None: .config,
    or a Kconfig file that auto.conf was made from (auto.conf.cmd's
    deps_config), is newer than auto.conf.  (Its other conditions, the
    compiler and the tools, cannot change within a walk: the cache key
    holds their versions, and a walk's first build of each directory is
    whole.)"""
    auto = os.path.join(build, 'include/config/auto.conf')
    try:
        made = os.stat(auto).st_mtime_ns
    except OSError:
        return 'no auto.conf'
    try:
        if os.stat(os.path.join(build, '.config')).st_mtime_ns > made:
            return '.config changed'
        with open(auto + '.cmd', errors='replace') as f:
            text = f.read()
    except OSError:
        return 'no .config or auto.conf.cmd'
    m = re.search(r'^deps_config := \\\n((?:\t.*\n)+)', text, re.M)
    for dep in (m.group(1).split() if m else []):
        if dep == '\\':
            continue
        path = dep if os.path.isabs(dep) else os.path.join(build, 'source', dep)
        try:
            if os.stat(path).st_mtime_ns > made:
                return f'{dep} changed'
        except OSError:
            return f'{dep} gone'
    return None


def unlike_test(build, like, differ, globs, makefiles_of):
    """A test of whether target t builds otherwise in @build than in @like,
    whose configurations differ in the symbols @differ; None if every
    target may (a global file or a generator names one of them)."""
    names = re.compile(r'\bCONFIG_(' + '|'.join(sorted(differ)) + r')\b') if differ else None

    def names_one(path):
        if names is None:
            return False
        try:
            with open(path, errors='replace') as f:
                return bool(names.search(f.read()))
        except OSError:
            return False
    if any(names_one(g) for g in globs) or any(FEATURE_MASKS.match(x) for x in differ) or any(
            deps(os.path.join(like, g))[1] & differ
            for g in GENERATORS if os.path.exists(os.path.join(like, g))):
        return None

    def cmds(top, t):
        if t.endswith('/'):
            return {os.path.relpath(os.path.join(d, f), top)
                    for d, _, fs in os.walk(os.path.join(top, t))
                    for f in fs if f.startswith('.') and f.endswith('.cmd')}
        d, f = os.path.split(t)
        return {os.path.join(d, f'.{f}.cmd')}

    def unlike(t):
        if any(names_one(m) for m in makefiles_of(t)):
            return True
        theirs = cmds(like, t)
        if not theirs or not all(os.path.exists(os.path.join(like, c)) for c in theirs):
            return True
        if cmds(build, t) - theirs:
            return True
        return any(deps(os.path.join(like, c))[1] & differ for c in theirs)
    return unlike


def auto_conf(build):
    """The symbols of a build directory's auto.conf, with their values."""
    values = {}
    with open(os.path.join(build, 'include/config/auto.conf'), errors='replace') as f:
        for line in f:
            if line.startswith('CONFIG_') and '=' in line:
                k, v = line.rstrip('\n').split('=', 1)
                values[k[len('CONFIG_'):]] = v
    return values


def main(argv):
    if len(argv) == 3 and argv[1] == '--needs-sync':
        why = needs_sync(argv[2])
        if why:
            print(why)
        return 0 if why else 1
    if len(argv) < 3:
        sys.exit('usage: walk-stale.py DIR STAMP [--global FILE]... [--like YDIR] '
                 '[--owed FILE] TARGET...\n'
                 '       walk-stale.py --needs-sync DIR')
    build, stamp = argv[1], argv[2]
    rest = argv[3:]
    globs = []
    while len(rest) >= 2 and rest[0] == '--global':
        globs.append(rest[1])
        rest = rest[2:]
    like, owed = None, set()
    if len(rest) >= 2 and rest[0] == '--like':
        like, rest = rest[1], rest[2:]
    if len(rest) >= 2 and rest[0] == '--owed':
        try:
            with open(rest[1]) as f:
                owed = set(f.read().split())
        except FileNotFoundError:
            pass
        rest = rest[2:]
    targets = rest
    for g in globs:
        if not os.path.isfile(g):
            sys.exit(f'walk-stale.py: {g}: no such file')

    def all_stale(why):
        print('\n'.join(f'{t}\t{why}' for t in targets))
        return 0

    try:
        since = os.stat(stamp).st_mtime_ns
    except OSError:
        return all_stale('no earlier build')
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

    confdir = os.path.join(build, 'include/config')
    try:
        changed = {f for f in os.listdir(confdir)
                   if SYMBOL.match(f) and newer(os.path.join(confdir, f))}
    except OSError:
        return all_stale('no configuration synced')
    names = re.compile(r'\bCONFIG_(' + '|'.join(sorted(changed)) + r')\b') if changed else None
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

    def cmd_stale(c):
        """Why the object of command file c is stale, or None."""
        d, f = os.path.split(c)
        output = os.path.join(d, f[1:-4])
        if not os.path.exists(output):
            return f'{os.path.relpath(output, build)} missing'
        files, symbols = deps(c)
        for dep in files:
            if newer(dep):
                return f'{dep.rsplit("/", 1)[-1]} changed'
        if symbols & changed:
            return f'CONFIG_{min(symbols & changed)} changed'
        return None

    for g in globs:
        if newer(g):
            return all_stale(f'{os.path.basename(g)} changed')
        sym = named(g)
        if sym:
            return all_stale(f'CONFIG_{sym} changed, named in {os.path.basename(g)}')
    for g in GENERATORS:
        c = os.path.join(build, g)
        why = cmd_stale(c) if os.path.exists(c) else None
        if why:
            return all_stale(f'{why}: {g[:-4]} made again')
    masks = sorted(x for x in changed if FEATURE_MASKS.match(x))
    if masks:
        return all_stale(f'CONFIG_{masks[0]} changed: the feature masks made again')

    src = os.path.join(build, 'source')

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
            out += [os.path.join(src, d, f) for f in ('Makefile', 'Kbuild')
                    if os.path.exists(os.path.join(src, d, f))]
            d = os.path.dirname(d)
        return out

    def reason(t):
        """Why make would rebuild target t, or None."""
        for m in makefiles_of(t):
            if newer(m):
                return f'{os.path.relpath(m, src)} changed'
            sym = named(m)
            if sym:
                return f'CONFIG_{sym} changed, named in {os.path.relpath(m, src)}'
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
            why = cmd_stale(c)
            if why:
                return why
        return None

    unlike = None
    if like:
        try:
            mine, theirs = auto_conf(build), auto_conf(like)
        except OSError as e:
            sys.exit(f'walk-stale.py: {e}')
        differ = {k for k in mine.keys() | theirs.keys() if mine.get(k) != theirs.get(k)}
        unlike = unlike_test(build, like, differ, globs, makefiles_of)

    for t in targets:
        why = reason(t) or ('left to another directory before' if t in owed else None)
        if why and unlike and not unlike(t):
            print(f'# {t}\t{why}; compiled in {like}')
        elif why:
            print(f'{t}\t{why}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
