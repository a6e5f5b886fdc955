"""Allocation failures in the collector's dump and census paths.

CPython's test module `_testcapi.set_nomemory(start, stop)` makes
CPython's allocators (raw, mem, object) fail after `start` allocations
until `stop`; here one allocation fails (N, N + 1), or every one from
the Nth on (N, 0: memory stays short), N walked over every allocation
the path makes.  Each failure must end in one of the documented
outcomes, never a crash, another exception or a half file:

- `pystats.dump()` raises MemoryError (in mode census: the census's
  error, which may be what a library made of the MemoryError): no file
  is written, nothing is cleared (the next dump writes the same counts);
- or it writes the dump whole: the counts of the period as
  `pystats.snapshot()` gave them before the dump, and, when a census was
  due, either the census or `meta.census.error` saying why (a count
  window's census is left out, its counts are not; FORMAT.md): the
  MemoryError, or what a library made of it (io: "can't allocate read
  lock");
- at exit (the census taken by the collector's atexit handler, the dump
  written after the interpreter is gone) the exit dump is written whole,
  with its census or the census error.

The directory holds nothing but whole dumps at every step.  The number
of allocations a path makes is found in the process itself: after the
path, a few allocations of the test's own consume a failure still
pending; if none is pending the path made fewer than N allocations and
the walk is over.

`make test` walks a sample (PYSTATS_ALLOC_WALK allocations per walk of
a dump, default 400, spread evenly, the first ten always; 15 exits per
mode); PYSTATS_FULL_TESTS=1 (`make test-full`) walks every allocation of
dump() and about 420 exits per mode.
CPython 3.12 and 3.13's MAKE_FUNCTION under memory failure is why
_census.py makes no functions while it walks (its docstring).
"""
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import clean_env

try:
    import _testcapi
    HAVE_NOMEMORY = hasattr(_testcapi, "set_nomemory")
except ImportError:
    HAVE_NOMEMORY = False

pytestmark = pytest.mark.skipif(
    not HAVE_NOMEMORY, reason="this interpreter has no _testcapi.set_nomemory")

FULL = os.environ.get("PYSTATS_FULL_TESTS") == "1"
SAMPLES = int(os.environ.get("PYSTATS_ALLOC_WALK", "400"))
CENSUS_IN_COUNT = sys.version_info >= (3, 12)

