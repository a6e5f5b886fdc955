"""Every key and header name of the dump format is defined once, in
src/format/psf_keys.h, and every statistic of a family (calls, objects,
GC, rare events, the census's figures of a family, CPython's own
families) once, in src/format/psf_stats.h: neither the collector
(src/ext) nor the command (src/cli) nor the rest of the format library
spells one as a string literal of its own, whole or inside a format
string."""
import os
import re

import statsdef

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KEYS = os.path.join(ROOT, "src", "format", "psf_keys.h")
# A literal that is a whole key or key prefix of the collector's own
# format (messages and docstrings that merely mention one are prose).
LITERAL = re.compile(r'"((?:meta|pystats)\.[a-z_.]+|census\.[a-z_]+\[?|'
                     r'(?:code|gc|opcode)\[|(?:calls|objects|rare)\.[a-z_]*)"')


def defined():
    with open(KEYS) as f:
        return set(re.findall(r'#define PSF_\w+\s+"([^"]*)"', f.read()))


def test_no_key_spelled_outside_the_vocabulary():
    keys = defined()
    assert "meta.label" in keys and "census.site[" in keys
    found = []
    for sub in ("ext", "cli"):
        d = os.path.join(ROOT, "src", sub)
        for name in sorted(os.listdir(d)):
            if not name.endswith((".c", ".h")):
                continue
            with open(os.path.join(d, name), encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    for m in LITERAL.finditer(line):
                        if m.group(1) in keys:
                            found.append("src/%s/%s:%d: %s" % (sub, name, n, m.group(0)))
    assert not found, "\n".join(found)


# A literal of src/ that names a statistic of a family, with the reason
# it may: (file, literal) -> why.
ALLOWED = {
    ("ext/stats.c", "uncollectable"):
        "CPython's gc.callbacks info dict, read under CPython's name",
    ("ext/stats.c", "collected"):
        "CPython's gc.callbacks info dict, read under CPython's name",
    ("cli/report_stats.c", "allocations"):
        "a substring test of CPython's native Object labels (the ratio's row)",
}

# The census's figures of a family are words other vocabularies share
# (the states of a site row, of a site execution, the source view's
# badges, the JSON summary's list of failing sites): a file whose own
# vocabulary spells one as a whole literal, (file, family) -> why.
SHARED_WORDS = {
    ("format/psf_keys.h", "CENSUS_FAMILY"):
        "the states of a code[K].site row (FORMAT.md 1.18)",
    ("cli/model_sitefx.c", "CENSUS_FAMILY"):
        "the states of census.site_executions[F] (FORMAT.md 1.18)",
    ("cli/report_sitefx.c", "CENSUS_FAMILY"):
        "the site executions table's columns: executions by state, not sites",
    ("cli/annotate.c", "CENSUS_FAMILY"):
        "the source view's state badges",
    ("cli/report_sites.c", "CENSUS_FAMILY"):
        "the failing sites table's count of merged sites",
    ("cli/report_ops.c", "CENSUS_FAMILY"):
        "the opcode families table's specialized executions",
    ("cli/read_json.c", "CENSUS_FAMILY"):
        "the JSON summary's census.sites, the failing sites' list and counts",
    ("cli/report_json.c", "CENSUS_FAMILY"):
        "the JSON summary's census.sites, the failing sites' list and counts",
    ("cli/summary_schema.c", "CENSUS_FAMILY"):
        "the JSON summary's census.sites, the failing sites' list",
}

STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def family_words():
    """{spelling: what it is} of every family's statistics: their keys
    as dumps write them and after the prefix, labels, snapshot names."""
    words = {}
    for fam in statsdef.families().values():
        for st in fam.rows:
            what = "%s.%s" % (fam.name, st.field)
            for w in (st.key, st.label, st.field,
                      statsdef.dump_key(st, 0) if st.sep else st.prefix + st.key):
                if w != st.field or not fam.name.startswith("NATIVE_"):
                    words[w] = what     # a native row's id names nothing
    return words


def family_prefixes():
    return {st.prefix for fam in statsdef.families().values() for st in fam.rows
            if st.prefix}


def suspicious(lit, words, prefixes):
    """Why literal lit spells a family's statistic, or None."""
    bare = lit.strip("[]. :")
    if lit in words or bare in words:
        return "the statistic " + words.get(lit, words.get(bare))
    for p in prefixes:
        if lit == p:
            return "the family prefix %r" % p
        if p + "%" in lit:
            return "a key of prefix %r built by a format string" % p
    for w, what in words.items():
        if ("." in w or "[" in w) and w in lit:
            return "the statistic %s inside a longer literal" % what
    return None


def literals(path):
    """(line, literal) of a C file, comments left out."""
    with open(path, encoding="utf-8") as f:
        text = COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), f.read())
    for n, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("#include"):
            continue
        for m in STRING.finditer(line):
            yield n, m.group(1)


