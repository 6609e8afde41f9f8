#!/usr/bin/env python3
"""Turn a grtrace guest serial log into KTAP results and an exit code."""
import os
import re
import sys

PRINTK_PREFIX = re.compile(r'^\[\s*\d+\.\d+\](\[\s*[TC]\d+\])? ?')
SUBTEST = re.compile(r'^(\s*)# Subtest: (.*)$')
RESULT = re.compile(r'^(\s*)(not )?ok \d+(?: -)? ?(.*?)(\s+#\s*(SKIP|TODO)\b.*)?$')
GUEST = re.compile(r'GRTRACE-TEST: (\S+) (PASS|FAIL|SKIP)\b')
KERNEL_PROBLEM = re.compile(
    r'WARNING:|BUG:|kernel BUG at|\bOops\b|Kernel panic|'
    r'possible recursive locking|possible circular locking|inconsistent lock state|'
    r'KASAN:|UBSAN:|INFO: task .* blocked|'
    r'sleeping function called from invalid context|'
    r'RCU detected stall|detected stalls? on CPU|GRTRACE-TIMEOUT')


def verdict(lines):
    """Yield (status, kind, text) for every result found in the log."""
    open_subtests = []          # stack of (indent, name) of KTAP subtests
    done = False
    for raw in lines:
        line = PRINTK_PREFIX.sub('', raw.rstrip('\r\n'))
        if 'GRTRACE-DONE' in line:
            done = True
        m = KERNEL_PROBLEM.search(line)
        if m:
            yield 'FAIL', 'kernel', line.strip()
        m = GUEST.search(line)
        if m:
            yield m.group(2), 'guest', m.group(1)
            continue
        m = SUBTEST.match(line)
        if m:
            open_subtests.append((len(m.group(1)), m.group(2).strip()))
            continue
        m = RESULT.match(line)
        if not m or not open_subtests:
            continue
        indent = len(m.group(1))
        closed = False
        while open_subtests and open_subtests[-1][0] > indent:
            open_subtests.pop()    # this line is a suite/parent summary
            closed = True
        if closed or not open_subtests:
            continue
        name = '.'.join([n for _, n in open_subtests] + [m.group(3)])
        if m.group(5) == 'SKIP':
            yield 'SKIP', 'kunit', name
        else:
            yield ('FAIL' if m.group(2) else 'PASS'), 'kunit', name
    if not done:
        yield 'FAIL', 'kernel', 'missing GRTRACE-DONE'


def met(expect, status, text):
    """Whether the guest result @status @text meets the expected @expect:
    a numbered test's name is met by any result of it; a dotted name, by a
    passed result below it."""
    if '.' not in expect:
        return text.split('.')[0] == expect
    return status == 'PASS' and text.startswith(expect + '.')


def main():
    # --no-kunit: the KUnit results are read by the kernel's own parser
    # (scripts/ktap.py leaves, as scripts/guest/test.sh does); only the
    # guest tests and the kernel's reports are taken from the log here.
    # --expect A,B: the guest tests that must have run (a GRTRACE-TEST
    # line each), one result.  A dotted name, A.B: a result below it must
    # have passed (a kselftest whose file went missing has none).
    argv = sys.argv[1:]
    no_kunit = '--no-kunit' in argv
    argv = [a for a in argv if a != '--no-kunit']
    expect = None
    if len(argv) == 3 and argv[0] == '--expect':
        expect = [e for e in argv[1].split(',') if e]
        argv = argv[2:]
    if len(argv) != 1:
        sys.exit('usage: verdict.py [--no-kunit] [--expect NAME,...] SERIAL.LOG')
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    from ktap import Ktap               # pylint: disable=import-outside-toplevel
    with open(argv[0], errors='replace') as f:
        results = list(verdict(f))
    kernel = [r for r in results if r[1] == 'kernel']
    tests = [r for r in results if r[1] != 'kernel']
    shown = [r for r in tests if not (no_kunit and r[1] == 'kunit')]
    guest = [(s, text) for s, kind, text in tests if kind == 'guest']
    # The plan: each test shown, each kernel report (or one result saying
    # there was none), whether any test ran, the expected tests.
    out = Ktap('', len(shown) + max(1, len(kernel)) + 1 + (expect is not None))
    for status, kind, text in shown:
        if status == 'SKIP':
            out.skip(f'{kind}: {text}', 'skipped')
        else:
            out.result(status == 'PASS', f'{kind}: {text}')
    for _status, kind, text in kernel:
        out.result(False, f'{kind}: {text}')
    if not kernel:
        out.result(True, 'kernel: no WARN, BUG, Oops, lockdep, KASAN or UBSAN report')
    out.result(len(tests) > 0, 'verdict: test results found')
    if expect is not None:
        missing = [e for e in expect if not any(met(e, s, text) for s, text in guest)]
        out.result(not missing, f'verdict: the guest tests {", ".join(expect)} ran',
                   f'no GRTRACE-TEST line of, or none passed under: {", ".join(missing)}')
    sys.exit(out.finish())


if __name__ == '__main__':
    main()