# The child: walks one path under allocation failures and checks each
# outcome; prints one JSON line per attempt, then a last line "done".
CHILD = r'''
import json, os, re, sys, _testcapi, pystats

PATH, MODE, ONWARDS, FULL, SAMPLES = (sys.argv[1], sys.argv[2],
                                      sys.argv[3] == "1", sys.argv[4] == "1",
                                      int(sys.argv[5]))
DIR = os.environ["PYSTATS_DIR"]
NAME = re.compile(r"pystats-\d+-[0-9a-f]+\.txt\Z")
EXEC = re.compile(r"opcode\[([A-Z_0-9]+)\]\.execution_count : (\d+)$", re.M)


def work(n):
    class Point:
        def __init__(self, x):
            self.x = x
    total = 0
    for i in range(n):
        total += Point(i).x + len(str(i))
    return total


def pending_consumed(n):
    """True if a failure armed at allocation n + 1 had already fired:
    n + 64 allocations of the test's own go through otherwise."""
    try:
        keep = []
        for _ in range(n + 64):
            keep.append(object())
        return True
    except MemoryError:
        return False


def files():
    names = set(os.listdir(DIR))
    bad = [n for n in names if not NAME.match(n)]
    assert not bad, ("not a whole dump", bad)
    return names


def read(name):
    with open(os.path.join(DIR, name), "rb") as f:
        data = f.read()
    assert data.endswith(b"\n"), name
    text = data.decode("utf-8")
    assert text.startswith("pystats.format : 2\n"), name
    return text


def execs(text):
    return {k: int(v) for k, v in EXEC.findall(text)}


def census_due():
    return MODE == "census" or (MODE == "count" and sys.version_info >= (3, 12))


def check_dump(text, snap, fired):
    if MODE != "census":
        assert execs(text) == snap["execution_count"], "counts differ"
    if census_due():
        scope = "meta.census.scope : " in text
        error = re.search(r"^meta\.census\.error : (.*)$", text, re.M)
        assert scope != bool(error), "census: both or neither"
        if error:
            # MemoryError, or what a library made of it (io: "can't
            # allocate read lock"); an exception without a message by
            # its type alone.
            assert fired and MODE == "count", error.group(0)
            assert error.group(1), error.group(0)
            assert not error.group(1).endswith("%3A%20"), error.group(0)
        else:
            assert re.search(r"^census\.code_objects : [1-9]", text, re.M)
            if MODE == "count":
                # The rows of the code that ran (work()'s sites) and their
                # source lines: a census is whole or absent.
                assert re.search(r"^code\[[^]]*:work\]\.site\[", text, re.M), \
                    "census without its site rows"
                assert re.search(r"^source\[.*\]\.line\[\d+\] : .*Point", text,
                                 re.M), "census without its source lines"


def attempt(n, fn):
    """fn with the allocations after the nth failing: (outcome, fired)."""
    fired = None
    try:
        _testcapi.set_nomemory(n, 0 if ONWARDS else n + 1)
        try:
            fn()
            out = "ok"
        except MemoryError:
            out = "oom"
        except Exception as e:
            # Mode census: dump() raises the census's error, which may be
            # what a library made of the MemoryError (io: "can't allocate
            # read lock"); never in mode count, whose census is optional.
            if MODE != "census":
                raise
            out = "oom"
        if not ONWARDS:
            fired = pending_consumed(n)
    finally:
        _testcapi.remove_mem_hooks()
    return out, fired


def dump_once(n):
    pystats.on(mode=MODE)
    work(40)
    pystats.off()
    before = files()
    snap = pystats.snapshot()
    out, fired = attempt(n, pystats.dump)
    new = files() - before
    if out == "oom":
        assert not new, ("a file after MemoryError", new)
        again = pystats.snapshot()
        assert again["execution_count"] == snap["execution_count"], "cleared"
        assert pystats.dump() is True, "nothing left to dump"
        new = files() - before
        assert len(new) == 1, new
        check_dump(read(new.pop()), snap, False)
    else:
        assert len(new) == 1, ("one dump", new, out)
        check_dump(read(new.pop()), snap, fired is not False)
    return out, fired


def reaches(one, n):
    """Whether the path makes more than n allocations (measured with a
    failure at n + 1 that the test's own allocations take if the path
    did not)."""
    global ONWARDS
    saved, ONWARDS = ONWARDS, False
    try:
        return one(n)[1] is not False
    finally:
        ONWARDS = saved


def measure(one):
    """The number of allocations the path makes."""
    hi = 16
    while reaches(one, hi):
        hi *= 2
        assert hi < 1 << 22, "no end to the path's allocations"
    lo = hi // 2 if hi > 16 else 0
    while lo < hi:  # the first n the path does not reach
        mid = (lo + hi) // 2
        if reaches(one, mid):
            lo = mid + 1
        else:
            hi = mid
    return lo


def walk(one):
    """The allocations of the path: every one (FULL) or the first ten and
    SAMPLES spread evenly over the rest; then on until the path no longer
    reaches the failure (or, memory staying short, succeeds)."""
    total = measure(one)
    if FULL or total <= 10 + SAMPLES:
        ns = list(range(total))
    else:
        ns = list(range(10)) + sorted({10 + (total - 10) * i // SAMPLES
                                       for i in range(SAMPLES)})
    # Then on past them (the count grows a little as the process runs:
    # 3.11's census walks the whole heap) until the path no longer
    # reaches the failure.
    tail = [total + i * (1 + i // 16) for i in range(200)]
    for n in ns + tail:
        out, fired = one(n)
        print(json.dumps({"n": n, "total": total, "out": out,
                          "fired": fired}), flush=True)
        if n >= total and (fired is False or (ONWARDS and out == "ok")):
            break
    else:
        raise AssertionError("the walk did not end")


if PATH == "dump":
    walk(dump_once)
elif PATH == "exit-total":
    # What the collector's atexit handler takes: the census.
    from pystats import _collector
    pystats.on(mode=MODE)
    work(40)
    print(json.dumps({"total": measure(
        lambda n: attempt(n, _collector._census_take))}), flush=True)
elif PATH == "exit":
    import atexit
    n = int(sys.argv[6])
    pystats.on(mode=MODE)
    work(40)
    # Registered after the collector's handlers: runs before them.
    atexit.register(_testcapi.set_nomemory, n, 0 if ONWARDS else n + 1)
print("done", flush=True)
'''


def run_child(tmp_path, path, mode, onwards, *extra):
    d = tmp_path / "dumps"
    d.mkdir(exist_ok=True)
    env = clean_env(PYSTATS_DIR=str(d))
    script = tmp_path / "child.py"   # a file: the census reads its lines
    script.write_text(CHILD)
    p = subprocess.run(
        [sys.executable, str(script), path, mode, "1" if onwards else "0",
         "1" if FULL else "0", str(SAMPLES), *extra],
        env=env, capture_output=True, text=True, timeout=600)
    return p, d


def modes():
    # Mode count takes its census alongside on 3.12+.
    return ["census", "count"] if CENSUS_IN_COUNT else ["census", "instructions"]


