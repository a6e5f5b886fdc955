# tests/golden/planted.sh: dumps another user could have planted, sourced
# by run.sh (it uses run.sh's check/ok/bad/run, $T and $HERE).
#
# "Another user's file" is a file chowned to uid 65534 in a directory of
# mode 1777 made here (the tests run as root; without root those checks
# are skipped); "the reader's secret" is a file this test owns that the
# planted dump names as its source.

PL=$T/planted
mkdir -p "$PL/victim" "$PL/shared" "$PL/private" "$PL/open"
chmod 1777 "$PL/shared"
chmod 0755 "$PL/private"
chmod 0777 "$PL/open"
printf 'SECRET-TOKEN-4711 = 1\n' > "$PL/victim/secret.py"
chmod 0600 "$PL/victim/secret.py"
# planted_dump FILE SOURCE: a dump naming SOURCE as the source of f.
planted_dump() {
    rm -f "$1"
    cat > "$1" <<EOF
pystats.format : 2
pystats.collector : pystats 0.1.0
pystats.counts : base-instructions
meta.python.version : 3.12.1
meta.python.implementation : cpython
meta.collection.mode : count
meta.process.pid : 9
opcode[LOAD_FAST].execution_count : 500000
code[$2:1:f].instructions : 500000
code[$2:1:f].calls : 1
code[$2:1:f].line[1] : 500000
EOF
}

if [ "$(id -u)" = 0 ]; then
    planted_dump "$PL/shared/pystats-9-a.txt" "$PL/victim/secret.py"
    chown 65534 "$PL/shared/pystats-9-a.txt"
    run annotate "$PL/shared" --quiet
    check "planted dump: annotate shows its counts" 0 "$rc"
    check "planted dump: annotate does not print the file it names" 0 "$(grep -c SECRET-TOKEN "$T/stdout")"
    check "planted dump: annotate says why the file was not read" 1 \
        "$(grep -c 'not read: a dump that names it is not yours' "$T/stdout")"
    run annotate "$PL/shared" --quiet --html "$T/planted.html" --read-files
    check "planted dump: annotate --html --read-files: exit status" 0 "$rc"
    check "planted dump: the page does not show the file it names" 0 "$(grep -c SECRET-TOKEN "$T/planted.html")"
    # Another user's dump in a directory only root can write: still not
    # the reader's.
    planted_dump "$PL/private/pystats-9-a.txt" "$PL/victim/secret.py"
    chown 65534 "$PL/private/pystats-9-a.txt"
    run annotate "$PL/private"
    check "another user's dump, private directory: the file is not read" 0 "$(grep -c SECRET-TOKEN "$T/stdout")"
    # One planted dump among the reader's own: no file is read for any of
    # them (the group's texts are one view).
    planted_dump "$PL/shared/pystats-9-b.txt" "$PL/victim/secret.py"
    run annotate "$PL/shared" --quiet
    check "a planted dump among the reader's: the file is not read" 0 "$(grep -c SECRET-TOKEN "$T/stdout")"
    rm -f "$PL/shared/pystats-9-a.txt"
    run annotate "$PL/shared" --quiet
    check "the reader's dump in a sticky directory: the file is read" 1 "$(grep -c SECRET-TOKEN "$T/stdout")"
    rm -f "$PL/shared/pystats-9-b.txt"
else
    echo "skip planted dumps of another user (not root)"
fi

# The reader's own dump in a private directory: the file is read.
planted_dump "$PL/private/pystats-9-a.txt" "$PL/victim/secret.py"
run annotate "$PL/private"
check "own dump: annotate reads the file it names" 1 "$(grep -c 'SECRET-TOKEN-4711 = 1$' "$T/stdout")"
# ... but not for a page, unless asked: a page is meant to be shared.
run annotate "$PL/private" --html "$T/own.html"
check "own dump: annotate --html: exit status" 0 "$rc"
check "own dump: annotate --html shows no file by default" 0 "$(grep -c SECRET-TOKEN "$T/own.html")"
check "own dump: annotate --html says why" 1 \
    "$(grep -c 'not read: a page shows only the dumps. own copies' "$T/own.html")"
run annotate "$PL/private" --html "$T/own.html" --read-files
check "own dump: annotate --html --read-files reads it" 1 "$(grep -c 'SECRET-TOKEN-4711 = 1' "$T/own.html")"
check "own dump: annotate --html --read-files says where the text came from" 1 \
    "$(grep -c 'read now from the file' "$T/own.html")"
