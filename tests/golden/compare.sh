# tests/golden/compare.sh: golden tests of `pystats compare`, sourced by
# run.sh (it uses run.sh's check/ok/bad/jget/awk_sum/run, $T, $HERE and
# $NAT).  Expected figures come from awk over the raw fixtures, never
# from the program's own output; expected reports are in expected/.

W=$NAT/cpython-3.13.5-whole
WIN=$NAT/cpython-3.13.5-windowed
exec_re='^opcode\[[^]]*\]\.execution_count$'

# ---- 3.13 whole program against a window -----------------------------------
run compare "$W" "$WIN" --json "$T/cw.json" --markdown "$T/cw.md"
check "compare whole/windowed: exit status" 0 "$rc"
tw=$(awk_sum "$exec_re" "$W"/*)
tn=$(awk_sum "$exec_re" "$WIN"/*)
check "compare whole/windowed: base instructions" "$tw" \
    "$(jget "$T/cw.json" '[r["base"] for r in d["sections"]["total"]["rows"] if r["name"] == "instructions"][0]')"
check "compare whole/windowed: head instructions" "$tn" \
    "$(jget "$T/cw.json" '[r["head"] for r in d["sections"]["total"]["rows"] if r["name"] == "instructions"][0]')"
imp_w=$(awk_sum '^opcode\[IMPORT_NAME\]\.execution_count$' "$W"/*)
imp_n=$(awk_sum '^opcode\[IMPORT_NAME\]\.execution_count$' "$WIN"/*)
check "fixtures: IMPORT_NAME runs in the whole program only" "nonzero 0" \
    "$([ "$imp_w" -gt 0 ] && echo nonzero) $imp_n"
check "compare whole/windowed: IMPORT_NAME on the whole-program side only" "$imp_w 0 -1.0" \
    "$(jget "$T/cw.json" '" ".join(str(x) for r in d["sections"]["execution"]["rows"] if r["name"] == "IMPORT_NAME" for x in (r["base"], r["head"], r["rel_pm"]))')"
check "compare whole/windowed: IMPORT_NAME family too" "$imp_w 0" \
    "$(jget "$T/cw.json" '" ".join(str(x) for r in d["sections"]["family"]["rows"] if r["name"] == "IMPORT_NAME" for x in (r["base"], r["head"]))')"
la_w=$(awk_sum '^opcode\[LOAD_ATTR(_[A-Z_]+)?\]\.execution_count$' "$W"/*)
la_n=$(awk_sum '^opcode\[LOAD_ATTR(_[A-Z_]+)?\]\.execution_count$' "$WIN"/*)
check "compare whole/windowed: LOAD_ATTR family, both sides" "$la_w $la_n" \
    "$(jget "$T/cw.json" '" ".join(str(r["base"]) + " " + str(r["head"]) for r in d["sections"]["family"]["rows"] if r["name"] == "LOAD_ATTR")')"
check "compare whole/windowed: LOAD_ATTR family per million instructions" True \
    "$(jget "$T/cw.json" "[abs(r['head_pm'] - $la_n * 1e6 / $tn) < 1e-6 and abs(r['base_pm'] - $la_w * 1e6 / $tw) < 1e-6 for r in d['sections']['family']['rows'] if r['name'] == 'LOAD_ATTR'][0]")"
hit=$(awk_sum '^opcode\[LOAD_ATTR\]\.specialization\.hit$' "$W"/*)
miss=$(awk_sum '^opcode\[LOAD_ATTR\]\.specialization\.miss$' "$W"/*)
ex=$(awk_sum '^opcode\[LOAD_ATTR\]\.execution_count$' "$W"/*)
check "compare whole/windowed: LOAD_ATTR hit ratio compared as a share" True \
    "$(jget "$T/cw.json" "[abs(r['base'] - $hit / ($hit + $miss + $ex)) < 1e-12 for r in d['sections']['specialization']['rows'] if r['name'] == 'LOAD_ATTR.hit_ratio'][0]")"
check "compare whole/windowed: rows sorted by share of change" True \
    "$(jget "$T/cw.json" 'all([(r["folded"], -r["weight"]) for r in s["rows"]] == sorted((r["folded"], -r["weight"]) for r in s["rows"]) for s in d["sections"].values())')"
check "compare whole/windowed: shares of change add up to 1 per section" True \
    "$(jget "$T/cw.json" 'all(abs(sum(r["weight"] for r in s["rows"]) - 1) < 1e-9 or sum(r["weight"] for r in s["rows"]) == 0 for s in d["sections"].values())')"
check "compare whole/windowed: like for like, no warnings" "[]" "$(jget "$T/cw.json" 'd["warnings"]')"
check "compare whole/windowed: at most --top rows per Markdown table" True \
    "$(awk '/^\| :---/ { n = 0; intable = 1; next } intable && /^\|/ { n++; if (n > max) max = n; next } { intable = 0 } END { print (max <= 30) ? "True" : "False" }' "$T/cw.md")"
check "compare whole/windowed: folded rows counted" True \
    "$(jget "$T/cw.json" 'all(s["folded"] == sum(r["folded"] for r in s["rows"]) for s in d["sections"].values())')"
(cd "$HERE" && "$PYSTATS" compare native/cpython-3.13.5-whole native/cpython-3.13.5-windowed > "$T/cw-rel.md" 2>/dev/null)
(cd "$HERE" && "$PYSTATS" compare native/cpython-3.11.2-whole native/cpython-3.13.5-whole > "$T/cv-rel.md" 2>/dev/null)
for pair in "cw-rel compare-3.13-whole-windowed" "cv-rel compare-3.11-3.13"; do
    set -- $pair
    if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then cp "$T/$1.md" "$HERE/expected/$2.md"; fi
    if cmp -s "$HERE/expected/$2.md" "$T/$1.md"; then ok "compare: report matches expected/$2.md"
    else bad "compare: report differs from expected/$2.md"; diff "$HERE/expected/$2.md" "$T/$1.md" | head -20; fi
done

# ---- 3.11 against 3.13: by family, one-version opcodes marked ---------------------
run compare "$NAT"/cpython-3.11.2-whole "$W" --json "$T/cv.json"
check "compare 3.11/3.13: exit status" 0 "$rc"
check "compare 3.11/3.13: the version warning" 1 \
    "$(jget "$T/cv.json" 'sum("different Python versions (3.11 and 3.13)" in w for w in d["warnings"])')"
check "compare 3.11/3.13: warned on stderr too" 1 "$(grep -c 'different Python versions' "$T/stderr")"
precall=$(awk_sum '^opcode\[166\]\.execution_count$' "$NAT"/cpython-3.11.2-whole/*)
check "compare 3.11/3.13: PRECALL exists in 3.11 only" "base $precall 0" \
    "$(jget "$T/cv.json" '" ".join(str(x) for r in d["sections"]["execution"]["rows"] if r["name"] == "PRECALL" for x in (r["only"], r["base"], r["head"]))')"
check "compare 3.11/3.13: LOAD_FAST_LOAD_FAST exists in 3.13 only" "head 0" \
    "$(jget "$T/cv.json" '" ".join(str(x) for r in d["sections"]["family"]["rows"] if r["name"] == "LOAD_FAST_LOAD_FAST" for x in (r["only"], r["base"]))')"
check "compare 3.11/3.13: a family on both sides is not marked" "None" \
    "$(jget "$T/cv.json" '[r.get("only") for r in d["sections"]["family"]["rows"] if r["name"] == "LOAD_ATTR"][0]')"
run summarize "$NAT"/cpython-3.11.2-whole --json "$T/s311.json"
check "compare 3.11/3.13: the 3.11 LOAD_ATTR family adds up its forms" \
    "$(jget "$T/s311.json" 'sum(o.get("execution_count", 0) for o in d["opcodes"].values() if o["family"] == "LOAD_ATTR")')" \
    "$(jget "$T/cv.json" '[r["base"] for r in d["sections"]["family"]["rows"] if r["name"] == "LOAD_ATTR"][0]')"
check "compare 3.11/3.13: 3.11 family sum covers its 106 and *_ADAPTIVE forms" True \
    "$(jget "$T/s311.json" '"LOAD_ATTR_ADAPTIVE" in d["opcodes"] and d["opcodes"]["LOAD_ATTR_ADAPTIVE"]["family"] == "LOAD_ATTR"')"

# ---- own collector dumps against native: by family only ---------------------
run compare "$HERE/own" "$W" --json "$T/co.json"
check "compare own/native: exit status" 0 "$rc"
check "compare own/native: by family only" True "$(jget "$T/co.json" 'd["by_family_only"]')"
check "compare own/native: no per-instruction section" False "$(jget "$T/co.json" '"execution" in d["sections"]')"
check "compare own/native: the header says why" 1 \
    "$(jget "$T/co.json" 'sum("compared by family only" in w for w in d["warnings"])')"
check "compare own/native: pairs compared by family" \
    "$(awk_sum '^opcode\[LOAD_FAST\]\.pair_count\[LOAD_ATTR\]$' "$HERE"/own/*)" \
    "$(jget "$T/co.json" '[r["base"] for r in d["sections"]["pairs"]["rows"] if r["name"] == "LOAD_FAST LOAD_ATTR"][0]')"

# ---- JSON round trips: a summary compared against itself --------------------------
run summarize "$W" --json "$T/rt.json"
run compare "$T/rt.json" "$T/rt.json" --json "$T/rt-cmp.json"
check "round trip: summary against itself, exit status" 0 "$rc"
check "round trip: summary against itself, every change zero" True \
    "$(jget "$T/rt-cmp.json" 'all(r["change"] in (0, None) and r["rel"] in (0, None) for s in d["sections"].values() for r in s["rows"])')"
check "round trip: summary against itself, some rows" True \
    "$(jget "$T/rt-cmp.json" 'sum(len(s["rows"]) for s in d["sections"].values()) > 1000')"
run compare "$W" "$T/rt.json" --json "$T/rt-cmp2.json"
check "round trip: dumps against their summary, every change zero" True \
    "$(jget "$T/rt-cmp2.json" 'all(r["change"] in (0, None) for s in d["sections"].values() for r in s["rows"])')"
check "round trip: dumps against their summary, same row count" \
    "$(jget "$T/rt-cmp.json" 'sum(len(s["rows"]) for s in d["sections"].values())')" \
    "$(jget "$T/rt-cmp2.json" 'sum(len(s["rows"]) for s in d["sections"].values())')"
run compare "$T/all.json" "$T/all.json" --json "$T/rt-cmp3.json"
check "round trip: a several-group summary against itself, every change zero" True \
    "$(jget "$T/rt-cmp3.json" 'all(r["change"] in (0, None) for s in d["sections"].values() for r in s["rows"])')"
run summarize "$T/rt-cmp.json" --json "$T/not-a-summary.json"
check "a comparison is not read as a summary" 1 "$(grep -c 'summary schema is not 1' "$T/stderr")"

# ---- --fail-if ----------------------------------------------------------------
fail_if() {  # fail_if NAME EXPECTED_RC EXPR [BASE HEAD]
    run compare "${4:-$W}" "${5:-$WIN}" --json "$T/fi.json" --fail-if "$3"
    check "--fail-if $1: exit $2" "$2" "$rc"
}
fail_if "instructions grew more than 50%" 5 'total.instructions > 50%'
check "--fail-if: the result is in the JSON" True "$(jget "$T/fi.json" 'd["fail_if"]["result"]')"
check "--fail-if: stderr shows the values" 1 "$(grep -c 'total.instructions = 0.805' "$T/stderr")"
fail_if "instructions grew more than 100%" 0 'total.instructions > 100%'
check "--fail-if false: the result is in the JSON" False "$(jget "$T/fi.json" 'd["fail_if"]["result"]')"
fail_if "IMPORT_NAME gone" 5 'execution.IMPORT_NAME < -99%'
fail_if "base and head functions" 5 'base(execution.IMPORT_NAME) > 0 and head(execution.IMPORT_NAME) == 0'
fail_if "not" 0 'not head(total.files) == 3'
fail_if "or, parentheses" 5 '(head(total.files) == 2 || head(total.files) == 3) && !(base(total.files) != 2)'
fail_if "hit ratio dropped on itself" 0 'specialization.LOAD_ATTR.hit_ratio < -2%' "$T/rt.json" "$T/rt.json"
fail_if "hit ratio did not drop more than 50 points" 0 'specialization.LOAD_ATTR.hit_ratio < -50%'
fail_if "an undefined figure is false" 0 'specialization.LOAD_SUPER_ATTR.hit_ratio < 2' 
check "--fail-if: undefined shown as such" 1 "$(grep -c 'hit_ratio = undefined' "$T/stderr")"
fail_if "a quoted pair name" 5 'head("pairs.LOAD_FAST LOAD_ATTR_SLOT") > 0'
fail_if "share of points" 5 'change(specialization.LOAD_ATTR.hit_ratio) > -1 and specialization.LOAD_ATTR.hit_ratio >= -100%'

malformed() {  # malformed NAME EXPR MESSAGE_FRAGMENT
    run compare "$W" "$WIN" --fail-if "$2" --json "$T/mal.json"
    check "malformed --fail-if ($1): exit 2" 2 "$rc"
    if grep -q -- "$3" "$T/stderr"; then ok "malformed --fail-if ($1): says '$3'"
    else bad "malformed --fail-if ($1): no '$3' in: $(cat "$T/stderr")"; fi
    check "malformed --fail-if ($1): no report written" "" "$(ls "$T/mal.json" 2>/dev/null)"
}
malformed "empty" '' 'the expression is empty'
malformed "no right side" 'specialization.LOAD_ATTR.hit_ratio <' 'column 37: expected a figure (SECTION.NAME) or a number, found the end'
malformed "no operator" 'specialization.LOAD_ATTR.hit_ratio -2%' "column 36: expected a comparison (<, <=, >, >=, ==, !=) after 'specialization.LOAD_ATTR.hit_ratio'"
malformed "unclosed parenthesis" '(total.files > 1' "column 17: expected ')' to close the '(' at column 1"
malformed "not a figure" 'LOAD_ATTR < 1' "'LOAD_ATTR' is not a figure: write SECTION.NAME"
malformed "two figures in a row" 'total.files > 1 total.files' "column 17: unexpected 'total.files' (join comparisons with 'and' / 'or')"
malformed "unknown function" 'mean(total.files) > 1' "unknown function 'mean'"
malformed "a unit that is not %" 'total.files > 2x' "numbers take only a '%' suffix"
malformed "unterminated quote" '"pairs.LOAD_FAST LOAD_ATTR > 1' 'unterminated quoted name'
malformed "unknown row" 'family.NO_SUCH_OP > 1' "no 'NO_SUCH_OP' in section 'family' on either side"
malformed "unknown section" 'nosuch.x > 1' "no section 'nosuch' in this comparison (sections: total execution family"
malformed "too deep" "$(printf '%0100d' 0 | tr 0 '(')total.files > 1$(printf '%0100d' 0 | tr 0 ')')" 'nested too deeply'

# ---- options, usage, output ------------------------------------------------------
run compare "$W" "$WIN" --min-change 0 --json "$T/mc0.json"
check "--min-change 0: nothing folded" 0 "$(jget "$T/mc0.json" 'sum(s["folded"] for s in d["sections"].values())')"
run compare "$W" "$WIN" --min-change 50 --json "$T/mc50.json"
check "--min-change 50: small changes folded" True \
    "$(jget "$T/mc50.json" 'all(r["folded"] == (abs(r["rel_pm"] if r.get("rel_pm") is not None else (r["rel"] if r["rel"] is not None else 1e9)) * 100 < 50) for r in d["sections"]["family"]["rows"])')"
run compare "$W"
check "compare with one input: usage error" 2 "$rc"
run compare "$W" "$WIN" --min-change lots
check "compare --min-change lots: usage error" 2 "$rc"
run compare "$W" "$T/no-such-dir"
check "compare with a missing input: exit 1" 1 "$rc"
run compare "$W" "$WIN" --json "$T/no-such-dir/x.json"
check "compare into a missing directory: exit 3" 3 "$rc"
run compare "$W" "$WIN" --html "$T/cw.html"
check "compare --html: exit status" 0 "$rc"
check "compare --html: no external resources" 0 "$(grep -c -E '(src|href)="(https?:)?//' "$T/cw.html")"
run summarize "$W" --html "$T/sw.html"
check "summarize --html: exit status" 0 "$rc"
check "summarize --html: one page with three charts" "1 1 1" \
    "$(for c in exec pairs spec; do grep -c "data-chart=\"$c\"" "$T/sw.html"; done | tr '\n' ' ' | sed 's/ $//')"

# ---- the headline ------------------------------------------------------------
# The three biggest changes per million instructions, computed from the
# raw execution_count lines of each side (rounded as the report rounds).
headline_want() {
    python3 - "$1" "$2" <<'PY'
import glob, sys
def side(d):
    c = {}
    for p in glob.glob(d + "/*"):
        for line in open(p, encoding="utf-8", errors="replace"):
            k, sep, v = line.strip().rpartition(":")
            k = k.strip()
            if sep and k.startswith("opcode[") and k.endswith("].execution_count"):
                name = k[7:-len("].execution_count")]
                c[name] = c.get(name, 0) + int(v)
    return c, sum(c.values())
(b, tb), (h, th) = side(sys.argv[1]), side(sys.argv[2])
pm = {n: h.get(n, 0) * 1e6 / th - b.get(n, 0) * 1e6 / tb for n in set(b) | set(h)}
top = sorted(pm, key=lambda n: (-abs(pm[n]), n))[:3]
print(", ".join("%s %s%s" % (n, "+" if pm[n] > 0 else "-", format(round(abs(pm[n])), ",")) for n in top))
PY
}
run compare "$W" "$WIN"
check "compare: headline, the biggest changes per million instructions" \
    "$(headline_want "$W" "$WIN")" \
    "$(sed -n 's/^- Biggest changes per million instructions: //p' "$T/stdout" | sed 's/ ([^)]*)//g')"
check "compare: headline, the instructions of each side" \
    "$(python3 -c 'import sys; b, h = int(sys.argv[1]), int(sys.argv[2]); print("- Instructions executed: {:,} (base), {:,} (head), {:+.1f}%".format(b, h, 100.0 * (h - b) / b))' "$tw" "$tn")" \
    "$(grep '^- Instructions executed: ' "$T/stdout")"
run compare --fail-if 'execution.BINARY_OP > 5%' "$W" "$WIN"
check "compare: headline says --fail-if is true" 1 \
    "$(grep -c '^- `--fail-if` execution.BINARY_OP > 5%: \*\*true\*\*' "$T/stdout")"
run compare --fail-if 'execution.BINARY_OP > 50%' "$W" "$WIN"
check "compare: headline says --fail-if held" 1 \
    "$(grep -c '^- `--fail-if` execution.BINARY_OP > 50%: false (held)' "$T/stdout")"

# ---- hot code ranked per call: the big function first -----------------------
# Base: big is 99% of the work (99 instructions a call, 100 calls), tiny
# 1% (100 in 1 call).  Head: pyperf's loops doubled (200 calls of big) and
# big costs 2% more per call (101), tiny 50% more (150 in 1 call).  Per
# million instructions big barely moves, so ranking by share of all
# instructions would fold it away and show tiny alone.
mkdir -p "$T/hot-b" "$T/hot-h"
hot_dump() {  # hot_dump FILE BIG_INSTR BIG_CALLS TINY_INSTR TINY_CALLS
    cat > "$1" <<DUMP
pystats.format : 1
pystats.collector : pystats 0.1.0
pystats.counts : base-instructions
meta.python.version : 3.13.0
meta.python.implementation : cpython
meta.collection.mode : count
meta.collection.mechanism : monitoring
meta.collection.method : segments
meta.dump.reason : explicit
opcode[LOAD_FAST].execution_count : $(($2 + $4))
code[/srv/b.py:10:big].instructions : $2
code[/srv/b.py:10:big].calls : $3
code[/srv/b.py:10:big].opcode[LOAD_FAST] : $2
code[/srv/b.py:40:tiny].instructions : $4
code[/srv/b.py:40:tiny].calls : $5
code[/srv/b.py:40:tiny].opcode[LOAD_FAST] : $4
DUMP
}
hot_dump "$T/hot-b/d.txt" 9900 100 100 1
hot_dump "$T/hot-h/d.txt" 20200 200 150 1
run compare "$T/hot-b" "$T/hot-h" --json "$T/hot.json" --markdown "$T/hot.md"
check "compare hot code: exit status" 0 "$rc"
per_call() {  # per_call DIR NAME: instructions per call from the raw dump
    awk -F' : ' -v n="$2" '$1 ~ "\\]?"n"\\]\\.instructions$" { i = $2 } $1 ~ n"\\]\\.calls$" { c = $2 }
        END { printf "%.6f\n", i / c }' "$1"/d.txt
}
want=$(printf '%s %s %s %s' "$(per_call "$T/hot-b" big)" "$(per_call "$T/hot-h" big)" \
    "$(per_call "$T/hot-b" tiny)" "$(per_call "$T/hot-h" tiny)")
check "compare hot code: instructions per call on each side, from the dumps" "$want" \
    "$(jget "$T/hot.json" '" ".join("%.6f %.6f" % (r["base_per_call"], r["head_per_call"]) for n in ("big", "tiny") for r in d["sections"]["hot_code"]["rows"] if r["name"].endswith(":" + n))')"
check "compare hot code: the change per call" \
    "$(awk 'BEGIN { printf "%.6f %.6f\n", 101 / 99 - 1, 150 / 100 - 1 }')" \
    "$(jget "$T/hot.json" '" ".join("%.6f" % r["rel_per_call"] for n in ("big", "tiny") for r in d["sections"]["hot_code"]["rows"] if r["name"].endswith(":" + n))')"
check "compare hot code: the big function first, neither folded" "big False tiny False" \
    "$(jget "$T/hot.json" '" ".join("%s %s" % (r["name"].rsplit(":", 1)[1], r["folded"]) for r in d["sections"]["hot_code"]["rows"])')"
check "compare hot code: ranked by change per call times base calls" \
    "$(awk 'BEGIN { b = (101 - 99) * 100; t = (150 - 100) * 1; printf "%.6f\n", b / (b + t) }')" \
    "$(jget "$T/hot.json" '"%.6f" % d["sections"]["hot_code"]["rows"][0]["weight"]')"
check "compare hot code: Markdown shows instructions per call, big first" 1 \
    "$(awk '/^## Hot code: instructions/ { s = 1 } s && /^\| .*big/ { print (/\| 99\.0 \| 101\.0 \| \+2\.0% \|/ ? 1 : 0); exit }' "$T/hot.md")"

# ---- compare --html: diverging charts ----------------------------------------
# Without opcode counts the hot code sections are plain counts: their bars
# are whole numbers.  A long name gets room left of its bar: the label's
# right edge (text-anchor end) at least 7 units a character from 0.
long=/srv/very/long/path/to/some/package/module_with_a_long_name.py
for s in b h; do
    mkdir -p "$T/chart-$s"
    grep -v '^opcode' "$T/hot-$s/d.txt" | sed "s|/srv/b.py:10:big|$long:10:big|" > "$T/chart-$s/d.txt"
done
run compare "$T/chart-b" "$T/chart-h" --html "$T/chart.html" --json "$T/chart.json"
check "compare --html: exit status" 0 "$rc"
check "compare --html: count bars are integers, as the JSON's changes" \
    "$(jget "$T/chart.json" '" ".join("%+d" % r["change"] for r in d["sections"]["hot_code"]["rows"])')" \
    "$(awk '/data-section="hot_code"/ { s = 1 } s && /class="val"/ { sub(/.*class="val"[^>]*>/, ""); sub(/<.*/, ""); printf "%s%s", sep, $0; sep = " " } s && /<\/svg>/ { exit }' "$T/chart.html")"
