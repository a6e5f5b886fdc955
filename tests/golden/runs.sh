# tests/golden/runs.sh: runs (docs/CLI.md, "Runs"): which files of a
# directory `summarize`, `check` and `annotate` read, and the lines that
# say how they grouped them; sourced by run.sh (it uses run.sh's
# check/jget/awk_sum/run, $T, $HERE and $NAT).  The set is made here from
# the own fixture, its header edited: run A (two processes, parent and
# child), run B (one, the newest), two process trees without a run id
# (an older collector's), and one CPython native dump.  Expected totals
# come from awk over the files of each run.

RUNS=$T/runs
mkdir -p "$RUNS"
rexec='^opcode\[[^]]*\]\.execution_count$'
# run_dump FILE PID PPID END RUNID [FACTOR]: the own fixture with that
# header (RUNID "-": none), its execution counts times FACTOR.
run_dump() {
    awk -v pid="$2" -v ppid="$3" -v end="$4" -v id="$5" -v k="${6:-1}" '
        /^meta\.process\.pid / { print "meta.process.pid : " pid; next }
        /^meta\.process\.ppid / { print "meta.process.ppid : " ppid; next }
        /^meta\.process\.forked / { print; if (id != "-") print "meta.run.id : " id; next }
        /^meta\.time\.start / { print "meta.time.start : " end; next }
        /^meta\.time\.end / { print "meta.time.end : " end; next }
        /\.execution_count : / { n = split($0, f, " : "); print f[1] " : " f[2] * k; next }
        { print }' "$HERE/own/dump-1.txt" > "$1"
}
A=20260101T000000Z-100-aaaaaaaa
B=20260102T000000Z-200-bbbbbbbb
run_dump "$RUNS/pystats-100-a.txt" 100 1 2026-01-01T00:00:05.000000Z $A 1
run_dump "$RUNS/pystats-101-a.txt" 101 100 2026-01-01T00:00:04.000000Z $A 2
run_dump "$RUNS/pystats-200-b.txt" 200 1 2026-01-02T00:00:01.000000Z $B 3
run_dump "$RUNS/pystats-300-old.txt" 300 1 2025-12-31T00:00:00.000000Z - 5
run_dump "$RUNS/pystats-301-old.txt" 301 300 2025-12-31T00:00:01.000000Z - 7
run_dump "$RUNS/pystats-400-old.txt" 400 1 2025-12-30T00:00:00.000000Z - 11
cp "$(ls "$NAT"/cpython-3.13.5-whole/* | head -n 1)" "$RUNS/native-1.txt"
touch -d '2025-06-01 00:00:00 UTC' "$RUNS/native-1.txt"

others="$A (2 dumps), pid:300 (2 dumps without a run id, grouped by pid and ppid), pid:400 (1 dump without a run id, grouped by pid and ppid), native (1 of CPython's own dumps)"
# Lines naming every run name four, then how many more.
first4="$B (1 dump), $A (2 dumps), pid:300 (2 dumps without a run id, grouped by pid and ppid), pid:400 (1 dump without a run id, grouped by pid and ppid) and 1 more"

# The default directory (PYSTATS_TMPDIR/py_stats): the newest run, said.
mkdir -p "$T/runbase"
cp -pr "$RUNS" "$T/runbase/py_stats"
PYSTATS_TMPDIR=$T/runbase run summarize --json "$T/runs-default.json"
check "runs: no input: exit status" 0 "$rc"
check "runs: no input: the newest run read" 1 "$(jget "$T/runs-default.json" 'd["meta"]["files"]')"
check "runs: no input: its total" "$(awk_sum "$rexec" "$RUNS/pystats-200-b.txt")" \
    "$(jget "$T/runs-default.json" 'd["meta"]["total_execution_count"]')"
check "runs: no input: one line names the runs" \
    "pystats: note: $T/runbase/py_stats holds 5 runs; read the newest, $B (1 dump), last written 2026-01-02 00:00:01 UTC; the others: $others; --run ID reads another, --run all reads them together" \
    "$(cat "$T/stderr")"
PYSTATS_TMPDIR=$T/runbase run summarize --json "$T/runs-default.json" --quiet
check "runs: --quiet: no line" "" "$(cat "$T/stderr")"
run check "$RUNS/pystats-200-b.txt" --quiet
alone=$(cat "$T/stdout")
PYSTATS_TMPDIR=$T/runbase run check --quiet
check "runs: check, no input: the verdict of the newest run's file alone" "$alone" \
    "$(cat "$T/stdout")"
PYSTATS_TMPDIR=$T/runbase run check
check "runs: check, no input: the same line" \
    "pystats: note: $T/runbase/py_stats holds 5 runs; read the newest, $B (1 dump)" \
    "$(cut -d, -f1-2 "$T/stderr")"
PYSTATS_TMPDIR=$T/runbase run summarize --run all --json "$T/runs-all.json"
check "runs: --run all: every file" 7 "$(jget "$T/runs-all.json" 'd["meta"]["files"]')"
check "runs: --run all: nothing said" "" "$(cat "$T/stderr")"

# A directory named: every run, said.
run summarize "$RUNS" --json "$T/runs-named.json"
check "runs: named directory: exit status" 0 "$rc"
check "runs: named directory: every file" 7 "$(jget "$T/runs-named.json" 'd["meta"]["files"]')"
check "runs: named directory: one line names the runs read together" \
    "pystats: note: $RUNS holds 5 runs, read together: $first4; --run newest or --run ID reads one" \
    "$(cat "$T/stderr")"

