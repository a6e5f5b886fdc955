# tests/golden/check.sh: golden tests of `pystats check`, the trust verdict
# of `summarize`, --by-label and --equal-weight, and `pystats run`; sourced
# by run.sh (it uses run.sh's check/ok/bad/jget/awk_sum/run, $T, $HERE,
# $NAT and $OWN).  Expected figures come from awk over the raw fixtures;
# each bad set is a fixture with one defect made by sed or awk.

W13=$NAT/cpython-3.13.5-whole
WIN=$NAT/cpython-3.13.5-windowed
W11=$NAT/cpython-3.11.2-whole
OWN=$HERE/own
exec_re='^opcode\[[^]]*\]\.execution_count$'

# has_finding JSON CHECK SEVERITY: "yes" if the check JSON has that finding.
has_finding() {
    jget "$1" "'yes' if any(f['check'] == '$2' and f['severity'] == '$3' for f in d['findings']) else 'no: ' + ', '.join(f['check'] + '/' + f['severity'] for f in d['findings'])"
}
# finding_files JSON CHECK: the basenames of a finding's files.
finding_files() {
    jget "$1" "' '.join(sorted(set(p.rsplit('/', 1)[-1] for f in d['findings'] if f['check'] == '$2' for p in f['files'])))"
}
# check_case NAME CHECK SEVERITY EXIT INPUT...: check INPUT, expect a finding.
check_case() {
    name=$1 ck=$2 sev=$3 want=$4
    shift 4
    run check "$@" --json "$T/$name.json"
    check "check $name: exit status" "$want" "$rc"
    check "check $name: $ck is a(n) $sev" yes "$(has_finding "$T/$name.json" "$ck" "$sev")"
}
# own_dump FILE [AWK-PROGRAM]: the first own fixture, edited.
own_dump() {
    awk "${2:-{ print \}}" "$OWN/dump-1.txt" > "$1"
}