check "compare --html: every chart label has room for its name" "" \
    "$(awk '/text-anchor="end">/ { x = $0; sub(/.*<text x="/, "", x); sub(/".*/, "", x); n = $0; sub(/.*text-anchor="end">/, "", n); sub(/<.*/, "", n); if (x + 0 < 7 * length(n)) print n }' "$T/chart.html")"

# ---- the label mix of a whole-suite comparison ----------------------------------
# Base: two dumps of "deltablue", one of "nbody"; head: one of each.  The
# shares of the dumps differ (2/3 against 1/2): a warning names both.
# Head and head again (same mix): no such warning.
for side in "mix-b deltablue deltablue nbody" "mix-h deltablue nbody"; do
    set -- $side
    d=$T/$1; shift; mkdir -p "$d"; i=0
    for label in "$@"; do
        i=$((i + 1))
        sed "s/^meta.dump.reason : explicit$/&\nmeta.label : $label/" "$T/hot-b/d.txt" > "$d/d$i.txt"
    done
done
run compare "$T/mix-b" "$T/mix-h" --json "$T/mix.json"
check "compare label mix: exit status" 0 "$rc"
check "compare label mix: a warning naming each label with its dumps" \
    "the label mix differs (2 labels with different shares of the dumps: 'deltablue' (2 and 1 dumps), 'nbody' (1 and 1 dumps))" \
    "$(jget "$T/mix.json" '[w for w in d["warnings"] if w.startswith("the label mix")][0].split("):")[0] + ")"')"
