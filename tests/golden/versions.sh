# tests/golden/versions.sh: published summaries of CPython 3.15 and 3.16
# (bench_runner's layout, from diegorusso/pyperf-bench, each beside the .md
# report CPython's summarize_stats.py made of it); sourced by run.sh (it
# uses run.sh's check/ok/bad/jget/run, $T, $HERE).

P15=$HERE/published/bm-20260502-3.15.0a8+-6b632ce-PYTHON_UOPS
P16=$HERE/published/bm-20260821-3.16.0a0-999a046-PYTHON_UOPS
P15E=$HERE/published/bm-20260416-3.15.0a8+-2faceee-PYTHON_UOPS
F15=$(ls "$P15"/*-pystats-coroutines.json)
F16=$(ls "$P16"/*-pystats-coroutines.json)
F15E=$(ls "$P15E"/*-pystats.json)

# v_has_finding JSON CHECK SEVERITY; v_finding_files JSON CHECK (as check.sh's).
v_has_finding() {
    jget "$1" "'yes' if any(f['check'] == '$2' and f['severity'] == '$3' for f in d['findings']) else 'no: ' + ', '.join(f['check'] + '/' + f['severity'] for f in d['findings'])"
}
v_finding_files() {
    jget "$1" "' '.join(sorted(set(p.rsplit('/', 1)[-1] for f in d['findings'] if f['check'] == '$2' for p in f['files'])))"
}

# ---- the version, from the input's own evidence ---------------------------
for v in 15 16; do
    eval f=\$F$v
    run summarize "$f" --json "$T/v$v.json" --markdown "$T/v$v.md"
    check "published 3.$v: exit status" 0 "$rc"
    check "published 3.$v: version" 3.$v "$(jget "$T/v$v.json" 'd["meta"]["python_version"]')"
    check "published 3.$v: named in the report" 1 "$(grep -c "^6 data files: CPython 3.$v native dumps" "$T/v$v.md")"
done
check "published 3.15: told by its new instructions" 1 \
    "$(jget "$T/v15.json" 'sum("new in 3.15" in k for k in d["meta"]["version_detection"])')"
check "published 3.16: told by its new instructions" 1 \
    "$(jget "$T/v16.json" 'sum("new in 3.16" in k for k in d["meta"]["version_detection"])')"
# Without the list of specialized instructions: the counters tell (3.15 has
# "Optimization fitness terminated", 3.16 method-cache resizing lines).
for v in 15 16; do
    eval f=\$F$v
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
del d["_specialized_instructions"]
json.dump(d, open(sys.argv[2], "w"))' "$f" "$T/nospec$v.json"
    run summarize "$T/nospec$v.json" --json "$T/nospec$v-out.json"
    check "3.$v summary without its instruction list: version from its counters" 3.$v \
        "$(jget "$T/nospec$v-out.json" 'd["meta"]["python_version"]')"
done
# Nothing inside tells: the file name does (bench_runner's "-3.15.0a8+-").
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
del d["_specialized_instructions"]
json.dump(d, open(sys.argv[2], "w"))' "$F15E" "$T/plain.json"
mkdir -p "$T/named"
cp "$T/plain.json" "$T/named/bm-20260416-unknown-aarch64-python-2faceeec5c0fb06498a9-3.15.0a8+-2faceee-pystats.json"
run summarize "$T/plain.json" --json "$T/plain-out.json"
check "nothing tells the version: none named" None "$(jget "$T/plain-out.json" 'd["meta"]["python_version"]')"
run summarize "$T/named" --json "$T/named-out.json"
check "the version from bench_runner's file name" 3.15 "$(jget "$T/named-out.json" 'd["meta"]["python_version"]')"
# Raw dumps: the opcode set tells (RESUME_CHECK_JIT, CALL_EX_PY are 3.15's).
mkdir -p "$T/raw15"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
with open(sys.argv[2], "w") as out:
    for k, v in d.items():
        if not k.startswith("_") and k not in ("metadata", "__nfiles__") and "fitness" not in k:
            out.write(f"{k} : {v}\n")' "$F15" "$T/raw15/a.txt"
run summarize "$T/raw15" --json "$T/raw15.json"
check "raw 3.15 dump: version from its opcode set" 3.15 "$(jget "$T/raw15.json" 'd["meta"]["python_version"]')"

# ---- a summary of nothing: the run's stats stayed off ----------------------
# CPython's own report of it (the .md beside it): every effectiveness row
# 0, "Number of data files 0".
run check "$F15E" --json "$T/empty-ck.json"
check "summary without counters: exit status (a warning)" 0 "$rc"
check "summary without counters: no-counters is a warning" yes "$(v_has_finding "$T/empty-ck.json" no-counters warning)"
check "summary without counters: the file named" "$(basename "$F15E")" "$(v_finding_files "$T/empty-ck.json" no-counters)"
check "summary without counters: verdict caution" caution "$(jget "$T/empty-ck.json" 'd["verdict"]')"
check "CPython's report of it: Number of data files 0" 1 \
    "$(cat "$P15E"/*-pystats.md | tr -d "\n" | grep -c 'Number of data files</td><td align="right">0</td>')"
run summarize "$F15E" --markdown "$T/empty.md"
check "summary without counters: the report's trust line says so" 1 \
    "$(grep -c '^\*\*Trust:\*\* caution: .*no-counters' "$T/empty.md")"
# A summary with counters is not one.
run check "$F15" --json "$T/f15-ck.json"
check "summary with counters: no no-counters finding" "no: " \
    "$(v_has_finding "$T/f15-ck.json" no-counters warning | cut -c1-4)"

# ---- CPython's own reports, figure for figure -------------------------------
# The expected rows are read from CPython's .md beside each file
# (cpython_report_rows.py reads only that report), then compared with ours
# by published_compare.py, as the 3.14 files are.
for v in 15 16; do
    eval f=\$F$v
    python3 "$HERE/cpython_report_rows.py" "${f%.json}.md" > "$T/exp$v.txt"
    check "CPython's 3.$v report: its optimizer rows read" 18 "$(grep -c '^opt|' "$T/exp$v.txt")"
    out=$(python3 "$HERE/published_compare.py" "$T/exp$v.txt" "$T/v$v.md" 2>&1)
    case $out in
    *" 0 differ;"*) ok "published 3.$v: every figure of CPython's report: $(echo "$out" | tail -1)";;
    *) bad "published 3.$v: figures differ from CPython's report: $(echo "$out" | tail -8)";;
    esac
done
check "3.15: CPython's label of the inner-loop counter" 1 "$(grep -c '^| Inner loop found | 0 |  |$' "$T/v15.md")"
check "3.15: CPython's label of the no-memory counter" 1 "$(grep -c '^| Optimizer no memory | 0 |  |$' "$T/v15.md")"
check "3.15: a counter CPython's report leaves out is kept, apart" 1 \
    "$(sed -n '/^### Other optimizer counters$/,/^###/p' "$T/v15.md" | grep -c '^| Optimization fitness terminated | 0 |')"
check "3.15: no histogram bucket among the other counters" 0 "$(grep -c '^| Trace length\[' "$T/v15.md")"
check "3.15: the 2**31 bucket is a bucket" 0 \
    "$(jget "$T/v15.json" 'd["optimization"]["histograms"]["Trace length"]["2147483648"]')"
# The summary of nothing: CPython's effectiveness table of zero rows, figure
# for figure; its "Number of data files 0" counts dumps summarized, ours
# the files read (1): the one figure that differs, on purpose.
python3 "$HERE/cpython_report_rows.py" "${F15E%.json}.md" > "$T/expE.txt"
out=$(python3 "$HERE/published_compare.py" "$T/expE.txt" "$T/empty.md" 2>&1)
check "summary without counters: CPython's effectiveness rows, zeros without ratios" \
    "5 figures compared, 1 differ" "$(echo "$out" | tail -1 | cut -d';' -f1)"
check "summary without counters: the one difference is the file count" \
    "DIFF meta Number of data files column 2: CPython '0', pystats '1'" "$(echo "$out" | grep '^DIFF')"
# A count in the 2**31 bucket: the histogram's last row, not another counter.
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["Trace length[1073741824]"] = 5
d["Trace length[2147483648]"] = 7
d["Optimization traces created"] = 12
json.dump(d, open(sys.argv[2], "w"))' "$F15" "$T/big.json"
run summarize "$T/big.json" --markdown "$T/big.md"
check "2**30 bucket: a histogram row, 5 of 12 traces created" '| \<= 1,073,741,824 | 5 | 41.7% |' \
    "$(grep -F '| \<= 1,073,741,824 |' "$T/big.md")"
check "2**31 bucket: the histogram's last row, 7 of 12" '| \<= 2,147,483,648 | 7 | 58.3% |' \
    "$(sed -n '/^### Trace length histogram$/,/^### JIT/p' "$T/big.md" | grep -F '| \<= 2,147,483,648 |')"
check "2**31 bucket: not among the other counters" 0 "$(grep -c '^| Trace length\[2147483648\]' "$T/big.md")"
# CPython 3.14's report of a JIT build's dumps (native-opt/: the fixture's
# instructions and the optimizer's counters as 3.14.7's specialize.c
# prints them, histograms whose first buckets are zero; beside it the
# report CPython 3.14.7's summarize_stats.py wrote of them): its labels of
# the JIT memory table, its JIT trace memory histogram (shares of the
# histogram's own total), no zero bucket before the first count.
JITD=$HERE/native-opt/cpython-3.14.7-jit
run summarize "$JITD" --markdown "$T/jit.md"
check "3.14 JIT build: exit status" 0 "$rc"
python3 "$HERE/cpython_report_rows.py" "$JITD.md" > "$T/expJ.txt"
out=$(python3 "$HERE/published_compare.py" "$T/expJ.txt" "$T/jit.md" 2>&1)
check "3.14 JIT build: every figure of CPython 3.14.7's report" "0 differ" \
    "$(echo "$out" | tail -1 | cut -d';' -f1 | sed 's/.*compared, //')"
check "3.14 JIT build: its JIT memory and histogram rows among them" 19 \
    "$(grep -c '^jit\|^hist' "$T/expJ.txt")"
check "3.14 JIT build: no zero bucket before the first count, as CPython 3.14 shows" \
    "| \<= 8 | 4 | 16.0% |" \
    "$(sed -n '/^### Trace length histogram$/,/^###/p' "$T/jit.md" | grep -m1 -F '| \<=')"

# ---- 3.15's free-threading lines -------------------------------------------
# A free-threaded 3.15 build prints three more lines (Python/pystats.c,
# print_ft_stats()): "Mutex sleeps (mutex_sleeps)", "QSBR polls
# (qsbr_polls)", "World stops (world_stops)". No published summary of a
# free-threaded build carries them yet (bench_runner's pystats runs are of
# default builds), so the dumps here are the 3.15 fixture's counters with
# those lines added; the expected sums are the script's rule (every key
# summed over the files) computed here from the raw lines.
mkdir -p "$T/ft"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
with open(sys.argv[2] + "/a.txt", "w") as out:
    for k, v in d.items():
        if not k.startswith("_") and k not in ("metadata", "__nfiles__"):
            out.write(f"{k} : {v}\n")
    out.write("Mutex sleeps (mutex_sleeps): 1234\nQSBR polls (qsbr_polls): 56\n"
              "World stops (world_stops): 7\n")
with open(sys.argv[2] + "/b.txt", "w") as out:
    out.write("GC[0] collections: 2\nMutex sleeps (mutex_sleeps): 4321\n"
              "QSBR polls (qsbr_polls): 44\nWorld stops (world_stops): 3\n")' "$F15" "$T/ft"
ft_expect() { # the script's sum of key $1 over the raw lines of $T/ft
    python3 -c '
import collections, os, sys
s = collections.Counter()
for f in sorted(os.listdir(sys.argv[1])):
    for line in open(os.path.join(sys.argv[1], f)):
        k, v = line.rsplit(":", 1)
        s[k.strip()] += int(v)
print(f"{s[sys.argv[2]]:,}")' "$T/ft" "$1"
}
run summarize "$T/ft" --markdown "$T/ft.md" --json "$T/ft.json"
check "free-threaded 3.15 dumps: exit status" 0 "$rc"
check "free-threaded 3.15 dumps: version" 3.15 "$(jget "$T/ft.json" 'd["meta"]["python_version"]')"
for f in "Mutex sleeps:mutex_sleeps" "QSBR polls:qsbr_polls" "World stops:world_stops"; do
    label=${f%%:*}
    check "free-threading section: $label summed over the files as the script sums it" \
        "| $label | $(ft_expect "$label (${f#*:})") |" \
        "$(sed -n '/^## Free-threading$/,/^## /p' "$T/ft.md" | grep -F "| $label |")"
done
check "free-threading lines: none left among the other counters" 0 \
    "$(sed -n '/^## Other counters$/,/^## /p' "$T/ft.md" | grep -c 'sleeps\|polls\|stops')"
check "free-threading section: after the optimizer's, before the rare events" \
    "## Free-threading ## Rare events" "$(grep -E '^## (Free-threading|Rare events)$' "$T/ft.md" | tr '\n' ' ' | sed 's/ $//')"
check "free-threading lines in the JSON summary, by CPython's label" \
    "{'Mutex sleeps': 5555, 'QSBR polls': 100, 'World stops': 10}" \
    "$(jget "$T/ft.json" 'dict(sorted(d["free_threading"].items()))')"
# Read back: our JSON summary, and a summary as CPython's --json-output
# writes it (the raw keys), give the same rows.
run summarize "$T/ft.json" --markdown "$T/ft-rt.md"
check "free-threading section read back from the JSON summary" \
    "$(sed -n '/^## Free-threading$/,/^## /p' "$T/ft.md")" \
    "$(sed -n '/^## Free-threading$/,/^## /p' "$T/ft-rt.md")"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d.update({"Mutex sleeps (mutex_sleeps)": 98765, "QSBR polls (qsbr_polls)": 4321,
          "World stops (world_stops)": 12})
json.dump(d, open(sys.argv[2], "w"))' "$F15" "$T/ft-cpy.json"
run summarize "$T/ft-cpy.json" --markdown "$T/ft-cpy.md"
check "free-threading lines of a CPython JSON summary" \
    "| Mutex sleeps | 98,765 | QSBR polls | 4,321 | World stops | 12 |" \
    "$(sed -n '/^## Free-threading$/,/^## /p' "$T/ft-cpy.md" | grep -E '^\| [MQW]' | tr -d '\n' | sed 's/ |$/ |/; s/||/|/g')"
# Only the free-threading lines (a dump of a run that did nothing else):
# 3.15 all the same, as no earlier version prints them.
printf 'Mutex sleeps (mutex_sleeps): 1\nQSBR polls (qsbr_polls): 2\nWorld stops (world_stops): 3\n' > "$T/ftonly.txt"
run summarize "$T/ftonly.txt" --json "$T/ftonly.json"
check "free-threading lines alone: version 3.15" 3.15 "$(jget "$T/ftonly.json" 'd["meta"]["python_version"]')"
