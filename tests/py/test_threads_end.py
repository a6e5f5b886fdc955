"""Threads that end or are killed while segment counting (mode count,
3.12+) counts them: the dumps stay exact.

- Daemon threads still running Python when the program exits: on 3.12
  and 3.13 finalization kills them (pthread_exit) when they next want
  the GIL, on 3.14 it hangs them; either way their frames never return.
  The collector's atexit handler makes the last cut of every thread
  there, and counts nothing of theirs after it.
- dump() from several threads while other threads end: a thread state is
  unlinked, and the GIL released, before the thread's exit destructor
  runs; a cut in between finds the thread gone from the interpreter's
  list and settles it (its frames all returned).

The expected counts come from an oracle in the same process: a second
sys.monitoring tool taking an INSTRUCTION event for every instruction of
the threads' functions, naming each by the base opcode of co_code, and
counting other threads' instructions only until the collector's atexit
cut (its own atexit handler runs right before it, with no eval breaker
between them).  Thread interleavings differ from run to run, so each
program runs several times; `pystats check` must find every dump
trusted."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import clean_env, dumps_in

pytestmark = pytest.mark.skipif(sys.version_info < (3, 12),
                                reason="segment counting is 3.12+")
FREE_THREADED = bool(__import__("sysconfig").get_config_var("Py_GIL_DISABLED"))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
PYSTATS_CLI = os.path.join(ROOT, "build", "pystats")
RUNS = 4

# The oracle: tool id 5 (the collector takes 3 or 4), INSTRUCTION events
# (and PY_START for the RESUME, as mode instructions counts it) on the
# watched functions (no generators) only.  ORACLE_OUT is written by the
# program's first atexit handler (the last to run).
ORACLE = """
import atexit, dis, json, sys, threading
# Threads switch only where they block (sleep, join, a thread's end):
# never inside the oracle's own callbacks, which would make the collector
# cut a thread one instruction early there (README: another tool's
# callback), nor anywhere the oracle and the collector could disagree.
sys.setswitchinterval(100)
_mon = sys.monitoring
_counts = {}
_stop = []
_main = threading.get_ident()
_lock = threading.Lock()
_mon.use_tool_id(5, "oracle")

def _ins(code, off):
    if _stop and threading.get_ident() != _main:
        return
    key = code.co_qualname + "|" + dis.opname[code.co_code[off]]
    with _lock:     # callbacks of several threads interleave
        _counts[key] = _counts.get(key, 0) + 1

def _start(code, off):   # the RESUME, which fires no INSTRUCTION event
    _ins(code, off)

_mon.register_callback(5, _mon.events.INSTRUCTION, _ins)
_mon.register_callback(5, _mon.events.PY_START, _start)

def watch(*fns):
    for fn in fns:
        _mon.set_local_events(5, fn.__code__,
                              _mon.events.INSTRUCTION | _mon.events.PY_START)

def _write():
    _mon.set_events(5, 0)
    with open(sys.argv[1], "w") as f:
        json.dump(_counts, f)

atexit.register(_write)
import pystats
pystats.on(mode="count")     # registers the collector's exit cut
atexit.register(_stop.append, 1)   # runs right before it
"""

DAEMONS = ORACLE + """
import time

def beat():
    while True:
        match 1:
            case int():
                pass
        time.sleep(0.0005)

watch(beat)
for _ in range(3):
    threading.Thread(target=beat, daemon=True).start()
time.sleep(0.05)
"""

DUMPS = ORACLE + """
def work(k):
    for i in range(100):
        match i:
            case int():
                pass
        pystats.dump()

def short():
    match 1:
        case int():
            pass

watch(work, short)
ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]
for t in ts:
    t.start()
for j in range(150):
    s = threading.Thread(target=short)
    s.start()
    s.join()
for t in ts:
    t.join()
"""


def env(out):
    """The child's environment; on a free-threaded build with the GIL on,
    as segment counting needs it."""
    extra = {"PYTHON_GIL": "1"} if FREE_THREADED else {}
    return clean_env(PYSTATS_DIR=out, **extra)


def check_errors(path):
    p = subprocess.run([PYSTATS_CLI, "check", str(path), "--json", "-"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode in (0, 6), p.stderr
    report = json.loads(p.stdout)
    return [f for f in report["findings"] if f["severity"] == "error"]


def collector_counts(dumps, names):
    """Per 'qualname|*' the instructions of the named functions, summed
    over the dumps' hot code (docs/FORMAT.md 1.14), and per
    'qualname|opcode' the opcodes it lists if there is one dump (each
    lists its commonest); '*|MATCH_CLASS' the dumps' own MATCH_CLASS
    count (no other code runs one)."""
    out = {}

    def add(key, v):
        out[key] = out.get(key, 0) + int(v)

    for d in dumps:
        add("*|MATCH_CLASS", d.counts.get("MATCH_CLASS", 0))
        for k, v in d.extra.items():
            if not k.startswith("code["):
                continue
            head, _, rest = k.partition("].")
            qual = head.rsplit(":", 1)[1]
            if qual not in names:
                continue
            if rest.startswith("opcode[") and len(dumps) == 1:
                add(qual + "|" + rest[len("opcode["):-1], v)
            elif rest == "instructions":
                add(qual + "|*", v)
    return out


def oracle_counts(expect, got):
    """The oracle's figures for the keys collector_counts gives."""
    out = {}
    for k, v in expect.items():
        qual, op = k.split("|")
        for key in (k, qual + "|*", "*|" + op):
            if key in got or key.endswith("|*") or key == "*|MATCH_CLASS":
                out[key] = out.get(key, 0) + v
    return out


