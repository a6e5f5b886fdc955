"""Allocation failures in the command end in a clean exit 4.

tests/faults/faultshim.c (LD_PRELOAD) makes the Nth allocation of the
process fail (PSF_FAULT_ALLOC_AT); the command's read and write paths
are walked, N from 1 to the number of allocations a clean run makes
(PSF_FAULT_ALLOC_COUNT), jansson's own allocations among them.  Each
run must either write exactly the report of a clean run (exit 0: the
failing allocation was one with a fallback) or say `pystats: out of
memory` and exit 4 with nothing written: never a report with members
missing, never a file called invalid or "no dump files found", never a
crash.  Runs per command: PYSTATS_ALLOC_WALK (default 400; spread evenly
over the allocations when there are more).
"""
import json
import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYSTATS_CLI = os.path.join(ROOT, "build", "pystats")
SHIM = os.path.join(ROOT, "build", "faults", "libfaultshim.so")
DUMPS = os.path.join(ROOT, "tests", "golden", "hotcode")
WALK = int(os.environ.get("PYSTATS_ALLOC_WALK", "400"))

pytestmark = [
    pytest.mark.skipif(not os.access(PYSTATS_CLI, os.X_OK), reason="build/pystats is not built"),
    pytest.mark.skipif(not os.path.exists(SHIM), reason="make faults: no fault shim"),
]


def run(args, **env):
    e = {k: v for k, v in os.environ.items() if not k.startswith("PSF_FAULT")}
    e.update(env)
    return subprocess.run([PYSTATS_CLI, *args], capture_output=True, env=e, timeout=60)


def walk(tmp_path, args):
    ref = run(args)
    assert ref.returncode == 0, ref.stderr
    count = tmp_path / "count"
    run(args, LD_PRELOAD=SHIM, PSF_FAULT_ALLOC_COUNT=str(count))
    total = int(count.read_text())
    assert total > 50
    step = max(1, total // WALK)
    oom = 0
    for n in range(1, total + 1, step):
        p = run(args, LD_PRELOAD=SHIM, PSF_FAULT_ALLOC_AT=str(n))
        if p.returncode == 0:
            assert p.stdout == ref.stdout, (n, p.stderr[-300:])
        else:
            assert p.returncode == 4, (n, p.returncode, p.stderr[-300:])
            assert p.stderr.endswith(b"pystats: out of memory\n"), (n, p.stderr[-300:])
            assert p.stdout == b"", n
            oom += 1
    assert oom > 0
    return total


@pytest.fixture
def summaries(tmp_path):
    d = tmp_path / "dumps"
    shutil.copytree(DUMPS, d)
    s = tmp_path / "s.json"
    p = run(["summarize", str(d), "--json", str(s)])
    assert p.returncode == 0, p.stderr
    return d, s


def test_reading_a_summary_back(tmp_path, summaries):
    _, s = summaries
    walk(tmp_path, ["summarize", str(s), "--json", "-"])


def test_reading_dumps(tmp_path, summaries):
    d, _ = summaries
    walk(tmp_path, ["summarize", str(d), "--json", "-", "--jobs", "1"])


def test_compare_of_summaries(tmp_path, summaries):
    d, s = summaries
    walk(tmp_path, ["compare", str(s), str(d), "--json", "-", "--jobs", "1"])


def test_check(tmp_path, summaries):
    d, s = summaries
    walk(tmp_path, ["check", str(s), "--json", "-"])