# ---- clean sets: no errors, the notes that always hold ------------------
for set in cpython-3.11.2-whole cpython-3.13.5-whole cpython-3.13.5-windowed; do
    run check "$NAT/$set" --json "$T/ck-$set.json"
    check "check $set: exit status" 0 "$rc"
    check "check $set: verdict" ok "$(jget "$T/ck-$set.json" 'd["verdict"]')"
    check "check $set: no errors or warnings" "0 0" \
        "$(jget "$T/ck-$set.json" 'str(d["counts"]["error"]) + " " + str(d["counts"]["warning"])')"
    cache=CACHE
    case $set in *3.11*) cache=0 ;; esac
    n=$(awk_sum "^opcode\\[$cache\\]\\.pair_count\\[" "$NAT/$set"/*)
    check "check $set: CACHE pairs counted from the raw files" "$n" \
        "$(jget "$T/ck-$set.json" '[f["summary"] for f in d["findings"] if f["check"] == "cache-pairs"][0].split(" pairs")[0].split(": ")[1].replace(",", "")')"
done
n=$(awk_sum '^opcode\[LOAD_NAME\]\.execution_count$' "$WIN"/*)
check "fixtures: the windowed set ran LOAD_NAME (its module-level on/off lines)" yes \
    "$([ "$n" -gt 0 ] && echo yes)"
check "check windowed: leakage names LOAD_NAME with its count" "LOAD_NAME $n" \
    "$(jget "$T/ck-cpython-3.13.5-windowed.json" '[f["summary"] for f in d["findings"] if f["check"] == "leakage"][0].split(": ", 1)[1]')"
n=$(awk_sum '^opcode\[IMPORT_NAME\]\.execution_count$' "$W13"/*)
check "check whole: leakage shows the startup imports" yes \
    "$(jget "$T/ck-cpython-3.13.5-whole.json" "'yes' if any('IMPORT_NAME ' + format($n, ',') in f['summary'] for f in d['findings'] if f['check'] == 'leakage') else 'no'")"
run check "$W13" --quiet
check "check --quiet: the verdict line only" "verdict: ok: no errors or warnings in 2 files (2 notes)" "$(cat "$T/stdout")"
run check "$W13"
check "check text: one block per finding and the verdict" "note    leakage: note    cache-pairs: verdict: ok" \
    "$(grep -o '^note    [a-z-]*:\|^verdict: [a-z]*' "$T/stdout" | tr '\n' ' ' | sed 's/ $//')"

# ---- the inputs themselves --------------------------------------------------
mkdir "$T/ck-none"
run check "$T/ck-none" --json "$T/ck-none.json"
check "check no files: exit 1" 1 "$rc"
check "check no files: no-files is an error" yes "$(has_finding "$T/ck-none.json" no-files error)"
good=$W13/111729eea60377f5a5fab472549765b8e072a2fd.txt
mkdir "$T/ck-trunc"
cp "$good" "$T/ck-trunc/good.txt"
head -c 30000 "$good" > "$T/ck-trunc/cut.txt"
check_case trunc truncated error 6 "$T/ck-trunc"
check "check truncated: the cut file is named" cut.txt "$(finding_files "$T/trunc.json" truncated)"
mkdir "$T/ck-empty"
cp "$good" "$T/ck-empty/good.txt"
: > "$T/ck-empty/zero.txt"
check_case empty empty error 6 "$T/ck-empty"
check "check empty: the empty file is named" zero.txt "$(finding_files "$T/empty.json" empty)"
mkdir "$T/ck-unparsable"
awk 'NR == 4 { print "not a counter" } { print }' "$good" > "$T/ck-unparsable/x.txt"
check_case unparsable unparsable error 6 "$T/ck-unparsable"
mkdir "$T/ck-zero"
sed 's/: [0-9]*$/: 0/' "$good" > "$T/ck-zero/zero.txt"
check_case allzero-only all-zero error 6 "$T/ck-zero"
cp "$good" "$T/ck-zero/good.txt"
check_case allzero-some all-zero warning 0 "$T/ck-zero"

# ---- mixes ---------------------------------------------------------------------
check_case mixed-versions mixed-versions error 6 "$W11" "$W13"
check_case mixed-sources mixed-sources error 6 "$OWN" "$W13"
check_case mixed-formats mixed-formats warning 0 "$W13" "$HERE/cpython-json/cpython-3.13.5-whole.json"
mkdir "$T/ck-builds"
cp "$OWN/dump-1.txt" "$T/ck-builds/a.txt"
sed 's/^meta.python.sys_version : 3.12.1 (main/meta.python.sys_version : 3.12.1 (debug/; s/^meta.process.pid : 4242/meta.process.pid : 4244/' \
    "$OWN/dump-1.txt" > "$T/ck-builds/b.txt"
check_case mixed-builds mixed-builds error 6 "$T/ck-builds"
# The build as the collector writes it (format 2: free text encoded,
# FORMAT.md 1.16) is shown decoded.
mkdir "$T/ck-builds-enc"
ENC='s/^pystats.format : 1/pystats.format : 2/; s/^meta.python.sys_version : 3.12.1 (main, Jan  1 2026, 00:00:00) \[GCC 12.2.0\]/meta.python.sys_version : 3.12.1 (main, Jan  1 2026, 00%3A00%3A00) %5BGCC 12.2.0%5D/'
sed "$ENC" "$OWN/dump-1.txt" > "$T/ck-builds-enc/a.txt"
sed "$ENC; s/(main/(debug/; s/^meta.process.pid : 4242/meta.process.pid : 4244/" \
    "$OWN/dump-1.txt" > "$T/ck-builds-enc/b.txt"
check_case mixed-builds-enc mixed-builds error 6 "$T/ck-builds-enc"
check "check mixed-builds: the build shown decoded" 1 \
    "$(jget "$T/mixed-builds-enc.json" '[f["summary"] for f in d["findings"] if f["check"] == "mixed-builds"][0].count("3.12.1 (debug, Jan  1 2026, 00:00:00) [GCC 12.2.0]")')"
mkdir "$T/ck-modes"
cp "$OWN/dump-1.txt" "$T/ck-modes/a.txt"
sed 's/^meta.collection.mode : count/meta.collection.mode : sample/; s/^meta.process.pid : 4242/meta.process.pid : 4245/' \
    "$OWN/dump-1.txt" > "$T/ck-modes/b.txt"
check_case mixed-modes mixed-modes error 6 "$T/ck-modes"

run summarize "$OWN" --json "$T/own-summary.json"
check_case summary-input summary-input note 0 "$T/own-summary.json"

# ---- duplicates ------------------------------------------------------------------
mkdir "$T/ck-dup"
cp "$OWN/dump-1.txt" "$T/ck-dup/a.txt"
cp "$OWN/dump-1.txt" "$T/ck-dup/copy.txt"
cp "$OWN/dump-2.txt" "$T/ck-dup/other.txt"
check_case dup-own duplicate-content error 6 "$T/ck-dup"
check "check duplicate: both copies named" "a.txt copy.txt" "$(finding_files "$T/dup-own.json" duplicate-content)"
mkdir "$T/ck-dupnat"
cp "$good" "$T/ck-dupnat/a.txt"
cp "$good" "$T/ck-dupnat/b.txt"
check_case dup-native duplicate-content warning 0 "$T/ck-dupnat"
run check "$T/ck-dupnat" --strict
check "check --strict: a warning fails" 6 "$rc"
mkdir "$T/ck-dupproc"
cp "$OWN/dump-1.txt" "$T/ck-dupproc/a.txt"
sed 's/^opcode\[CALL\].execution_count : 75/opcode[CALL].execution_count : 76/' "$OWN/dump-1.txt" > "$T/ck-dupproc/b.txt"
check_case dup-process duplicate-process error 6 "$T/ck-dupproc"

# ---- a writer killed mid-dump ------------------------------------------------------
mkdir "$T/ck-hidden"
cp "$OWN/dump-1.txt" "$T/ck-hidden/a.txt"
head -n 20 "$OWN/dump-2.txt" > "$T/ck-hidden/.pystats-4242-0123456789abcdef.tmp"
printf 'x\n' > "$T/ck-hidden/.notes"
check_case hidden cut-short-temporaries warning 0 "$T/ck-hidden"
check "check hidden: the temporary named, other hidden files not" \
    ".pystats-4242-0123456789abcdef.tmp" "$(finding_files "$T/hidden.json" cut-short-temporaries)"
check "check hidden: the temporary is not read" 1 "$(jget "$T/hidden.json" 'd["files"]')"

# ---- counts that cannot happen -------------------------------------------------
mkdir "$T/ck-exceed"
own_dump "$T/ck-exceed/x.txt" '/^opcode\[LOAD_FAST\].pair_count\[LOAD_ATTR\]/ { print "opcode[LOAD_FAST].pair_count[LOAD_ATTR] : 1300"; next } { print }'
check_case pairs-exceed pairs-exceed-executions error 6 "$T/ck-exceed"
check "check pairs-exceed: says which instruction" yes \
    "$(jget "$T/pairs-exceed.json" "'yes' if any('LOAD_FAST: 1300 pairs start with it, 1200 executions' in x for f in d['findings'] for x in f['details']) else 'no'")"
mkdir "$T/ck-nostart"
printf 'pystats.format : 1\nmeta.python.version : 3.12.1\nmeta.collection.windows : 1\nopcode[NOP].execution_count : 2\nopcode[NOP].pair_count[NOP] : 2\n' > "$T/ck-nostart/x.txt"
check_case no-start no-sequence-start error 6 "$T/ck-nostart"
mkdir "$T/ck-into"
sed 's/^\( *opcode\[LOAD_ATTR\]\.execution_count : \)\([0-9]*\)/\11\2/' "$good" > "$T/ck-into/x.txt"
check_case pairs-into pairs-into-mismatch error 6 "$T/ck-into"
mkdir "$T/ck-spec"
own_dump "$T/ck-spec/x.txt" '{ sub(/^opcode\[LOAD_ATTR\]\.execution_count/, "opcode[LOAD_ATTR_SLOT].execution_count"); print }'
check_case specialized specialized-in-base error 6 "$T/ck-spec"
mkdir "$T/ck-cache"
own_dump "$T/ck-cache/x.txt" '{ print } END { print "opcode[CACHE].execution_count : 3" }'
check_case cache-counted cache-counted error 6 "$T/ck-cache"
mkdir "$T/ck-nowin"
own_dump "$T/ck-nowin/x.txt" '{ sub(/^meta.collection.windows : 1/, "meta.collection.windows : 0"); print }'
check_case no-window no-window error 6 "$T/ck-nowin"
mkdir "$T/ck-time"
own_dump "$T/ck-time/x.txt" '{ sub(/^meta.time.end : .*/, "meta.time.end : 2026-11-29T22:19:51.000000Z"); print }'
check_case time-order time-order error 6 "$T/ck-time"
mkdir "$T/ck-hits"
sed 's/^\( *opcode\[LOAD_ATTR\]\.specialization\.success\) : [0-9]*/\1 : 0/' "$good" > "$T/ck-hits/x.txt"
check_case hits hits-without-successes warning 0 "$T/ck-hits"
# The same in CPython's published aggregates (20 processes each, stats on
# after warm-up): normal there, a note; the verdict stays ok.
PUB=$HERE/published/bm-20250110-3.14.0a3+-802556a
check_case published-hits hits-without-successes note 0 "$PUB"
check "check published: no warning" 0 "$(jget "$T/published-hits.json" 'd["counts"]["warning"] + d["counts"]["error"]')"
check "check published: STORE_ATTR among the families" yes \
    "$(jget "$T/published-hits.json" "'yes' if any('STORE_ATTR (107999640 hits)' in x for f in d['findings'] if f['check'] == 'hits-without-successes' for x in f['details']) else 'no'")"

