#!/bin/sh
# tests/golden/run.sh: golden and bad-input tests of the pystats command.
#
# Usage: sh tests/golden/run.sh [path/to/pystats]
#
# Expected totals are computed here, with awk, from the raw input files
# (never from the program's own output); expected reports are in
# expected/.  Ends with the line "golden: N passed, N failed".
# Set GOLDEN_UPDATE=1 to rewrite expected/*.md from the current program.

PYSTATS=${1:-build/pystats}
case $PYSTATS in /*) ;; *) PYSTATS=$(pwd)/$PYSTATS ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/pystats-golden.XXXXXX")
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
passed=0
failed=0

ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }
# check NAME EXPECTED ACTUAL
check() {
    if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: expected '$2', got '$3'"; fi
}
# jget FILE EXPR: evaluate a Python expression over the JSON document d.
jget() {
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
# Sums over raw dump lines, split at the last ':' like the format says.
awk_sum() {  # awk_sum REGEX FILES...: sum of values of keys matching REGEX
    re=$1; shift
    cat "$@" | awk -v re="$re" '{ i = length($0); while (i > 0 && substr($0, i, 1) != ":") i--;
        k = substr($0, 1, i - 1); sub(/^[ \t]+/, "", k); sub(/[ \t]+$/, "", k);
        if (k ~ re) s += substr($0, i + 1) } END { printf "%d\n", s }'
}
run() {  # run ARGS...: run pystats, leave rc in $rc
    "$PYSTATS" "$@" > "$T/stdout" 2> "$T/stderr"
    rc=$?
}

NAT=$HERE/native

# ---- the native fixtures, one set at a time ---------------------------
for set in cpython-3.11.2-whole cpython-3.13.5-whole cpython-3.13.5-windowed \
           cpython-3.14.7-whole cpython-3.14.7-windowed; do
    dir=$NAT/$set
    ver=$(echo "$set" | sed 's/cpython-\([0-9]*\.[0-9]*\).*/\1/')
    files=$(ls "$dir" | wc -l | tr -d ' ')
    run summarize "$dir" --json "$T/$set.json" --markdown "$T/$set.md"
    check "$set: exit status" 0 "$rc"
    check "$set: no warnings" "" "$(cat "$T/stderr")"
    check "$set: files" "$files" "$(jget "$T/$set.json" 'd["meta"]["files"]')"
    check "$set: python version detected" "$ver" "$(jget "$T/$set.json" 'd["meta"]["python_version"]')"
    check "$set: sum of every execution count" \
        "$(awk_sum '^opcode\[[^]]*\]\.execution_count$' "$dir"/*)" \
        "$(jget "$T/$set.json" 'd["meta"]["total_execution_count"]')"
    check "$set: sum of every pair count" \
        "$(awk_sum '^opcode\[[^]]*\]\.pair_count\[' "$dir"/*)" \
        "$(jget "$T/$set.json" 'sum(sum(o.get("pair_count", {}).values()) for o in d["opcodes"].values())')"
    # LOAD_ATTR is opcode 106 on 3.11, a name from 3.13.
    la='LOAD_ATTR'
    [ "$ver" = 3.11 ] && la=106
    for f in success failure hit; do
        check "$set: LOAD_ATTR $f" \
            "$(awk_sum "^opcode\\[$la\\]\\.specialization\\.$f\$" "$dir"/*)" \
            "$(jget "$T/$set.json" "d['opcodes']['LOAD_ATTR']['specialization']['$f']")"
    done
    # 3.11-3.13 name a kind for every failure; 3.14 counts some failures
    # with no kind (its dumps: 112 LOAD_ATTR failures, 104 in kinds).
    if [ "$ver" = 3.14 ]; then kre=failure_kinds; else kre=failure; fi
    check "$set: LOAD_ATTR failure kinds add up to the dumps' $kre lines" \
        "$(awk_sum "^opcode\\[$la\\]\\.specialization\\.$kre(\\[[0-9]*\\])?\$" "$dir"/*)" \
        "$(jget "$T/$set.json" "sum(d['opcodes']['LOAD_ATTR']['specialization']['failure_kinds'].values())")"
    check "$set: specializable is a flag, not a count" "True" \
        "$(jget "$T/$set.json" "d['opcodes']['LOAD_ATTR']['specializable']")"
    if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
        cp "$T/$set.md" "$HERE/expected/$set.md"
    fi
    if cmp -s "$HERE/expected/$set.md" "$T/$set.md"; then
        ok "$set: report matches expected/$set.md"
    else
        bad "$set: report differs from expected/$set.md"
        diff "$HERE/expected/$set.md" "$T/$set.md" | head -20
    fi
done

# Failure kinds by name, per family and version (the JSON keeps the
# SPEC_FAIL_ names; the reports show CPython's labels, checked below):
# FOR_ITER kind 18 on 3.11 is FOR_ITER_RANGE, "range" in the report.
check "3.11: FOR_ITER failure kind named" \
    "$(awk_sum '^opcode\[93\]\.specialization\.failure_kinds\[18\]$' "$NAT"/cpython-3.11.2-whole/*)" \
    "$(jget "$T/cpython-3.11.2-whole.json" "d['opcodes']['FOR_ITER']['specialization']['failure_kinds']['FOR_ITER_RANGE']")"
