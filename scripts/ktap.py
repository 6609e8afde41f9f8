#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""KTAP for the grtrace test steps.

As a module: Ktap, the writer the Python checkers use (the same lines as
the kernel's ktap_helpers.sh).  As a command:

  ktap.py sum STEP=LOG...   read each step's log with the kernel's KTAP
                            parser (tools/testing/kunit/kunit_parser.py, what
                            "kunit.py parse" runs) and print, per step, its
                            counts and the name of every test that did not
                            pass; the last line is "N passed, N failed,
                            N skipped, N cached" (cached: a build that
                            passed before with identical inputs, not run
                            again; not counted as passed).  A step must
                            print its plan ("1..N") before its first result
                            and then N results, and a parent that failed
                            with no failed result below it is a failure, as
                            is a step whose every result is a skip.
  ktap.py leaves LOG [PREFIX] [--expect SUITE,...]
                            the log's leaf results, flattened, as KTAP lines
                            (kernel logs: printk prefixes are handled by the
                            parser); with --expect, one more result: each
                            SUITE is a top-level test of the log with a case
                            that passed (a suite the kernel lost, by its
                            configuration or a filter, fails)

The kunit tool is found in $KUNIT_DIR or $SRC/tools/testing/kunit.
"""

import contextlib
import os
import re
import sys


class Ktap:
    """Write KTAP: header at creation, one line per result, totals."""

    def __init__(self, prefix='', plan=None):
        self.prefix = prefix + ' ' if prefix and not prefix.endswith(' ') else prefix
        self.n = 0
        self.planned = None
        self.counts = {'pass': 0, 'fail': 0, 'skip': 0}
        print('TAP version 13', flush=True)
        if plan is not None:
            self.plan(plan)

    def plan(self, n):
        """The number of results to come; before the first of them."""
        assert self.planned is None and self.n == 0, 'plan after results'
        self.planned = n
        print(f'1..{n}', flush=True)

    @staticmethod
    def _name(name):
        # '#' starts a directive in a result line: a kernel report quoted as
        # a name ("CPU#1", "[#1]") would hide its own result and renumber
        # every result after it for the parser.
        return str(name).replace('#', '')

    def result(self, ok, name, detail=''):
        self.n += 1
        self.counts['pass' if ok else 'fail'] += 1
        print(f'{"ok" if ok else "not ok"} {self.n} {self.prefix}{self._name(name)}',
              flush=True)
        if not ok and detail:
            for line in str(detail).splitlines()[:10]:
                print(f'#   {line}')

    def skip(self, name, why):
        self.n += 1
        self.counts['skip'] += 1
        print(f'ok {self.n} {self.prefix}{self._name(name)} # SKIP {why}', flush=True)

    def diag(self, msg):
        print(f'# {msg}')

    def finish(self):
        """Totals; 1 if a check failed or the count is not the plan."""
        c = self.counts
        print(f'# Totals: pass:{c["pass"]} fail:{c["fail"]} xfail:0 xpass:0 '
              f'skip:{c["skip"]} error:0', flush=True)
        if self.planned != self.n:
            print(f'# plan: {self.planned} results planned, {self.n} printed')
            return 1
        return 1 if c['fail'] else 0


def kunit_parser():
    kdir = os.environ.get('KUNIT_DIR') or os.path.join(
        os.environ.get('SRC', ''), 'tools/testing/kunit')
    sys.path.insert(0, kdir)
    try:
        import kunit_parser as kp       # pylint: disable=import-outside-toplevel
    except ImportError:
        sys.exit(f'ktap.py: no kunit_parser in {kdir} (set SRC or KUNIT_DIR)')
    return kp


def parse(path):
    """The kernel's parser on one log; its own report goes to stderr."""
    kp = kunit_parser()
    with open(path, errors='replace') as f:
        # A plan after the results (legal in TAP 13, for a count known only
        # at the end) sends this parser into a loop: plans are optional,
        # drop those that follow a result at their level.
        lines, seen = [], set()
        for line in f:
            h = re.match(r'^(\s*)(K?TAP version|# Subtest:)', line)
            if h:
                # A new document at this indent: its plan is its own.
                seen = {i for i in seen if i < len(h.group(1))}
            m = re.match(r'^(\s*)(ok|not ok|1\.\.\d+)\b', line)
            if m and m.group(2).startswith('1..') and len(m.group(1)) in seen:
                continue
            if m and not m.group(2).startswith('1..'):
                seen.add(len(m.group(1)))
            lines.append(line)
    # A kernel that ran no built-in suite at boot prints an empty document
    # ("KTAP version 1", "1..0"); a module's suites loaded later print one
    # of their own: the parser reads only the first.  Drop the empty one.
    body = [re.sub(r'^\[\s*\d+\.\d+\]\s?', '', x).rstrip('\n') for x in lines]
    for i, b in enumerate(body):
        if b == '1..0' and i and body[i - 1].startswith('KTAP version') and \
                any(x.startswith('KTAP version') for x in body[i + 1:]):
            lines[i - 1] = lines[i] = ''
            break
    lines = [x for x in lines if x]
    import inspect                      # pylint: disable=import-outside-toplevel
    import kunit_printer                # pylint: disable=import-outside-toplevel
    with contextlib.redirect_stdout(sys.stderr):
        # Since 6.16 the parser takes its printer as an argument; before,
        # it printed through the module's stdout.
        if 'printer' in inspect.signature(kp.parse_run_tests).parameters:
            printer = kunit_printer.Printer(output=sys.stderr)
            return kp, kp.parse_run_tests(lines, printer)
        kp.stdout = kunit_printer.Printer(sys.stderr)
        return kp, kp.parse_run_tests(lines)


