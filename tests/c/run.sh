#!/bin/sh
# tests/c/run.sh: run every cmocka test binary in DIR, check that the
# generated opcode tables match data/tables, and end with the one line
# "c-unit: N passed, N failed".
dir=${1:-build/tests/c}
passed=0
failed=0
for t in "$dir"/test_*; do
    [ -x "$t" ] || continue
    out=$("$t" 2>&1)
    printf '%s\n' "$out"
    p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
    f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
    if [ -z "$p$f" ]; then
        echo "$t: no cmocka summary (crashed?)"
        f=1
    fi
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0}))
done
# The committed generated tables must match the TSVs they come from.
if awk -f src/format/psf_tables_gen.awk data/tables/*.tsv | cmp -s - src/format/psf_tables_data.c; then
    echo "[       OK ] generated tables match data/tables"
    passed=$((passed + 1))
else
    echo "[  FAILED  ] src/format/psf_tables_data.c is stale: run 'make tables'"
    failed=$((failed + 1))
fi
echo "c-unit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