check "3.13: LOAD_ATTR kind 23 named ATTR_CLASS_METHOD_OBJ" \
    "$(awk_sum '^opcode\[LOAD_ATTR\]\.specialization\.failure_kinds\[23\]$' "$NAT"/cpython-3.13.5-whole/*)" \
    "$(jget "$T/cpython-3.13.5-whole.json" "d['opcodes']['LOAD_ATTR']['specialization']['failure_kinds']['ATTR_CLASS_METHOD_OBJ']")"
check "3.13: STORE_ATTR kind 2 keeps the shared name: OVERRIDDEN" \
    "$(awk_sum '^opcode\[STORE_ATTR\]\.specialization\.failure_kinds\[2\]$' "$NAT"/cpython-3.13.5-whole/*)" \
    "$(jget "$T/cpython-3.13.5-whole.json" "d['opcodes']['STORE_ATTR']['specialization']['failure_kinds']['OVERRIDDEN']")"
check "3.13: eval-call kinds named" \
    "$(awk_sum '^Calls via PyEval_EvalFrame\[1\]$' "$NAT"/cpython-3.13.5-whole/*)" \
    "$(jget "$T/cpython-3.13.5-whole.json" "d['calls']['Calls via PyEval_EvalFrame[VECTOR]']")"
check "3.11 report: FOR_ITER kind 18 labelled range" 1 \
    "$(grep -c '^| range | 37,880 | 89.6% |$' "$T/cpython-3.11.2-whole.md")"
check "3.13 report: LOAD_ATTR kind 23 labelled class method obj" 1 \
    "$(grep -c '^| class method obj | 32 | ' "$T/cpython-3.13.5-whole.md")"
check "3.13: GC generation 2 objects collected" \
    "$(awk_sum '^GC\[2\] objects collected$' "$NAT"/cpython-3.13.5-whole/*)" \
    "$(jget "$T/cpython-3.13.5-whole.json" "d['gc']['2']['objects collected']")"

