# tests/golden/usage.sh: the command line itself: --version, help, and
# "did you mean" for a mistyped command, sourced by run.sh (it uses
# run.sh's check/run and $T).  The version expected is the one the
# sources define (src/format/psf_version.h), read here with sed.

want_version=$(sed -n 's/^#define PSF_VERSION "\(.*\)"$/\1/p' "$HERE/../../src/format/psf_version.h")
run --version
check "--version: exit status" 0 "$rc"
check "--version: the sources' version" "pystats $want_version" "$(cat "$T/stdout")"
run --help
check "--help: exit status" 0 "$rc"
check "--help: names --version" 1 "$(grep -c -- '--version' "$T/stdout")"

for typo in sumarize summarise comapre chekc rnu; do
    run "$typo" x
    check "mistyped '$typo': usage error" 2 "$rc"
done
run sumarize x
check "mistyped command: one suggestion" \
    "pystats: unknown command 'sumarize'; did you mean 'summarize'?" "$(head -n 1 "$T/stderr")"
run comapre a b
check "mistyped compare: suggestion" \
    "pystats: unknown command 'comapre'; did you mean 'compare'?" "$(head -n 1 "$T/stderr")"
run frobnicate
check "unknown command, nothing close: no suggestion, the usage" \
    "pystats: unknown command 'frobnicate'|usage: pystats <command> [options]" \
    "$(head -n 2 "$T/stderr" | paste -sd '|')"

# 'pystats help' is --help; 'pystats help COMMAND' is COMMAND --help.
run help
check "help: exit status" 0 "$rc"
check "help: the usage on stdout" "usage: pystats <command> [options]" "$(head -n 1 "$T/stdout")"
run help check
check "help check: exit status" 0 "$rc"
check "help check: check's usage" "usage: pystats check" "$(head -n 1 "$T/stdout" | cut -c1-20)"
run help chek
check "help of a mistyped command: usage error with the suggestion" \
    "2|pystats: unknown command 'chek'; did you mean 'check'?" "$rc|$(head -n 1 "$T/stderr")"

# No dump found: the hint fits the cause (absent input, files that are
# not dumps, an empty directory), the install hint only for the last.
run summarize "$T/no-such-dir"
check "summarize an absent input: exit 1" 1 "$rc"
check "summarize an absent input: says it does not exist, no install hint" \
    "1|0" "$(grep -c "^pystats: hint: .*no-such-dir does not exist" "$T/stderr")|$(grep -c 'import pystats_startup' "$T/stderr")"
mkdir -p "$T/not-dumps"
printf 'hello\n' > "$T/not-dumps/a.txt"
printf 'a plain line\nanother\n' > "$T/not-dumps/b.txt"
run summarize "$T/not-dumps"
check "summarize a folder of other files: exit 1" 1 "$rc"
check "summarize a folder of other files: holds no dump, no install hint" \
    "1|0" "$(grep -c "^pystats: hint: .*not-dumps holds no dump" "$T/stderr")|$(grep -c 'import pystats_startup' "$T/stderr")"
run check "$T/not-dumps"
check "check on files that are not dumps: the empty finding says so" 1 \
    "$(tr '\n' ' ' < "$T/stdout" | tr -s ' ' | grep -c 'not a dump at all')"

# A mistyped option: getopt's line, then the option meant.
run summarize --jsn "$T/x.json" "$HERE/hotcode"
check "mistyped option: usage error" 2 "$rc"
check "mistyped option: the option meant" "pystats summarize: did you mean '--json'?" \
    "$(sed -n 2p "$T/stderr")"
run compare --fail_if 'total.files > 1' "$HERE/hotcode" "$HERE/hotcode"
check "mistyped compare option: the option meant" "pystats compare: did you mean '--fail-if'?" \
    "$(sed -n 2p "$T/stderr")"
run check --stirct "$HERE/hotcode"
check "mistyped check option: the option meant" "pystats check: did you mean '--strict'?" \
    "$(sed -n 2p "$T/stderr")"
run check --frobnicate "$HERE/hotcode"
check "unknown option, nothing close: the usage" "usage: pystats check" \
    "$(sed -n 2p "$T/stderr" | cut -c1-20)"

# An empty directory: check says what to install where, summarize too.
mkdir -p "$T/empty-dir"
run check "$T/empty-dir"
check "check on an empty directory: exit 1 (no dump files)" 1 "$rc"
check "check on an empty directory: names a collector not installed" 1 \
    "$(tr '\n' ' ' < "$T/stdout" | tr -s ' ' | grep -c 'the collector is not installed in the interpreter that ran it')"
run summarize "$T/empty-dir"
check "summarize an empty directory: exit 1" 1 "$rc"
check "summarize an empty directory: the install hint" 1 "$(grep -c '^pystats: hint: python -X pystats' "$T/stderr")"

# Every report names the version that wrote it.
run summarize "$HERE/hotcode" --json "$T/v.json" --markdown "$T/v.md"
check "summary: the version under the title" "Report by pystats $want_version." "$(sed -n 3p "$T/v.md")"
check "JSON summary: the version" "$want_version" "$(jget "$T/v.json" 'd["pystats"]')"
run compare "$HERE/hotcode" "$HERE/hotcode" --json "$T/vc.json" --markdown "$T/vc.md"
check "comparison: the version under the title" "Report by pystats $want_version." "$(sed -n 3p "$T/vc.md")"
check "JSON comparison: the version" "$want_version" "$(jget "$T/vc.json" 'd["pystats"]')"

# run -o DIR that already holds files: a usage error, the name escaped.
mkdir -p "$T/used-run"
printf 'x\n' > "$T/used-run/pystats-1-1.txt"
run run -o "$T/used-run" -- true
check "run -o a directory holding files: usage error" 2 "$rc"
check "run -o a directory holding files: says so" 1 \
    "$(grep -c 'used-run already holds files: a run needs a new or empty directory' "$T/stderr")"
