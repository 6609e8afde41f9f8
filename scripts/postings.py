#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The kernel series cut into postings, one per tree (DIR/postings.txt).

usage: postings.py write DIR [KERNEL_TREE]
       postings.py check DIR

write: DIR/postings/NN-NAME.txt, one cover letter per posting: its
subject, tree, the postings it needs first, its text, its patches (with
their numbers in DIR/kernel/) and their diffstat; with KERNEL_TREE, the
maintainers and lists that tree's scripts/get_maintainer.pl gives for
them.
check: every patch of DIR/kernel/ is in exactly one posting, every
posting's patch exists, the postings it names exist, and DIR/postings/
holds the cover letters that write gives (but their To: and Cc: lines).
A posting names only earlier postings in its after: line.
Exit status 1 with the reasons on stderr."""
import os
import re
import subprocess
import sys

from sibling import load


# The subject of a patch as the series file's headings read it.
subject = load('series-headings.py').subject


def stat(path):
    """(insertions, deletions, files) of a patch, from its diffs (not
    its message, nor a signature after them)"""
    ins = dels = 0
    files = set()
    in_diff = False
    with open(path, errors='replace') as f:
        for line in f:
            if line.startswith('diff --git '):
                files.add(line.split()[2][2:])
                in_diff = True
            elif not in_diff:
                continue
            elif line == '-- \n':
                break
            elif line.startswith('+') and not line.startswith('+++ '):
                ins += 1
            elif line.startswith('-') and not line.startswith('--- '):
                dels += 1
    return ins, dels, files


def parse(path):
    """The postings of postings.txt, in order: dicts of name, subject,
    tree, after (list), patches (subjects) and text"""
    postings = []
    cur = None
    state = None
    with open(path) as f:
        for line in f.read().split('\n'):
            if line.startswith('## '):
                cur = {'name': line[3:].strip(), 'patches': [], 'text': [],
                       'after': [], 'subject': '', 'tree': ''}
                postings.append(cur)
                state = 'head'
            elif cur is None or (state != 'text' and line.startswith('#')):
                continue
            elif state == 'head' and line.startswith('\t'):
                cur['patches'].append(line.strip())
            elif state == 'head' and line == '':
                state = 'text'
            elif state == 'head':
                key, _, val = line.partition(':')
                val = val.strip()
                if key == 'after':
                    cur['after'] = [] if val == '-' else val.split()
                elif key in ('subject', 'tree'):
                    cur[key] = val
                elif key != 'patches':
                    raise SystemExit('%s: unknown key %r in posting %s' % (path, key, cur['name']))
            else:
                cur['text'].append(line)
    for p in postings:
        while p['text'] and p['text'][-1] == '':
            p['text'].pop()
    return postings


def base_commit(d):
    with open(os.path.join(d, 'kernel', '0000-cover-letter.patch')) as f:
        m = re.search(r'^base-commit: (\S+)', f.read(), re.M)
    return m.group(1) if m else 'unknown'


def maintainers(tree, paths):
    """(people, lists) that the tree's get_maintainer.pl names for the
    patches; it prints errors of its own for Fixes: ids this tree has no
    history of, which are ignored, but it must name someone"""
    # Perl's hash order, which get_maintainer.pl's order follows, fixed.
    env = dict(os.environ, PERL_HASH_SEED='0', PERL_PERTURB_KEYS='0')
    r = subprocess.run([os.path.join(tree, 'scripts', 'get_maintainer.pl'),
                        '--no-git', '--no-git-fallback', '--no-rolestats'] + paths,
                       cwd=tree, capture_output=True, text=True, check=False, env=env)
    names = [line.strip() for line in r.stdout.split('\n') if line.strip()]
    if r.returncode or not names:
        raise SystemExit('get_maintainer.pl gave nobody for %s: %s' % (' '.join(paths), r.stderr[-500:]))
    return [n for n in names if '<' in n], [n for n in names if '<' not in n]


def covers(d, tree=None):
    """{file name: text} of the cover letters, and the errors"""
    kdir = os.path.join(d, 'kernel')
    names = sorted(n for n in os.listdir(kdir)
                   if n.endswith('.patch') and not n.startswith('0000-'))
    by_subject = {}
    for n in names:
        by_subject.setdefault(subject(os.path.join(kdir, n)), []).append(n)
    postings = parse(os.path.join(d, 'postings.txt'))
    errors = []
    known = {p['name'] for p in postings}
    seen = {}
    out = {}
    base = base_commit(d)
    earlier = set()
    for i, p in enumerate(postings, 1):
        for a in p['after']:
            if a not in known:
                errors.append('posting %s: after %s, which is no posting' % (p['name'], a))
            elif a not in earlier:
                errors.append('posting %s: after %s, which is not an earlier posting' % (p['name'], a))
        earlier.add(p['name'])
        if not p['patches']:
            errors.append('posting %s: no patch' % p['name'])
            continue
        files, subjects = [], []
        for s in p['patches']:
            got = by_subject.get(s, [])
            if len(got) != 1:
                errors.append('posting %s: %d patches of subject %r' % (p['name'], len(got), s))
                continue
            if got[0] in seen:
                errors.append('%s: in postings %s and %s' % (got[0], seen[got[0]], p['name']))
            seen[got[0]] = p['name']
            files.append(got[0])
            subjects.append(s)
        if not p['subject'] or not p['tree'] or not p['text']:
            errors.append('posting %s: no subject, tree or text' % p['name'])
        if files != sorted(files):
            errors.append('posting %s: its patches are not in the series\' order' % p['name'])
        k = len(files)
        if k == 1:
            # A patch alone goes without a cover letter: this is its notes.
            lines = ['Subject: [PATCH] %s' % (p['patches'][0]),
                     'Notes: (a patch alone: this text goes below its "---")']
        else:
            lines = ['Subject: [PATCH 0/%d] %s' % (k, p['subject'])]
        if tree:
            to, cc = maintainers(tree, [os.path.abspath(os.path.join(kdir, f)) for f in files])
            lines.append('To: ' + ', '.join(to))
            if cc:
                lines.append('Cc: ' + ', '.join(cc))
        lines += ['Tree: ' + p['tree'],
                  'After: ' + (', '.join(p['after']) if p['after'] else 'nothing: it applies on the base alone'),
                  'Base: base-commit %s (Debian\'s linux-source-7.3), with the After: postings applied' % base
                  if p['after'] else 'Base: base-commit %s (Debian\'s linux-source-7.3)' % base,
                  '']
        lines += p['text']
        lines.append('')
        ins = dels = 0
        touched = set()
        for j, (f, s) in enumerate(zip(files, subjects), 1):
            lines.append('  [PATCH%s] %s' % (' %d/%d' % (j, k) if k > 1 else '', s))
            lines.append('               (here: patches/kernel/%s)' % f)
            a, b, t = stat(os.path.join(kdir, f))
            ins, dels = ins + a, dels + b
            touched |= t
        lines += ['', ' %d file%s changed, %d insertions(+), %d deletions(-)' %
                  (len(touched), '' if len(touched) == 1 else 's', ins, dels), '']
        out['%02d-%s.txt' % (i, p['name'])] = '\n'.join(lines)
    for n in names:
        if n not in seen:
            errors.append('%s: in no posting' % n)
    return out, errors


def without_to(text):
    return '\n'.join(line for line in text.split('\n') if not line.startswith(('To: ', 'Cc: ')))


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ('write', 'check'):
        raise SystemExit(__doc__)
    d = sys.argv[2]
    pdir = os.path.join(d, 'postings')
    if sys.argv[1] == 'write':
        out, errors = covers(d, sys.argv[3] if len(sys.argv) > 3 else None)
        if errors:
            sys.stderr.write('\n'.join(errors) + '\n')
            sys.exit(1)
        os.makedirs(pdir, exist_ok=True)
        for n in os.listdir(pdir):
            os.remove(os.path.join(pdir, n))
        for n, text in out.items():
            with open(os.path.join(pdir, n), 'w') as f:
                f.write(text)
        return
    if not os.path.exists(os.path.join(d, 'postings.txt')):
        if os.path.isdir(pdir):
            raise SystemExit('%s without postings.txt' % pdir)
        print('no postings.txt: the series is one posting')
        return
    out, errors = covers(d)
    have = sorted(os.listdir(pdir)) if os.path.isdir(pdir) else []
    if have != sorted(out):
        errors.append('%s holds %s, not %s' % (pdir, ' '.join(have) or 'nothing', ' '.join(sorted(out))))
    else:
        for n in have:
            with open(os.path.join(pdir, n)) as f:
                if without_to(f.read()) != without_to(out[n]):
                    errors.append('%s: not what write gives (scripts/series.sh export)' % n)
    if errors:
        sys.stderr.write('\n'.join(errors) + '\n')
        sys.exit(1)
    print('%d postings, every kernel patch in one' % len(out))


main()
