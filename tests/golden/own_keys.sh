# tests/golden/own_keys.sh: the collector's own keys (census, GC and
# objects, watcher rare events, hot code, call events), sourced by run.sh
# (it uses run.sh's check/ok/bad/jget/awk_sum/run, $T and $HERE).
#
# census/ holds two dumps of one process written by the collector in
# census mode (an explicit dump and the exit dump); census-count/ one dump
# of mode count (3.13) with the census taken alongside counting; hotcode/
# holds two hand-written dumps with the hot-code and call keys.  Expected
# figures are computed here from the raw files.

CEN=$HERE/census
CNT=$HERE/census-count
HOT=$HERE/hotcode

# Site fields, split at " | " like the format says (the source, last, may
# hold " | "): prints "F|FILE|LINE|QUALNAME<TAB>ATTEMPTS" per census.site.
site_rows() {
    grep -h '^census\.site\[' "$@" | sed 's/^[^:]* : //' | awk '{
        n = 0; rest = $0
        while (n < 6 && (i = index(rest, " | ")) > 0) { f[n++] = substr(rest, 1, i - 1); rest = substr(rest, i + 3) }
        print f[0] "|" f[3] "|" f[4] "|" f[5] "\t" f[1] }'
}

# ---- census -------------------------------------------------------------------
run summarize "$CEN" --json "$T/cen.json" --markdown "$T/cen.md"
check "census: exit status" 0 "$rc"
check "census: no warnings (site lines are text, not counts)" "" "$(cat "$T/stderr")"
check "census: no other counters" "{}" "$(jget "$T/cen.json" 'd["other"]')"
for k in code_objects dead_code_objects instrumented_code_objects; do
    check "census: $k summed" "$(awk_sum "^census\\.$k\$" "$CEN"/*)" \
        "$(jget "$T/cen.json" "d['census']['$k']")"
