"""A JSON summary read back gives the same counters (docs/FORMAT.md 3.1).

Dumps are written here by hand from generated names (code objects whose
FILE and QUALNAME are long and hostile, counters with long names), then
`pystats summarize --json` makes a summary S1 of them and `pystats
summarize S1 --json` a summary S2 of S1: S2 must be S1, member for
member (only `meta.formats`, which says what was read, differs).  The
expected values are the generated names and counts themselves.

Also the JSON rules of the reader: a boolean where a count belongs is
not a count (a problem naming the file and the member), a member given
twice is refused; and `compare`'s changes above 2^63 are exact integers.
Examples per run: PYSTATS_ROUNDTRIP_EXAMPLES (default 6, times 5).
"""
import json
import os
import subprocess

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYSTATS_CLI = os.path.join(ROOT, "build", "pystats")
EXAMPLES = int(os.environ.get("PYSTATS_ROUNDTRIP_EXAMPLES", "6")) * 5

pytestmark = pytest.mark.skipif(not os.access(PYSTATS_CLI, os.X_OK),
                                reason="build/pystats is not built")

HEADER = """pystats.format : 2
pystats.collector : pystats 0.1.0
pystats.counts : base-instructions
meta.python.version : 3.13.0
meta.python.implementation : cpython
meta.collection.mode : count
meta.collection.mechanism : monitoring
meta.collection.method : segments
meta.dump.reason : explicit
"""


def enc(s):
    """A free-text field as docs/FORMAT.md 1.16 writes it."""
    out = []
    for i, ch in enumerate(s):
        b = ch.encode("utf-8", "surrogatepass")
        edge = ch == " " and i in (0, len(s) - 1)
        if ("\ud800" <= ch <= "\udfff" or ch in "\u0085\u2028\u2029" or edge
                or len(b) == 1 and (b[0] < 0x20 or b[0] == 0x7F or ch in "%|:[]")):
            out.append("".join("%%%02X" % x for x in b))
        else:
            out.append(ch)
    return "".join(out)


def run(*args, check=True):
    p = subprocess.run([PYSTATS_CLI, *args], capture_output=True, text=True, timeout=120)
    if check:
        assert p.returncode == 0, p.stderr
    return p


def strip_formats(doc):
    """What describes the files read rather than their counters: their
    formats, and the checks' verdict and findings (a JSON summary read
    back is checked as sums, a note of its own)."""
    for g in [doc] + doc.get("groups", []):
        for k in ("formats", "verdict", "verdict_line", "findings"):
            g.get("meta", {}).pop(k, None)
    return doc


def round_trip(tmp_path, dump_text):
    d = tmp_path / "dumps"
    d.mkdir(exist_ok=True)
    (d / "dump-1.txt").write_text(dump_text, encoding="utf-8")
    s1, s2 = tmp_path / "s1.json", tmp_path / "s2.json"
    run("summarize", str(d), "--json", str(s1))
    p = run("summarize", str(s1), "--json", str(s2))
    assert "warning" not in p.stderr, p.stderr
    a = json.loads(s1.read_text(encoding="utf-8"))
    b = json.loads(s2.read_text(encoding="utf-8"))
    return a, strip_formats(a), strip_formats(b)


def test_long_names_survive(tmp_path):
    # A code object whose source path is about 1 KB and more, two long
    # counters that differ only at their ends, a long opcode name.
    path = "/srv/" + "p" * 1100 + ".py"
    long_a, long_b = "x" * 1100 + "A", "x" * 1100 + "B"
    op = "LOAD_" + "Z" * 600
    lines = [
        f"code[{path}:10:f].instructions : 30",
        f"code[{path}:10:f].calls : 1",
        f"code[{path}:10:f].opcode[LOAD_FAST] : 20",
        f"code[{path}:10:f].opcode[{op}] : 10",
        f"opcode[{op}].execution_count : 10",
        f"{long_a} : 5",
        f"{long_b} : 7",
    ]
    s1, a, b = round_trip(tmp_path, HEADER + "\n".join(lines) + "\n")
    key = f"{path}:10:f"
    assert s1["code"][key]["opcodes"] == {"LOAD_FAST": 20, op: 10}
    assert s1["other"] == {long_a: 5, long_b: 7}
    assert s1["opcodes"][op]["execution_count"] == 10
    assert b["code"][key]["opcodes"] == {"LOAD_FAST": 20, op: 10}
    assert b["other"] == {long_a: 5, long_b: 7}
    assert b["opcodes"][op]["execution_count"] == 10
    assert a == b


# Characters that matter to the format and to JSON.
NASTY = st.sampled_from([
    "|", " | ", ":", " : ", "[", "]", "].", "%", "%41", " ", "\t", "\n", "\r",
    "\x01", "\x1b[31m", "\x7f", "\x85", "\u2028", "é", "€", "😀", "\udcff",
    "\\", '"', "code[", "census.site[", "/", ".",
])


def texts(min_size):
    part = st.one_of(NASTY, st.text(alphabet="abcXYZ_/.", min_size=1, max_size=8),
                     st.integers(200, 1500).map(lambda n: "q" * n))
    return st.lists(part, min_size=min_size, max_size=6).map("".join)


