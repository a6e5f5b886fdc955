# tests/golden/annotate.sh: `pystats annotate`, sourced by run.sh (it uses
# run.sh's check/ok/bad/run, $T and $HERE).
#
# annotate/ holds two hand-written dumps of one program (a parent and its child: one run) (FORMAT.md 1.18:
# per-line counts, site rows, the source text), whose file is gone; the
# page is checked against the raw lines by annotate_page.py, the text
# view here.

ANN=$HERE/annotate

run annotate "$ANN" --html "$T/ann.html"
check "annotate: exit status" 0 "$rc"
check "annotate: nothing on stderr" "" "$(cat "$T/stderr")"
out=$(python3 "$HERE/annotate_page.py" "$T/ann.html" "$ANN"/*)
check "annotate: the page's counts, sites and texts are the dumps'" "" \
    "$(printf '%s\n' "$out" | grep FAIL)"
check "annotate: figures compared" "yes" "$(printf '%s\n' "$out" | awk '/compared$/ && $1 > 10 { print "yes" }')"

run annotate "$ANN" --function f
check "annotate --function f: exit status" 0 "$rc"
check "annotate --function f: one function" "1" "$(grep -c '^== ' "$T/stdout")"
check "annotate --function f: line 5 summed over both dumps" \
    "$(awk_sum '^code\[.*:f\]\.line\[5\]$' "$ANN"/*)" \
    "$(awk '$2 == 5 && $3 == "return" { gsub(",", "", $1); print $1 }' "$T/stdout")"
check "annotate --function f: the no-line bucket" \
    "$(awk_sum '^code\[.*:f\]\.line\[none\]$' "$ANN"/*)" \
    "$(awk '$2 == "-" { gsub(",", "", $1); print $1 }' "$T/stdout")"
check "annotate --function f: a site two dumps disagree on says so" "1" \
    "$(grep -c 'backing off: LOAD_ATTR (3 attempts) \[1 of 2 dumps\]' "$T/stdout")"
check "annotate --function f: indentation kept from the dump's copy" "1" \
    "$(grep -c '^ *[0-9,]*     5      return x.y + 2$' "$T/stdout")"

run annotate "$ANN" --function nosuch
check "annotate --function nosuch: exit status" 1 "$rc"
check "annotate --function nosuch: says so" "1" "$(grep -c "no function with per-line counts matches 'nosuch'" "$T/stderr")"

run annotate "$HERE/hotcode"
check "annotate, dumps without per-line counts: exit status" 1 "$rc"
check "annotate, dumps without per-line counts: says why" "1" "$(grep -c 'no per-line counts' "$T/stderr")"

# The file as it is now, where the dump has no copy; a copy that differs
# from the file is flagged.
mkdir -p "$T/ann-src" "$T/ann-live"
printf 'import sys\n\n\ndef f(x):\n    return x.y + 3\n' > "$T/ann-src/app.py"
grep -v '^source\[' "$ANN/pystats-2-b.txt" | sed "s|/nonexistent/app|$T/ann-src|g" > "$T/ann-live/pystats-2-b.txt"
run annotate "$T/ann-live"
check "annotate, file on disk: its text shown" "1" "$(grep -c '     5      return x.y + 3$' "$T/stdout")"
check "annotate, file on disk: no change flagged" "0" "$(grep -c 'file changed' "$T/stdout")"
sed "s|/nonexistent/app|$T/ann-src|g" "$ANN/pystats-2-b.txt" > "$T/ann-live/pystats-2-b.txt"
run annotate "$T/ann-live"
check "annotate, file changed since the run: flagged" "1" "$(grep -c 'file changed since the run' "$T/stdout")"
check "annotate, file changed since the run: the dump's copy shown" "1" "$(grep -c '     5      return x.y + 2$' "$T/stdout")"

# A malformed site row names its file and line and is not counted.
mkdir -p "$T/ann-bad"
sed 's/| specialized | BINARY_OP_ADD_INT |/| bogus | X |/' "$ANN/pystats-2-b.txt" > "$T/ann-bad/pystats-2-b.txt"
run check "$T/ann-bad"
check "annotate, bad site row: check finds an error" 6 "$rc"
line=$(grep -n 'bogus' "$T/ann-bad/pystats-2-b.txt" | cut -d: -f1)
check "annotate, bad site row: file and line named" "1" \
    "$(grep -c "pystats-2-b.txt: line $line: source-view line is not as FORMAT.md 1.18 says" "$T/stdout")"
run annotate "$T/ann-bad"
check "annotate, bad site row: the view says untrusted" "1" "$(grep -c '^Trust: untrusted' "$T/stdout")"
check "annotate, bad site row: the file's other rows still shown" "1" "$(grep -c 'never tried: LOAD_ATTR' "$T/stdout")"

# check: per-line counts must add up to their code's instructions.
mkdir -p "$T/ann-sum"
sed 's/line\[5\] : 6$/line[5] : 7/' "$ANN/pystats-2-b.txt" > "$T/ann-sum/pystats-2-b.txt"
run check "$T/ann-sum"
check "check line-sums: an error" 6 "$rc"
want=$(awk_sum '^code\[.*:f\]\.line\[' "$T/ann-sum/pystats-2-b.txt")
check "check line-sums: the sums named" "1" \
    "$(grep -c "app.py:4:f: lines add up to $want, instructions $(awk_sum '^code\[.*:f\]\.instructions$' "$T/ann-sum/pystats-2-b.txt")" "$T/stdout")"
run check "$ANN"
check "check line-sums: the fixtures add up" 0 "$rc"

# --base: per line, counts per million instructions of each run (the
# instructions of the code objects with per-line counts), and the change.
run annotate "$ANN/pystats-1-a.txt" --base "$ANN/pystats-2-b.txt" --function f
check "annotate --base: exit status" 0 "$rc"
head_total=$(awk_sum '^code\[.*\]\.instructions$' "$ANN/pystats-1-a.txt")
base_total=$(awk_sum '^code\[.*\]\.instructions$' "$ANN/pystats-2-b.txt")
h=$(awk_sum '^code\[.*:f\]\.line\[5\]$' "$ANN/pystats-1-a.txt")
b=$(awk_sum '^code\[.*:f\]\.line\[5\]$' "$ANN/pystats-2-b.txt")
want=$(awk -v h="$h" -v b="$b" -v H="$head_total" -v B="$base_total" \
    'BEGIN { printf "%.1f %.1f %+.1f", 1e6 * h / H, 1e6 * b / B, 1e6 * h / H - 1e6 * b / B }')
check "annotate --base: line 5 per million here, there, the change" "$want" \
    "$(awk '$5 == 5 && $6 == "return" { print $2, $3, $4 }' "$T/stdout")"
check "annotate --base: a site that changed state says so" "1" \
    "$(grep -c 'backing off: LOAD_ATTR (3 attempts) \[base: never tried\]' "$T/stdout")"
run annotate "$ANN/pystats-2-b.txt" --base "$ANN/pystats-1-a.txt"
check "annotate --base: a function only here" "0" "$(grep -c 'not in the base run' "$T/stdout")"
run annotate "$ANN/pystats-1-a.txt" --base "$ANN/pystats-2-b.txt"
check "annotate --base: a function not in the base says so" "1" "$(grep -c 'not in the base run' "$T/stdout")"
# Another Python version: every compared line is marked.
mkdir -p "$T/ann-313"
sed 's/^meta.python.version : 3.12.1$/meta.python.version : 3.13.0/' "$ANN/pystats-2-b.txt" > "$T/ann-313/b.txt"
run annotate "$ANN/pystats-1-a.txt" --base "$T/ann-313" --function f
check "annotate --base, another version: said once per function" "1" "$(grep -c 'Python 3.12 against 3.13: the bytecode of each line differs' "$T/stdout")"
check "annotate --base, another version: every compared line marked" "2" "$(grep -c '[0-9]~ ' "$T/stdout")"
run annotate "$ANN/pystats-1-a.txt" --base "$T/nonexistent-base"
check "annotate --base missing: exit status" 1 "$rc"

# code_lines.omitted: hot code past the dump's bound on lines, said, and
# not an "other" counter in the summary.
mkdir -p "$T/ann-omit"
{ cat "$ANN/pystats-2-b.txt"; echo 'code_lines.omitted : 7'; } > "$T/ann-omit/a.txt"
{ cat "$ANN/pystats-1-a.txt"; echo 'code_lines.omitted : 5'; } > "$T/ann-omit/b.txt"
run annotate "$T/ann-omit"
check "annotate: code_lines.omitted summed and said" "1" "$(grep -c '^12 more code objects ran but have no per-line counts' "$T/stdout")"
run summarize "$T/ann-omit" --json "$T/ann-omit.json"
check "summarize: source-view keys are no other counters" "{}" "$(jget "$T/ann-omit.json" 'd["other"]')"

# The census's counts of what the source view's bounds left out are named
# in the summary, not shown as raw keys.
mkdir -p "$T/ann-cen"
{ cat "$ANN/pystats-2-b.txt"; echo 'census.code_objects : 1'; echo 'census.omitted_site_rows : 3'; \
  echo 'census.omitted_source_lines : 4'; } > "$T/ann-cen/a.txt"
run summarize "$T/ann-cen" --markdown "$T/ann-cen.md"
check "summarize: site rows left out, named" "1" "$(grep -c '^| Site rows left out (past the source view.s bound) | 3 |$' "$T/ann-cen.md")"
check "summarize: source lines left out, named" "1" "$(grep -c '^| Source lines left out (past the source view.s bound) | 4 |$' "$T/ann-cen.md")"
