"""The summary's Object stats say, under the table, what 3.11's trace
function adds to the allocation figures (docs/FORMAT.md 1.11): in modes
count and instructions CPython creates a frame object for every Python
call it traces, one allocation and one free that mode census and a run
without the collector do not make.  The sentence gives N, the Python
calls counted (calls.python_starts).

The workload makes K calls of a small function, in one window, in each
mode; N is counted by hand here (K calls of f, one of work), and the
claim itself is checked on the dumps' own lines: count's allocations and
frees less census's are K and a few.  Last, the summary's first line
counts its data files in the singular for one."""
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import clean_env, dumps_in, run_python

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CLI = os.path.join(ROOT, "build", "pystats")

K = 3000
# Python calls in the window: work() once, f() K times.
CALLS = K + 1
# Allocations and frees of the window that are neither frame objects nor
# the same in both modes (on() and off() themselves, the trace function's
# setup): a few whatever K (6 allocations and 4 frees, at K = 3000 and at
# K = 6000, when written).
TOLERANCE = 40

WORKLOAD = """
import sys
import pystats

def f(x):
    return x + 1

def work(k):
    s = 0
    for _ in range(k):
        s = f(s)
    return s

mode = sys.argv[1]
# First sight of the code in the mode (the collector's tables) before
# the window that is dumped.
pystats.on(mode=mode)
work(10)
pystats.off()
pystats.clear()
pystats.on(mode=mode)
work(%d)
pystats.off()
pystats.dump()
""" % K

NOTE = re.compile(r"About ([0-9,]+) of these allocations \(and their bytes\) "
                  r"and as many of the frees "
                  r"(?:\(all in the ([0-9,]+) of these ([0-9,]+) data files in mode `count` or "
                  r"`instructions`\) )?are frame objects")

pytestmark = pytest.mark.skipif(not os.access(CLI, os.X_OK), reason="build/pystats not built")
only_311 = pytest.mark.skipif(sys.version_info[:2] != (3, 11),
                              reason="the trace function is 3.11's")


def collect(d, mode):
    run_python(WORKLOAD, args=[mode], env=clean_env(PYSTATS_DIR=d))
    [dump] = dumps_in(d)
    return dump


def summarize(d, tmp):
    md, js, page = tmp / "s.md", tmp / "s.json", tmp / "s.html"
    r = subprocess.run([CLI, "summarize", d, "--quiet", "--markdown", md, "--json", js,
                        "--html", page], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return open(md).read(), json.load(open(js)), open(page).read()


def objects_section(md):
    assert "\n## Object stats\n" in md
    return md.split("\n## Object stats\n", 1)[1].split("\n## ", 1)[0]


def page_text(page):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]*>", "", page))


def count(text):
    return int(text.replace(",", ""))


def fig(dump, key):
    return int(dump.extra[key])


@only_311
@pytest.mark.parametrize("mode", ["count", "instructions"])
def test_note_gives_the_python_calls_and_the_claim_holds(tmp_path, mode):
    traced = collect(str(tmp_path / mode), mode)
    census = collect(str(tmp_path / "census"), "census")
    assert fig(traced, "calls.python_starts") == CALLS
    # The claim: the trace function's frame objects are one allocation
    # and one free per Python call, over what census counts.
    for key in ("Object allocations", "Object frees"):
        extra = fig(traced, key) - fig(census, key)
        assert abs(extra - CALLS) <= TOLERANCE, (key, fig(traced, key), fig(census, key))
    md, js, page = summarize(str(tmp_path / mode), tmp_path)
    sec = objects_section(md)
    m = NOTE.search(sec)
    assert m, sec
    assert count(m.group(1)) == CALLS and m.group(2) is None
    assert "mode `census`" in sec.split(m.group(0), 1)[1]
    # The page says it too.
    assert "About %s of these allocations" % format(CALLS, ",") in page_text(page)
    # The JSON carries what the sentence is made of, and no field of its own.
    assert js["own_calls"]["python_starts"] == CALLS
    assert js["meta"]["python_version"] == "3.11"
    assert sorted(js["objects"]) == sorted(k for k in traced.extra
                                           if k.startswith(("Object ", "objects.")))


@only_311
def test_no_note_for_census(tmp_path):
    d = str(tmp_path / "census")
    census = collect(d, "census")
    assert fig(census, "Object allocations") > 0 and "calls.python_starts" not in census.extra
    md, _, page = summarize(d, tmp_path)
    assert not NOTE.search(objects_section(md))
    assert "frame objects" not in page_text(page)


@only_311
def test_mixed_group_says_which_files(tmp_path):
    d = str(tmp_path / "mixed")
    collect(str(tmp_path / "c"), "count")
    collect(str(tmp_path / "z"), "census")
    os.mkdir(d)
    for sub in ("c", "z"):
        for n in os.listdir(tmp_path / sub):
            os.rename(tmp_path / sub / n, os.path.join(d, n))
    md, _, _ = summarize(d, tmp_path)
    m = NOTE.search(objects_section(md))
    assert m and (count(m.group(1)), m.group(2), m.group(3)) == (CALLS, "1", "2"), md


@pytest.mark.skipif(sys.version_info < (3, 12), reason="3.12+: no trace function")
@pytest.mark.parametrize("mode", ["count", "instructions"])
def test_no_note_on_312_and_later(tmp_path, mode):
    d = str(tmp_path / mode)
    dump = collect(d, mode)
    assert fig(dump, "calls.python_starts") == CALLS
    md, _, page = summarize(d, tmp_path)
    assert not NOTE.search(objects_section(md))
    assert "frame objects" not in page_text(page)


def test_one_data_file_is_singular(tmp_path):
    d = tmp_path / "one"
    d.mkdir()
    (d / "a.txt").write_text("pystats.format : 2\nmeta.python.version : 3.12.1\n"
                             "opcode[NOP].execution_count : 2\n")
    md, _, _ = summarize(str(d), tmp_path)
    assert re.search(r"^1 data file: ", md, re.M), md
    (d / "b.txt").write_text("pystats.format : 2\nmeta.python.version : 3.12.1\n"
                             "opcode[NOP].execution_count : 3\n")
    md, _, _ = summarize(str(d), tmp_path)
    assert re.search(r"^2 data files: ", md, re.M), md