# A dump in a directory others can write without the sticky bit: anyone
# could have replaced it.
planted_dump "$PL/open/pystats-9-a.txt" "$PL/victim/secret.py"
run annotate "$PL/open"
check "own dump, directory open to others: the file is not read" 0 "$(grep -c SECRET-TOKEN "$T/stdout")"
check "own dump, directory open to others: says why" 1 \
    "$(grep -c 'not read: a dump that names it is not yours' "$T/stdout")"
rm -f "$PL/open/pystats-9-a.txt"

# ---- what a source is, when it is not a readable file ----------------------
mkdir -p "$PL/kinds"
mkfifo "$PL/kinds/fifo.py"
mkdir "$PL/kinds/dir.py"
truncate -s 70M "$PL/kinds/big.py"
for k in fifo.py:'a FIFO' dir.py:'a directory' big.py:'too big' /dev/null:'a character device' \
         gone.py:'gone'; do
    name=${k%%:*}
    what=${k#*:}
    case $name in /*) src=$name ;; *) src=$PL/kinds/$name ;; esac
    planted_dump "$PL/private/pystats-9-a.txt" "$src"
    run annotate "$PL/private"
    check "annotate, source is $what: exit status" 0 "$rc"
    check "annotate, source is $what: said" 1 "$(grep -c "no source: .* is $what" "$T/stdout")"
done

# ---- the LINE of a hot-code key ----------------------------------------------
# hot_dump FILE LINE N: a dump whose one code entry has LINE as its key's
# line and line[N].
hot_dump() {
    cat > "$1" <<EOF
pystats.format : 2
pystats.collector : pystats 0.1.0
pystats.counts : base-instructions
meta.python.version : 3.12.1
meta.python.implementation : cpython
meta.collection.mode : count
meta.process.pid : 9
opcode[LOAD_FAST].execution_count : 12
code[/nonexistent/m.py:$2:f].instructions : 12
code[/nonexistent/m.py:$2:f].calls : 1
code[/nonexistent/m.py:$2:f].line[$3] : 12
code[/nonexistent/m.py:7:g].instructions : 3
code[/nonexistent/m.py:7:g].line[7] : 3
EOF
}
mkdir -p "$PL/lines"
esc=$(printf '\033')
bel=$(printf '\007')
for bad in "1${esc}]0;pwned${bel}" '<img src=x onerror=alert(1)>' '3 | x' 2147483648 99999999999999999999 12a ' 5' -1 ''; do
    hot_dump "$PL/lines/a.txt" "$bad" 5
    run summarize "$PL/lines/a.txt"
    check "bad LINE '$bad': summarize exit status" 0 "$rc"
    check "bad LINE '$bad': nothing of it on stdout" 0 \
        "$(grep -c "pwned\|<img\|img src\|3 | x\|2147483648\|99999\|12a\|m.py: 5\|m.py:-1" "$T/stdout")"
    check "bad LINE '$bad': no control byte on stdout" 0 "$(tr -d '\n' < "$T/stdout" | LC_ALL=C grep -c '[[:cntrl:]]')"
    check "bad LINE '$bad': named by file and line, not counted" 3 \
        "$(grep -c 'a.txt:\(9\|10\|11\): hot-code key is not' "$T/stderr")"
    check "bad LINE '$bad': the good entry kept" 1 "$(grep -c 'm.py:7:g\|m\.py:7\b' "$T/stdout" | awk '{print ($1 > 0)}')"
    run check "$PL/lines/a.txt"
    check "bad LINE '$bad': check is not ok" 6 "$rc"
done
for bad in "1${esc}[31m" '<b>x</b>' 2147483648 -1 ' 5'; do
    hot_dump "$PL/lines/a.txt" 5 "$bad"
    run summarize "$PL/lines/a.txt"
    check "bad line[N] '$bad': named by file and line, not counted" 1 \
        "$(grep -c 'a.txt:11: ' "$T/stderr")"
    run check "$PL/lines/a.txt"
    check "bad line[N] '$bad': check is not ok" 6 "$rc"
done
# Lines of 10 digits are lines (up to 2**31-1).
hot_dump "$PL/lines/a.txt" 2147483647 2147483647
run annotate "$PL/lines/a.txt" --function f
check "LINE 2**31-1: annotate finds the function" 0 "$rc"
check "LINE 2**31-1: its line and count" "12 2147483647" \
    "$(awk '$2 == 2147483647 { gsub(",", "", $1); print $1, $2 }' "$T/stdout")"
hot_dump "$PL/lines/a.txt" 1000000000 1000000003
run annotate "$PL/lines/a.txt"
check "LINE 10**9: the hottest function is shown" 1 "$(grep -c '^== .*m.py:1000000000 f' "$T/stdout")"
check "LINE 10**9: its line's count" "12 1000000003" \
    "$(awk '$2 == 1000000003 { gsub(",", "", $1); print $1, $2 }' "$T/stdout")"

# Leading zeros: one line, written as a plain number.
hot_dump "$PL/lines/a.txt" 0005 5
run annotate "$PL/lines/a.txt" --function f
check "LINE 0005: line 5" 1 "$(grep -c '^== .*m.py:5 f' "$T/stdout")"

# A JSON summary's "line": one grammar, the member skipped otherwise.
hot_dump "$PL/lines/a.txt" 5 5
run summarize "$PL/lines/a.txt" --json "$T/lines.json"
check "JSON line: summary written" 0 "$rc"
for bad in "1${esc}]0;pwned${bel}" '<img src=x>' '3 | x' 2147483648; do
    python3 - "$T/lines.json" "$T/lines-bad.json" "$bad" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for k, v in d["code"].items():
    if v["function"] == "f":
        v["line"] = sys.argv[3]
json.dump(d, open(sys.argv[2], "w"))
EOF
    run summarize "$T/lines-bad.json"
    check "JSON line '$bad': nothing of it on stdout" 0 "$(grep -c "pwned\|<img\|3 | x\|2147483648" "$T/stdout")"
    check "JSON line '$bad': no control byte on stdout" 0 "$(tr -d '\n' < "$T/stdout" | LC_ALL=C grep -c '[[:cntrl:]]')"
    check "JSON line '$bad': said" 1 "$(grep -c 'lines-bad.json: 1 values were not counts' "$T/stderr")"
done
# A census site's "line" with " | " in it would shift the row's fields:
# the function shown would be another.
run summarize "$HERE/census" --json "$T/cen.json"
python3 - "$T/cen.json" "$T/cen-bad.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["census"]["sites"][0]
s["line"] = "16 | EVIL_FUNCTION | x"
json.dump(d, open(sys.argv[2], "w"))
EOF
run summarize "$T/cen-bad.json"
check "census site line with ' | ': no shifted function shown" 0 "$(grep -c EVIL_FUNCTION "$T/stdout")"
check "census site line with ' | ': said" 1 "$(grep -c 'cen-bad.json: 1 values were not counts' "$T/stderr")"

# ---- names of planted files are escaped -----------------------------------
if [ "$(id -u)" = 0 ]; then
    mkdir -p "$PL/shared2"
    chmod 1777 "$PL/shared2"
    name=$(printf 'pystats-9-\033]0;pwned\007.txt')
    planted_dump "$PL/shared2/$name" /nonexistent/x.py
    chown 65534 "$PL/shared2/$name"
    run summarize "$PL/shared2"
    check "planted file's name: warned of" 1 "$(grep -c 'owned by uid 65534' "$T/stderr")"
    check "planted file's name: no control byte on stderr" 0 \
        "$(tr -d '\n' < "$T/stderr" | LC_ALL=C grep -c '[[:cntrl:]]')"
    run annotate "$PL/shared2"
    check "planted file's name, annotate: no control byte on stderr" 0 \
        "$(tr -d '\n' < "$T/stderr" | LC_ALL=C grep -c '[[:cntrl:]]')"
    run check "$PL/shared2"
    check "planted file's name, check: no control byte on stdout" 0 \
        "$(tr -d '\n' < "$T/stdout" | LC_ALL=C grep -c '[[:cntrl:]]')"
fi

# Every printf of src/cli to a terminal stream with a %s: no argument
# that looks like a text of the inputs (they go through cli_fput_esc).
check "no %s of a path, name or text outside the escaper" "" \
    "$(python3 "$HERE/printf_audit.py" "$HERE/../../src/cli")"

# A link of the reader's, in the reader's directory, to the reader's dump
# in a directory others can write without the sticky bit: anyone could
# replace what it leads to.
mkdir -p "$PL/linked"
planted_dump "$PL/open/pystats-9-l.txt" "$PL/victim/secret.py"
ln -s "$PL/open/pystats-9-l.txt" "$PL/linked/pystats-9-l.txt"
run annotate "$PL/linked"
check "a link to a dump in a directory open to others: the file is not read" 0 \
    "$(grep -c SECRET-TOKEN "$T/stdout")"
rm -f "$PL/open/pystats-9-l.txt" "$PL/linked/pystats-9-l.txt"
