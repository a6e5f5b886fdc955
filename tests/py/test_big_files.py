"""One huge file among the dumps is one problem, not the end of every
command (docs/CLI.md, "Problems": the size limit).

A sparse 64 GiB file (no disk used) sits beside two real dumps: each
command reads the dumps, says the big file is `unreadable` (too large),
and the counts are those of the two dumps, summed here from their text.
PYSTATS_MAX_FILE_SIZE moves the limit.
"""
import json
import os
import re
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYSTATS_CLI = os.path.join(ROOT, "build", "pystats")
DUMPS = os.path.join(ROOT, "tests", "golden", "hotcode")

pytestmark = pytest.mark.skipif(not os.access(PYSTATS_CLI, os.X_OK),
                                reason="build/pystats is not built")


def run(*args, env=None):
    e = dict(os.environ)
    e.pop("PYSTATS_MAX_FILE_SIZE", None)
    e.update(env or {})
    return subprocess.run([PYSTATS_CLI, *args], capture_output=True, text=True,
                          timeout=120, env=e)


def expected_load_fast():
    n = 0
    for f in sorted(os.listdir(DUMPS)):
        for line in open(os.path.join(DUMPS, f), encoding="utf-8"):
            m = re.fullmatch(r"opcode\[LOAD_FAST\]\.execution_count : (\d+)\n", line)
            if m:
                n += int(m.group(1))
    return n


@pytest.fixture
def planted(tmp_path):
    d = tmp_path / "dumps"
    shutil.copytree(DUMPS, d)
    with open(d / "huge.txt", "wb") as f:
        f.truncate(64 << 30)
    return d


TOO_LARGE = "huge.txt: too large: 68719476736 bytes, over the limit of 1073741824"


def test_summarize_skips_the_huge_file(planted, tmp_path):
    out = tmp_path / "s.json"
    p = run("summarize", str(planted), "--json", str(out), "--jobs", "2")
    assert p.returncode == 0, p.stderr
    assert TOO_LARGE in p.stderr
    s = json.loads(out.read_text())
    assert s["meta"]["files"] == 2
    assert s["meta"]["problems"]["unreadable"] == 1
    assert s["opcodes"]["LOAD_FAST"]["execution_count"] == expected_load_fast() == 6000


def test_check_compare_annotate_go_on(planted, tmp_path):
    p = run("check", str(planted))
    assert p.returncode == 6, p.stderr
    assert "unreadable" in p.stdout and TOO_LARGE in p.stdout
    assert "2 files" not in p.stderr
    out = tmp_path / "c.json"
    p = run("compare", str(planted), DUMPS, "--json", str(out))
    assert p.returncode == 0, p.stderr
    assert TOO_LARGE in p.stderr
    c = json.loads(out.read_text())
    assert c["base"]["files"] == 2 and c["base"]["problems"] == 1
    assert c["base"]["total_execution_count"] == c["head"]["total_execution_count"]
    # annotate: these dumps have no per-line counts; what matters is that
    # it gets as far as saying so (exit 1), not an out-of-memory exit 4.
    p = run("annotate", str(planted))
    assert p.returncode == 1, p.stderr
    assert TOO_LARGE in p.stderr and "no per-line counts" in p.stderr


def test_limit_is_overridable(planted, tmp_path):
    out = tmp_path / "s.json"
    size1 = os.path.getsize(planted / "dump-1.txt")
    size2 = os.path.getsize(planted / "dump-2.txt")
    small, big = sorted([("dump-1.txt", size1), ("dump-2.txt", size2)], key=lambda x: x[1])
    # A limit between the two dumps: the bigger one is skipped too.
    p = run("summarize", str(planted), "--json", str(out),
            env={"PYSTATS_MAX_FILE_SIZE": str(small[1])})
    assert p.returncode == 0, p.stderr
    assert f"{big[0]}: too large: {big[1]} bytes, over the limit of {small[1]}" in p.stderr
    s = json.loads(out.read_text())
    assert s["meta"]["files"] == 1 and s["meta"]["problems"]["unreadable"] == 2
    # Suffixes: K, M, G (powers of 1024).
    p = run("summarize", str(planted), "--json", str(out), env={"PYSTATS_MAX_FILE_SIZE": "1K"})
    assert "over the limit of 1024" in p.stderr
    for bad in ("x", "0", "12Q", "-5", "99999999999999999999G"):
        p = run("summarize", str(planted), "--json", str(out),
                env={"PYSTATS_MAX_FILE_SIZE": bad})
        assert p.returncode == 2, (bad, p.stderr)
        assert "PYSTATS_MAX_FILE_SIZE" in p.stderr and "is not a size" in p.stderr