run compare "$T/mix-h" "$T/mix-h" --json "$T/mix-same.json"
check "compare label mix: the same mix, no warning" "[]" "$(jget "$T/mix-same.json" 'd["warnings"]')"

# ---- hot code that moved between modules ----------------------------------------
# moves/3.12 and moves/3.13: the collector's dumps of one program using
# pathlib (3.12's pathlib.py is 3.13's pathlib/_local.py), run by CPython
# 3.12.1 and 3.13.0, cut to their headers, execution counts and code
# objects' instructions and calls, paths made neutral.  The moves
# expected are computed here from the dumps' rows by the rule of
# docs/CLI.md ("Hot code that moved").
moves_want() {
    python3 - "$1" "$2" <<'PY'
import glob, re, sys
def side(d):
    rows, path = {}, []
    for p in glob.glob(d + "/*"):
        for line in open(p, encoding="utf-8"):
            k, _, v = line.rstrip("\n").rpartition(" : ")
            if k == "meta.python.path":
                path = [e for e in v.split("|") if e]
            m = re.match(r"^code\[(.*):(\d+):([^:]*)\]\.instructions$", k)
            if m:
                rows.setdefault((m.group(1), m.group(3)), 0)
                rows[(m.group(1), m.group(3))] += int(v)
    out = {}
    for (f, q), n in rows.items():
        for e in sorted(path, key=len, reverse=True):
            if f.startswith(e + "/") and f.endswith(".py"):
                f = f[len(e) + 1:-3]
                f = f[:-len("/__init__")] if f.endswith("/__init__") else f
                f = f.replace("/", ".")
                break
        out[f + ":" + q] = out.get(f + ":" + q, 0) + n
    return out
def ends(loc):
    if loc.startswith("<"):
        return "", ""
    if loc.endswith(".py"):
        loc = loc[:-3]
        loc = loc[:-len("/__init__")] if loc.endswith("/__init__") else loc
        parts = [p for p in loc.split("/")]
        while parts and parts[0] == "":
            parts.pop(0)
    else:
        parts = loc.split(".")
    return (parts[0], parts[-1]) if parts else ("", "")
def related(a, b):
    if a == b:
        return False
    (fa, la), (fb, lb) = ends(a), ends(b)
    if a.startswith("/") or b.startswith("/"):
        return bool(la and la == lb)
    return bool(fa and fa == fb) or bool(la and la == lb)
b, h = side(sys.argv[1]), side(sys.argv[2])
bo = [n for n in b if n not in h]
ho = [n for n in h if n not in b]
def cands(n, others):
    loc, q = n.rsplit(":", 1)
    return [o for o in others if o.rsplit(":", 1)[1] == q and related(loc, o.rsplit(":", 1)[0])]
moves = []
for n in bo:
    c = cands(n, ho)
    if len(c) == 1 and len(cands(c[0], bo)) == 1:
        moves.append("%s \u2192 %s %d %d" % (n.rsplit(":", 1)[0], c[0], b[n], h[c[0]]))
print("; ".join(sorted(moves)))
PY
}
MV=$HERE/moves
run compare "$MV/3.12" "$MV/3.13" --json "$T/mv.json" --markdown "$T/mv.md"
check "compare moves: exit status" 0 "$rc"
want=$(moves_want "$MV/3.12" "$MV/3.13")
check "compare moves: the dumps have pathlib's moves to compute" True \
    "$(python3 -c 'import sys; print(sys.argv[1].count("pathlib \u2192 pathlib._local:") >= 10)' "$want")"
