# SPDX-License-Identifier: GPL-2.0
"""The events of a trace.dat, as "trace-cmd report" prints them, for the
checkers of the guest's recordings (e2e-check.py, scale-check.py), the
grtrace events of an instance's trace_pipe saved as text (crash-check.py,
top-check.py, merged-check.py), and the records of a relay stream as
"grtrace dump" prints them (scale-check.py, merged-check.py)."""

import re
import subprocess

# A line of trace_pipe: "comm-pid [cpu] flags sec.us: grtrace_STAGE: fields"
PIPE = re.compile(r'^\s*(.+?)-(\d+)\s+\[\d+\]\s+\S+\s+(\d+)\.(\d+): grtrace_(\w+): (.*)$')


def read_text(path):
    """A file's text, '' if it cannot be read"""
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except OSError:
        return ''


def pipe_events(path):
    """The grtrace events of a trace_pipe text as (us, stage, fields dict),
    in file order"""
    for line in read_text(path).splitlines():
        m = PIPE.match(line)
        if m:
            yield (int(m.group(3)) * 1000000 + int(m.group(4)), m.group(5),
                   dict(re.findall(r'(\w+)=(\S+)', m.group(6))))


def dump_records(grtrace, path, check=True):
    """The records of a grtrace stream as (kind, fields dict), in stream
    order, and grtrace dump's completed process (which raises on a failure
    unless @check is False)"""
    run = subprocess.run([grtrace, 'dump', '-i', path], capture_output=True,
                         text=True, check=check)
    return [(line.split(' ', 1)[0], dict(re.findall(r'(\w+)=(\S+)', line)))
            for line in run.stdout.splitlines()], run


def read_trace(path):
    """Events of trace.dat as (ts, event, fields dict), in report order."""
    out = subprocess.run(['trace-cmd', 'report', '-i', path],
                         capture_output=True, text=True, check=True).stdout
    events = []
    for line in out.splitlines():
        # An instance's events start with its name: "NAME: comm-pid ..."
        m = re.match(r'\s*(?:(\w+):\s+)?(\S.*?)-(\d+)\s+\[\d+\]\s+(\d+\.\d+):'
                     r'\s+(\w+):\s+(.*)', line)
        if not m:
            continue
        fields = dict(re.findall(r'(\w+)=(\S+)', m.group(6)))
        # The task the event fired in, apart from the event's own fields.
        fields['@comm'], fields['@pid'] = m.group(2).strip(), int(m.group(3))
        fields['@buffer'] = m.group(1) or ''
        events.append((float(m.group(4)), m.group(5), fields))
    return events
