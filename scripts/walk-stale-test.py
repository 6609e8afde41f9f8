#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""walk-stale.py against a build directory made up here, one case per
reason it has to call a target stale and one for each way a target stays
up to date.  Prints KTAP.

The directory is what Kbuild leaves (O=) once its configuration is
synced: include/config/SYMBOL of each symbol (touched when its value
changed), a source link, for each object its output and its command file
with fixdep's dependencies (the source, headers, $(wildcard
include/config/SYMBOL)), and a generator's command file; STAMP is older
than all of it but what a case makes newer.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ktap import Ktap                   # pylint: disable=wrong-import-position

SYMBOLS = ['A', 'B', 'D2', 'TOP_ONLY', 'OTHER', 'NR_CPUS', 'X86_DISABLED_FEATURE_PKU']
# object: (source, headers, symbols it reads); a generator's as one
OBJECTS = {
    'd1/a.o': ('d1/a.c', ['include/h1.h'], ['A']),
    'd1/b.o': ('d1/b.c', ['include/h2.h'], []),
    'd2/c.o': ('d2/c.c', ['include/h2.h'], ['B']),
    'kernel/bounds.s': ('kernel/bounds.c', ['include/h3.h'], ['NR_CPUS']),
}
MAKEFILES = {'Makefile': 'CONFIG_TOP_ONLY := y\n', 'd1/Makefile': 'obj-y += a.o b.o sub/\n',
             'd1/sub/Makefile': 'obj-y += new.o\n', 'd2/Makefile': 'obj-$(CONFIG_D2) += c.o\n'}
TARGETS = ['d1/', 'd2/c.o']


def write(path, text=''):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)


def tree(top):
    """A source tree and its build directory, all older than the stamp."""
    src, build = os.path.join(top, 'src'), os.path.join(top, 'build')
    for m, text in MAKEFILES.items():
        write(os.path.join(src, m), text)
    for obj, (c, hs, syms) in OBJECTS.items():
        write(os.path.join(src, c))
        for h in hs:
            write(os.path.join(src, h))
        write(os.path.join(build, obj))
        d, f = os.path.split(obj)
        lines = [f'source_{obj} := {src}/{c}', '', f'deps_{obj} := \\']
        lines += [f'  {src}/{h} \\' for h in hs]
        lines += [f'    $(wildcard include/config/{s}) \\' for s in syms]
        lines += ['', f'{obj}: $(deps_{obj})', '']
        write(os.path.join(build, d, f'.{f}.cmd'), '\n'.join(lines))
    for sym in SYMBOLS:
        write(os.path.join(build, 'include/config', sym))
    write(os.path.join(build, 'include/config/auto.conf'))
    write(os.path.join(build, 'include/config/auto.conf.cmd'),
          'autoconfig := include/config/auto.conf\n\ndeps_config := \\\n'
          '\tKconfig \\\n\td1/Kconfig \\\n\n$(autoconfig): $(deps_config)\n')
    write(os.path.join(build, '.config'))
    write(os.path.join(src, 'Kconfig'))
    write(os.path.join(src, 'd1/Kconfig'))
    os.symlink(src, os.path.join(build, 'source'))
    old = time.time() - 100
    for d, _, fs in os.walk(top):
        for f in fs:
            os.utime(os.path.join(d, f), (old, old), follow_symlinks=False)
    write(os.path.join(top, 'stamp'))
    os.utime(os.path.join(top, 'stamp'), (old + 50, old + 50))
    return src, build


def stale(top, *extra):
    r = subprocess.run([sys.executable, os.path.join(HERE, 'walk-stale.py'),
                        os.path.join(top, 'build'), os.path.join(top, 'stamp'),
                        '--global', os.path.join(top, 'src/Makefile'), *extra, *TARGETS],
                       capture_output=True, text=True, check=False)
    if r.returncode:
        return {'exit': r.stderr.strip()}
    # "# TARGET": stale, and left to --like's directory
    return dict(line.split('\t', 1) for line in r.stdout.splitlines())


def case(out, name, change, want, *extra):
    top = tempfile.mkdtemp(prefix='walk-stale-test.')
    try:
        src, build = tree(top)
        change(src, build, top)
        got = stale(top, *extra)
        out.result(sorted(got) == sorted(want), f'{name}: stale {sorted(want) or "none"}',
                   f'walk-stale.py said {got}')
    finally:
        shutil.rmtree(top)


def touch(path):
    """@path made newer than the stamp, as syncconfig or a patch does"""
    write(path, 'x')