def source_files():
    """(SUB/NAME, path) of every C file of src/SUB but psf_stats.h, the
    families' one definition."""
    for sub in ("ext", "cli", "format"):
        d = os.path.join(ROOT, "src", sub)
        for name in sorted(os.listdir(d)):
            if name.endswith((".c", ".h")) and name != "psf_stats.h":
                yield sub + "/" + name, os.path.join(d, name)


def shared(where, lit, words, used):
    """Whether lit, in file where, is a whole word of a family whose
    words that file's own vocabulary shares (SHARED_WORDS)."""
    what = words.get(lit.strip("[]. :"))
    fam = what and what.split(".")[0]
    if (where, fam) not in SHARED_WORDS or lit.strip("[]. :") != lit:
        return False
    used.add((where, fam))
    return True


def test_no_statistic_spelled_outside_its_family():
    words, prefixes = family_words(), family_prefixes()
    assert words["calls.python_starts"] == "CALLS.python_starts"
    assert words["failed_attempts"] == "CENSUS_FAMILY.failed_attempts"
    assert words["Never tried"] == "CENSUS_FAMILY.never_tried"
    assert "gc[" in prefixes and "GC[" in prefixes and "census.family[" in prefixes
    found, used, shared_used = [], set(), set()
    for rel, path in source_files():
        for n, lit in literals(path):
            why = suspicious(lit, words, prefixes)
            if why is None or (rel == "format/psf_keys.h" and lit in prefixes):
                continue    # psf_keys.h defines the prefixes
            if (rel, lit) in ALLOWED:
                used.add((rel, lit))
            elif not shared(rel, lit, words, shared_used):
                found.append('src/%s:%d: "%s": %s' % (rel, n, lit, why))
    assert not found, "\n".join(found)
    assert used == set(ALLOWED), "allowed but not found: %s" % (set(ALLOWED) - used)
    assert shared_used == set(SHARED_WORDS), set(SHARED_WORDS) - shared_used


def test_every_statistic_documented():
    with open(os.path.join(ROOT, "docs", "FORMAT.md"), encoding="utf-8") as f:
        doc = f.read()
    missing = []
    for fam in statsdef.families().values():
        for st in fam.rows if not fam.name.startswith("NATIVE_") else ():
            key = statsdef.dump_key(st, "F" if fam.name == "CENSUS_FAMILY" else "G")
            if key not in doc:
                missing.append(key)
    assert not missing, missing


# A second list of a family: three of its fields or more named as
# identifiers in one stretch of code between braces (a struct's body, a
# table, a list of macro calls), outside psf_stats.h; (file, family) ->
# why it may.
LISTS_ALLOWED = {
    ("ext/monitoring.c", "CALLS"):
        "one callback per event (CALL_EVENT), each adding to its own counter",
    ("ext/stats.c", "OBJECTS"):
        "count_alloc(): the increments, one size bucket per allocation",
}


def second_lists(path, fams):
    with open(path, encoding="utf-8") as f:
        text = COMMENT.sub(" ", f.read())
    text = STRING.sub('""', text)
    for seg in re.split(r"[{}]", text):
        for fam in fams.values():
            if fam.name.startswith("NATIVE_"):
                continue    # a native row's id names no field: a use, not a list
            named = sorted(st.field for st in fam.rows
                           if re.search(r"(?<![.>\w])%s\b(?!\s*\()" % st.field, seg))
            if len(named) >= 3:
                yield fam.name, named