# ---- this collector's own headers ----------------------------------------------
check_case own os-exit note 0 "$OWN"
check "check own: fork child noted" yes "$(has_finding "$T/own.json" forked note)"
check "check own: windows per dump" "1 window in 1 dump; 2 windows in 1 dump" \
    "$(jget "$T/own.json" '[f["summary"] for f in d["findings"] if f["check"] == "windows"][0]')"
e=$(awk_sum "$exec_re" "$OWN/dump-1.txt")
p=$(awk_sum '^opcode\[[^]]*\]\.pair_count\[' "$OWN/dump-1.txt")
check "check own: starts = executions - pairs" yes \
    "$(jget "$T/own.json" "'yes' if any('= $((e - p)) starts in 1 window ' in x for f in d['findings'] for x in f['details']) else 'no'")"
mkdir "$T/ck-sig"
own_dump "$T/ck-sig/x.txt" '{ sub(/^meta.dump.reason : exit/, "meta.dump.reason : signal"); print }'
check_case killed killed warning 0 "$T/ck-sig"
mkdir "$T/ck-leak"
own_dump "$T/ck-leak/x.txt" '{ sub(/^meta.collection.windows : 1/, "meta.collection.windows : 3"); sub(/^meta.collection.on_at_dump : 0/, "meta.collection.on_at_dump : 1"); print } END { print "opcode[IMPORT_NAME].execution_count : 4" }'
check_case leak-windowed leakage warning 0 "$T/ck-leak"
check "check windowed own dump left on: on-at-exit is a warning" yes "$(has_finding "$T/leak-windowed.json" on-at-exit warning)"
mkdir "$T/ck-orphan"
own_dump "$T/ck-orphan/x.txt" '{ sub(/^meta.process.forked : 0/, "meta.process.forked : 1"); sub(/^meta.process.ppid : 1/, "meta.process.ppid : 999"); print }'
check_case parent-missing parent-missing note 0 "$T/ck-orphan"

