# tests/golden/cpython_json.sh: summarize --cpython-json, sourced by run.sh.
#
# The expected files are CPython's own: script-*.json in cpython-json/ are
# what Tools/scripts/summarize_stats.py --json-output wrote for the native
# fixtures (3.13.5's script run by CPython 3.13.5, 3.14.7's by 3.14.7);
# where a tree is named ($CPYTHON_SRC_3_13, $CPYTHON_SRC_3_14) the script
# is run again here.  The sums and their order are also re-done from the
# raw lines (cpython_json_check.py sums).

CPJ="python3 $HERE/cpython_json_check.py"
# cpj_check NAME RESULT: "equal" passes, "skip: ..." is said and not counted.
cpj_check() {
    case $2 in
    skip:*) echo "skip $1: ${2#skip: }" ;;
    *) check "$1" equal "$2" ;;
    esac
}

for set in cpython-3.13.5-whole cpython-3.13.5-windowed cpython-3.14.7-whole \
           cpython-3.14.7-windowed; do
    minor=$(echo "$set" | sed 's/cpython-\([0-9]*\.[0-9]*\).*/\1/')
    run summarize "$NAT/$set" --cpython-json "$T/cpj-$set.json"
    check "--cpython-json $set: exit status" 0 "$rc"
    check "--cpython-json $set: nothing on stdout or stderr" "" "$(cat "$T/stdout" "$T/stderr")"
    cpj_check "--cpython-json $set: the script's output (committed)" \
        "$($CPJ file "$T/cpj-$set.json" "$HERE/cpython-json/script-$set.json")"
    check "--cpython-json $set: the script's bytes" same \
        "$(cmp -s "$T/cpj-$set.json" "$HERE/cpython-json/script-$set.json" && echo same)"
    cpj_check "--cpython-json $set: the raw sums, in the script's order" \
        "$($CPJ sums "$T/cpj-$set.json" "$NAT/$set")"
    cpj_check "--cpython-json $set: CPython $minor's summarize_stats.py run here" \
        "$($CPJ script "$minor" "$T/cpj-$set.json" "$NAT/$set")"
done
check "--cpython-json: a flag is summed as the script sums it (2 files)" 2 \
    "$(jget "$T/cpj-cpython-3.13.5-whole.json" 'd["opcode[BINARY_SLICE].specializable"]')"
check "--cpython-json: __nfiles__" 3 \
    "$(jget "$T/cpj-cpython-3.14.7-windowed.json" 'd["__nfiles__"]')"
check "--cpython-json: 3.14.7's CALL_VECTORCALL (24) among _defines" True \
    "$(jget "$T/cpj-cpython-3.14.7-whole.json" '"CALL_VECTORCALL" in d["_defines"]["24"]')"

# Files whose keys differ: __nfiles__ after the first file's keys, a key of
# the second file after it; "uops[X" summed into "uops[_X" as the script does.
mkdir "$T/cpj-order"
f14=$NAT/cpython-3.14.7-whole/a8bfa9625b34699b570e77bb86c72a96aad6e302.txt
head -n 40 "$f14" > "$T/cpj-order/a.txt"
echo "uops[_LOAD_FAST].execution_count : 2" >> "$T/cpj-order/a.txt"
{ head -n 20 "$f14"; echo "uops[LOAD_FAST].execution_count : 5";
  echo "Rare event (set_class) : 7"; } > "$T/cpj-order/b.txt"
run summarize "$T/cpj-order" --python-version 3.14 --cpython-json "$T/cpj-order.json"
check "--cpython-json, keys that differ: exit status" 0 "$rc"
cpj_check "--cpython-json, keys that differ: the raw sums, in the script's order" \
    "$($CPJ sums "$T/cpj-order.json" "$T/cpj-order")"
check "--cpython-json, keys that differ: uops[X] and uops[_X] summed" 7 \
    "$(jget "$T/cpj-order.json" 'd["uops[_LOAD_FAST].execution_count"]')"
check "--cpython-json, keys that differ: __nfiles__ after the first file's keys" \
    "41 __nfiles__ Rare event (set_class)" \
    "$(jget "$T/cpj-order.json" 'str(list(d).index("__nfiles__")) + " " + list(d)[41] + " " + list(d)[42]')"
cpj_check "--cpython-json, keys that differ: CPython 3.14's summarize_stats.py run here" \
    "$($CPJ script 3.14 "$T/cpj-order.json" "$T/cpj-order")"
