"""What the collector writes, the command reads back unchanged.

Generated file names, qualified names, source lines and labels (the
separators of the dump format, line breaks, NUL, blanks at the edges,
non-ASCII, lone surrogates, undecodable bytes) go through the real
collector, in mode census (failing sites) and mode count (hot code), on
real code objects compiled from generated source in generated paths,
then through `pystats summarize --json` and `pystats check`: every site,
hot-code key and label comes back identical, and check says ok; and
through `pystats annotate --html`: every source line of the generated
code comes back as the file has it (from the dump's own copy of the
source where the census wrote one, 3.12+), shown as reports show text.

The expected values are the generated strings themselves.  Examples per
run: PYSTATS_ROUNDTRIP_EXAMPLES (default 6; each example is a batch of up
to 8 code objects run by two child processes).
"""
import html.parser
import json
import os
import subprocess
import sys

import pytest

from conftest import clean_env, dumps_in

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYSTATS_CLI = os.path.join(ROOT, "build", "pystats")
EXAMPLES = int(os.environ.get("PYSTATS_ROUNDTRIP_EXAMPLES", "6"))

pytestmark = pytest.mark.skipif(not os.access(PYSTATS_CLI, os.X_OK),
                                reason="build/pystats is not built")

# Characters that matter to the format, mixed into every kind of text.
NASTY = st.sampled_from([
    "|", " | ", ":", " : ", "[", "]", "].", "%", "%41", " ", "\t", "\n", "\r",
    "\x00", "\x01", "\x1b[31m", "\x7f", "\x85", "\u2028", "é", "€", "😀",
    "\udcff", "\udc80", "\ud800", "\udfff", "\\", '"', "code[", "census.site[",
])


def texts(alphabet, min_size=0):
    return st.lists(st.one_of(NASTY, st.text(alphabet=alphabet, max_size=6)),
                    min_size=min_size, max_size=8).map("".join)


def no_split_pair(s):
    # JSON spells a high surrogate right before a low one as the one
    # character the pair stands for (docs/FORMAT.md 1.16).
    return not any("\ud800" <= a <= "\udbff" and "\udc00" <= b <= "\udfff"
                   for a, b in zip(s, s[1:]))


# Any str at all (code.replace takes it): FILE and QUALNAME.
any_text = texts(st.characters()).filter(no_split_pair)
# A comment in a UTF-8 source file: no surrogates, no line breaks.
comment_text = texts(st.characters(blacklist_categories=("Cs",),
                                   blacklist_characters="\r\n")).map(
    lambda s: "".join(c for c in s if c not in "\r\n\x00"
                      and not "\ud800" <= c <= "\udfff"))
# A directory name: what the file system holds (surrogateescape bytes
# included), no NUL or "/".
dir_text = texts(st.characters(blacklist_characters="/\x00"), min_size=1).map(
    lambda s: "".join(c for c in s if c not in "/\x00" and (
        not "\ud800" <= c <= "\udfff" or "\udc80" <= c <= "\udcff"))).filter(
    lambda s: s not in ("", ".", "..") and len(os.fsencode(s)) < 200)
# A label passes through the environment: no NUL, surrogates only as
# surrogateescape holds undecodable bytes.
label_text = texts(st.characters(blacklist_characters="\x00")).map(
    lambda s: "".join(c for c in s if c != "\x00" and (
        not "\ud800" <= c <= "\udfff" or "\udc80" <= c <= "\udcff")))

CASE = st.fixed_dictionaries({
    "dir": dir_text, "comment": comment_text,
    "qualname": any_text, "filename": any_text,
})

CHILD = r'''
import json, os, sys
spec = json.load(open(sys.argv[1]))
alive = []   # the census lists the failing sites of live code
for i, case in enumerate(spec["cases"]):
    d = os.path.join(spec["root"], str(i), case["dir"])
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "m.py")
    # A LOAD_ATTR that fails to specialize: through __getattr__ up to
    # 3.13; 3.14 counts no failure there, but does on a getset of a C type.
    src = (("class C:\n"
            "    def __getattr__(self, n): return 1\n")
           if sys.version_info < (3, 14) else
           ("class C(complex):\n"
            "    pass\n")) + (
           "def f(n):\n"
           "    t = 0\n"
           "    z = C()\n"
           "    for i in range(n):\n"
           "        t += z.real   # " + case["comment"] + "\n"
           "    return t\n")
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(src)
    ns = {}
    exec(compile(src, path, "exec"), ns)
    f = ns["f"]
    f.__code__ = f.__code__.replace(co_qualname=case["qualname"])
    f(300)
    # The same function, its file name any string at all (no source).
    g = type(f)(f.__code__.replace(co_filename=case["filename"] or "?",
                                   co_qualname=case["qualname"] + "/g"), ns)
    g(300)
    alive.append((f, g))
'''