def test_no_family_listed_twice():
    fams = statsdef.families()
    found, used = [], set()
    for rel, path in source_files():
        for fam, named in second_lists(path, fams):
            if (rel, fam) in LISTS_ALLOWED:
                used.add((rel, fam))
            else:
                found.append("src/%s: %s listed again: %s" % (rel, fam, ", ".join(named)))
    assert not found, "\n".join(found)
    assert used == set(LISTS_ALLOWED), set(LISTS_ALLOWED) - used


# -- what the collector writes is what the lists say ----------------------

FAMILY_CHILD = r"""
import gc, json, pystats
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
class Node:
    def __init__(self):
        self.ref = self
gc.collect()
before = gc.get_stats()
pystats.on(mode="count")
fib(12)
for gen in (0, 0, 1, 2):
    for _ in range(50):
        Node()
    gc.collect(gen)
keep = [bytes(n) for n in (10, 1000, 10000)]
pystats.off()
after = gc.get_stats()
snap = {k: v for k, v in pystats.snapshot().items() if k in ("calls", "objects", "gc", "rare")}
print(json.dumps({"snap": snap, "before": before, "after": after}))
"""


def fib_calls(n):
    """Calls fib(n) makes, itself included, counted by recursion."""
    return 1 if n < 2 else 1 + fib_calls(n - 1) + fib_calls(n - 2)


def test_families_written_as_listed(stats_dir):
    import json
    from conftest import clean_env, dumps_in, run_python
    out = json.loads(run_python(FAMILY_CHILD, env=clean_env(PYSTATS_DIR=stats_dir)).stdout)
    snap = out["snap"]
    (dump,) = dumps_in(stats_dir)
    fams = statsdef.families()
    # snapshot(): every statistic of a family, in the list's order.
    assert list(snap["calls"]) == [st.field for st in fams["CALLS"].rows]
    assert list(snap["objects"]) == [st.field for st in fams["OBJECTS"].rows]
    assert list(snap["rare"]) == [st.field for st in fams["RARE"].rows]
    for g in snap["gc"]:
        assert list(g) == [st.field for st in fams["GC"].rows]
    # The dump: the same counts under the lists' keys, in their order.
    keys = list(dump.extra)
    for name, part in (("CALLS", "calls"), ("OBJECTS", "objects"), ("RARE", "rare")):
        written = [st for st in fams[name].rows if statsdef.dump_key(st) in dump.extra]
        for st in written:
            assert int(dump.extra[statsdef.dump_key(st)]) == snap[part][st.field], st
        pos = [keys.index(statsdef.dump_key(st)) for st in written]
        assert pos == sorted(pos), name
    for gen, g in enumerate(snap["gc"]):
        for st in fams["GC"].rows:
            assert int(dump.extra[statsdef.dump_key(st, gen)]) == g[st.field], (gen, st)
    # Counted from elsewhere: gc.get_stats() over the window, and the
    # calls fib makes (the window's other Python code only adds).
    for gen in range(3):
        for f in ("collections", "collected", "uncollectable"):
            assert snap["gc"][gen][f] == out["after"][gen][f] - out["before"][gen][f]
    assert snap["gc"][2]["collections"] == 1 and snap["gc"][0]["collections"] >= 2
    assert snap["calls"]["python_starts"] >= fib_calls(12) == 465
    assert snap["objects"]["allocations4k"] >= 1 and snap["objects"]["allocations_big"] >= 1


CENSUS_CHILD = r"""
import json, pystats
from pystats import _collector
class P:
    def __init__(self):
        self.x = 1
def f(objs):
    return sum(o.x for o in objs) + len([str(i) for i in range(300)])
pystats.on(mode="census")
f([P() for _ in range(300)])
pystats.off()
pystats.dump()
from pystats import _census
_census.setup()
_collector._census_begin()
_collector._census_code(f.__code__, [])
print(json.dumps(_collector._census_totals()["families"]))
"""


