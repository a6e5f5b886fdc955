"""The summary's verdict and its Findings section (Markdown, JSON, the
page in headless Chromium) against an independent run of `pystats check`
on the same files, and the verdict's magnitude against figures computed
here from the dumps' own lines."""
import json
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CLI = os.path.join(ROOT, "build", "pystats")
GOLDEN = os.path.join(ROOT, "tests", "golden")
OWN = os.path.join(GOLDEN, "own")
NAT = os.path.join(GOLDEN, "native")
sys.path.insert(0, os.path.join(ROOT, "tests", "html"))
import cdp  # noqa: E402

pytestmark = pytest.mark.skipif(not os.access(CLI, os.X_OK), reason="build/pystats not built")

FINDING = re.compile(r"^\*\*(error|warning|note)\*\* `([a-z-]+)`: (.*)$")
CHECK_LINE = re.compile(r"^(error|warning|note) +([a-z-]+): (.*)$")


def pystats(*args, ok=(0, 6)):
    r = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, timeout=120)
    assert r.returncode in ok, r.stderr
    return r


def header(path):
    """The dump's lines as {key: value}, split at the last ':'."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            k, _, v = line.rstrip("\n").rpartition(":")
            out.setdefault(k.strip(), []).append(v.strip())
    return out


def untrusted_set(d):
    """Three dumps: one with 2 desyncs, one fork child at os._exit, one
    SIGTERM dump with a known leftover."""
    os.makedirs(d)
    one = open(os.path.join(OWN, "dump-1.txt"), encoding="utf-8").read()
    with open(os.path.join(d, "a.txt"), "w") as f:
        f.write(one.replace("meta.dump.reason : exit\n",
                            "meta.dump.reason : exit\nmeta.collection.desync : 2\n"))
    with open(os.path.join(d, "b.txt"), "w") as f:
        f.write(open(os.path.join(OWN, "dump-2.txt"), encoding="utf-8").read())
    with open(os.path.join(d, "c.txt"), "w") as f:
        f.write(one.replace("meta.process.pid : 4242", "meta.process.pid : 4250").replace(
            "meta.dump.reason : exit\n",
            "meta.dump.reason : signal\nmeta.collection.leftover_bound : 7\n"
            "meta.collection.leftover_cause : signal\nmeta.collection.leftover_threads : 1\n"))
    return d


def md_findings(md):
    """(severity, check, rest of the line) of each finding of the
    Markdown's Findings section, in order; None without the section."""
    if "\n## Findings\n" not in md:
        return None
    sec = md.split("\n## Findings\n", 1)[1].split("\n## ", 1)[0]
    return [m.groups() for m in map(FINDING.match, sec.split("\n")) if m]


def check_run(inputs, tmp):
    """`pystats check` on the same inputs: its text findings and its JSON."""
    text = pystats("check", *inputs, "--quiet", ok=(0, 6)).stdout
    pystats("check", *inputs, "--json", tmp / "check.json")
    full = pystats("check", *inputs).stdout
    listed = [m.groups()[:2] for m in map(CHECK_LINE.match, full.split("\n")) if m]
    return text, listed, json.load(open(tmp / "check.json"))


def summarize(inputs, tmp):
    pystats("summarize", *inputs, "--quiet", "--markdown", tmp / "s.md", "--json",
            tmp / "s.json", "--html", tmp / "s.html")
    return open(tmp / "s.md").read(), json.load(open(tmp / "s.json"))