# Memory staying short: CPython before 3.14 (and 3.13.4) loops forever
# when an exception handler's offset is past 256 and the int for it
# cannot be made (CPython gh-134163), which _census.take's handlers are.
ONWARDS_OK = sys.version_info >= (3, 14) or (3, 13, 4) <= sys.version_info < (3, 14)


@pytest.mark.parametrize("onwards", [
    False, pytest.param(True, marks=pytest.mark.skipif(
        not ONWARDS_OK, reason="CPython gh-134163: a handler past offset 256 "
        "loops forever when memory stays short"))], ids=["one", "onwards"])
@pytest.mark.parametrize("mode", modes())
def test_dump_under_allocation_failures(tmp_path, mode, onwards):
    p, d = run_child(tmp_path, "dump", mode, onwards)
    assert p.returncode == 0, (p.returncode, p.stdout[-2000:], p.stderr[-3000:])
    lines = p.stdout.splitlines()
    assert lines[-1] == "done"
    rows = [json.loads(x) for x in lines[:-1]]
    outs = {r["out"] for r in rows}
    if mode == "instructions":
        # 3.11's dump without a census asks CPython for no memory.
        assert rows == [{"n": 0, "total": 0, "out": "ok", "fired": False}]
        return
    # The walk reached failures that raised, and its end.
    assert len(rows) > 10
    if mode == "census":
        assert "oom" in outs
    assert rows[-1]["out"] == "ok"
    # Stderr: the census's own line, CPython's "MemoryError" reports of
    # unraisable errors; never a fatal error.
    assert "Fatal Python error" not in p.stderr


def exit_ns(total):
    """total: the allocations of the exit path up to a whole census.  A
    process each: the first 20 and 400 spread over the rest with
    PYSTATS_FULL_TESTS (the census itself, the same code as dump()'s, is
    walked allocation by allocation there), else 15."""
    if FULL:
        return sorted(set(range(min(20, total))) |
                      {total * i // 400 for i in range(401)})
    return sorted({0, 1, 2, total} | {total * i // 12 for i in range(1, 12)})


def exit_run(tmp_path, mode, n):
    """The exit dump of a child whose allocation n + 1 fails from its
    last atexit handler on: (census error or None, stderr)."""
    work = tmp_path / str(n)
    work.mkdir()
    p, d = run_child(work, "exit", mode, False, str(n))
    assert p.returncode == 0, (n, p.returncode, p.stderr[-3000:])
    assert "Fatal Python error" not in p.stderr, n
    names = os.listdir(d)
    assert len(names) == 1 and re.match(r"pystats-\d+-[0-9a-f]+\.txt\Z",
                                        names[0]), (n, names)
    with open(os.path.join(d, names[0]), "rb") as f:
        text = f.read().decode("utf-8")
    assert text.startswith("pystats.format : 2\n") and text.endswith("\n")
    assert "meta.dump.reason : exit\n" in text
    if mode != "census":
        assert re.search(r"^opcode\[CALL\]\.execution_count : [1-9]",
                         text, re.M), n
    scope = "\nmeta.census.scope : " in text
    error = re.search(r"^meta\.census\.error : (.*)$", text, re.M)
    if mode == "instructions":
        assert not scope and not error
        return None, p.stderr
    assert scope != bool(error), (n, "census: both or neither")
    if error:
        assert error.group(1), (n, error.group(0))
        assert "pystats: the specialization census could not be taken (" \
            in p.stderr, n
        return error.group(1), p.stderr
    assert re.search(r"^census\.code_objects : [1-9]", text, re.M), n
    return None, p.stderr


@pytest.mark.parametrize("mode", modes())
def test_exit_dump_under_allocation_failures(tmp_path, mode):
    """The census the collector's atexit handler takes, with the Nth
    allocation failing: the exit dump is still written, whole, with its
    counts and the census or the census error."""
    if mode == "instructions":
        total = 200   # no census: the exit cut and the atexit machinery
    else:
        p, _ = run_child(tmp_path, "exit-total", mode, False)
        assert p.returncode == 0, p.stderr[-3000:]
        total = json.loads(p.stdout.splitlines()[0])["total"]
        assert total > 20
        # How far the exit path goes before its census is whole: past the
        # census alone (the exit cut and the atexit machinery allocate).
        while exit_run(tmp_path, mode, total)[0] is not None:
            total *= 2
            assert total < 1 << 20, "the exit census never ends"
    errors = 0
    for n in exit_ns(total):
        if not (tmp_path / str(n)).exists():
            errors += exit_run(tmp_path, mode, n)[0] is not None
    if mode != "instructions":
        assert errors > 0