# ---- summarize: the verdict, --by-label, --equal-weight -------------------------
run summarize "$T/ck-dup"
check "summarize: trust verdict at the top, its reason and magnitude (2 copies of 3 files)" "**Trust:** untrusted: duplicate-content in 2 of 3 files (collector dumps with identical content); 1 error, 0 warnings, 4 notes. See Findings below." \
    "$(sed -n 7p "$T/stdout")"
mkdir "$T/labels"
cp "$OWN/dump-1.txt" "$T/labels/a.txt"                      # label bench-a
sed 's/^meta.label : bench-a/meta.label : bench-b/' "$OWN/dump-2.txt" > "$T/labels/b.txt"
run summarize "$T/labels" --by-label --json "$T/labels.json"
check "--by-label: a group per label" "bench-a bench-b" \
    "$(jget "$T/labels.json" '" ".join(g["meta"]["label"] for g in d["groups"])')"
check "--by-label: each label's own totals" "$(awk_sum "$exec_re" "$T/labels/a.txt") $(awk_sum "$exec_re" "$T/labels/b.txt")" \
    "$(jget "$T/labels.json" '" ".join(str(g["meta"]["total_execution_count"]) for g in d["groups"])')"
run summarize "$T/labels" --by-label
check "--by-label: no mix warning for labels of one kind" 0 "$(grep -c 'mix' "$T/stdout")"
ta=$(awk_sum "$exec_re" "$T/labels/a.txt")
tb=$(awk_sum "$exec_re" "$T/labels/b.txt")
fa=$(awk_sum '^opcode\[LOAD_FAST\]\.execution_count$' "$T/labels/a.txt")
fb=$(awk_sum '^opcode\[LOAD_FAST\]\.execution_count$' "$T/labels/b.txt")
want=$(awk -v ta="$ta" -v tb="$tb" -v fa="$fa" -v fb="$fb" 'BEGIN { m = ta > tb ? ta : tb;
    printf "%d %d\n", int(fa * m / ta + 0.5) + int(fb * m / tb + 0.5), m }')
