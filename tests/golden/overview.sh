# tests/golden/overview.sh: the Overview section of the summary, sourced
# by run.sh (it uses run.sh's check/run, $T and $HERE).  The families
# that run unspecialized are computed from the raw native dumps by
# overview_families.py; the hot code and failing sites from the raw
# collector dumps with awk.

NAT=$HERE/native
for d in "$NAT"/*; do
    [ -d "$d" ] || continue
    name=$(basename "$d")
    minor=$(echo "$name" | sed -n 's/.*-3\.\([0-9]*\)\..*/\1/p')
    table=$HERE/../../data/tables/opcodes-3.$minor.tsv
    [ -f "$table" ] || continue
    run summarize "$d"
    want=$(python3 "$HERE/overview_families.py" "$table" "$d"/* | awk '{ printf "%s %s\n", $1, $2 }')
    got=$(sed -n 's/^- Runs unspecialized: \([A-Z_]*\): \([0-9,]*\) executions.*/\1 \2/p' "$T/stdout" | tr -d ,)
    check "overview: $name: families that run unspecialized" "$want" "$got"
done

# Collector dumps: the hottest code objects by instructions, from the
# code[..].instructions lines summed over the files.
HOT=$HERE/hotcode
run summarize "$HOT"
want=$(grep -h '^code\[.*\]\.instructions : ' "$HOT"/* | sed 's/^code\[\(.*\)\]\.instructions : /\1 /' |
    awk '{ v = $NF; $NF = ""; sub(/ $/, ""); s[$0] += v } END { for (k in s) print s[k] "\t" k }' |
    sort -t "$(printf '\t')" -k1,1nr -k2,2 | head -n 3 | cut -f1)
got=$(sed -n 's/^- Hot code: .*): \([0-9,]*\) instructions.*/\1/p' "$T/stdout" | tr -d ,)
check "overview: hot code, the three largest" "$want" "$got"
check "overview: the verdict first" "| Verdict | **ok** |" "$(grep -m1 '^| Verdict' "$T/stdout")"
