# tests/golden/portable.sh: hot code named portably (src/cli/where.c),
# sourced by run.sh (it uses run.sh's check/run/jget/awk_sum, $T and
# $HERE).  portable/base and portable/head are one program run from two
# checkouts, two virtual environments and two Python versions: the same
# code lies at other paths (and the standard library's at other lines).
# Expected figures are summed from the raw files with awk; expected
# names follow the import system's rule by hand.

PB=$HERE/portable/base
PH=$HERE/portable/head
run summarize "$PB" --json "$T/pb.json"
check "portable: exit status" 0 "$rc"
check "portable: module names, relative paths, others as they are" \
    "/elsewhere/tool.py:9:main json.decoder:343:JSONDecoder.raw_decode pkg.mod:7:work tests/test:x.py:1:test_one" \
    "$(jget "$T/pb.json" '" ".join(sorted(d["code"]))')"
check "portable: the dump's own file name kept as path" \
    "/opt/py312/lib/python3.12/json/decoder.py" \
    "$(jget "$T/pb.json" 'd["code"]["json.decoder:343:JSONDecoder.raw_decode"]["path"]')"
check "portable: no path where the name is the file itself" "False" \
    "$(jget "$T/pb.json" '"path" in d["code"]["/elsewhere/tool.py:9:main"]')"
run compare "$PB" "$PH" --json "$T/pc.json"
check "portable compare: exit status" 0 "$rc"
for pair in "json.decoder:JSONDecoder.raw_decode|json/decoder.py:[0-9]*:JSONDecoder.raw_decode" \
            "pkg.mod:work|pkg/mod.py:7:work" "tests/test:x.py:test_one|tests/test%3Ax.py:1:test_one"; do
    name=${pair%%|*} re=${pair#*|}
    want="$(awk_sum "^code\\[.*$re\\]\\.instructions\$" "$PB"/*) $(awk_sum "^code\\[.*$re\\]\\.instructions\$" "$PH"/*)"
    check "portable compare: $name matched on both sides" "$want" \
        "$(jget "$T/pc.json" "' '.join(str(r['base']) + ' ' + str(r['head']) for r in d['sections']['hot_code']['rows'] if r['name'] == '$name')")"
done
check "portable compare: every row on both sides" "4 4" \
    "$(jget "$T/pc.json" 'str(len(d["sections"]["hot_code"]["rows"])) + " " + str(sum(1 for r in d["sections"]["hot_code"]["rows"] if r["base"] and r["head"]))')"
