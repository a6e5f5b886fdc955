# tests/golden/sitefx.sh: site executions by state (FORMAT.md 1.18, "Site
# executions by state"), sourced by run.sh (it uses run.sh's
# check/ok/bad/run/jget, $T and $HERE).
#
# sitefx/ holds three hand-written dumps of one run (3.13, mode count)
# whose site rows cover each case of the rule; the figures below were
# worked out by hand from their lines:
#   LOAD_ATTR: specialized 3000 (LOAD_ATTR_INSTANCE_VALUE); backing off
#     100 (1 attempt: at most 2^3-3 = 5 executions, uncertain), 29 (3
#     attempts: at most 29, certain), 1000 (11: the ceiling, no bound);
#     never tried 1 (certain) and 40 (uncertain); 4170 of 5000 covered.
#   CALL: one site, specialized in two dumps (500, 100), backing off in
#     one (300): 900 credited to specialized, all uncertain.
#   BINARY_OP 2000 of 2100; FOR_ITER and RESUME (3.13) not read.

SFX=$HERE/sitefx
run summarize "$SFX" --json "$T/sfx.json" --markdown "$T/sfx.md"
check "site executions: exit status" 0 "$rc"
check "site executions: the hand-worked figures" \
    "{'LOAD_ATTR': [3000, 1129, 41, 0, 140, 6, 5000, {'LOAD_ATTR_INSTANCE_VALUE': 3000}], 'BINARY_OP': [2000, 0, 0, 0, 0, 1, 2100, {'BINARY_OP_ADD_INT': 2000}], 'FOR_ITER': [0, 0, 0, 1000, 0, 1, 1000, {}], 'CALL': [900, 0, 0, 0, 900, 1, 900, {'CALL_PY_EXACT_ARGS': 900}], 'RESUME': [0, 0, 0, 13, 0, 1, 13, {}]}" \
    "$(jget "$T/sfx.json" '{f: [v[k] for k in ("specialized", "backing_off", "never_tried", "excluded", "uncertain", "sites", "family_executions", "forms")] for f, v in d["census"]["site_executions"].items()}')"
check "site executions: the Markdown's line in all" 1 \
    "$(grep -c '^In all: 8,083 site executions, 73.0% at specialized sites, 14.0% at sites backing off, 0.5% never tried, 12.5% not read; 1,040 (12.9%) of uncertain attribution. Not in any row: 300 site executions (2 sites) of code objects that share their key with a hotter one (census.shared_key_site_executions).$' "$T/sfx.md")"
check "site executions: the rows of code sharing a key, in the JSON summary" "[2, 300]" \
    "$(jget "$T/sfx.json" '[d["census"][k] for k in ("shared_key_site_rows", "shared_key_site_executions")]')"
check "site executions: the Markdown's LOAD_ATTR row" 1 \
    "$(grep -cF '| LOAD_ATTR | 4,170 | 3,000 (71.9%) | 1,129 (27.1%) | 41 (1.0%) | 0 (0.0%) | 140 (3.4%) | 6 | 83.4% |' "$T/sfx.md")"
run summarize "$T/sfx.json" --json "$T/sfx-rt.json"
check "site executions: the JSON summary reads back to the same figures" "True" \
    "$(python3 -c 'import json,sys; a,b=(json.load(open(p))["census"]["site_executions"] for p in sys.argv[1:]); print(a == b)' "$T/sfx.json" "$T/sfx-rt.json")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["census"]["site_executions"]
json.dump(d, open(sys.argv[2], "w"))' "$T/sfx.json" "$T/sfx-old.json"
run summarize "$T/sfx-old.json" --json "$T/sfx-old-rt.json"
check "site executions: a summary written before them has none (not its failing sites' alone)" \
    "False 5" "$(jget "$T/sfx-old-rt.json" '"site_executions" in d["census"], len(d["census"]["failing_sites"])' | tr -d '(),')"
run compare "$SFX" "$T/sfx.json" --json "$T/sfx-cmp.json"
check "site executions: compare, a dump against its summary" "900 900 1129 1129" \
    "$(jget "$T/sfx-cmp.json" '" ".join(str(r[s]) for n in ("CALL.uncertain", "LOAD_ATTR.backing_off") for r in d["sections"]["site_executions"]["rows"] if r["name"] == n for s in ("base", "head"))')"
if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then cp "$T/sfx.md" "$HERE/expected/sitefx.md"; fi
if cmp -s "$HERE/expected/sitefx.md" "$T/sfx.md"; then ok "site executions: report matches expected/sitefx.md"
else bad "site executions: report differs from expected/sitefx.md"; diff "$HERE/expected/sitefx.md" "$T/sfx.md" | head; fi
