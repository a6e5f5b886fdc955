#!/bin/sh
# tests/fuzz/run.sh: run the libFuzzer harnesses.
#
# Usage: sh tests/fuzz/run.sh quick|long SECONDS BUILD_DIR
#
# For each entry point (native, own, summary, cpython, and set: several
# files read as a directory, tests/fuzz/fuzz_set.c; roundtrip: a dump's
# summary read back, tests/fuzz/fuzz_roundtrip.c; expr: --fail-if
# expressions, tests/fuzz/fuzz_expr.c): first every
# regression input of tests/golden/bad-input/<entry> (each was a crash
# once: it must run clean now), then SECONDS of fuzzing from the seeds
# (tests/fuzz/seeds/<entry> and the golden fixtures) into the corpus
# BUILD_DIR/corpus/<entry>.  A crash is written to BUILD_DIR/crash-<entry>-*
# and fails the entry.  Ends with "fuzz: N passed, N failed".
mode=${1:-quick}
secs=${2:-10}
b=${3:-build/fuzz}
passed=0
failed=0
total_runs=0

ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }

for e in native own summary cpython set roundtrip expr; do
    bin=$b/fuzz-$e
    corpus=$b/corpus/$e
    mkdir -p "$corpus"
    seeds=tests/fuzz/seeds/$e
    case $e in
    native) seeds="$seeds tests/golden/native/cpython-3.11.2-whole tests/golden/native/cpython-3.13.5-whole tests/golden/native/cpython-3.13.5-windowed" ;;
    cpython) seeds="$seeds tests/golden/cpython-json" ;;
    # Dump bodies, as entry own.
    roundtrip) seeds="$seeds tests/fuzz/seeds/own" ;;
    # --fail-if expressions (tests/fuzz/fuzz_expr.c): seeds and words of
    # their own.
    expr) seeds=tests/fuzz/seeds-expr dict=tests/fuzz/expr.dict maxlen=512 ;;
    # Longer inputs: several files each.
    set) maxlen=65536 ;;
    esac
    maxlen=${maxlen:-16384}
    reg=tests/golden/bad-input/$e
    if [ -d "$reg" ] && [ -n "$(ls "$reg")" ]; then
        n=$(ls "$reg" | wc -l | tr -d ' ')
        if "$bin" "$reg"/* > "$b/regress-$e.log" 2>&1; then
            ok "$e: $n regression inputs run clean"
        else
            bad "$e: a regression input fails again (see $b/regress-$e.log)"
            tail -n 30 "$b/regress-$e.log"
        fi
    fi
    # -rss_limit_mb: a summary of a hostile file must stay small too.
    # shellcheck disable=SC2086
    "$bin" -max_total_time="$secs" -max_len="$maxlen" -rss_limit_mb=1024 -timeout=10 \
        -dict="${dict:-tests/fuzz/pystats.dict}" -artifact_prefix="$b/crash-$e-" \
        -print_final_stats=1 "$corpus" $seeds > "$b/fuzz-$e.log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$b/fuzz-$e.log" | tail -1)
    total_runs=$((total_runs + ${runs:-0}))
    maxlen=
    dict=
    if [ "$rc" -eq 0 ]; then
        ok "$e: ${secs}s, ${runs:-?} inputs, corpus $(ls "$corpus" | wc -l | tr -d ' ') files"
    else
        bad "$e: crash after ${runs:-?} inputs (see $b/fuzz-$e.log, $b/crash-$e-*)"
        grep -m 5 -A 12 'ERROR\|runtime error' "$b/fuzz-$e.log"
    fi
done
echo "($mode: $total_runs inputs in total)"
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