check "compare moves: hot code rows moved, as the dumps' rows say, with both sides' instructions" "$want" \
    "$(jget "$T/mv.json" '"; ".join(sorted("%s %d %d" % (r["name"], r["base"], r["head"]) for r in d["sections"]["hot_code"]["rows"] if "\u2192" in r["name"]))')"
check "compare moves: JSON names each side's row" True \
    "$(jget "$T/mv.json" 'all(r["base_name"] == r["name"].split(" \u2192 ")[0] + ":" + r["name"].rsplit(":", 1)[1] and r["head_name"] == r["name"].split(" \u2192 ", 1)[1] for r in d["sections"]["hot_code"]["rows"] if "\u2192" in r["name"])')"
check "compare moves: the headline counts them" \
    "- Hot code moved between modules: $(echo "$want" | awk -F'; ' '{ print NF }') code objects, each one row (pathlib → pathlib.\\_local: $(echo "$want" | awk -F'; ' '{ for (i = 1; i <= NF; i++) n += index($i, "pathlib → pathlib._local:") == 1; print n }'))" \
    "$(grep '^- Hot code moved' "$T/mv.md")"
check "compare moves: calls moved too" \
    "$(jget "$T/mv.json" '" ".join(sorted(r["name"] for r in d["sections"]["hot_code"]["rows"] if "\u2192" in r["name"]))')" \
    "$(jget "$T/mv.json" '" ".join(sorted(r["name"] for r in d["sections"]["hot_code_calls"]["rows"] if "\u2192" in r["name"]))')"