CASE = st.fixed_dictionaries({
    "codes": st.lists(st.tuples(texts(1), st.integers(1, 99999), texts(1),
                                st.integers(0, 2**58), st.integers(0, 2**40)),
                      min_size=1, max_size=4),
    "others": st.lists(st.tuples(st.integers(1, 3000), st.integers(0, 2**58)),
                       min_size=0, max_size=4),
})


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(CASE)
def test_generated_names_round_trip(tmp_path, case):
    lines, want_code, want_other = [], {}, {}
    for file, line, qual, instr, calls in case["codes"]:
        key = f"{enc(file)}:{line}:{enc(qual)}"
        name = f"{file}:{line}:{qual}"
        if name in want_code:
            continue
        lines += [f"code[{key}].instructions : {instr}", f"code[{key}].calls : {calls}",
                  f"code[{key}].opcode[LOAD_FAST] : {instr}"]
        want_code[name] = (instr, calls)
    for n, (length, value) in enumerate(case["others"]):
        name = "o%d_" % n + "w" * length
        lines.append(f"{name} : {value}")
        want_other[name] = value
    s1, a, b = round_trip(tmp_path, HEADER + "\n".join(lines) + "\n")
    for name, (instr, calls) in want_code.items():
        got = s1["code"][name]
        assert (got["instructions"], got["calls"]) == (instr, calls)
        assert got["opcodes"] == {"LOAD_FAST": instr}
    got_other = {k: int(v) for k, v in s1.get("other", {}).items()}
    assert got_other == want_other
    assert a == b


SUMMARY = {"schema": 1, "meta": {"files": 1, "source": "pystats"},
           "other": {"alpha": 5, "beta": 7}}


def test_boolean_is_not_a_count(tmp_path):
    doc = json.loads(json.dumps(SUMMARY))
    doc["other"]["beta"] = True
    doc["calls"] = {"flag": False}
    f = tmp_path / "s.json"
    f.write_text(json.dumps(doc))
    out = tmp_path / "o.json"
    p = run("summarize", str(f), "--json", str(out), check=False)
    assert p.returncode == 0, p.stderr
    assert f"{f}: 2 values were not counts" in p.stderr, p.stderr
    assert "(the first: in calls, flag is false)" in p.stderr, p.stderr
    s = json.loads(out.read_text())
    assert s["other"] == {"alpha": 5}
    assert "flag" not in s.get("calls", {})
    assert s["meta"]["problems"]["unparsable"] == 1
    p = run("summarize", str(f), "--json", str(out), "--strict", check=False)
    assert p.returncode == 1


def test_duplicate_member_is_refused(tmp_path):
    f = tmp_path / "s.json"
    f.write_text('{"schema": 1, "meta": {"files": 1, "source": "pystats"},'
                 ' "other": {"alpha": 5, "alpha": 7}}')
    good = tmp_path / "g.json"
    good.write_text(json.dumps(SUMMARY))
    out = tmp_path / "o.json"
    p = run("summarize", str(f), str(good), "--json", str(out), check=False)
    assert p.returncode == 0, p.stderr
    assert f"{f}:1: not a valid JSON summary: duplicate object key" in p.stderr, p.stderr
    s = json.loads(out.read_text())
    # The other file is still read; the refused one adds nothing.
    assert s["other"] == {"alpha": 5, "beta": 7}
    assert s["meta"]["problems"]["unparsable"] == 1


def test_compare_change_above_2_63_is_exact(tmp_path):
    base, head = tmp_path / "b.json", tmp_path / "h.json"
    for f, n in ((base, 18446744073709551609), (head, 18446744073709551610)):
        doc = {"schema": 1, "meta": {"files": 1, "source": "pystats"},
               "opcodes": {"LOAD_FAST": {"execution_count": str(n)}}}
        f.write_text(json.dumps(doc))
    out = tmp_path / "c.json"
    run("compare", str(base), str(head), "--json", str(out))
    text = out.read_text()
    c = json.loads(text)
    rows = [r for r in walk(c) if r.get("name") in ("LOAD_FAST", "instructions")]
    assert rows, text[:2000]
    for r in rows:
        assert r["change"] == 1 and isinstance(r["change"], int), r


def walk(v):
    if isinstance(v, dict):
        yield v
        for x in v.values():
            yield from walk(x)
    elif isinstance(v, list):
        for x in v:
            yield from walk(x)


def test_header_value_not_utf8_round_trips(tmp_path):
    # A header that is not free text holds the dump's bytes as they are;
    # the summary shows a byte that is not UTF-8 as \udcXX, and reading it
    # back gives the byte again (found by tests/fuzz/fuzz_roundtrip.c).
    d = tmp_path / "dumps"
    d.mkdir()
    (d / "dump-1.txt").write_bytes(HEADER.encode() + b"meta.collection.windows : 2\x8f\n"
                                   b"opcode[LOAD_FAST].execution_count : 20\n")
    s1, s2 = tmp_path / "s1.json", tmp_path / "s2.json"
    run("summarize", str(d), "--json", str(s1))
    run("summarize", str(s1), "--json", str(s2))
    a = strip_formats(json.loads(s1.read_text()))
    b = strip_formats(json.loads(s2.read_text()))
    assert a["meta"]["headers"]["meta.collection.windows"] == {"2\udc8f": 1}
    assert a == b
