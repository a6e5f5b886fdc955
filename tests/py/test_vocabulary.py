"""Every key and header name of the dump format is defined once, in
src/format/psf_keys.h, and every statistic of a family (calls, objects,
GC, rare events) once, in src/format/psf_stats.h: neither the collector
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


def test_no_statistic_spelled_outside_its_family():
    words, prefixes = family_words(), family_prefixes()
    assert words["calls.python_starts"] == "CALLS.python_starts"
    assert "gc[" in prefixes and "GC[" in prefixes
    found, used = [], set()
    for rel, path in source_files():
        for n, lit in literals(path):
            why = suspicious(lit, words, prefixes)
            if why is None or (rel == "format/psf_keys.h" and lit in prefixes):
                continue    # psf_keys.h defines the prefixes
            if (rel, lit) in ALLOWED:
                used.add((rel, lit))
            else:
                found.append('src/%s:%d: "%s": %s' % (rel, n, lit, why))
    assert not found, "\n".join(found)
    assert used == set(ALLOWED), "allowed but not found: %s" % (set(ALLOWED) - used)


def test_every_statistic_documented():
    with open(os.path.join(ROOT, "docs", "FORMAT.md"), encoding="utf-8") as f:
        doc = f.read()
    missing = []
    for fam in statsdef.families().values():
        for st in fam.rows if not fam.name.startswith("NATIVE_") else ():
            key = statsdef.dump_key(st, 0).replace("[0]", "[G]")
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