# --run ID, or the start of one: that run alone, nothing said.
for sel in "$A:pystats-100-a.txt pystats-101-a.txt" "20260101:pystats-100-a.txt pystats-101-a.txt" \
           "pid:300:pystats-300-old.txt pystats-301-old.txt" "pid:400:pystats-400-old.txt" \
           "native:native-1.txt"; do
    id=${sel%:*} files=${sel##*:}
    run summarize "$RUNS" --run "$id" --json "$T/runs-one.json"
    check "runs: --run $id: exit status" 0 "$rc"
    check "runs: --run $id: nothing said" "" "$(cat "$T/stderr")"
    check "runs: --run $id: its files" "$(echo $files | wc -w | tr -d ' ')" "$(jget "$T/runs-one.json" 'd["meta"]["files"]')"
    if [ "$id" != native ]; then
        check "runs: --run $id: its total" \
            "$(cd "$RUNS" && awk_sum "$rexec" $files)" \
            "$(jget "$T/runs-one.json" 'd["meta"]["total_execution_count"]')"
    fi
done
run summarize "$RUNS" --run newest --json "$T/runs-newest.json"
check "runs: --run newest, named: the newest run's total" \
    "$(awk_sum "$rexec" "$RUNS/pystats-200-b.txt")" \
    "$(jget "$T/runs-newest.json" 'd["meta"]["total_execution_count"]')"
check "runs: --run newest, named: said" \
    "pystats: note: $RUNS holds 5 runs; read the newest, $B (1 dump)" \
    "$(cut -d, -f1-2 "$T/stderr")"

# Runs that are not there, or ambiguous; a value that is no run id.
run summarize "$RUNS" --run 2026
check "runs: --run, several match: usage error" 2 "$rc"
check "runs: --run, several match: said, with the runs" \
    "pystats: error: --run 2026: several runs in $RUNS start with it; its runs, newest first: $first4" \
    "$(cat "$T/stderr")"
check "runs: --run, several match: no report" "" "$(cat "$T/stdout")"
run check "$RUNS" --run 19990101
check "runs: check --run, no such run: usage error" 2 "$rc"
check "runs: check --run, no such run: said" \
    "pystats: error: --run 19990101: no such run in $RUNS; its runs, newest first: $first4" \
    "$(cat "$T/stderr")"
run summarize "$RUNS" --run 'a b'
check "runs: --run with a space: usage error" 2 "$rc"
check "runs: --run with a space: said" \
    "pystats: error: --run 'a b': not newest, all or a run id (letters, digits and ._:+-)" \
    "$(cat "$T/stderr")"

# A file that is no dump belongs to no run: read whatever the run, so
# that its problem is still reported.
RUNSJ=$T/runs-junk
mkdir -p "$RUNSJ"
cp "$RUNS/pystats-100-a.txt" "$RUNS/pystats-200-b.txt" "$RUNSJ/"
printf 'hello\n' > "$RUNSJ/notes.txt"
run summarize "$RUNSJ" --run newest --json "$T/runs-junk.json"
check "runs: a file of no run: still read, its problem said" "yes" \
    "$(grep -q "notes.txt" "$T/stderr" && echo yes)"
check "runs: a file of no run: the newest run's total" \
    "$(awk_sum "$rexec" "$RUNS/pystats-200-b.txt")" \
    "$(jget "$T/runs-junk.json" 'd["meta"]["total_execution_count"]')"

# compare reads every run of a side, and says so.
run compare "$RUNS" "$RUNSJ/pystats-100-a.txt" --json "$T/runs-cmp.json" --quiet
check "runs: compare --quiet: exit status" 0 "$rc"
check "runs: compare --quiet: nothing said" "" "$(cat "$T/stderr")"
run compare "$RUNS" "$RUNSJ/pystats-100-a.txt" --json "$T/runs-cmp.json"
check "runs: compare: the base's runs said" \
    "pystats: note: $RUNS holds 5 runs, read together: $B (1 dump)" \
    "$(grep 'holds' "$T/stderr" | cut -d, -f1-2)"

# Another user's dump is never the newest by its time alone: the newest
# of the reader's own runs is read (root only: chown).
if [ "$(id -u)" = 0 ]; then
    RUNSF=$T/runs-foreign
    mkdir -p "$RUNSF"
    cp "$RUNS/pystats-100-a.txt" "$RUNS/pystats-101-a.txt" "$RUNSF/"
    run_dump "$RUNSF/pystats-900-x.txt" 900 1 2030-01-01T00:00:00.000000Z 20300101T000000Z-900-cccccccc 13
    chown 4242 "$RUNSF/pystats-900-x.txt"
    # Shared as /tmp/py_stats is: a file of another user is warned of
    # when it is read, and only then.
    chmod 1777 "$RUNSF"
    run summarize "$RUNSF" --run newest --json "$T/runs-foreign.json"
    check "runs: another user's later run: the reader's own newest read" \
        "$(awk_sum "$rexec" "$RUNSF/pystats-100-a.txt" "$RUNSF/pystats-101-a.txt")" \
        "$(jget "$T/runs-foreign.json" 'd["meta"]["total_execution_count"]')"
    check "runs: another user's later run: said" \
        "pystats: note: $RUNSF holds 2 runs; read the newest of yours, $A (2 dumps), last written 2026-01-01 00:00:05 UTC; the others: 20300101T000000Z-900-cccccccc (1 dump); --run ID reads another, --run all reads them together" \
        "$(cat "$T/stderr")"
    run summarize "$RUNSF" --run all --json "$T/runs-foreign.json"
    check "runs: another user's run read: warned of" \
        "pystats: warning: $RUNSF/pystats-900-x.txt: owned by uid 4242, not by you or root, in a directory others can write: anyone could have written it" \
        "$(grep warning "$T/stderr")"
else
    echo "skip runs: another user's dump (not root: cannot chown)"
fi
