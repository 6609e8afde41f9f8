#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench-reader: the throughput and peak memory of the grtrace readers.

  bench-reader.py TOOL GEN-LOAD WORKDIR [DEMO-DIR]

Writes synthetic streams of 1 M, 2 M and 10 M events (gen-load: 4 rings, five
records per job, 112 bytes each), reads each with "cat FILE > /dev/null",
"grtrace report --per-ring", "grtrace report -f csv" and "grtrace export
--chrome", interleaved: ROUNDS rounds of every command in turn, the page
cache warm.  Prints per command the median time, MB/s, events/s, the ratio
of its throughput to cat's, and the peak RSS (of the worst round).

With DEMO-DIR (results/demo of "make demo": the relay files and trace.dat
of the same guest run, both sinks at once), the same events read by
"grtrace report" and by "trace-cmd report": events/s of each, and the
ratio.

With SEED_DAT in the environment (bench-reader.sh: step stock's recording
of Debian's 7.3, the kernel's own events), trace.dat files of 100 MB and
1 GB of its events repeated (scripts/gen-tracedat.py) read by "trace-cmd
report" and "grtrace report", output thrown away: the time of each, their
ratio and their peak RSS.  It is not a timed test: nothing here passes or
fails.
"""
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROUNDS = int(os.environ.get("ROUNDS", "3"))
SIZES = [(200_000, "1M"), (400_000, "2M"), (2_000_000, "10M")]


def run(cmd):
    """Wall seconds and peak RSS (KiB) of one command, output thrown away.
    The RSS is GNU time's: a child of python keeps python's RSS as its
    floor (exec keeps the old peak)."""
    null = os.open(os.devnull, os.O_WRONLY)
    with tempfile.NamedTemporaryFile("r") as rss:
        t0 = time.perf_counter()
        pid = os.posix_spawnp("/usr/bin/time", ["time", "-f", "%M", "-o", rss.name] + cmd,
                              os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, null, 1),
                                                        (os.POSIX_SPAWN_DUP2, null, 2)])
        _, status, _ = os.wait4(pid, 0)
        dt = time.perf_counter() - t0
        kb = int(rss.read().split()[-1])
    os.close(null)
    if status:
        sys.exit("failed: %s" % " ".join(cmd))
    return dt, kb


def records(tool, path):
    out = subprocess.run([tool, "report", "-i", path, "--hist", "size"],
                         capture_output=True, text=True, check=True).stdout
    return int(re.search(r"span .*: (\d+) records", out).group(1))


def bench(cases, rounds=ROUNDS):
    """{name: (median seconds, max RSS)}, the cases interleaved"""
    times = {n: [] for n, _ in cases}
    rss = {n: 0 for n, _ in cases}
    for _ in range(rounds):
        for name, cmd in cases:
            dt, kb = run(cmd)
            times[name].append(dt)
            rss[name] = max(rss[name], kb)
    return {n: (statistics.median(times[n]), rss[n]) for n, _ in cases}


def run_mem(cmd):
    """Wall seconds, peak RSS and peak anonymous RSS (KiB) of one command,
    output thrown away: its /proc status read every 20 ms (VmHWM, the
    peak of its own memory after the exec, and RssAnon, which leaves out
    the pages of files it maps)"""
    null = os.open(os.devnull, os.O_WRONLY)
    t0 = time.perf_counter()
    pid = os.posix_spawnp(cmd[0], cmd, os.environ,
                          file_actions=[(os.POSIX_SPAWN_DUP2, null, 1),
                                        (os.POSIX_SPAWN_DUP2, null, 2)])
    hwm = anon = 0
    while True:
        try:
            with open("/proc/%d/status" % pid) as f:
                st = dict(line.split(":", 1) for line in f if ":" in line)
            hwm = max(hwm, int(st.get("VmHWM", "0 kB").split()[0]))
            anon = max(anon, int(st.get("RssAnon", "0 kB").split()[0]))
        except (OSError, ValueError):
            pass
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.02)
    dt = time.perf_counter() - t0
    os.close(null)
    if status:
        sys.exit("failed: %s" % " ".join(cmd))
    return dt, hwm, anon


def tracedat(tool, work):
    """The kernel's own events in a trace.dat: grtrace report against
    trace-cmd report, 100 MB and 1 GB"""
    seed = os.environ.get("SEED_DAT")
    if not seed or not os.path.exists(seed):
        print("# no SEED_DAT: run step stock (make test) for the trace.dat comparison")
        return
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen-tracedat.py")
    print("# trace.dat of the kernel's events (%s, repeated), %d rounds:" % (seed, ROUNDS))
    print("%-6s %-18s %9s %7s %8s %6s %9s %9s" % (
        "INPUT", "COMMAND", "TIME(s)", "MB/s", "Mjobs/s", "xTCMD", "RSS(MiB)", "ANON(MiB)"))
    for mb in (100, 1000):
        path = os.path.join(work, "upstream-%dM.dat" % mb)
        made = path + ".made"
        key = "%s %d\n" % (seed, os.path.getsize(seed))
        if not os.path.exists(path) or not os.path.exists(made) or open(made).read() != key:
            out = subprocess.run([sys.executable, gen, seed, path, str(mb)], check=True,
                                 capture_output=True, text=True).stdout
            open(made, "w").write(key)
        size = os.path.getsize(path)
        n = int(re.search(r"(\d+) jobs", subprocess.run(
            [tool, "report", "-i", path], capture_output=True, text=True,
            check=True).stdout).group(1))
        cases = [("trace-cmd report", ["trace-cmd", "report", "-i", path]),
                 ("grtrace report", [tool, "report", "-i", path])]
        times = {name: [] for name, _ in cases}
        hwm = {name: 0 for name, _ in cases}
        anon = {name: 0 for name, _ in cases}
        run(["cat", path])
        for _ in range(ROUNDS):
            for name, cmd in cases:
                dt, h, a = run_mem(cmd)
                times[name].append(dt)
                hwm[name] = max(hwm[name], h)
                anon[name] = max(anon[name], a)
        t_tc = statistics.median(times["trace-cmd report"])
        for name, _ in cases:
            t = statistics.median(times[name])
            print("%-6s %-18s %9.3f %7.0f %8.2f %6.3f %9.1f %9.1f" % (
                "%dM" % mb, name, t, size / t / 1e6, n / t / 1e6, t_tc / t,
                hwm[name] / 1024, anon[name] / 1024))
        print("%-6s %d jobs, %.0f MB" % ("%dM" % mb, n, size / 1e6))


def main():
    tool, gen, work = sys.argv[1:4]
    demo = sys.argv[4] if len(sys.argv) > 4 else None
    os.makedirs(work, exist_ok=True)
    print("# grtrace bench-reader, host: %d x %s, %d rounds, medians" % (
        os.cpu_count(), open("/proc/cpuinfo").read().split("model name")[1]
        .split(":")[1].split("\n")[0].strip(), ROUNDS))
    print("%-6s %-24s %9s %9s %10s %7s %9s" % (
        "INPUT", "COMMAND", "TIME(s)", "MB/s", "Mevents/s", "xCAT", "RSS(MiB)"))
    for jobs, label in SIZES:
        path = os.path.join(work, "load-%s.bin" % label)
        if not os.path.exists(path):
            subprocess.run([gen, str(jobs), path], check=True)
        size = os.path.getsize(path)
        n = records(tool, path)
        run(["cat", path])
        cases = [
            ("cat FILE", ["cat", path]),
            ("report --per-ring", [tool, "report", "-i", path, "--per-ring"]),
            ("report --jobs -f csv", [tool, "report", "--jobs", "-i", path, "-f", "csv"]),
            ("export --chrome", [tool, "export", "-i", path, "--chrome", "/dev/null"]),
        ]
        res = bench(cases)
        cat = res["cat FILE"][0]
        for name, _ in cases:
            t, kb = res[name]
            print("%-6s %-24s %9.3f %9.0f %10.2f %7.3f %9.1f" % (
                label, name, t, size / t / 1e6, n / t / 1e6, cat / t, kb / 1024))
        print("%-6s %d records, %.0f MB" % (label, n, size / 1e6))
    tracedat(tool, work)
    if not demo:
        print("# no DEMO-DIR: run make demo for the trace-cmd comparison")
        return
    dat = os.path.join(demo, "trace.dat")
    n_gr = records(tool, demo)
    lines = subprocess.run(["trace-cmd", "report", "-i", dat], capture_output=True,
                           text=True, check=True).stdout.splitlines()
    n_tc = sum(1 for line in lines if re.match(r"\s*\S.*\[\d+\]\s+\S*\s*\d+\.\d+:", line))
    n_tc_gr = sum(1 for line in lines if " grtrace_" in line)
    cases = [("trace-cmd report", ["trace-cmd", "report", "-i", dat]),
             ("grtrace report --per-ring", [tool, "report", "-i", demo, "--per-ring"])]
    if subprocess.run([tool, "dump", "-h"], capture_output=True).returncode == 0:
        cases.append(("grtrace dump", [tool, "dump", "-i", demo]))
    res = bench(cases, rounds=7)
    t_tc = res["trace-cmd report"][0]
    print("# the same guest run (%s), both sinks at once, 7 rounds:" % demo)
    print("  %-26s %6d events (%d grtrace) %8.4f s %10.0f events/s" % (
        "trace-cmd report trace.dat", n_tc, n_tc_gr, t_tc, n_tc / t_tc))
    for name, _ in cases[1:]:
        t = res[name][0]
        print("  %-26s %6d records %18.4f s %10.0f events/s, %.2fx trace-cmd" % (
            name + " DIR", n_gr, t, n_gr / t, (n_gr / t) / (n_tc / t_tc)))


if __name__ == "__main__":
    main()