def main():
    out = Ktap('walk-stale: ', 26)
    nothing = lambda s, b, t: None                       # noqa: E731
    case(out, 'nothing changed since the stamp', nothing, [])
    case(out, 'no stamp', lambda s, b, t: os.unlink(os.path.join(t, 'stamp')), TARGETS)
    case(out, 'a header one object of a directory includes',
         lambda s, b, t: touch(os.path.join(s, 'include/h1.h')), ['d1/'])
    case(out, 'a header objects of both targets include',
         lambda s, b, t: touch(os.path.join(s, 'include/h2.h')), TARGETS)
    case(out, 'an object\'s output missing',
         lambda s, b, t: os.unlink(os.path.join(b, 'd2/c.o')), ['d2/c.o'])
    case(out, 'a symbol one object reads changed (fixdep\'s include/config/A)',
         lambda s, b, t: touch(os.path.join(b, 'include/config/A')), ['d1/'])
    case(out, 'a changed symbol a directory\'s Makefile names',
         lambda s, b, t: touch(os.path.join(b, 'include/config/D2')), ['d2/c.o'])
    case(out, 'a changed symbol no object and no Makefile names, auto.conf newer',
         lambda s, b, t: (touch(os.path.join(b, 'include/config/OTHER')),
                          touch(os.path.join(b, 'include/config/auto.conf'))), [])
    case(out, 'a changed symbol the top Makefile names',
         lambda s, b, t: touch(os.path.join(b, 'include/config/TOP_ONLY')), TARGETS)
    case(out, 'a Makefile in a target\'s directory',
         lambda s, b, t: touch(os.path.join(s, 'd1/Makefile')), ['d1/'])
    case(out, 'a Makefile below a directory target (a new object in it)',
         lambda s, b, t: touch(os.path.join(s, 'd1/sub/Makefile')), ['d1/'])
    case(out, 'a symbol a generated header\'s generator reads (bounds.h made again)',
         lambda s, b, t: touch(os.path.join(b, 'include/config/NR_CPUS')), TARGETS)
    case(out, 'a symbol of x86\'s feature masks',
         lambda s, b, t: touch(os.path.join(b, 'include/config/X86_DISABLED_FEATURE_PKU')),
         TARGETS)
    case(out, 'a --global file that does not exist',
         lambda s, b, t: os.unlink(os.path.join(s, 'Makefile')), {'exit': ''})
    # --like: =m's or =n's directory beside =y's, built at the same prefix
    # (a copy of the tree's build directory, the changes made to both);
    # what builds the same in both is left to =y's.
    def like(conf_mine, conf_y, *more):
        def change(s, b, t):
            y = os.path.join(t, 'build-y')
            shutil.copytree(b, y, symlinks=True)
            write(os.path.join(b, 'include/config/auto.conf'), conf_mine)
            write(os.path.join(y, 'include/config/auto.conf'), conf_y)
            touch(os.path.join(s, 'include/h2.h'))
            for m in more:
                m(s, b, y)
        return change
    y_conf = 'CONFIG_A=y\nCONFIG_B=y\nCONFIG_D2=y\n'
    ydir = ['--like', '/dev/null']
    for name, change, want in (
            ('the same configuration: both compiled as in YDIR', like(y_conf, y_conf),
             ['# d1/', '# d2/c.o']),
            ('a symbol d1/a.o reads differs (=m): d1/ built, d2/c.o as in YDIR',
             like('CONFIG_A=m\nCONFIG_B=y\nCONFIG_D2=y\n', y_conf), ['d1/', '# d2/c.o']),
            ('a symbol only YDIR has (=n), d2\'s Makefile names it: d2/c.o built',
             like('CONFIG_A=y\nCONFIG_B=y\n', y_conf), ['# d1/', 'd2/c.o']),
            ('an object YDIR did not build: its target built',
             like(y_conf, y_conf, lambda s, b, y: os.unlink(os.path.join(y, 'd1/.b.o.cmd'))),
             ['d1/', '# d2/c.o']),
            ('an object only this directory has: its target built',
             like(y_conf, y_conf, lambda s, b, y: write(os.path.join(b, 'd1/sub/.new.o.cmd'))),
             ['d1/', '# d2/c.o']),
            ('a symbol the top Makefile names differs: every target built',
             like(y_conf + 'CONFIG_TOP_ONLY=y\n', y_conf), TARGETS),
            ('a symbol of x86\'s feature masks differs: every target built',
             like(y_conf + 'CONFIG_X86_DISABLED_FEATURE_PKU=y\n', y_conf), TARGETS)):
        top = tempfile.mkdtemp(prefix='walk-stale-test.')
        try:
            src, build = tree(top)
            change(src, build, top)
            ydir[1] = os.path.join(top, 'build-y')
            got = stale(top, *ydir)
            out.result(sorted(got) == sorted(want), f'--like YDIR, {name}',
                       f'walk-stale.py said {got}')
        finally:
            shutil.rmtree(top)
    # --owed: what an earlier build left to =y's directory stays stale
    # (its objects are older than their sources) until a build makes it.
    for name, owed, want in (('a target an earlier build left to YDIR', 'd2/c.o\n', ['d2/c.o']),
                             ('no file of them', None, [])):
        top = tempfile.mkdtemp(prefix='walk-stale-test.')
        try:
            tree(top)
            path = os.path.join(top, 'owed')
            if owed is not None:
                write(path, owed)
            got = stale(top, '--owed', path)
            out.result(sorted(got) == sorted(want), f'--owed FILE, {name}: stale {want or "none"}',
                       f'walk-stale.py said {got}')
        finally:
            shutil.rmtree(top)
    # --needs-sync: whether make would sync the configuration first
    for name, change, want in (
            ('nothing changed', None, 1),
            ('.config newer than auto.conf', '.config', 0),
            ('a Kconfig file auto.conf was made from', 'source/d1/Kconfig', 0)):
        top = tempfile.mkdtemp(prefix='walk-stale-test.')
        try:
            _, build = tree(top)
            if change:
                touch(os.path.join(build, change))
            r = subprocess.run([sys.executable, os.path.join(HERE, 'walk-stale.py'),
                                '--needs-sync', build], capture_output=True, text=True,
                               check=False)
            out.result(r.returncode == want, f'--needs-sync, {name}: '
                       f'{"a sync" if want == 0 else "none"}',
                       f'exit {r.returncode}: {r.stdout.strip()}')
        finally:
            shutil.rmtree(top)
    sys.exit(out.finish())


if __name__ == '__main__':
    main()