def run_program(tmp_path, program, names, i):
    out = tmp_path / ("dumps%d" % i)
    oracle = tmp_path / ("oracle%d.json" % i)
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(program))
    p = subprocess.run([sys.executable, str(script), str(oracle)], env=env(out),
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    dumps = dumps_in(str(out))
    assert dumps
    got = collector_counts(dumps, names)
    expect = oracle_counts(json.load(open(oracle)), got)
    desync = sum(int(d.header.get("meta.collection.desync", 0))
                 for d in dumps)
    return out, dumps, expect, got, desync


@pytest.mark.parametrize("program, names", [
    (DAEMONS, {"beat"}),
    (DUMPS, {"work", "short"}),
], ids=["daemon-threads-at-exit", "dump-while-threads-end"])
def test_threads_that_end_are_exact(tmp_path, program, names):
    bad = []
    for i in range(RUNS):
        out, dumps, expect, got, desync = run_program(tmp_path, program,
                                                      names, i)
        assert any(k.endswith("|MATCH_CLASS") for k in expect), expect
        errors = check_errors(out)
        if errors or desync or got != expect:
            diff = {k: (got.get(k), expect.get(k))
                    for k in set(got) | set(expect)
                    if got.get(k) != expect.get(k)}
            bad.append("run %d: %d dumps, desync %d, errors %s, counts "
                       "(collector, oracle) that differ %s" % (
                           i, len(dumps), desync,
                           [e["check"] + ": " + str(e.get("details"))[:300]
                            for e in errors], diff))
    assert not bad, "\n".join(bad)


def test_other_tool_instructions_in_a_loop(tmp_path):
    """One thread, mode count, and another sys.monitoring tool taking
    INSTRUCTION events on the same function: no desync, and the dump
    says where one happened if any (meta.collection.inexact_cause, which
    names the collector's site, the shadow stack and the real frames)."""
    from conftest import decode_text
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent("""
        import sys, pystats
        mon = sys.monitoring
        mon.use_tool_id(5, "oracle")
        mon.register_callback(5, mon.events.INSTRUCTION, lambda c, o: None)
        def work():
            for i in range(100):
                match i:
                    case int():
                        pass
        mon.set_local_events(5, work.__code__, mon.events.INSTRUCTION)
        pystats.on(mode="count")
        work()
        pystats.off()
        pystats.dump()
    """))
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, str(script)],
                       env=env(out), capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    [d] = dumps_in(str(out))
    desync = int(d.header.get("meta.collection.desync", 0))
    where = decode_text(d.header.get("meta.collection.inexact_cause", ""))
    if desync:
        # the collector's site, then the shadow stack and the real frames,
        # each frame by file, first line and qualified name
        assert where.startswith("desync in seg_"), where
        assert "() line " in where and "; shadow stack (depth 2" in where
        assert "%s line 6 work " % script in where, where
        assert "; frames %s line 6 work offset " % script in where, where
    assert desync == 0, where
    assert d.counts["MATCH_CLASS"] == 100


# The same dumps with no other tool: the expected MATCH_CLASS count comes
# from the program's text (each of 4 threads runs 100, short() 150 times),
# whatever the interleaving; every dump trusted.  Runs on every version.
PLAIN_DUMPS = """
import sys, threading, pystats
pystats.on(mode="count")

def work(k):
    for i in range(100):
        match i:
            case int():
                pass
        pystats.dump()

def short():
    match 1:
        case int():
            pass

ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]
for t in ts:
    t.start()
for j in range(150):
    s = threading.Thread(target=short)
    s.start()
    s.join()
for t in ts:
    t.join()
"""


def test_dumps_while_threads_end_without_another_tool(tmp_path):
    bad = []
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(PLAIN_DUMPS))
    for i in range(RUNS):
        out = tmp_path / ("dumps%d" % i)
        p = subprocess.run([sys.executable, str(script)], env=env(out),
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr
        dumps = dumps_in(str(out))
        match_class = sum(d.counts.get("MATCH_CLASS", 0) for d in dumps)
        errors = check_errors(out)
        if errors or match_class != 4 * 100 + 150:
            bad.append("run %d: %d dumps, MATCH_CLASS %d of 550, errors %s"
                       % (i, len(dumps), match_class,
                          [e["check"] + ": " + str(e.get("details"))[:300]
                           for e in errors]))
    assert not bad, "\n".join(bad)
