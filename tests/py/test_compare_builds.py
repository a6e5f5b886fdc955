"""compare names the two builds as they are written: a build string is
free text in the dump's encoding (FORMAT.md 1.16: ':' is %3A, '[' %5B)
and every output shows it decoded (the Markdown Build row and warnings,
the JSON's build values and warnings, stderr); and it says each fact
once: another Python version is another build, so no "different builds"
warning repeats the version's.  Expected text: the encoded strings
decoded here with urllib.parse.unquote."""
import json
import os
import subprocess
from urllib.parse import unquote

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.path.join(ROOT, "build", "pystats")
DUMP = os.path.join(ROOT, "tests", "golden", "sitefx", "pystats-1-a.txt")

pytestmark = pytest.mark.skipif(not os.access(CLI, os.X_OK),
                                reason="build/pystats is not built")

BASE_SYS = "3.13.0 (main, May  9 2026, 07%3A36%3A57) %5BGCC 12.2.0%5D"
HEAD_SYS = "3.13.1 (main, Jun  1 2026, 10%3A00%3A00) %5BClang 15.0.7%5D"
HEAD_314 = "3.14.7 (main, Dec  5 2026, 01%3A51%3A04) %5BGCC 12.2.0%5D"


def side(tmp_path, name, version, sys_version, config_args):
    d = tmp_path / name
    d.mkdir()
    with open(DUMP, encoding="utf-8") as f:
        text = f.read()
    assert "meta.python.version : 3.13.0\n" in text
    text = text.replace(
        "meta.python.version : 3.13.0\n",
        "meta.python.version : %s\nmeta.python.sys_version : %s\n"
        "meta.python.config_args : %s\n" % (version, sys_version, config_args))
    (d / "pystats-1-a.txt").write_text(text)
    return str(d)


def compare(base, head, tmp_path):
    js = tmp_path / "c.json"
    p = subprocess.run([CLI, "compare", base, head, "--markdown", "-", "--json", str(js)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout, json.loads(js.read_text()), p.stderr


def test_build_strings_are_shown_decoded(tmp_path):
    base = side(tmp_path, "b", "3.13.0", BASE_SYS, "'--enable-shared'")
    head = side(tmp_path, "h", "3.13.1", HEAD_SYS, "'--enable-optimizations'")
    md, js, err = compare(base, head, tmp_path)
    for out in (md, json.dumps(js), err):
        assert "%3A" not in out and "%5B" not in out and "%5D" not in out
    build = {s: js[s]["build"]["meta.python.sys_version"] for s in ("base", "head")}
    assert build == {"base": {unquote(BASE_SYS): 1}, "head": {unquote(HEAD_SYS): 1}}
    row = [l for l in md.splitlines() if l.startswith("| Build |")]
    assert len(row) == 1
    assert unquote(BASE_SYS) in row[0] and unquote(HEAD_SYS) in row[0]
    want = "different builds: meta.python.sys_version is '%s' in base and '%s' in head" % (
        unquote(BASE_SYS), unquote(HEAD_SYS))
    assert want in js["warnings"]
    assert sum(want in line for line in err.splitlines()) == 1
    assert any("config_args" in w for w in js["warnings"])


def test_another_version_is_said_once(tmp_path):
    base = side(tmp_path, "b", "3.13.0", BASE_SYS, "'--enable-shared'")
    head = side(tmp_path, "h", "3.14.7", HEAD_314, "'--enable-shared'")
    md, js, err = compare(base, head, tmp_path)
    version = [w for w in js["warnings"] if w.startswith("different Python versions (3.13 and 3.14)")]
    assert len(version) == 1
    assert not [w for w in js["warnings"] if w.startswith("different builds")], js["warnings"]
    assert "%3A" not in md and unquote(HEAD_314) in md