def leaves(kp, test, path=None):
    """(name, test) of every test without subtests, below @test."""
    name = () if path is None else path + ((test.name,) if test.name else ())
    if not test.subtests:
        yield '.'.join(name), test
        return
    for sub in test.subtests:
        yield from leaves(kp, sub, name)


def classify(kp, status):
    s = kp.TestStatus
    if status == s.SUCCESS:
        return 'pass'
    if status == s.SKIPPED:
        return 'skip'
    return 'fail'


def plan_problem(path):
    """Why the top level of a step's log breaks its plan, or None: a plan
    ("1..N") must come before the first result, and N results follow."""
    plan, n = None, 0
    with open(path, errors='replace') as f:
        for line in f:
            m = re.match(r'^(?:(not )?ok \d+|1\.\.(\d+))\b', line)
            if not m:
                continue
            if m.group(2) is not None:
                if plan is None and n == 0:
                    plan = int(m.group(2))
                continue
            n += 1
    if n and plan is None:
        return 'no plan before its results'
    if plan is not None and plan != n:
        return f'{n} results of a plan of {plan}'
    return None


def failed_parents(kp, test, path=()):
    """Names of the tests below @test that have subtests and did not pass
    although no leaf below them failed (a checker that exited non-zero, a
    count short of its plan)."""
    for sub in test.subtests:
        if not sub.subtests:
            continue
        below = [classify(kp, t.status) for _n, t in leaves(kp, sub, path)]
        if classify(kp, sub.status) == 'fail' and 'fail' not in below:
            yield '.'.join(path + (sub.name,))
        yield from failed_parents(kp, sub, path + (sub.name,))