# Every figure of the raw dumps, summed by a script of its own (failure
# kinds named from the version's SPEC_FAIL_ table by summarize_stats.py's
# rule, written out again there), against the JSON summary.
for set in cpython-3.11.2-whole:11:3.11 cpython-3.13.5-whole:13:3.13 cpython-3.13.5-windowed:13:3.13 \
           cpython-3.14.7-whole:14:3.14 cpython-3.14.7-windowed:14:3.14; do
    name=${set%%:*} rest=${set#*:}
    minor=${rest%%:*} tab=${rest#*:}
    [ "$minor" = 11 ] && continue   # numbered opcodes: named by the program's table
    out=$(python3 "$HERE/native_sums.py" "$T/$name.json" "$HERE/../../data/tables/spec_fail_kinds-$tab.tsv" \
          "$HERE/../../data/tables/eval_call_kinds-3.13.tsv" "$minor" "$NAT/$name"/* 2>&1)
    case $out in
    *" 0 differ, 0 failure-kind"*) ok "$name: every figure of the dumps ($(echo "$out" | tail -1 | cut -d' ' -f1) figures)";;
    *) bad "$name: figures of the dumps differ: $(echo "$out" | tail -5)";;
    esac
done
check "3.14: BINARY_OP kind 48 is BINARY_OP_SUBSCR_BYTES (60 kinds on 3.14)" \
    "$(awk_sum '^opcode\[BINARY_OP\]\.specialization\.failure_kinds\[48\]$' "$NAT"/cpython-3.14.7-whole/*)" \
    "$(jget "$T/cpython-3.14.7-whole.json" "d['opcodes']['BINARY_OP']['specialization']['failure_kinds']['BINARY_OP_SUBSCR_BYTES']")"
check "3.14: GET_ITER takes the ITER_ names (kind 13: ITER_LIST)" \
    "$(awk_sum '^opcode\[GET_ITER\]\.specialization\.failure_kinds\[13\]$' "$NAT"/cpython-3.14.7-whole/*)" \
    "$(jget "$T/cpython-3.14.7-whole.json" "d['opcodes']['GET_ITER']['specialization']['failure_kinds']['ITER_LIST']")"
check "3.14 report: GET_ITER kind 13 labelled list" \
    "| list | $(awk_sum '^opcode\[GET_ITER\]\.specialization\.failure_kinds\[13\]$' "$NAT"/cpython-3.14.7-whole/*) |" \
    "$(sed -n '/^## Specialization$/,/^## Specialization effectiveness/p' "$T/cpython-3.14.7-whole.md" |
       sed -n '/^### GET_ITER$/,/^### /p' | grep '^| list |' | cut -d'|' -f1-3)|"
check "3.14 report: BINARY_OP kind 48 labelled subscr bytes" 1 \
    "$(grep -c '^| subscr bytes | ' "$T/cpython-3.14.7-whole.md")"
check "3.14: mortal and immortal refcounts kept apart" \
    "$(awk_sum '^Object interpreter immortal increfs$' "$NAT"/cpython-3.14.7-whole/*)" \
    "$(jget "$T/cpython-3.14.7-whole.json" "d['objects']['Object interpreter immortal increfs']")"
check "3.14: five GC fields" 5 "$(jget "$T/cpython-3.14.7-whole.json" "len(d['gc']['0'])")"

# ---- CPython's published summaries, figure for figure --------------------
# Files Faster CPython publishes (faster-cpython/benchmarking-public), each
# with the figures of the report CPython's summarize_stats.py made of it
# (published/expected/BENCHMARK.expected, copied from the .md beside the file).
PUB=$HERE/published/bm-20250110-3.14.0a3+-802556a
for b in float coroutines; do
    f=$(ls "$PUB"/*-pystats-$b.json)
    run summarize "$f" --json "$T/pub-$b.json" --markdown "$T/pub-$b.md"
    check "published $b: exit status" 0 "$rc"
    check "published $b: no warnings (metadata is not a count)" "" "$(cat "$T/stderr")"
    check "published $b: no input problems" 0 "$(jget "$T/pub-$b.json" 'sum(d["meta"]["problems"].values())')"
    check "published $b: files from __nfiles__" 20 "$(jget "$T/pub-$b.json" 'd["meta"]["files"]')"
    check "published $b: version" 3.14 "$(jget "$T/pub-$b.json" 'd["meta"]["python_version"]')"
    check "published $b: metadata in the report header" 1 \
        "$(grep -c '^\*\*CPython run:\*\* .*commit_fork python; commit_id 802556abf; .*github_actor iritkatriel\.$' "$T/pub-$b.md")"
    check "published $b: metadata in the JSON meta" "{'802556abf': 1}" \
        "$(jget "$T/pub-$b.json" 'd["meta"]["headers"]["cpython.metadata.commit_id"]')"
    out=$(python3 "$HERE/published_compare.py" --exact "$HERE/published/expected/$b.expected" "$T/pub-$b.md" 2>&1)
    case $out in
    *" 0 differ;"*) ok "published $b: every figure of CPython's report: $(echo "$out" | tail -1)";;
    *) bad "published $b: figures differ from CPython's report: $(echo "$out" | tail -8)";;
    esac
done
check "published float: LOAD_CONST_IMMORTAL counted as specialized (the file's own list)" \
    "| Specialized hits | 647,996,460 | 42.5% |" "$(grep '^| Specialized hits |' "$T/pub-float.md")"
check "published float: kind 26 named from the file's _defines" 8820 \
    "$(jget "$T/pub-float.json" "d['opcodes']['BINARY_OP']['specialization']['failure_kinds']['BINARY_OP_TRUE_DIVIDE_FLOAT']")"
# Eval-call kinds are named by the file's own _stats_defines first.
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["_stats_defines"]["1"], d["_stats_defines"]["2"] = d["_stats_defines"]["2"], d["_stats_defines"]["1"]
json.dump(d, open(sys.argv[2], "w"))' "$(ls "$PUB"/*-pystats-coroutines.json)" "$T/swapped.json"
run summarize "$T/swapped.json" --json "$T/swapped-out.json"
check "published: eval-call kinds named by the file's _stats_defines" "480 60" \
    "$(jget "$T/swapped-out.json" 'str(d["calls"]["Calls via PyEval_EvalFrame[VECTOR]"]) + " " + str(d["calls"]["Calls via PyEval_EvalFrame[GENERATOR]"])')"
# The comparison fails when a figure differs.
sed 's/^eff|Basic|815,995,680|53.5%$/eff|Basic|839,996,400|55.1%/' "$HERE/published/expected/float.expected" > "$T/wrong.expected"
if python3 "$HERE/published_compare.py" "$T/wrong.expected" "$T/pub-float.md" > "$T/wrong.out" 2>&1; then
    bad "published: a wrong expected figure is not caught"
else
    check "published: a wrong expected figure is caught" 2 "$(grep -c '^DIFF eff Basic' "$T/wrong.out")"
fi
# A whole suite: several benchmarks' files, labelled by benchmark from the
# file name; each label's figures are that benchmark's report.
run summarize "$PUB" --by-label --json "$T/pub-suite.json" --markdown "$T/pub-suite.md"
check "published suite: exit status" 0 "$rc"
check "published suite: a group per benchmark" "['coroutines', 'float']" \
    "$(jget "$T/pub-suite.json" 'sorted(g["meta"]["label"] for g in d["groups"])')"
for b in float coroutines; do
    out=$(python3 "$HERE/published_compare.py" --exact "$HERE/published/expected/$b.expected" "$T/pub-suite.md" "$b" 2>&1)
    case $out in
    *" 0 differ;"*) ok "published suite, label $b: every figure of CPython's report: $(echo "$out" | tail -1)";;
    *) bad "published suite, label $b: figures differ: $(echo "$out" | tail -8)";;
    esac
done
"$PYSTATS" summarize "$PUB" --by-label --jobs 1 --markdown "$T/pub-suite-1.md" 2>/dev/null
"$PYSTATS" summarize "$PUB" --by-label --jobs 4 --markdown "$T/pub-suite-4.md" 2>/dev/null
if cmp -s "$T/pub-suite-1.md" "$T/pub-suite-4.md"; then ok "published suite: the same report on 1 and 4 threads"
else bad "published suite: the report depends on the threads"; fi
run summarize "$PUB" --json "$T/pub-sum.json"
check "published suite summed: 40 files" 40 "$(jget "$T/pub-sum.json" 'd["meta"]["files"]')"
check "published suite summed: executions are the files' sum" \
    "$(python3 -c 'import json,sys; print(sum(v for f in sys.argv[1:] for k, v in json.load(open(f)).items() if k.startswith("opcode[") and k.endswith("].execution_count")))' "$PUB"/*.json)" \
    "$(jget "$T/pub-sum.json" 'd["meta"]["total_execution_count"]')"

# ---- several inputs: versions never mixed silently ---------------------
run summarize "$NAT"/cpython-3.11.2-whole "$NAT"/cpython-3.13.5-whole "$NAT"/cpython-3.13.5-windowed --json "$T/all.json" --markdown "$T/all.md"
check "mixed versions: exit status" 0 "$rc"
check "mixed versions: two groups" 2 "$(jget "$T/all.json" 'len(d["groups"])')"
check "mixed versions: 3.13 group has 5 files" 5 "$(jget "$T/all.json" '[g["meta"]["files"] for g in d["groups"] if g["meta"]["python_version"] == "3.13"][0]')"
check "mixed versions: 3.13 totals are the 3.13 files only" \
    "$(awk_sum '^opcode\[[^]]*\]\.execution_count$' "$NAT"/cpython-3.13.5-*/*)" \
    "$(jget "$T/all.json" '[g["meta"]["total_execution_count"] for g in d["groups"] if g["meta"]["python_version"] == "3.13"][0]')"
check "mixed versions: the header says so" 1 "$(grep -c '^\*\*Warning:\*\* the inputs mix 2 kinds of dumps' "$T/all.md")"
run summarize "$NAT"/cpython-3.11.2-whole "$NAT"/cpython-3.13.5-whole --strict --json "$T/strict.json"
check "mixed versions: --strict fails" 1 "$rc"

# ---- JSON in: our own summaries (round trip) and CPython's -------------
run summarize "$T/all.json" --json "$T/again.json"
check "round trip: exit status" 0 "$rc"
check "round trip: same groups and counters" True "$(python3 -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
strip = lambda g: {k: v for k, v in g.items() if k != "meta"}
print([strip(g) for g in a["groups"]] == [strip(g) for g in b["groups"]]
      and [g["meta"]["files"] for g in a["groups"]] == [g["meta"]["files"] for g in b["groups"]])
' "$T/all.json" "$T/again.json")"
# A UTF-8 byte order mark before the JSON (or a dump) is not content.
{ printf '\357\273\277'; cat "$T/cpython-3.13.5-whole.json"; } > "$T/bom.json"
run summarize "$T/bom.json" --json "$T/bom-out.json"
check "JSON with a UTF-8 BOM: read as a summary, no warnings" "0 {'summary-json': 2}" \
    "$rc $(jget "$T/bom-out.json" 'd["meta"]["formats"]')$(cat "$T/stderr")"
check "JSON with a UTF-8 BOM: the same totals" \
    "$(awk_sum '^opcode\[[^]]*\]\.execution_count$' "$NAT"/cpython-3.13.5-whole/*)" \
    "$(jget "$T/bom-out.json" 'd["meta"]["total_execution_count"]')"
mkdir "$T/bom-own"
{ printf '\357\273\277'; cat "$HERE/own/dump-1.txt"; } > "$T/bom-own/dump.txt"
run summarize "$T/bom-own" --json "$T/bom-own.json"
check "own dump with a UTF-8 BOM: read as an own dump" "pystats-text" \
    "$(jget "$T/bom-own.json" '" ".join(d["meta"]["formats"])')"
run summarize "$T/cpython-3.13.5-whole.json" "$T/cpython-3.13.5-whole.json" --json "$T/twice.json"
check "summary read twice: counts double" \
    "$(( $(awk_sum '^opcode\[[^]]*\]\.execution_count$' "$NAT"/cpython-3.13.5-whole/*) * 2 ))" \
    "$(jget "$T/twice.json" 'd["meta"]["total_execution_count"]')"
run summarize "$HERE/cpython-json/cpython-3.13.5-whole.json" --json "$T/cpj.json"
check "CPython JSON: exit status" 0 "$rc"
check "CPython JSON: files from __nfiles__" 2 "$(jget "$T/cpj.json" 'd["meta"]["files"]')"
check "CPython JSON: version detected" 3.13 "$(jget "$T/cpj.json" 'd["meta"]["python_version"]')"
check "CPython JSON: same totals as the dumps" \
    "$(awk_sum '^opcode\[[^]]*\]\.execution_count$' "$NAT"/cpython-3.13.5-whole/*)" \
    "$(jget "$T/cpj.json" 'd["meta"]["total_execution_count"]')"
check "CPython JSON: summed specializable stays a flag" True \
    "$(jget "$T/cpj.json" "d['opcodes']['BINARY_SLICE']['specializable']")"

# ---- this project's dumps --------------------------------------------
OWN=$HERE/own
run summarize "$OWN" --json "$T/own.json" --markdown "$T/own.md"
check "own dumps: exit status" 0 "$rc"
check "own dumps: source" pystats "$(jget "$T/own.json" 'd["meta"]["source"]')"
check "own dumps: counts base instructions" base-instructions "$(jget "$T/own.json" 'd["meta"]["counts"]')"
check "own dumps: version from header" 3.12 "$(jget "$T/own.json" 'd["meta"]["python_version"]')"
check "own dumps: sum of execution counts" "$(awk_sum '^opcode\[[^]]*\]\.execution_count$' "$OWN"/*)" \
    "$(jget "$T/own.json" 'd["meta"]["total_execution_count"]')"
check "own dumps: LOAD_FAST -> LOAD_ATTR pairs" "$(awk_sum '^opcode\[LOAD_FAST\]\.pair_count\[LOAD_ATTR\]$' "$OWN"/*)" \
    "$(jget "$T/own.json" 'd["opcodes"]["LOAD_FAST"]["pair_count"]["LOAD_ATTR"]')"
check "own dumps: unknown counter kept" 9 "$(jget "$T/own.json" 'd["other"]["opcode[LOAD_FAST].hot_code[f:12]"]')"
check "own dumps: header values counted" "{'exit': 1, 'os._exit': 1}" "$(jget "$T/own.json" 'd["meta"]["headers"]["meta.dump.reason"]')"
check "own dumps: time range" "2026-11-29T22:19:50.000000Z 2026-11-29T22:19:54.500000Z" \
    "$(jget "$T/own.json" 'd["meta"]["time_start"] + " " + d["meta"]["time_end"]')"
if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then cp "$T/own.md" "$HERE/expected/own.md"; fi
if cmp -s "$HERE/expected/own.md" "$T/own.md"; then ok "own dumps: report matches expected/own.md"
else bad "own dumps: report differs from expected/own.md"; diff "$HERE/expected/own.md" "$T/own.md" | head; fi
run summarize "$OWN" "$NAT"/cpython-3.13.5-whole --json "$T/ownnat.json"
check "own + native: separate groups" "['native', 'pystats']" \
    "$(jget "$T/ownnat.json" 'sorted(g["meta"]["source"] for g in d["groups"])')"
check "own + native: own totals not added to native" "$(awk_sum '^opcode\[[^]]*\]\.execution_count$' "$OWN"/*)" \
    "$(jget "$T/ownnat.json" '[g["meta"]["total_execution_count"] for g in d["groups"] if g["meta"]["source"] == "pystats"][0]')"

# ---- version detection and override ------------------------------------
mkdir "$T/v312"
f311=$(ls "$NAT"/cpython-3.11.2-whole/* | head -1)
{ cat "$f311"; echo "Calls via PyEval_EvalFrame[0] : 5"; } > "$T/v312/dump.txt"
run summarize "$T/v312" --json "$T/v312.json"
check "numbered opcodes + eval-call lines: 3.12" 3.12 "$(jget "$T/v312.json" 'd["meta"]["python_version"]')"
check "3.12 failure kinds fall back to kind N" True \
    "$(jget "$T/v312.json" 'all(k.startswith("kind ") or k in ("OTHER","NO_DICT","OVERRIDDEN","OUT_OF_VERSIONS","OUT_OF_RANGE","EXPECTED_ERROR","WRONG_NUMBER_ARGUMENTS","CODE_COMPLEX_PARAMETERS","CODE_NOT_OPTIMIZED") for o in d["opcodes"].values() for k in o.get("specialization", {}).get("failure_kinds", {}))')"
run summarize "$T/v312" --python-version 3.11 --json "$T/v311.json"
check "--python-version overrides detection" "3.11 --python-version" \
    "$(jget "$T/v311.json" 'd["meta"]["python_version"] + " " + list(d["meta"]["version_detection"])[0]')"
mkdir "$T/v314"
{ sed 's/^Object interpreter increfs/Object interpreter mortal increfs/' "$NAT"/cpython-3.13.5-whole/111729eea60377f5a5fab472549765b8e072a2fd.txt
  echo "JIT total memory size: 0"; } > "$T/v314/dump.txt"
run summarize "$T/v314" --json "$T/v314.json"
check "named opcodes + mortal/JIT lines: 3.14" 3.14 "$(jget "$T/v314.json" 'd["meta"]["python_version"]')"

# ---- bad input: warned with file and line, the rest still counted ---------
good=$NAT/cpython-3.13.5-whole/111729eea60377f5a5fab472549765b8e072a2fd.txt
good_total=$(awk_sum '^opcode\[[^]]*\]\.execution_count$' "$good")
bad_case() {  # bad_case NAME PROBLEM EXPECTED_WARNING_REGEX EXPECTED_TOTAL
    run summarize "$T/$1" --json "$T/$1.json"
    check "$1: exit status without --strict" 0 "$rc"
    if grep -q "$3" "$T/stderr"; then ok "$1: warning names file and line"
    else bad "$1: no warning matching '$3' in: $(cat "$T/stderr")"; fi
    check "$1: problem counted in meta" 1 "$(jget "$T/$1.json" "d['meta']['problems']['$2']")"
    check "$1: rest still counted" "$4" "$(jget "$T/$1.json" 'd["meta"]["total_execution_count"]')"
    run summarize "$T/$1" --strict --json "$T/$1-strict.json"
    check "$1: --strict fails" 1 "$rc"
}

mkdir "$T/truncated"
cp "$good" "$T/truncated/good.txt"
size=$(wc -c < "$good")
head -c $((size / 2)) "$good" > "$T/truncated/cut.txt"
cut_lines=$(($(wc -l < "$T/truncated/cut.txt") + 1))
cut_total=$(head -n $((cut_lines - 1)) "$T/truncated/cut.txt" > "$T/cut-complete.txt"; awk_sum '^opcode\[[^]]*\]\.execution_count$' "$T/cut-complete.txt")
bad_case truncated truncated "truncated/cut.txt:$cut_lines: " $((good_total + cut_total))

mkdir "$T/unparsable"
awk 'NR == 3 { print "this line is not a counter" } NR == 5 { print "opcode[NOP].execution_count : twelve" } { print }' "$good" > "$T/unparsable/dump.txt"
run summarize "$T/unparsable" --json "$T/unparsable.json"
check "unparsable: both lines named" "dump.txt:3: dump.txt:6: " \
    "$(grep -o 'dump.txt:[0-9]*:' "$T/stderr" | tr '\n' ' ')"
check "unparsable: problems counted" 2 "$(jget "$T/unparsable.json" "d['meta']['problems']['unparsable']")"
check "unparsable: rest still counted" "$good_total" "$(jget "$T/unparsable.json" 'd["meta"]["total_execution_count"]')"

mkdir "$T/overflow"
{ cat "$good"; echo "opcode[NOP].execution_count : 18446744073709551616"; } > "$T/overflow/dump.txt"
bad_case overflow overflow "overflow/dump.txt:$(($(wc -l < "$good") + 1)): " "$good_total"

# Sums past 2**64-1: the file that would take the totals there is refused
# and named; every total printed is exact (never wrapped, never capped).
mkdir "$T/sum-overflow"
printf 'opcode[NOP].execution_count : 18446744073709551615\n' > "$T/sum-overflow/a.txt"
printf 'opcode[NOP].execution_count : 1\n' > "$T/sum-overflow/b.txt"
run summarize "$T/sum-overflow" --jobs 1 --json "$T/sum-overflow.json"
check "sum overflow: the second file named, not counted" 1 \
    "$(grep -c 'sum-overflow/b.txt: its counters would take the sum of all counters read past 2\*\*64-1' "$T/stderr")"
check "sum overflow: the first file's count exact, as a string" "18446744073709551615 1 1" \
    "$(jget "$T/sum-overflow.json" 'str(d["opcodes"]["NOP"]["execution_count"]) + " " + str(d["meta"]["files"]) + " " + str(d["meta"]["problems"]["overflow"])')"
mkdir "$T/wrap-one"
printf 'opcode[NOP].execution_count : 9223372036854775808\nopcode[POP_TOP].execution_count : 9223372036854775808\n' > "$T/wrap-one/a.txt"
cp "$good" "$T/wrap-one/good.txt"
bad_case wrap-one overflow "wrap-one/a.txt: its counters add up past 2\*\*64-1" "$good_total"
mkdir "$T/wrap-max"
printf 'opcode[NOP].execution_count : 18446744073709551615\nopcode[POP_TOP].execution_count : 18446744073709551615\n' > "$T/wrap-max/a.txt"
run summarize "$T/wrap-max"
check "two counters of 2**64-1 in one file: not counted, no dump files" 1 "$rc"
check "two counters of 2**64-1 in one file: no total printed" 0 "$(grep -c '18,446,744,073,709,551,614' "$T/stdout")"
mkdir "$T/wrap-two"
printf 'opcode[NOP].execution_count : 9223372036854775808\n' > "$T/wrap-two/a.txt"
printf 'opcode[POP_TOP].execution_count : 9223372036854775808\n' > "$T/wrap-two/b.txt"
run summarize "$T/wrap-two" --jobs 1 --markdown "$T/wrap-two.md" --json "$T/wrap-two.json"
check "2**63 in each of two files: the total is the first file's, exact" \
    "Total: 9,223,372,036,854,775,808 instructions executed." "$(grep '^Total:' "$T/wrap-two.md")"
check "2**63 in each of two files: the second named" 1 "$(grep -c 'wrap-two/b.txt: its counters would take' "$T/stderr")"
run check "$T/wrap-two" --jobs 1 --json "$T/wrap-two-check.json"
check "2**63 in each of two files: check says overflow, names the file" "6 b.txt" \
    "$rc $(jget "$T/wrap-two-check.json" "' '.join(p.rsplit('/', 1)[-1] for f in d['findings'] if f['check'] == 'overflow' for p in f['files'])")"
# A JSON summary read back counts the same way.
printf '{"schema": 1, "meta": {"files": 1}, "opcodes": {"NOP": {"execution_count": "18446744073709551615"}, "POP_TOP": {"execution_count": 1}}}' > "$T/wrap-json.json"
run summarize "$T/wrap-json.json"
check "a summary whose counts add up past 2**64-1: refused" "1 1" \
    "$rc $(grep -c 'wrap-json.json: its counters add up past 2\*\*64-1' "$T/stderr")"
# --equal-weight scales counters up: past 2**64-1 it is an error naming the labels.
mkdir "$T/wrap-weight"
printf 'pystats.format : 1\nmeta.python.version : 3.12.1\nmeta.label : small\nopcode[NOP].execution_count : 1\ncalls.python_starts : 4611686018427387904\n' > "$T/wrap-weight/a.txt"
printf 'pystats.format : 1\nmeta.python.version : 3.12.1\nmeta.label : big\nopcode[NOP].execution_count : 4611686018427387904\n' > "$T/wrap-weight/b.txt"
run summarize "$T/wrap-weight" --equal-weight
check "--equal-weight past 2**64-1: an error naming the labels" "1 1" \
    "$rc $(grep -c 'equal-weight: .* labels \(big small\|small big\) would add up past 2\*\*64-1' "$T/stderr")"
run summarize "$T/wrap-weight"
check "the same without --equal-weight: counted" 0 "$rc"

mkdir "$T/binary"
cp "$good" "$T/binary/good.txt"
printf 'opcode[NOP].execution_count : 1\n\000\001\002\377garbage\n' > "$T/binary/bin.txt"
bad_case binary binary "binary/bin.txt:2: " "$good_total"
check "binary: file not counted" 1 "$(jget "$T/binary.json" 'd["meta"]["files"]')"

mkdir "$T/unreadable"
cp "$good" "$T/unreadable/good.txt"
ln -s "$T/does-not-exist" "$T/unreadable/dangling.txt"
bad_case unreadable unreadable "unreadable/dangling.txt: cannot open" "$good_total"
if [ "$(id -u)" != 0 ]; then
    mkdir "$T/noperm"; cp "$good" "$T/noperm/good.txt"; cp "$good" "$T/noperm/secret.txt"
    chmod 000 "$T/noperm/secret.txt"
    bad_case noperm unreadable "noperm/secret.txt: cannot open" "$good_total"
fi

# A FIFO never blocks the reader (anyone who can write a shared dump
# directory could plant one): skipped, named, the rest counted.
mkdir "$T/fifo"
cp "$good" "$T/fifo/good.txt"
if mkfifo "$T/fifo/p.txt" 2>/dev/null; then
    timeout 20 "$PYSTATS" summarize "$T/fifo" --json "$T/fifo.json" > "$T/stdout" 2> "$T/stderr"
    check "FIFO in a directory: no hang, exit 0" 0 "$?"
    check "FIFO in a directory: named as skipped" 1 "$(grep -c 'fifo/p.txt: not a regular file (a FIFO), skipped' "$T/stderr")"
    check "FIFO in a directory: problem counted" 1 "$(jget "$T/fifo.json" "d['meta']['problems']['unreadable']")"
    check "FIFO in a directory: rest still counted" "$good_total" "$(jget "$T/fifo.json" 'd["meta"]["total_execution_count"]')"
    timeout 20 "$PYSTATS" summarize "$T/fifo/p.txt" > "$T/stdout" 2> "$T/stderr"
    check "FIFO as the argument: no hang, no dump files (exit 1)" 1 "$?"
    timeout 20 "$PYSTATS" check "$T/fifo" --json "$T/fifo-check.json" > "$T/stdout" 2> "$T/stderr"
    check "FIFO: check reports it unreadable" "p.txt" "$(jget "$T/fifo-check.json" "' '.join(p.rsplit('/', 1)[-1] for f in d['findings'] if f['check'] == 'unreadable' for p in f['files'])")"
else
    echo "skip FIFO (mkfifo failed)"
fi

mkdir "$T/empty"
cp "$good" "$T/empty/good.txt"
: > "$T/empty/zero.txt"
bad_case empty empty "empty/zero.txt: empty" "$good_total"

# An own dump with its header and no counters is no data file.
mkdir "$T/header-only"
cp "$OWN/dump-1.txt" "$T/header-only/good.txt"
sed -n '/^pystats\./p; /^meta\./p' "$OWN/dump-1.txt" > "$T/header-only/hdr.txt"
own_total=$(awk_sum '^opcode\[[^]]*\]\.execution_count$' "$OWN/dump-1.txt")
bad_case header-only empty "header-only/hdr.txt: a header and no counters" "$own_total"
check "header-only: not a data file" 1 "$(jget "$T/header-only.json" 'd["meta"]["files"]')"
run check "$T/header-only" --json "$T/header-only-check.json"
check "header-only: check says empty, names the file" "untrusted hdr.txt" \
    "$(jget "$T/header-only-check.json" "d['verdict'] + ' ' + ' '.join(p.rsplit('/', 1)[-1] for f in d['findings'] if f['check'] == 'empty' for p in f['files'])")"

mkdir "$T/nothing"
run summarize "$T/nothing"
check "no dump files at all: error" 1 "$rc"
check "no dump files at all: says so" 1 "$(grep -c 'no dump files found' "$T/stderr")"
run summarize "$T/no-such-dir"
check "missing input: error" 1 "$rc"
mkdir "$T/badjson"
printf '{"schema": 1, "opcodes": ' > "$T/badjson/x.json"
cp "$good" "$T/badjson/good.txt"
bad_case badjson unparsable "badjson/x.json:1: not a valid JSON" "$good_total"

# JSON summaries whose members have the wrong types: rejected whole, with
# the file and what is wrong; never read as a summary of nothing.
run summarize "$good" --json "$T/one.json"
schema_case() {  # schema_case NAME PYTHON-EDIT-OF-d EXPECTED-WHAT
    mkdir "$T/schema-$1"
    cp "$good" "$T/schema-$1/good.txt"
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); exec(sys.argv[2]); json.dump(d, open(sys.argv[3], "w"))' \
        "$T/one.json" "$2" "$T/schema-$1/s.json"
    bad_case "schema-$1" unparsable "schema-$1/s.json: not a JSON summary of schema 1: $3" "$good_total"
    check "schema-$1: only the dump is counted" 1 "$(jget "$T/schema-$1.json" 'd["meta"]["files"]')"
}
schema_case opcodes-array 'd["opcodes"] = [1, 2]' "opcodes is an array, not an object"
schema_case opcodes-string 'd["opcodes"] = "x"' "opcodes is a string, not an object"
schema_case no-meta 'del d["meta"]' "meta is missing"
schema_case meta-number 'd["meta"] = 3' "meta is an integer, not an object"
schema_case files-negative 'd["meta"]["files"] = -1' "meta.files is a negative integer, not a count"
schema_case schema-only 'd = {"schema": 1}' "meta is missing"
schema_case op-list 'd["opcodes"]["LOAD_ATTR"] = [5]' "opcodes.LOAD_ATTR is an array, not an object"
schema_case pairs-string 'd["opcodes"]["LOAD_ATTR"]["pair_count"] = "many"' \
    "opcodes.LOAD_ATTR.pair_count is a string, not an object"
schema_case group-string 'd = {"schema": 1, "meta": {"files": 2}, "groups": [d, "g"]}' \
    "groups\[1\] is a string, not an object"
run check "$T/schema-opcodes-array" --json "$T/schema-check.json"
check "schema: check names the summary as unparsable" "6 s.json" \
    "$rc $(jget "$T/schema-check.json" "' '.join(p.rsplit('/', 1)[-1] for f in d['findings'] if f['check'] == 'unparsable' for p in f['files'])")"

# ---- hostile names and text: escaped in every text output -------------------
# A file name carrying an OSC title sequence, a BEL, a newline and a fake
# "error:" line, and source lines with Markdown and HTML in them.
mkdir "$T/hostile"
evil=$(printf 'evil\033]0;pwned\007\n pystats: error: fake')
{ cat "$OWN/dump-1.txt"
  echo 'census.site[0] : LOAD_ATTR | 5 | 47 | /srv/<b>x</b>.py | 3 | __init__ | y = **x** + `z` <script>alert(1)</script>'
  echo 'not a counter line'; } > "$T/hostile/$evil.txt"
esc_name='evil\x1b]0;pwned\x07\x0a pystats: error: fake.txt'
raw_ctl() {  # raw_ctl FILE: how many ESC, BEL or other control bytes (not LF, TAB) it holds
    tr -d '\n\t' < "$1" | tr -dc '\000-\037\177' | wc -c | tr -d ' '
}
run summarize "$T/hostile" --markdown "$T/hostile.md" --html "$T/hostile.html" --json "$T/hostile.json"
check "hostile name: summarize exit status" 0 "$rc"
check "hostile name: no control character in the warnings" 0 "$(raw_ctl "$T/stderr")"
check "hostile name: one warning line, the name escaped" 1 \
    "$(grep -cF "pystats: warning: $T/hostile/$esc_name:$(($(wc -l < "$OWN/dump-1.txt") + 2)): no \"key : value\"" "$T/stderr")"
check "hostile name: no line of stderr starts as if pystats wrote it" 0 "$(grep -c '^ pystats: error' "$T/stderr")"
check "hostile name: no control character in the Markdown" 0 "$(raw_ctl "$T/hostile.md")"
check "hostile name: no control character in the HTML" 0 "$(raw_ctl "$T/hostile.html")"
check "hostile source: no raw HTML in the Markdown" 0 "$(grep -c '[^\\]<script>\|[^\\]<b>' "$T/hostile.md")"
check "hostile source: Markdown shows the source as text" 1 \
    "$(grep -cF '| y = \*\*x\*\* + \`z\` \<script>alert(1)\</script> |' "$T/hostile.md")"
check "hostile source: Markdown escapes the function name" 1 "$(grep -cF '| \_\_init\_\_ |' "$T/hostile.md")"
check "hostile source: HTML cell is the text, not formatting" 1 \
    "$(grep -cF '<td>y = **x** + `z` &lt;script&gt;alert(1)&lt;/script&gt;</td>' "$T/hostile.html")"
check "hostile source: HTML has no bold or code from it, and only its own script" "0 0 1" \
    "$(grep -c '<strong>x</strong>' "$T/hostile.html") $(grep -c '<code>z</code>' "$T/hostile.html") $(grep -o '<script>' "$T/hostile.html" | wc -l | tr -d ' ')"
check "hostile source: HTML code shows the function's name, not its Markdown escapes" "1 0" \
    "$(grep -cF ' in <code>__init__</code>: 5 failed attempts' "$T/hostile.html") $(grep -c '<code>[^<]*\\_' "$T/hostile.html")"
check "hostile name: the JSON keeps the exact name" "$T/hostile/$evil.txt" \
    "$(jget "$T/hostile.json" "d['meta']['problem_notes'][0]['where'].split(':$(($(wc -l < "$OWN/dump-1.txt") + 2)): ')[0]")"
check "hostile source: the JSON keeps the exact source" 'y = **x** + `z` <script>alert(1)</script>' \
    "$(jget "$T/hostile.json" 'd["census"]["sites"][0]["source"]')"
run check "$T/hostile" --all-files
check "hostile name: check text has no control character" 0 "$(raw_ctl "$T/stdout")"
check "hostile name: check text names it escaped" yes \
    "$(grep -qF "$esc_name" "$T/stdout" && echo yes)"

# ---- writing reports: whole or not at all ----------------------------------
run summarize "$NAT"/cpython-3.13.5-whole --json "$T/no-such-dir/x.json"
check "report into a missing directory: exit 3" 3 "$rc"
check "report into a missing directory: nothing left" "" "$(ls "$T/no-such-dir" 2>/dev/null)"
if [ -w /dev/full ]; then
    "$PYSTATS" summarize "$NAT"/cpython-3.13.5-whole > /dev/full 2> "$T/stderr"
    check "full stdout: exit 3" 3 "$?"
fi
# A real full disk: a tiny tmpfs, where the system lets us mount one.
mkdir "$T/tiny"
if mount -t tmpfs -o size=12k tmpfs "$T/tiny" 2>/dev/null; then
    echo old > "$T/tiny/report.md"
    run summarize "$NAT"/cpython-3.13.5-whole --markdown "$T/tiny/report.md"
    check "full disk: exit 3" 3 "$rc"
    check "full disk: old report untouched" old "$(cat "$T/tiny/report.md")"
    check "full disk: no temporary file left" "report.md" "$(ls -A "$T/tiny" | tr '\n' ' ' | sed 's/ $//')"
    umount "$T/tiny"
else
    echo "skip full disk on tmpfs (cannot mount here)"
fi

# ---- pystats compare ------------------------------------------------------
# GOLDEN_PARTS: the parts sourced after the native and own fixtures
# above (make test-quick runs a few of them).
for part in ${GOLDEN_PARTS:-compare check own_keys usage overview portable annotate planted versions cpython_json runs sitefx}; do
    . "$HERE/$part.sh"
done

echo "golden: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
