#!/usr/bin/env python3
"""Turn a grtrace guest serial log into PASS/FAIL lines and an exit code."""
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
    if len(sys.argv) != 2:
        sys.exit('usage: verdict.py SERIAL.LOG')
    with open(sys.argv[1], errors='replace') as f:
        results = list(verdict(f))
    counts = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}
    tests = 0
    for status, kind, text in results:
        print(f'{status} {kind}: {text}')
        counts[status] += 1
        tests += kind != 'kernel'
    if tests == 0:
        print('FAIL verdict: no test results found')
        counts['FAIL'] += 1
    summary = f"{counts['PASS']} passed, {counts['FAIL']} failed"
    if counts['SKIP']:
        summary += f", {counts['SKIP']} skipped"
    print(summary)
    sys.exit(1 if counts['FAIL'] else 0)


if __name__ == '__main__':
    main()