run summarize "$T/cpj-order" --python-version 3.14 --cpython-json - --jobs 2
check "--cpython-json -: to stdout, the same" same \
    "$(cmp -s "$T/stdout" "$T/cpj-order.json" && echo same)"

# Refused, with the reason, exit 1 and the file left as it was.
echo old > "$T/cpj-old.json"
run summarize "$OWN" --cpython-json "$T/cpj-old.json"
check "--cpython-json of this collector's dumps: exit 1" 1 "$rc"
check "--cpython-json of this collector's dumps: says why" 1 \
    "$(grep -c "this collector's dump, not CPython's: it counts base instructions only.*0% specialized" "$T/stderr")"
check "--cpython-json of this collector's dumps: file untouched" old "$(cat "$T/cpj-old.json")"
run summarize "$OWN" "$NAT/cpython-3.13.5-whole" --cpython-json "$T/cpj-old.json"
check "--cpython-json of own and native dumps: exit 1" 1 "$rc"
check "--cpython-json of own and native dumps: file untouched" old "$(cat "$T/cpj-old.json")"
run summarize "$NAT/cpython-3.13.5-whole" "$NAT/cpython-3.14.7-whole" --cpython-json "$T/cpj-old.json"
check "--cpython-json of 3.13 and 3.14 dumps: exit 1" 1 "$rc"
check "--cpython-json of 3.13 and 3.14 dumps: names both versions" 1 \
    "$(grep -c "is CPython 3.13's, .* 3.14's: summarize_stats.py reads the dumps of one version" "$T/stderr")"
run summarize "$NAT/cpython-3.11.2-whole" --cpython-json "$T/cpj-old.json"
check "--cpython-json of 3.11 dumps: exit 1" 1 "$rc"
check "--cpython-json of 3.11 dumps: not written, says why" 1 \
    "$(grep -c "CPython 3.11's dumps are not written: the tables" "$T/stderr")"
run summarize "$T/v312" --cpython-json "$T/cpj-old.json"
check "--cpython-json of 3.12 dumps: exit 1" 1 "$rc"
check "--cpython-json of 3.12 dumps: not written, says why" 1 \
    "$(grep -c "CPython 3.12's dumps are not written" "$T/stderr")"
run summarize "$HERE/cpython-json/script-cpython-3.13.5-whole.json" --cpython-json "$T/cpj-old.json"
check "--cpython-json of a JSON summary: exit 1" 1 "$rc"
check "--cpython-json of a JSON summary: says why" 1 "$(grep -c "a JSON summary, not a dump" "$T/stderr")"
check "--cpython-json refused: file untouched" old "$(cat "$T/cpj-old.json")"
# With a report: both written.
run summarize "$NAT/cpython-3.13.5-whole" --cpython-json "$T/cpj-both.json" --json "$T/cpj-both-summary.json"
check "--cpython-json with --json: exit 0" 0 "$rc"
check "--cpython-json with --json: both written" "equal 2" \
    "$($CPJ file "$T/cpj-both.json" "$HERE/cpython-json/script-cpython-3.13.5-whole.json") $(jget "$T/cpj-both-summary.json" 'd["meta"]["files"]')"
# A line the script skips (no ':'): skipped here too, named, the rest written;
# --strict fails the run, the file still written.
mkdir "$T/cpj-bad"
cp "$NAT"/cpython-3.13.5-whole/*.txt "$T/cpj-bad/"
f=$(ls "$T"/cpj-bad/*.txt | head -n 1)
{ head -n 5 "$f"; echo "not a counter line"; tail -n +6 "$f"; } > "$T/cpj-bad/x" && mv "$T/cpj-bad/x" "$f"
run summarize "$T/cpj-bad" --cpython-json "$T/cpj-bad.json"
check "--cpython-json, an unparsable line: exit 0" 0 "$rc"
check "--cpython-json, an unparsable line: named with file and line" 1 \
    "$(grep -c "$(basename "$f"):6: " "$T/stderr")"
cpj_check "--cpython-json, an unparsable line: the script's sums all the same" \
    "$($CPJ file "$T/cpj-bad.json" "$HERE/cpython-json/script-cpython-3.13.5-whole.json")"
rm -f "$T/cpj-bad.json"
run summarize "$T/cpj-bad" --cpython-json "$T/cpj-bad.json" --strict
check "--cpython-json --strict, an unparsable line: exit 1, file written" "1 yes" \
    "$rc $(test -s "$T/cpj-bad.json" && echo yes)"