def expected(root, cases):
    sites, code = set(), set()
    for i, c in enumerate(cases):
        path = os.path.join(root, str(i), c["dir"], "m.py")
        line = "t += z.real   # " + c["comment"]
        sites.add(("LOAD_ATTR", path, "7", c["qualname"], line.strip()))
        sites.add(("LOAD_ATTR", c["filename"] or "?", "7", c["qualname"] + "/g", ""))
        code.add((path, "3", c["qualname"]))
        code.add((c["filename"] or "?", "3", c["qualname"] + "/g"))
    return sites, code


def summarize(directory, tmp):
    out = os.path.join(tmp, "summary.json")
    p = subprocess.run([PYSTATS_CLI, "summarize", directory, "--json", out,
                        "--top-sites", "100000"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "warning" not in p.stderr, p.stderr
    with open(out, encoding="utf-8") as f:
        return json.load(f)


class _Page(html.parser.HTMLParser):
    """The annotate page's functions: {(file, qualname): {line: text}},
    the text of each line's code cell without its site badges."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.fns, self.fn, self.line, self.cell, self.badge = {}, None, None, None, 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.fn = self.fns.setdefault((a["data-file"], a["data-qual"]), {})
        elif tag == "tr":
            self.line = a.get("data-line")
        elif tag == "td" and a.get("class") == "code":
            self.cell = ""
        elif tag == "span" and (a.get("class") or "").startswith("badge"):
            self.badge += 1

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            if self.line not in (None, "none"):
                self.fn[int(self.line)] = self.cell
            self.cell = None
        elif tag == "span" and self.badge:
            self.badge -= 1

    def handle_data(self, data):
        if self.cell is not None and not self.badge:
            self.cell += data


def shown(text):
    """Text as reports show it (docs/CLI.md, "Text in reports"): a
    surrogate as \\udcNN, a control character as \\xNN."""
    return "".join("\\x%02x" % ord(c) if ord(c) < 0x20 or ord(c) == 0x7F
                   else "\\u%04x" % ord(c) if "\ud800" <= c <= "\udfff" else c
                   for c in text)


def annotate_page(directory, tmp):
    out = os.path.join(tmp, "view.html")
    # --read-files: where the dump holds no copy (3.11), the generated file.
    p = subprocess.run([PYSTATS_CLI, "annotate", directory, "--html", out, "--top", "100000",
                        "--read-files"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    page = _Page()
    with open(out, encoding="utf-8") as f:
        page.feed(f.read())
    return page.fns


def check_ok(directory):
    p = subprocess.run([PYSTATS_CLI, "check", directory, "--json", "-"],
                       capture_output=True, text=True)
    report = json.loads(p.stdout)
    bad = [f for f in report["findings"] if f.get("severity") != "note"]
    assert p.returncode == 0 and report["verdict"] == "ok" and not bad, \
        (p.stdout, p.stderr)


def run_child(spec_path, mode, stats, label):
    env = clean_env(PYSTATS_DIR=stats)
    env["PYSTATS_LABEL"] = label
    p = subprocess.run([sys.executable, "-X", "pystats=" + mode, "-c", CHILD,
                        spec_path], env=env, capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr.decode("utf-8", "replace")


def usable_filename(c):
    # The census reports sites of the program's own code: not a frozen
    # module, not under the interpreter's library directories.
    f = c["filename"] or "?"
    return not f.startswith("<frozen")


@pytest.fixture(autouse=True, scope="module")
def no_hooks_left():
    """Hypothesis adds a gc callback of its own to the test process; the
    tests after this module measure in-process and must not run it."""
    import gc
    saved = list(gc.callbacks)
    yield
    gc.callbacks[:] = saved


@settings(max_examples=EXAMPLES, deadline=None, derandomize=False,
          suppress_health_check=list(HealthCheck))
@given(cases=st.lists(CASE, min_size=1, max_size=8).filter(
    lambda cs: all(usable_filename(c) for c in cs)), label=label_text)
def test_round_trip(tmp_path_factory, cases, label):
    tmp = str(tmp_path_factory.mktemp("rt"))
    root = os.path.join(tmp, "src")
    spec = os.path.join(tmp, "spec.json")
    with open(spec, "w") as f:
        json.dump({"root": root, "cases": cases}, f)   # surrogates escaped
    want_sites, want_code = expected(root, cases)

    census = os.path.join(tmp, "census")
    run_child(spec, "census", census, label)
    summary = summarize(census, tmp)
    # "file" is named portably (a module, or relative to the working
    # directory); "path" then has the file as the dumps wrote it.
    got = {(s["family"], s.get("path", s["file"]), s["line"], s["function"], s["source"])
           for s in summary["census"]["sites"]}
    assert want_sites <= got, sorted(want_sites - got)
    assert summary["meta"]["headers"]["meta.label"] == {label: 1}
    check_ok(census)

    count = os.path.join(tmp, "count")
    run_child(spec, "count", count, label)
    summary = summarize(count, tmp)
    got = {(e.get("path", e["file"]), e["line"], e["function"])
           for e in summary["code"].values()}
    assert want_code <= got, sorted(want_code - got)
    for name, e in summary["code"].items():
        assert name == "%s:%s:%s" % (e["file"], e["line"], e["function"])
    # A summary read back is the same summary.
    again = summarize(os.path.join(tmp, "summary.json"), tmp)
    assert again["code"] == summary["code"]
    check_ok(count)
    assert len(dumps_in(count)) == 1
    # The source view: each line's text as the file has it, from the
    # dump's own copy (3.12+, written with the census) or the file.
    fns = annotate_page(count, tmp)
    for i, c in enumerate(cases):
        path = os.path.join(root, str(i), c["dir"], "m.py")
        with open(path, encoding="utf-8", newline="\n") as fh:
            lines = fh.read().split("\n")
        [view] = [v for (file, qual), v in fns.items()
                  if qual == shown(c["qualname"]) and v.get(7) is not None
                  and file in (shown(path), shown(os.path.relpath(path)))] or [None]
        assert view is not None, (c, sorted(fns))
        for n, text in view.items():
            if n >= 1:
                assert text == shown(lines[n - 1]), (n, text, lines[n - 1])


def test_bytes_that_are_not_utf8_are_kept_in_every_output(tmp_path):
    # A damaged native dump: an opcode name holding the byte 0xff.
    p = tmp_path / "x.txt"
    p.write_bytes(b"opcode[LOAD_\xff].execution_count : 5\n"
                  b"opcode[LOAD_FAST].execution_count : 7\n")
    out = tmp_path / "s.json"
    md = subprocess.run([PYSTATS_CLI, "summarize", str(p), "--json", str(out),
                         "--markdown", "-"], capture_output=True)
    summary = json.loads(out.read_text(encoding="utf-8"))
    assert summary["meta"]["total_execution_count"] == 12
    # The byte as surrogateescape holds it: os.fsencode gives it back.
    assert summary["opcodes"]["LOAD_\udcff"]["execution_count"] == 5
    assert os.fsencode("LOAD_\udcff") == b"LOAD_\xff"
    text = md.stdout.decode("utf-8")   # the report is UTF-8 too
    assert "Total: 12 instructions" in text
    # The byte escaped for reading (docs/CLI.md), the backslash itself
    # escaped for Markdown.
    assert "| LOAD_\\\\xff | 5 |" in text


def test_undecodable_file_names_stay_apart(tmp_path):
    # Two code objects whose file names differ only in an undecodable
    # byte: two hot-code keys, not one "?".
    stats = str(tmp_path / "d")
    code = ("import sys\n"
            "for name in ('/x/\\udcfe.py', '/x/\\udcff.py'):\n"
            "    c = compile('def f():\\n    return 1\\nf()\\n', name, 'exec')\n"
            "    exec(c, {})\n")
    p = subprocess.run([sys.executable, "-X", "pystats", "-c", code],
                       env=clean_env(PYSTATS_DIR=stats), capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
    summary = summarize(stats, str(tmp_path))
    files = {e["file"] for e in summary["code"].values() if e["function"] == "f"}
    assert files == {"/x/\udcfe.py", "/x/\udcff.py"}