run summarize "$T/labels" --equal-weight --json "$T/eq.json"
check "--equal-weight: LOAD_FAST is each label scaled to the largest total" "$want" \
    "$(jget "$T/eq.json" 'str(d["opcodes"]["LOAD_FAST"]["execution_count"]) + " " + str(d["meta"]["equal_weight"]["executions_per_label"])')"

# ---- bad input found by fuzzing: no crash, no sanitizer report ---------------
for f in "$HERE"/bad-input/*/*; do
    [ -f "$f" ] || continue
    entry=$(basename "$(dirname "$f")")
    name=bad-input/$entry/$(basename "$f")
    rm -rf "$T/regress.txt"
    case $entry in
    own) { echo 'pystats.format : 1'; cat "$f"; } > "$T/regress.txt" ;;
    roundtrip) { echo 'pystats.format : 2'; cat "$f"; } > "$T/regress.txt" ;;
    # A set (tests/fuzz/fuzz_set.c): an options byte, then files split at
    # "\n--- file\n", read as one directory.
    set) python3 -c 'import os, sys
d = sys.argv[2]; os.mkdir(d)
for i, b in enumerate(open(sys.argv[1], "rb").read()[1:].split(b"\n--- file\n")[:24]):
    open(os.path.join(d, "f%02d" % i), "wb").write(b)' "$f" "$T/regress.txt" ;;
    summary|cpython) cp "$f" "$T/regress.txt.json"; mv "$T/regress.txt.json" "$T/regress.txt" ;;
    *) cp "$f" "$T/regress.txt" ;;
    esac
    for cmd in summarize check; do
        run $cmd "$T/regress.txt" --json "$T/regress.json"
        if [ "$rc" -lt 4 ] || [ "$rc" -eq 6 ]; then ok "$name: $cmd exits normally ($rc)"
        else bad "$name: $cmd exit $rc: $(tail -3 "$T/stderr")"; fi
    done
done

# ---- pystats run, with stand-in commands (tests/py/test_run.py runs Python) ----
mkdir "$T/bin"
cat > "$T/bin/fake-python" <<EOF
#!/bin/sh
# Writes one collector dump where the collector would, and its environment.
echo "\$PYTHONSTATS \$PYSTATS_LABEL \$PYSTATS_BACKEND" > "$T/run-env.txt"
sed "s/^meta.label : .*/meta.label : \$PYSTATS_LABEL/" "$OWN/dump-1.txt" > "\$PYSTATS_DIR/pystats-\$\$-0000000000000001.txt"
exit \${FAKE_EXIT:-0}
EOF
chmod +x "$T/bin/fake-python"
run run -o "$T/run1" --label suite-a -- "$T/bin/fake-python"
check "run: exit status" 0 "$rc"
check "run: the environment it sets (PYTHONSTATS=1: the collector's default mode)" "1 suite-a own" "$(cat "$T/run-env.txt")"
check "run: nothing on stdout but the command's" "" "$(cat "$T/stdout")"
check "run: the summary in the run's report directory" "# pystats summary" "$(head -1 "$T/run1/report/summary.md")"
check "run: the summary has the label" 1 "$(grep -c '^| meta.label | suite-a (1) |' "$T/run1/report/summary.md")"
check "run: the headline names the reports" "pystats run: reports: $T/run1/report/summary.md $T/run1/report/summary.json $T/run1/report/summary.html" "$(grep '^pystats run: reports: ' "$T/stderr")"
check "run: the verdict on stderr" 1 "$(grep -c '^pystats run: trust: ok: ' "$T/stderr")"
run run -o "$T/run1" -- "$T/bin/fake-python"
check "run: a directory with files is refused (a usage error)" 2 "$rc"
FAKE_EXIT=3 run run -o "$T/run2" -- "$T/bin/fake-python"
check "run: a failing command: exit 7, summary still written" "7 # pystats summary" "$rc $(head -1 "$T/run2/report/summary.md")"
run run -o "$T/run3" -- sh -c 'exit 0'
check "run: no dump is an error" 1 "$rc"
check "run: no dump says so" 1 "$(grep -c 'the run wrote no dump into' "$T/stderr")"
printf '#!/bin/sh\necho "$@" > "%s/pyperf-args.txt"\n' "$T" > "$T/bin/pyperf"
chmod +x "$T/bin/pyperf"
run run -o "$T/run4" -- "$T/bin/pyperf" timeit -p 2 'pass'
check "run: pyperf's workers are given our variables" \
    "timeit --inherit-environ PYTHONSTATS,PYSTATS_DIR,PYSTATS_LABEL,PYSTATS_BACKEND -p 2 pass" \
    "$(cat "$T/pyperf-args.txt")"