done
for fam in LOAD_ATTR BINARY_OP STORE_ATTR CALL; do
    for f in sites specialized backing_off failed_attempts never_tried; do
        check "census: $fam $f summed" "$(awk_sum "^census\\.family\\[$fam\\]\\.$f\$" "$CEN"/*)" \
            "$(jget "$T/cen.json" "d['census']['families']['$fam']['$f']")"
    done
    check "census: $fam forms summed" "$(awk_sum "^census\\.family\\[$fam\\]\\.specialized\\[" "$CEN"/*)" \
        "$(jget "$T/cen.json" "sum(d['census']['families']['$fam']['forms'].values())")"
done
check "census: sites of every family" "$(awk_sum '^census\.family\[[^]]*\]\.sites$' "$CEN"/*)" \
    "$(jget "$T/cen.json" "sum(f['sites'] for f in d['census']['families'].values())")"
check "census: every site line counted once" "$(grep -h -c '^census\.site\[' "$CEN"/* | awk '{s += $1} END {print s}')" \
    "$(jget "$T/cen.json" "sum(s['sites'] for s in d['census']['sites'])")"
check "census: site rows merged by family, file, line, function" \
    "$(site_rows "$CEN"/* | cut -f1 | sort -u | wc -l | tr -d ' ')" \
    "$(jget "$T/cen.json" "len(d['census']['sites'])")"
check "census: row attempts are the maximum, not the sum" \
    "$(site_rows "$CEN"/* | awk -F'\t' '$1 ~ /^BINARY_OP\|/ && $2 > m { m = $2 } END { print m }')" \
    "$(jget "$T/cen.json" "[s['attempts'] for s in d['census']['sites'] if s['family'] == 'BINARY_OP'][0]")"
check "census: a source holding ' | ' kept whole" "return (a + b) | (a + b)" \
    "$(jget "$T/cen.json" "[s['source'] for s in d['census']['sites'] if s['family'] == 'BINARY_OP'][0]")"
check "census: sorted by attempts" "True" \
    "$(jget "$T/cen.json" "[s['attempts'] for s in d['census']['sites']] == sorted((s['attempts'] for s in d['census']['sites']), reverse=True)")"
check "census: Markdown sections" "2" "$(grep -c '^## Specialization census$\|^## Sites that fail to specialize$' "$T/cen.md")"
run summarize "$CEN" --top-sites 2 --markdown "$T/cen2.md"
check "census: --top-sites 2" "2" "$(sed -n '/^## Sites that fail/,/^## /p' "$T/cen2.md" | grep -c '^| [A-Z_]* | [0-9]')"
run summarize "$CEN" --top-sites 0
check "census: --top-sites 0 is a usage error" 2 "$rc"
# Round trip through the JSON summary, and two summaries added.
run summarize "$T/cen.json" --json "$T/cen-rt.json"
check "census: JSON round trip" "True" \
    "$(python3 -c 'import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:]); print(a["census"] == b["census"])' "$T/cen.json" "$T/cen-rt.json")"
run summarize "$T/cen.json" "$CEN" --json "$T/cen-x2.json"
check "census: summary + dumps: sites doubled, attempts kept" "True" \
    "$(python3 -c 'import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:])
ra = {(s["family"], s["file"], s["line"], s["function"]): s for s in a["census"]["sites"]}
print(all(ra[k]["sites"] * 2 == s["sites"] and ra[k]["attempts"] == s["attempts"] for s in b["census"]["sites"] for k in [(s["family"], s["file"], s["line"], s["function"])])
      and b["census"]["families"]["LOAD_ATTR"]["sites"] == 2 * a["census"]["families"]["LOAD_ATTR"]["sites"])' "$T/cen.json" "$T/cen-x2.json")"

# ---- a census taken alongside counting (mode count) -------------------------
# From its directory: the report's findings name the files as given.
cd "$HERE" && run summarize census-count --json "$T/cnt.json" --markdown "$T/cnt.md"
cd - > /dev/null
check "count census: exit status" 0 "$rc"
check "count census: no warnings" "" "$(cat "$T/stderr")"
check "count census: no other counters (excluded_family is read)" "{}" "$(jget "$T/cnt.json" 'd["other"]')"
check "count census: scope header" "{'count': 1}" "$(jget "$T/cnt.json" 'd["meta"]["headers"]["meta.census.scope"]')"
check "count census: families left out" "['FOR_ITER', 'RESUME']" \
    "$(jget "$T/cnt.json" 'sorted(d["census"]["excluded_families"])')"
for fam in FOR_ITER RESUME; do
    check "count census: $fam sites left out" "$(awk_sum "^census\\.excluded_family\\[$fam\\]\$" "$CNT"/*)" \
        "$(jget "$T/cnt.json" "d['census']['excluded_families']['$fam']")"
    check "count census: no $fam family row" "False" "$(jget "$T/cnt.json" "'$fam' in d['census']['families']")"
done
check "count census: LOAD_ATTR sites" "$(awk_sum '^census\.family\[LOAD_ATTR\]\.sites$' "$CNT"/*)" \
    "$(jget "$T/cnt.json" "d['census']['families']['LOAD_ATTR']['sites']")"
check "count census: execution counts of the same dump" "$(awk_sum '^opcode\[[^]]*\]\.execution_count$' "$CNT"/*)" \
    "$(jget "$T/cnt.json" 'd["meta"]["total_execution_count"]')"
check "count census: the failing site" "LOAD_ATTR 7 1" \
    "$(jget "$T/cnt.json" "' '.join(str(x) for s in d['census']['sites'] if s['function'] == 'failing' for x in (s['family'], s['attempts'], s['sites']))")"
check "count census: Markdown says what was left out" 1 \
    "$(grep -c '^\*\*Left out: FOR_ITER and RESUME\.\*\* 1 dump took the census alongside counting' "$T/cnt.md")"
check "count census: Markdown rows of sites left out" "$(awk_sum '^census\.excluded_family\[FOR_ITER\]$' "$CNT"/*)" \
    "$(grep '^| FOR_ITER sites left out (census alongside counting) | ' "$T/cnt.md" | sed 's/.* | \([0-9,]*\) |$/\1/' | tr -d ,)"
run summarize "$T/cnt.json" --json "$T/cnt-rt.json"
check "count census: JSON round trip" "True" \
    "$(python3 -c 'import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:]); print(a["census"] == b["census"] and a["meta"]["headers"] == b["meta"]["headers"])' "$T/cnt.json" "$T/cnt-rt.json")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["census"]["from_a_later_pystats"] = {"X": [1]}
json.dump(d, open(sys.argv[2], "w"))' "$T/cnt.json" "$T/cnt-later.json"
run summarize "$T/cnt-later.json" --json "$T/cnt-later-rt.json"
check "census: a member no count (a later pystats) is ignored, not a problem" "0 True" \
    "$(jget "$T/cnt-later-rt.json" 'd["meta"]["problems"]["unparsable"]') $(python3 -c 'import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:]); print(a["census"] == b["census"])' "$T/cnt.json" "$T/cnt-later-rt.json")"
if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then cp "$T/cnt.md" "$HERE/expected/census-count.md"; fi
if cmp -s "$HERE/expected/census-count.md" "$T/cnt.md"; then ok "count census: report matches expected/census-count.md"
else bad "count census: report differs from expected/census-count.md"; diff "$HERE/expected/census-count.md" "$T/cnt.md" | head; fi
# With census-mode dumps of the same version: one group, summed; the rows
# of the families left out come from the census-mode dumps only.
run summarize "$CNT" "$CEN" --json "$T/mix.json" --markdown "$T/mix.md"
check "count + census dumps: one group of 3 files" 3 "$(jget "$T/mix.json" 'd["meta"]["files"]')"
check "count + census dumps: FOR_ITER rows from the census dumps only" \
    "$(awk_sum '^census\.family\[FOR_ITER\]\.sites$' "$CEN"/*)" "$(jget "$T/mix.json" "d['census']['families']['FOR_ITER']['sites']")"
check "count + census dumps: FOR_ITER left out by the count dump" \
    "$(awk_sum '^census\.excluded_family\[FOR_ITER\]$' "$CNT"/*)" "$(jget "$T/mix.json" "d['census']['excluded_families']['FOR_ITER']")"
check "count + census dumps: LOAD_ATTR sites of all three" \
    "$(awk_sum '^census\.family\[LOAD_ATTR\]\.sites$' "$CNT"/* "$CEN"/*)" "$(jget "$T/mix.json" "d['census']['families']['LOAD_ATTR']['sites']")"
check "count + census dumps: Markdown says where the rows come from" 1 \
    "$(grep -c 'Rows of these families below come from the 2 census-mode dumps only\.' "$T/mix.md")"
run compare "$CEN"/pystats-3951-12062e2bf3f6fff2.txt "$CNT" --json "$T/cmp-cnt.json"
check "compare count census: exit status" 0 "$rc"
check "compare count census: warns that the families left out differ" 1 \
    "$(jget "$T/cmp-cnt.json" "sum(w.startswith('the censuses leave out different families (base: none; head: FOR_ITER, RESUME)') for w in d['warnings'])")"
check "compare count census: FOR_ITER left out, head" "$(awk_sum '^census\.excluded_family\[FOR_ITER\]$' "$CNT"/*)" \
    "$(jget "$T/cmp-cnt.json" "[r['head'] for r in d['sections']['census_counts']['rows'] if r['name'] == 'FOR_ITER.left_out'][0]")"

# ---- GC, objects and watcher rare events of the same dumps -------------------
for g in 0 1 2; do
    check "own gc[$g].time_ns" "$(awk_sum "^gc\\[$g\\]\\.time_ns\$" "$CEN"/*)" "$(jget "$T/cen.json" "d['gc']['$g']['time_ns']")"
    check "own gc[$g].uncollectable" "$(awk_sum "^gc\\[$g\\]\\.uncollectable\$" "$CEN"/*)" "$(jget "$T/cen.json" "d['gc']['$g']['uncollectable']")"
    check "GC[$g] collections" "$(awk_sum "^GC\\[$g\\] collections\$" "$CEN"/*)" "$(jget "$T/cen.json" "d['gc']['$g']['collections']")"
done
check "own objects.reallocs" "$(awk_sum '^objects\.reallocs$' "$CEN"/*)" "$(jget "$T/cen.json" "d['objects']['objects.reallocs']")"
check "Object allocations" "$(awk_sum '^Object allocations$' "$CEN"/*)" "$(jget "$T/cen.json" "d['objects']['Object allocations']")"
for r in func_modification builtins_modification globals_modification type_modification watched_dicts watched_types; do
    check "watcher rare.$r" "$(awk_sum "^rare\\.$r\$" "$CEN"/*)" "$(jget "$T/cen.json" "d['rare_watchers']['$r']")"
done
check "watcher rare events never merged with native ones" "{}" "$(jget "$T/cen.json" 'd["rare_events"]')"
check "watcher rare events: own Markdown section" "1" "$(grep -c '^## Rare events (watchers, partial)$' "$T/cen.md")"
check "GC round trip keeps own fields" "True" \
    "$(python3 -c 'import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:]); print(a["gc"] == b["gc"] and a["rare_watchers"] == b["rare_watchers"])' "$T/cen.json" "$T/cen-rt.json")"
if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then cp "$T/cen.md" "$HERE/expected/census.md"; fi
if cmp -s "$HERE/expected/census.md" "$T/cen.md"; then ok "census: report matches expected/census.md"
else bad "census: report differs from expected/census.md"; diff "$HERE/expected/census.md" "$T/cen.md" | head; fi

# ---- hot code and call events -------------------------------------------------
run summarize "$HOT" --json "$T/hot.json" --markdown "$T/hot.md"
check "hot code: exit status" 0 "$rc"
check "hot code: no warnings" "" "$(cat "$T/stderr")"
check "hot code: no other counters" "{}" "$(jget "$T/hot.json" 'd["other"]')"
check "hot code: code objects" "$(grep -h '^code\[.*\]\.instructions : ' "$HOT"/* | sed 's/\]\.instructions : .*//' | sort -u | wc -l | tr -d ' ')" \
    "$(jget "$T/hot.json" 'len(d["code"])')"
for key in '/srv/app/calc.py:10:Calc.total' 'C:/work/odd:name.py:3:<module>' '/srv/app/util.py:1:helper'; do
    re=$(printf '%s' "$key" | sed 's/[].[]/\\&/g')
    for f in instructions calls; do
        check "hot code: $key $f" "$(awk_sum "^code\\[$re\\]\\.$f\$" "$HOT"/*)" "$(jget "$T/hot.json" "d['code']['$key']['$f']")"
    done
    check "hot code: $key opcodes" "$(awk_sum "^code\\[$re\\]\\.opcode\\[" "$HOT"/*)" \
        "$(jget "$T/hot.json" "sum(d['code']['$key']['opcodes'].values())")"
done
check "hot code: LOAD_FAST of Calc.total" "$(awk_sum '^code\[/srv/app/calc\.py:10:Calc\.total\]\.opcode\[LOAD_FAST\]$' "$HOT"/*)" \
    "$(jget "$T/hot.json" "d['code']['/srv/app/calc.py:10:Calc.total']['opcodes']['LOAD_FAST']")"
check "hot code: most instructions first" "Calc.total" "$(sed -n '/^## Hot code$/,/^## /p' "$T/hot.md" | grep '^| [^:-]' | sed -n 2p | cut -d' ' -f2)"
for e in python_starts resumptions throws returns yields unwinds raises handled; do
    check "calls.$e" "$(awk_sum "^calls\\.$e\$" "$HOT"/*)" "$(jget "$T/hot.json" "d['own_calls']['$e']")"
done
check "calls.*: not CPython's call stats" "{}" "$(jget "$T/hot.json" 'd["calls"]')"
run summarize "$T/hot.json" --json "$T/hot-rt.json"
check "hot code: JSON round trip" "True" \
    "$(python3 -c 'import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:]); print(a["code"] == b["code"] and a["own_calls"] == b["own_calls"])' "$T/hot.json" "$T/hot-rt.json")"
if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then cp "$T/hot.md" "$HERE/expected/hotcode.md"; fi
if cmp -s "$HERE/expected/hotcode.md" "$T/hot.md"; then ok "hot code: report matches expected/hotcode.md"
else bad "hot code: report differs from expected/hotcode.md"; diff "$HERE/expected/hotcode.md" "$T/hot.md" | head; fi

# ---- compare ---------------------------------------------------------------------
run compare "$CEN"/pystats-3951-12062e2bf3f6fff2.txt "$CEN"/pystats-3951-e394afb79ef5f47b.txt --json "$T/cmp-cen.json"
check "compare census: exit status" 0 "$rc"
b=$(awk_sum '^census\.family\[LOAD_ATTR\]\.specialized$' "$CEN"/pystats-3951-12062e2bf3f6fff2.txt)
bs=$(awk_sum '^census\.family\[LOAD_ATTR\]\.sites$' "$CEN"/pystats-3951-12062e2bf3f6fff2.txt)
h=$(awk_sum '^census\.family\[LOAD_ATTR\]\.specialized$' "$CEN"/pystats-3951-e394afb79ef5f47b.txt)
hs=$(awk_sum '^census\.family\[LOAD_ATTR\]\.sites$' "$CEN"/pystats-3951-e394afb79ef5f47b.txt)
check "compare census: LOAD_ATTR specialized share, both sides" "True True" \
    "$(jget "$T/cmp-cen.json" "' '.join(str(abs(r['base'] - $b / $bs) < 1e-12) + ' ' + str(abs(r['head'] - $h / $hs) < 1e-12) for r in d['sections']['census']['rows'] if r['name'] == 'LOAD_ATTR.specialized')")"
check "compare census: sites counted" "$bs $hs" \
    "$(jget "$T/cmp-cen.json" "' '.join(str(r['base']) + ' ' + str(r['head']) for r in d['sections']['census_counts']['rows'] if r['name'] == 'LOAD_ATTR.sites')")"
run compare "$HOT"/dump-1.txt "$HOT"/dump-2.txt --json "$T/cmp-hot.json"
check "compare hot code: exit status" 0 "$rc"
check "compare hot code: Calc.total both sides" \
    "$(awk_sum '^code\[/srv/app/calc\.py:10:Calc\.total\]\.instructions$' "$HOT"/dump-1.txt) $(awk_sum '^code\[/srv/app/calc\.py:10:Calc\.total\]\.instructions$' "$HOT"/dump-2.txt)" \
    "$(jget "$T/cmp-hot.json" "' '.join(str(r['base']) + ' ' + str(r['head']) for r in d['sections']['hot_code']['rows'] if r['name'] == '/srv/app/calc.py:Calc.total')")"
check "compare calls.*: python_starts both sides" \
    "$(awk_sum '^calls\.python_starts$' "$HOT"/dump-1.txt) $(awk_sum '^calls\.python_starts$' "$HOT"/dump-2.txt)" \
    "$(jget "$T/cmp-hot.json" "' '.join(str(r['base']) + ' ' + str(r['head']) for r in d['sections']['own_calls']['rows'] if r['name'] == 'python_starts')")"

# ---- a malformed census site: warned with file and line, the rest counted -------
mkdir -p "$T/badsite"
{ head -n 23 "$CEN"/pystats-3951-12062e2bf3f6fff2.txt
  echo 'census.site[0] : CALL | 3 | 1 | a.py | 7 | f | g(x)'
  echo 'census.site[1] : CALL | three | 1 | a.py | 7 | f | g(x)'
  echo 'census.site[2] : CALL | 3'
  echo 'census.site[3] : CALL | 5 | 1 | a.py | 007 | f | g(x)'
  echo 'census.code_objects : 4'; } > "$T/badsite/d.txt"
run summarize "$T/badsite" --json "$T/badsite.json"
check "bad census site: exit status" 0 "$rc"
check "bad census site: warned with file and line" \
    "$T/badsite/d.txt:25: census site is not|$T/badsite/d.txt:26: census site is not" \
    "$(grep -o '[^ ]*d\.txt:[0-9]*: census site is not' "$T/stderr" | tr '\n' '|' | sed 's/|$//')"
check "bad census site: counted as unparsable" 2 "$(jget "$T/badsite.json" 'd["meta"]["problems"]["unparsable"]')"
check "bad census site: good sites merged (line 007 is line 7)" "a.py 7 5 2" \
    "$(jget "$T/badsite.json" "' '.join(str(x) for s in d['census']['sites'] for x in (s['file'], s['line'], s['attempts'], s['sites']))")"
check "bad census site: the rest counted" 4 "$(jget "$T/badsite.json" 'd["census"]["code_objects"]')"

# ---- hot code and calls as the collector writes them (mode count, 3.13) ------------
REAL=$HERE/hotcode-real
run summarize "$REAL" --json "$T/real.json"
check "collector hot code: no warnings" "" "$(cat "$T/stderr")"
check "collector hot code: no other counters" "{}" "$(jget "$T/real.json" 'd["other"]')"
check "collector hot code: instructions of every code object" "$(awk_sum '^code\[.*\]\.instructions$' "$REAL"/*)" \
    "$(jget "$T/real.json" 'sum(c["instructions"] for c in d["code"].values())')"
check "collector hot code: calls of every code object" "$(awk_sum '^code\[.*\]\.calls$' "$REAL"/*)" \
    "$(jget "$T/real.json" 'sum(c["calls"] for c in d["code"].values())')"
check "collector hot code: opcodes of every code object" "$(awk_sum '^code\[.*\]\.opcode\[' "$REAL"/*)" \
    "$(jget "$T/real.json" 'sum(sum(c["opcodes"].values()) for c in d["code"].values())')"
check "collector calls.*" "$(awk_sum '^calls\.' "$REAL"/*)" "$(jget "$T/real.json" 'sum(d["own_calls"].values())')"
check "compare census: site rows both sides" \
    "$(grep -c '^census\.site\[[0-9]*\] : BINARY_OP | ' "$CEN"/pystats-3951-12062e2bf3f6fff2.txt) $(grep -c '^census\.site\[[0-9]*\] : BINARY_OP | ' "$CEN"/pystats-3951-e394afb79ef5f47b.txt)" \
    "$(jget "$T/cmp-cen.json" "' '.join(str(r['base']) + ' ' + str(r['head']) for r in d['sections']['census_sites']['rows'] if r['name'].startswith('BINARY_OP '))")"
