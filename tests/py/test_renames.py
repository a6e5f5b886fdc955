"""The table of instructions renamed, split or merged between CPython
versions (src/cli/renames.c), checked against `dis` on both interpreters
of each version pair: the same small functions (renames/corpus.py) run
on both, their executed instructions named by `dis` (renames/count.py),
amount to the same units once each side's instructions are translated
by the table, but for the instructions the table says are inserted (more
of them on the new side, never fewer).  And the table of docs/CLI.md is
the C table."""
import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "tests", "py", "renames")
ROW = re.compile(r'\{(\d+),\s*REN_(OLD|NEW),\s*"(\w+)",\s*"([\w ]+)",\s*REN_(\w+)\}')


def table():
    with open(os.path.join(ROOT, "src", "cli", "renames.c")) as f:
        rows = ROW.findall(f.read())
    assert rows
    return [(int(m), side, name, units.split(), kind)
            for m, side, name, units, kind in rows]


def interpreters():
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    try:
        from pythons import find_pythons
    finally:
        del sys.path[0]
    found = {}
    for exe in find_pythons():
        r = subprocess.run([exe, "-c", "import sys, sysconfig; print(sys.version_info[1], "
                            "bool(sysconfig.get_config_var('Py_GIL_DISABLED')))"],
                           capture_output=True, text=True)
        if r.returncode == 0:
            minor, ft = r.stdout.split()
            if ft == "False":
                found.setdefault(int(minor), exe)
    return found


PYTHONS = interpreters()


def executed(minor):
    r = subprocess.run([PYTHONS[minor], os.path.join(HERE, "count.py"),
                        os.path.join(HERE, "corpus.py")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def units(counts, rows, side):
    out = {}
    for name, n in counts.items():
        row = rows.get((side, name))
        for u in row[3] if row else [name]:
            out[u] = out.get(u, 0) + n
    return out


@pytest.mark.parametrize("lo", [12, 13])
def test_the_table_explains_dis(lo):
    if lo not in PYTHONS or lo + 1 not in PYTHONS:
        pytest.skip("needs CPython 3.%d and 3.%d" % (lo, lo + 1))
    rows = {(side, name): row for row in table() if row[0] == lo
            for _, side, name, _, _ in [row]}
    inserted = {name for (side, name), r in rows.items() if r[4] == "INSERTED"}
    old, new = executed(lo), executed(lo + 1)
    assert len(old) == len(new)
    differ = 0
    used = set()
    for i, (a, b) in enumerate(zip(old, new)):
        differ += a != b
        ua, ub = units(a, rows, "OLD"), units(b, rows, "NEW")
        for u in set(ua) | set(ub):
            d = ub.get(u, 0) - ua.get(u, 0)
            if u in inserted:
                assert d >= 0, (i, u, a, b)
            else:
                assert d == 0, (i, u, a, b)
        used |= {("OLD", n) for n in a if ("OLD", n) in rows}
        used |= {("NEW", n) for n in b if ("NEW", n) in rows}
    # The corpus runs differently on the two (the test tests something),
    # and every row but the ones no small function reaches is exercised.
    assert differ > len(old) // 2
    unreached = {("NEW", "PUSH_NULL")} if lo == 12 else set()
    assert set(rows) - used <= {("OLD", "JUMP_BACKWARD_NO_INTERRUPT")} | unreached, \
        set(rows) - used


def test_a_rename_names_instructions_of_its_versions():
    """Each row's instruction exists on its side (CPython's opcode lists
    of data/tables), each unit on one side or the other."""
    ops = {}
    for minor in (12, 13, 14):
        with open(os.path.join(ROOT, "data", "tables", "opcodes-3.%d.tsv" % minor)) as f:
            ops[minor] = {line.split("\t")[1] for line in f
                          if line.strip() and not line.startswith("#")}
    for lo, side, name, us, kind in table():
        mine = ops[lo + (side == "NEW")]
        assert name in mine or name == "LOAD_CLOSURE", (lo, side, name)
        for u in us:
            assert u in ops[lo] or u in ops[lo + 1], (lo, name, u)


def test_the_documented_table_is_the_table():
    with open(os.path.join(ROOT, "docs", "CLI.md")) as f:
        doc = f.read()
    kinds = {"RENAME": "renamed", "SPLIT": "split", "MERGE": "merged",
             "INSERTED": "inserted"}
    for lo, side, name, us, kind in table():
        line = "| 3.%d -> 3.%d | %s | `%s` | %s | %s |" % (
            lo, lo + 1, "3.%d" % (lo + (side == "NEW")), name,
            " + ".join("`%s`" % u for u in us), kinds[kind])
        assert line in doc, line
