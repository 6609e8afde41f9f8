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


def main():
    # --no-kunit: the KUnit results are read by the kernel's own parser
    # (scripts/ktap.py leaves, as scripts/guest/test.sh does); only the
    # guest tests and the kernel's reports are taken from the log here.
    no_kunit = '--no-kunit' in sys.argv[1:]
    args = [a for a in sys.argv[1:] if a != '--no-kunit']
    if len(args) != 1:
        sys.exit('usage: verdict.py [--no-kunit] SERIAL.LOG')
    sys.argv[1:] = args
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    from ktap import Ktap               # pylint: disable=import-outside-toplevel
    with open(sys.argv[1], errors='replace') as f:
        results = list(verdict(f))
    out = Ktap()
    tests = 0
    for status, kind, text in results:
        if no_kunit and kind == 'kunit':
            tests += 1
            continue
        if status == 'SKIP':
            out.skip(f'{kind}: {text}', 'skipped')
        else:
            out.result(status == 'PASS', f'{kind}: {text}')
        tests += kind != 'kernel'
    if tests == 0:
        out.result(False, 'verdict: test results found')
    sys.exit(out.finish())


if __name__ == '__main__':
    main()