def test_census_figures_written_as_listed(stats_dir):
    """The census's figures of each family: _census_totals() names them
    in the list's order, forms last; the dump writes them in that order,
    a family's specialized[FORM] right after its specialized, and the
    forms add up to it (each specialized site is in one form)."""
    import json
    from conftest import clean_env, dumps_in, run_python
    fams = json.loads(run_python(CENSUS_CHILD, env=clean_env(PYSTATS_DIR=stats_dir)).stdout)
    (dump,) = dumps_in(stats_dir)
    rows = statsdef.families()["CENSUS_FAMILY"].rows
    fields = [st.field for st in rows]
    assert fields[:2] == ["sites", "specialized"] and len(fams) >= 2
    for fam in fams.values():
        assert list(fam) == fields + ["forms"]
    keys = list(dump.extra)
    written = {k.split("]")[0] for k in keys if k.startswith(rows[0].prefix)}
    assert len(written) >= 3, keys
    with_forms = 0
    for fam in sorted(written):
        fam = fam[len(rows[0].prefix):]
        mine = [k for k in keys if k.startswith(statsdef.dump_key(rows[0], fam)[:-len(rows[0].key)])]
        spec = statsdef.dump_key(rows[1], fam)
        forms = [k for k in mine if k.startswith(spec + "[")]
        assert mine == ([statsdef.dump_key(rows[0], fam), spec] + forms
                        + [statsdef.dump_key(st, fam) for st in rows[2:]]), mine
        assert sum(int(dump.extra[k]) for k in forms) == int(dump.extra[spec]), fam
        with_forms += bool(forms)
        for st in rows:
            if st.den is not None:
                assert int(dump.extra[statsdef.dump_key(st, fam)]) <= \
                    int(dump.extra[statsdef.dump_key(rows[fields.index(st.den)], fam)])
    assert with_forms >= 1


# -- CPython's own call and object counters --------------------------------

def cpython_keys():
    """The call and object counters CPython itself wrote: its native
    dumps (3.11, 3.13, 3.14), its summarize_stats.py JSON and the
    summaries Faster CPython published (3.14-3.16), under tests/golden."""
    import glob
    import json
    golden = os.path.join(ROOT, "tests", "golden")
    keys = set()
    for path in glob.glob(os.path.join(golden, "native*", "*", "*.txt")):
        with open(path, encoding="utf-8") as f:
            keys.update(line.rsplit(":", 1)[0].strip() for line in f if ":" in line)
    for path in (glob.glob(os.path.join(golden, "cpython-json", "*.json"))
                 + glob.glob(os.path.join(golden, "published", "*", "*.json"))):
        with open(path, encoding="utf-8") as f:
            keys.update(json.load(f))
    return {k for k in keys if k.startswith(("Calls to ", "Frame", "Object "))}


# summarize_stats.py's sums (3.12-3.16): what each adds up.
SUMMARIZE_SUMS = {
    "calls": lambda k: "Calls to" in k,
    "allocations": lambda k: k in ("Object allocations", "Object allocations from freelist"),
    "materializations": lambda k: k in ("Object new values", "Object inline values"),
    "increfs": lambda k: k.startswith("Object ") and k.endswith("increfs"),
    "decrefs": lambda k: k.startswith("Object ") and k.endswith("decrefs"),
}


def summarize_den(k):
    """summarize_stats.py's denominator of a row, by the words of its key."""
    if k.startswith(("Calls to", "Frame")):
        return "calls"
    for word, den in (("materialize", "materializations"), ("allocations", "allocations"),
                      ("increfs", "increfs"), ("decrefs", "decrefs")):
        if word in k:
            return den
    return None


def test_native_calls_and_objects_listed_as_cpython_writes_them():
    fams = statsdef.families()
    rows = {st.key: st for name in ("NATIVE_CALLS", "NATIVE_OBJECTS")
            for st in fams[name].rows}
    written = cpython_keys()
    assert len(written) >= 30 and "Object method cache resizes" in written
    assert sorted(written - set(rows)) == []
    for k, st in rows.items():
        if k.startswith("Object "):     # summarize_stats.py's label
            label = k[6:].strip()
            assert st.label == label[0].upper() + label[1:], st
        else:
            assert st.label == k, st
        assert st.den == summarize_den(k), st
        parts = [s for s, is_part in SUMMARIZE_SUMS.items() if is_part(k)]
        assert [st.table] == parts if parts else st.table is None, st
    # The collector's own objects that CPython spells alike are CPython's rows.
    for st in fams["OBJECTS"].rows:
        if st.key.startswith("Object "):
            assert rows[st.key].label == st.label, st