CASES = {
    "untrusted": lambda tmp: [untrusted_set(tmp / "dumps")],
    "caution": lambda tmp: [os.path.join(GOLDEN, "census-count")],
    "two-versions": lambda tmp: [os.path.join(NAT, "cpython-3.11.2-whole"),
                                 os.path.join(NAT, "cpython-3.13.5-whole")],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_findings_section_is_what_check_prints(tmp_path, case):
    inputs = CASES[case](tmp_path)
    _, listed, ck = check_run(inputs, tmp_path)
    md, js = summarize(inputs, tmp_path)
    assert ck["verdict"] != "ok" and listed
    got = md_findings(md)
    assert got is not None, "no Findings section"
    assert [(s, c) for s, c, _ in got] == listed
    for (_, _, rest), f in zip(got, ck["findings"]):
        assert rest.startswith(f["title"])
    # Each finding's detail lines, as check --json has them (up to 10).
    # (Markdown escapes with backslashes; these inputs hold none.)
    sec = md.split("\n## Findings\n", 1)[1].split("\n## ", 1)[0].replace("\\", "")
    for f in ck["findings"]:
        for d in f["details"][:10]:
            # Notes change no verdict: their first line only.
            assert ("\n- " + d + "\n" in sec) == (f["severity"] != "note"), (f, d)
    # The JSON summary carries them as data, as check --json has them.
    keys = ("check", "severity", "title", "summary", "files", "details")
    assert [{k: f[k] for k in keys} for f in js_meta(js)["findings"]] == \
        [{k: f[k] for k in keys} for f in ck["findings"]]
    assert js_meta(js)["verdict"] == ck["verdict"]


def js_meta(js):
    return js["meta"]


def test_the_verdict_gives_its_reason_and_magnitude(tmp_path):
    d = untrusted_set(tmp_path / "dumps")
    files = sorted(os.listdir(d))
    heads = {f: header(os.path.join(d, f)) for f in files}
    desync = {f: int(h["meta.collection.desync"][0]) for f, h in heads.items()
              if "meta.collection.desync" in h}
    left = sum(int(h.get("meta.collection.leftover_bound", ["0"])[0]) for h in heads.values())
    counted = sum(int(v) for h in heads.values() for k, vs in h.items()
                  if re.fullmatch(r"opcode\[[^]]*\]\.execution_count", k) for v in vs)
    assert len(desync) == 1 and left == 7
    md, js = summarize([d], tmp_path)
    [line] = [x for x in md.split("\n") if x.startswith("**Trust:**")]
    (f, n), = desync.items()
    assert ("untrusted: inexact-counts in %d of %d files (%d segment events"
            % (len(desync), len(files), n)) in line
    assert ("leftover bound: at most %d instructions uncounted, %.1f%% of the %s counted"
            % (left, 100.0 * left / counted, format(counted, ","))) in line
    assert line.endswith("See Findings below.")
    assert js_meta(js)["verdict_line"] in line


def test_a_trusted_report_has_no_findings_section(tmp_path):
    text, _, ck = check_run([OWN], tmp_path)
    md, js = summarize([OWN], tmp_path)
    assert ck["verdict"] == "ok"
    assert md_findings(md) is None
    [line] = [x for x in md.split("\n") if x.startswith("**Trust:**")]
    assert line == "**Trust:** %s. Details: `pystats check`." % text.strip()[len("verdict: "):]
    # The JSON still carries every finding (notes included) as data.
    assert [f["check"] for f in js_meta(js)["findings"]] == [f["check"] for f in ck["findings"]]


JS_LINK = """(() => {
  const p = [...document.querySelectorAll('p')].find(e => e.textContent.startsWith('Trust:'));
  const a = p ? p.querySelector('a') : null;
  const t = a ? document.getElementById(a.getAttribute('href').slice(1)) : null;
  const next = [];
  if (t) for (let e = t.nextElementSibling; e && e.tagName !== 'H2'; e = e.nextElementSibling)
    if (e.tagName === 'P' && e.querySelector('strong')) next.push(e.textContent);
  return {href: a ? a.getAttribute('href') : null, target: t ? [t.tagName, t.textContent] : null,
          findings: next};
})()"""


@pytest.mark.skipif(cdp.find_chromium() is None, reason="no chromium")
@pytest.mark.parametrize("case", ["untrusted", "two-versions"])
def test_the_page_links_the_verdict_to_its_findings(tmp_path, case):
    inputs = CASES[case](tmp_path)
    _, listed, _ = check_run(inputs, tmp_path)
    summarize(inputs, tmp_path)
    with cdp.Browser(width=1400) as b:
        page = b.open("file://" + str(tmp_path / "s.html"))
        got = page.eval(JS_LINK)
        b.close_page(page)
    assert got["href"] and got["target"] is not None, got
    assert got["target"][0] == "H2" and got["target"][1].strip() == "Findings"
    assert [tuple(t.split(":")[0].split()) for t in got["findings"]] == listed
