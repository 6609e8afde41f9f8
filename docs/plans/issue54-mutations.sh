#!/bin/bash
# Mutation demos: each check shown failing on a broken input (issue 54's
# "fixed but never shown failing" points).  R: a make test run's results.
set -u
R=${R:-/tmp/ct/grtrace/results/test}
ROOT=/work/main
G=${G:-/root/cold-test/grtrace-tool/grtrace}
M=/tmp/mut; rm -rf $M; mkdir -p $M
say() { echo "=== $*"; }

say "2.5a host-check: a tool whose BACK is 5 us off"
cp -a $R/demo $M/demo
cat > $M/gr-wrap <<W
#!/bin/bash
if [[ " \$* " == *" --host "* ]] && [[ " \$* " == *" -f csv "* ]]; then
	"$G" "\$@" | python3 -c '
import csv, sys
r = csv.reader(sys.stdin); w = csv.writer(sys.stdout, lineterminator="\n")
h = None
for row in r:
    if row and "t_back" in row: h = row.index("t_back"); w.writerow(row); continue
    if h is not None and len(row) > h and row[h].isdigit(): row[h] = str(int(row[h]) + 5000)
    w.writerow(row)'
else
	exec "$G" "\$@"
fi
W
chmod +x $M/gr-wrap
python3 $ROOT/scripts/host-check.py "$G" $M/demo > $M/host-ok.ktap 2>&1; echo "unmutated rc=$?"; grep -c "^not ok" $M/host-ok.ktap
python3 $ROOT/scripts/host-check.py $M/gr-wrap $M/demo > $M/host-bad.ktap 2>&1; echo "mutated rc=$?"; grep "^not ok" $M/host-bad.ktap

say "3.4 crash-check: the history's stamps 2 ms earlier (the live instance's lag at its median 2 ms)"
cp -a $R/crash $M/crash
python3 $ROOT/scripts/crash-check.py $M/crash $M/crash/serial.log > $M/crash-ok.ktap 2>&1; echo "unmutated rc=$?"; grep "^not ok" $M/crash-ok.ktap
python3 - $M/crash/last-boot-jobs.csv <<'P'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
f = rows[0].keys() if rows else []
for r in rows:
    for k in f:
        if k.endswith('_ns') and r[k]:
            r[k] = str(int(r[k]) - 2_000_000)
w = csv.DictWriter(open(sys.argv[1], 'w'), fieldnames=list(f), lineterminator='\n'); w.writeheader(); w.writerows(rows)
P
python3 $ROOT/scripts/crash-check.py $M/crash $M/crash/serial.log > $M/crash-bad.ktap 2>&1; echo "mutated rc=$?"; grep "^not ok" $M/crash-bad.ktap

say "3.1 virgl-check: three commands before the first SUBMIT (the excuse is at most 2)"
python3 - <<'P'
import importlib.util, sys
sys.path.insert(0, '/work/main/scripts')
spec = importlib.util.spec_from_file_location('vc', '/work/main/scripts/virgl-check.py')
vc = importlib.util.module_from_spec(spec); spec.loader.exec_module(vc)
from ktap import Ktap
for n in (2, 3):
    vc.OUT = Ktap()
    cmds, jobs = {}, []
    for s in range(1, n + 1):       # caught: queued before the first SUBMIT, COMMIT only
        cmds[s] = (0, f'kworker/{s}', 100 + s, 0x104)
        jobs.append((s * 10, 'commit', s, 0, 100 + s, f'kworker/{s}'))
    s = n + 1                        # then a whole job
    cmds[s] = (1, 'kmscube', 7, 0x207)
    for i, p in enumerate(('submit', 'commit', 'end', 'complete')):
        jobs.append((1000 + i, p, s, 1, 7, 'kmscube'))
    vc.check_sink('tracepoints', cmds, {s}, jobs, True)
    print(n, 'caught:', vc.OUT.results[0] if hasattr(vc.OUT, 'results') else '')
    vc.OUT.finish() if hasattr(vc.OUT, 'finish') else None
P

say "2.11 goldens: one line of one golden output changed"
cp -a $ROOT/scripts/golden/out $M/golden-out
f=$(ls $M/golden-out | head -1); sed -i '1s/$/ x/' $M/golden-out/$f
python3 $ROOT/tools/grtrace/tests/gen-streams.py $M/gen > /dev/null
GRTRACE="$G" bash $ROOT/scripts/golden/golden.sh $M/gen $M/gw $M/gw/out > $M/golden.out 2>&1 && diff -r $ROOT/scripts/golden/out $M/gw/out > /dev/null; echo "as in the repository: rc=$?"
diff -r $M/golden-out $M/gw/out > $M/golden.diff; echo "against the changed one: diff rc=$? ($f)"; head -5 $M/golden.diff

say "2.4 vg(): valgrind's timeout and a crash under it fail the result"
sed -n '/^\tvg() {$/,/^\t}$/p' $ROOT/tools/grtrace/tests/run-tests.sh > $M/vg.sh
mkdir -p $M/fake
for case in 'exit 0' 'exit 1' 'sleep 5' 'kill -SEGV $$' 'exit 99'; do
	printf '#!/bin/bash\n%s\n' "$case" > $M/fake/valgrind; chmod +x $M/fake/valgrind
	( W=$M G=true; PATH=$M/fake:$PATH; timeout() { command timeout 2 "${@:2}"; }; . $M/vg.sh; vg report; echo "fake valgrind '$case': vg rc=$?" )
done

say "3.6 patch-race: the floors, on a line of a stress half as strong"
secs=30
for line in 'patch-race: 32 sessions, emitter: sent 400000' 'patch-race: 14 sessions, emitter: sent 400000' 'patch-race: 32 sessions, emitter: sent 190000'; do
	n=$(sed -n 's/^patch-race: \([0-9]*\) sessions.*/\1/p' <<< "$line")
	sent=$(sed -n 's/.*emitter: .*sent \([0-9]*\).*/\1/p' <<< "$line")
	[ "${n:-0}" -ge $((secs / 2)) ] && [ "${sent:-0}" -ge $((secs * 6500)) ]; echo "'$line': rc=$?"
done

say "4.11 fuzz: a reproducer that times out or crashes under valgrind fails"
for case in 'exit 1' 'exit 124' 'kill -SEGV $$'; do
	printf '#!/bin/bash\n%s\n' "$case" > $M/fake/valgrind; chmod +x $M/fake/valgrind
	(
	PATH=$M/fake:$PATH; OUT=$M; : > "$OUT/err"; G=true; found=(/work/main/scripts/fuzz-crashes/*.bin)
	eval "$(sed -n '/^\tfor f in "\${found\[@\]}"; do$/,/^\tdone$/p' $ROOT/scripts/test-fuzz.sh | sed -n '/valgrind/,$p' | sed '1s/^/for f in "${found[0]}"; do\n/')"
	[ ! -s "$OUT/err" ]; echo "fake valgrind '$case': result rc=$? $(head -c 80 $OUT/err)"
	)
done