check "compare moves: a moved row is not also a row of its own" "[]" \
    "$(jget "$T/mv.json" '[r["name"] for r in d["sections"]["hot_code"]["rows"] for m in d["sections"]["hot_code"]["rows"] if "\u2192" in m["name"] and r["name"] in (m["name"].split(" \u2192 ")[0] + ":" + m["name"].rsplit(":", 1)[1], m["name"].split(" \u2192 ")[1])]')"
check "compare moves: Markdown shows a move as one row (in each hot code table)" 2 \
    "$(grep -c -F '| pathlib → pathlib.\_local:PurePath.\_parse_path |' "$T/mv.md")"
# Two candidates: no move.  Base: pkg/a.py's f and g, tools/x.py's h,
# /srv/app/m.py's k; head: pkg/b.py's f and pkg/c.py's f (two candidates
# for f), pkg/b.py's g (one), lib/x.py's h (the same file name),
# other/y.py's g2 (unrelated), /srv/app/n.py's k (absolute paths are
# related by file name only: no move).
mkdir -p "$T/amb-b" "$T/amb-h"
amb_dump() {  # amb_dump FILE CODE...
    f=$1; shift
    printf 'pystats.format : 1\npystats.collector : pystats 0.1.0\npystats.counts : base-instructions\nmeta.python.version : 3.13.0\nmeta.python.implementation : cpython\nmeta.collection.mode : count\nmeta.collection.mechanism : monitoring\nmeta.collection.method : segments\nmeta.dump.reason : explicit\nopcode[LOAD_FAST].execution_count : %d\n' $((100 * $#)) > "$f"
    for c in "$@"; do printf 'code[%s].instructions : 100\ncode[%s].calls : 1\n' "$c" "$c" >> "$f"; done
}
amb_dump "$T/amb-b/d.txt" pkg/a.py:1:f pkg/a.py:5:g /srv/tools/x.py:1:h /srv/app/m.py:1:k
amb_dump "$T/amb-h/d.txt" pkg/b.py:1:f pkg/c.py:1:f pkg/b.py:5:g /opt/lib/x.py:1:h /opt/other/y.py:1:g2 /srv/app/n.py:1:k
run compare "$T/amb-b" "$T/amb-h" --json "$T/amb.json"
check "compare moves: one candidate moves, two do not" \
    "/opt/other/y.py:g2 /srv/app/m.py:k /srv/app/n.py:k /srv/tools/x.py → /opt/lib/x.py:h pkg/a.py → pkg/b.py:g pkg/a.py:f pkg/b.py:f pkg/c.py:f" \
    "$(jget "$T/amb.json" '" ".join(sorted(r["name"] for r in d["sections"]["hot_code"]["rows"]))')"