def cmd_sum(args):
    total = {'pass': 0, 'fail': 0, 'skip': 0, 'cached': 0}
    for arg in args:
        step, _, path = arg.partition('=')
        kp, root = parse(path)
        got = {'pass': 0, 'fail': 0, 'skip': 0, 'cached': 0}
        bad = []
        if not root.subtests:
            got['fail'] += 1
            bad.append('no KTAP results')
        missing = {}
        for name, test in leaves(kp, root):
            if not root.subtests:
                break
            c = classify(kp, test.status)
            if c == 'pass' and '(cached:' in name:
                c = 'cached'
            if c == 'fail' and not test.name:
                # The parser's stand-in for a result its plan promised:
                # one failure per document that came short.
                missing[name] = missing.get(name, 0) + 1
                continue
            got[c] += 1
            if c == 'fail':
                bad.append(name)
        for name, n in missing.items():
            got['fail'] += 1
            bad.append(f'{name or "the step"}: {n} result(s) of its plan missing')
        for name in failed_parents(kp, root):
            got['fail'] += 1
            bad.append(f'{name} (its results passed)')
        # A parse error (a missing or broken result) is a failure too,
        # counted when nothing else failed.
        if root.subtests and root.counts.errors and not got['fail']:
            got['fail'] += root.counts.errors
            bad.append(f'{root.counts.errors} KTAP parse error(s)')
        # A step that skipped everything tested nothing: make deps installs
        # what a step needs, so that is a failure, not a pass.
        if got['skip'] and not (got['pass'] or got['cached'] or got['fail']):
            got['fail'] += 1
            bad.append(f'all {got["skip"]} results skipped: the step tested nothing')
        why = plan_problem(path)
        if why and '' not in missing:
            got['fail'] += 1
            bad.append(f'plan: {why}')
        print(f'{step}: {got["pass"]} passed, {got["fail"]} failed, '
              f'{got["skip"]} skipped, {got["cached"]} cached')
        for b in bad:
            print(f'  not ok: {b}')
        for k in total:
            total[k] += got[k]
    print(f'{total["pass"]} passed, {total["fail"]} failed, '
          f'{total["skip"]} skipped, {total["cached"]} cached')
    return 1 if total['fail'] else 0


def failure_lines(log):
    """What a failed KUnit case said: from its first failed expectation or
    fault on (its log holds the kernel's report too), else its last lines."""
    for i, line in enumerate(log):
        if re.search(r'(EXPECTATION|ASSERTION) FAILED|try faulted|try timed out', line):
            return '\n'.join(log[i:i + 10])
    return '\n'.join(log[-10:])


def cmd_leaves(path, prefix, expect=None):
    kp, root = parse(path)
    found = list(leaves(kp, root)) if root.subtests else []
    # The kernel printed the plans of the suites (checked by its parser:
    # a missing case is a parse error); this document's is their leaves.
    out = Ktap(prefix, len(found) + (not found) + bool(root.counts.errors) +
               (expect is not None))
    if not found:
        out.result(False, 'KTAP output', 'none found')
    for name, test in found:
        c = classify(kp, test.status)
        if c == 'skip':
            out.skip(name, 'skipped')
        else:
            out.result(c == 'pass', name, failure_lines(test.log))
    if root.counts.errors:
        out.result(False, 'KTAP parse', f'{root.counts.errors} error(s)')
    if expect is not None:
        ran = {n.split('.')[0] for n, t in found if classify(kp, t.status) == 'pass'}
        missing = [e for e in expect if e not in ran]
        out.result(not missing, f'every suite expected ran ({len(expect)}), each with a case '
                   'that passed', f'none of {", ".join(missing)}')
    return out.finish()


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == 'sum':
        sys.exit(cmd_sum(sys.argv[2:]))
    args = sys.argv[2:]
    expect = None
    if len(args) >= 2 and args[-2] == '--expect':
        expect = [e for e in args[-1].split(',') if e]
        args = args[:-2]
        if not expect:
            sys.exit('ktap.py: --expect: no suite named')
    if len(args) in (1, 2) and sys.argv[1] == 'leaves':
        sys.exit(cmd_leaves(args[0], args[1] if len(args) == 2 else '', expect))
    sys.exit(__doc__)


if __name__ == '__main__':
    main()