run run -o "$T/run4b" -- "$T/bin/pyperf" command --inherit-environ=HOME -- x
check "run: a pyperf --inherit-environ list is extended" \
    "command --inherit-environ=HOME,PYTHONSTATS,PYSTATS_DIR,PYSTATS_LABEL,PYSTATS_BACKEND -- x" \
    "$(cat "$T/pyperf-args.txt")"
run run -o "$T/run4c" -- "$T/bin/pyperf" show x.json
check "run: pyperf without --inherit-environ is named when nothing was written" 1 \
    "$(grep -c 'add --inherit-environ PYTHONSTATS,PYSTATS_DIR' "$T/stderr")"
printf '#!/bin/sh\nexit 0\n' > "$T/bin/python3.99"
chmod +x "$T/bin/python3.99"
run run -o "$T/run5" -- "$T/bin/python3.99" -E -c pass
check "run: python -E is named" 1 "$(grep -c 'ignores PYTHONSTATS and PYSTATS_DIR (-E)' "$T/stderr")"
run run -o "$T/run6" -- "$T/bin/python3.99" -IS script.py
check "run: -I and -S in one group are named" 2 "$(grep -c 'ignores PYTHONSTATS and PYSTATS_DIR (-I)\|^  - -S: ' "$T/stderr")"
# Parallel runs never share a directory.
"$PYSTATS" run --quiet -- "$T/bin/fake-python" > "$T/par1.out" 2> "$T/par1.err" &
p1=$!
"$PYSTATS" run --quiet -- "$T/bin/fake-python" > "$T/par2.out" 2> "$T/par2.err" &
p2=$!
wait $p1
wait $p2
d1=$(sed -n 's/^pystats run: dumps go to //p' "$T/par1.err")
d2=$(sed -n 's/^pystats run: dumps go to //p' "$T/par2.err")
check "run: parallel runs get their own directories" "yes 1 1" \
    "$([ -n "$d1" ] && [ "$d1" != "$d2" ] && echo yes) $(find "$d1" -maxdepth 1 -type f | wc -l | tr -d ' ') $(find "$d2" -maxdepth 1 -type f | wc -l | tr -d ' ')"
case $d1 in /tmp/py_stats/run-*) rm -rf "$d1" ;; esac
case $d2 in /tmp/py_stats/run-*) rm -rf "$d2" ;; esac

# ---- a report into a device or a pipe is written in place --------------
if mkfifo "$T/fifo" 2>/dev/null; then
    cat "$T/fifo" > "$T/fifo.out" &
    run summarize "$W13" --json "$T/fifo"
    wait
    check "report into a FIFO: exit status" 0 "$rc"
    check "report into a FIFO: still a FIFO, the JSON went through it" "yes 2" \
        "$([ -p "$T/fifo" ] && echo yes) $(jget "$T/fifo.out" 'd["meta"]["files"]')"
fi
