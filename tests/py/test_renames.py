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


PYSTATS_CLI = os.path.join(ROOT, "build", "pystats")

DUMP_HEAD = """pystats.format : 2
pystats.collector : pystats test
pystats.counts : base-instructions
meta.python.version : 3.%d.0
meta.python.implementation : cpython
meta.collection.mode : count
meta.label : corpus
meta.census.scope : count
"""


def write_dump(path, minor, counts, site_family):
    """A dump of the corpus's executed instructions on 3.minor (what the
    collector would count, here from `dis`) and one census site failing
    to specialize, its family as that version names it."""
    with open(path, "w") as f:
        f.write(DUMP_HEAD % minor)
        f.write("census.code_objects : 1\n")
        f.write("census.family[%s].sites : 1\n" % site_family)
        f.write("census.family[%s].backing_off : 1\n" % site_family)
        f.write("census.site[0] : %s | 11 | 2273 | /srv/x.py | 2 | get | "
                "return b%%5Bi%%5D\n" % site_family)
        for name, n in sorted(counts.items()):
            f.write("opcode[%s].execution_count : %d\n" % (name, n))


@pytest.mark.skipif(not os.access(PYSTATS_CLI, os.X_OK),
                    reason="build/pystats not built")
@pytest.mark.parametrize("reverse", [False, True])
def test_compare_counts_by_meaning(tmp_path, reverse):
    """compare of 3.13 and 3.14 dumps of the same work: section `meaning`
    has each side's counts in the table's units (computed here from the
    raw counts), equal on both sides but for inserted instructions; the
    headline names the renames; a census site of BINARY_SUBSCR (3.13) and
    the same site as BINARY_OP (3.14) are one row.  Base the newer side
    too (reverse)."""
    if 13 not in PYTHONS or 14 not in PYTHONS:
        pytest.skip("needs CPython 3.13 and 3.14")
    rows = {(side, name): row for row in table() if row[0] == 13
            for _, side, name, _, _ in [row]}
    sides = {}
    for minor, side, fam in ((13, "OLD", "BINARY_SUBSCR"), (14, "NEW", "BINARY_OP")):
        total = {}
        for case in executed(minor):
            for k, v in case.items():
                total[k] = total.get(k, 0) + v
        sides[minor] = units(total, rows, side)
        write_dump(str(tmp_path / ("d%d.txt" % minor)), minor, total, fam)
    base, head = (14, 13) if reverse else (13, 14)
    r = subprocess.run([PYSTATS_CLI, "compare", str(tmp_path / ("d%d.txt" % base)),
                        str(tmp_path / ("d%d.txt" % head)), "--json", "-",
                        "--markdown", str(tmp_path / "c.md")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    c = json.loads(r.stdout)
    meaning = {row["name"]: row for row in c["sections"]["meaning"]["rows"]}
    assert set(meaning) == set(sides[13]) | set(sides[14])
    for name, row in meaning.items():
        assert row["base"] == sides[base].get(name, 0), name
        assert row["head"] == sides[head].get(name, 0), name
    for name in ("LOAD_FAST", "LOAD_CONST", "BINARY_OP", "RETURN_VALUE", "CALL"):
        assert meaning[name]["base"] == meaning[name]["head"] > 0, name
    inserted = {name for (side, name), row in rows.items() if row[4] == "INSERTED"}
    changed = {n for n, row in meaning.items() if row["base"] != row["head"]}
    assert changed and changed <= inserted, changed
    # The renames each side ran, with their executions from the raw counts.
    ren = {(x["name"], x["side"]): x for x in c["renames"]}
    for case_minor, side in ((13, "OLD"), (14, "NEW")):
        label = "base" if case_minor == base else "head"
        for (s, name), row in rows.items():
            if s != side or row[4] == "INSERTED":
                continue
            n = sum(case.get(name, 0) for case in executed(case_minor))
            if n:
                assert ren[(name, label)]["executions"] == n
                assert ren[(name, label)]["as"] == " ".join(row[3])
            else:
                assert (name, label) not in ren
    md = (tmp_path / "c.md").read_text()
    assert "by meaning: " in md
    assert "`LOAD_FAST_BORROW` (3.14, renamed) as `LOAD_FAST`" in md
    # One census site, under 3.14's family name.
    sites = c["sections"]["census_sites"]["rows"]
    assert [(s["name"], s["base"], s["head"]) for s in sites] == [
        ("BINARY_OP /srv/x.py:2 get", 1, 1)], sites
