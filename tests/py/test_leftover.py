"""Known leftovers are bounded (3.12+, mode count): a dump written on
SIGTERM may not read the other threads' frames, so the straight-line
runs the threads were in (the open segments) go uncounted while the pair
into each was counted.  The dump says how much at most
(meta.collection.leftover_bound: every loop meets an event, so each run
holds at most its code object's length) and `pystats check` relaxes its
pair checks by it, with a warning that gives the figure, instead of
calling the counts a collector bug.

The reference is mode instructions on the same program: one event per
instruction, nothing pending when the signal comes, so its counts are
what ran up to the signal."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import dumps_in
from test_threads_end import PYSTATS_CLI, env

pytestmark = pytest.mark.skipif(sys.version_info < (3, 12),
                                reason="segment counting is 3.12+")

# The signal comes while killer()'s run is open: os.kill is a C call, no
# event closes the run before the handler writes the dump.
KILLER = """
import os, signal, sys
import pystats

def killer():
    x = 0
    for i in range(3):
        x += i
    os.kill(os.getpid(), signal.SIGTERM)

pystats.on(sys.argv[1])
killer()
"""

# Threads spinning in Python when the signal comes; the main thread sends
# it once every worker has started.
SPINNERS = """
import os, signal, sys, threading, time
import pystats

started = threading.Barrier(4)

def spin(k):
    started.wait()
    n = 0
    while True:
        n += k
        if n % 50 == 0:
            time.sleep(0)

pystats.on("count")
for k in (1, 2, 3):
    threading.Thread(target=spin, args=(k,), daemon=True).start()
started.wait()
time.sleep(0.05)
os.kill(os.getpid(), signal.SIGTERM)
"""


def run_killed(tmp_path, program, name, *args):
    out = tmp_path / name
    script = tmp_path / (name + ".py")
    script.write_text(textwrap.dedent(program))
    p = subprocess.run([sys.executable, str(script)] + list(args),
                       env=env(out), capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == -15, (p.returncode, p.stderr)
    dumps = dumps_in(str(out))
    assert len(dumps) == 1, p.stderr
    assert dumps[0].header["meta.dump.reason"] == "signal"
    return out, dumps[0]


def check(path):
    p = subprocess.run([PYSTATS_CLI, "check", str(path), "--json", "-"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode in (0, 6), p.stderr
    return p.returncode, json.loads(p.stdout)


def findings(report, check_name):
    return [f for f in report["findings"] if f["check"] == check_name]


def units(code):
    """Code units of a code object and of every code object in it."""
    n = len(code.co_code) // 2
    for c in code.co_consts:
        if hasattr(c, "co_code"):
            n += units(c)
    return n


def excess(dump):
    """Pairs over executions, summed over the opcodes (both sides)."""
    rows, cols = {}, {}
    for (a, b), v in dump.pairs.items():
        rows[a] = rows.get(a, 0) + v
        cols[b] = cols.get(b, 0) + v
    return sum(max(0, v - dump.counts.get(op, 0))
               for d in (rows, cols) for op, v in d.items())


def test_sigterm_in_an_open_segment_is_bounded(tmp_path):
    out, got = run_killed(tmp_path, KILLER, "count", "count")
    _, ref = run_killed(tmp_path, KILLER, "instructions", "instructions")
    bound = int(got.header["meta.collection.leftover_bound"])
    assert got.header["meta.collection.leftover_cause"] == "signal"
    assert got.header["meta.collection.leftover_threads"] == "1"
    # What went uncounted: the reference's executions the dump lacks,
    # never an execution it has more of.
    missing = 0
    for op, n in ref.counts.items():
        assert got.counts.get(op, 0) <= n, op
        missing += n - got.counts.get(op, 0)
    assert set(got.counts) <= set(ref.counts)
    # killer()'s run after its loop, up to the CALL of os.kill, went
    # uncounted: at least LOAD_GLOBAL os, LOAD_ATTR kill, the CALL.
    assert missing >= 3, (missing, ref.counts, got.counts)
    assert missing <= bound
    # The bound: at most the code of the frames that were on the stack
    # (killer's and the module's).
    module = compile(textwrap.dedent(KILLER), "k", "exec")
    assert bound <= units(module), (bound, units(module))
    assert excess(got) <= bound
    # check: a warning with the figure, not an error.
    rc, report = check(out)
    assert rc == 0, report
    assert not [f for f in report["findings"] if f["severity"] == "error"]
    (f,) = findings(report, "leftover-bounded")
    assert f["severity"] == "warning"
    total = sum(got.counts.values())
    text = json.dumps(f)
    assert "at most %d of %d instructions uncounted (%d counted)" % (
        bound, total + bound, total) in text, text


def test_sigterm_with_threads_spinning_is_bounded(tmp_path):
    for i in range(3):
        out, got = run_killed(tmp_path, SPINNERS, "spin%d" % i)
        bound = int(got.header.get("meta.collection.leftover_bound", 0))
        threads = int(got.header.get("meta.collection.leftover_threads", 0))
        assert 1 <= threads <= 4, got.header
        assert excess(got) <= bound
        rc, report = check(out)
        assert not [f for f in report["findings"]
                    if f["severity"] == "error"], report
        assert findings(report, "leftover-bounded")


def test_a_desync_is_an_error_whatever_the_bound(tmp_path):
    """A dump with a leftover bound and a desync: the desync stays an
    error (inexact-counts), the bound a warning."""
    out, got = run_killed(tmp_path, KILLER, "count", "count")
    text = open(got.path, encoding="utf-8").read()
    text = text.replace("meta.collection.leftover_cause : signal\n",
                        "meta.collection.leftover_cause : signal\n"
                        "meta.collection.desync : 1\n")
    with open(got.path, "w", encoding="utf-8") as f:
        f.write(text)
    rc, report = check(out)
    assert rc == 6
    (f,) = findings(report, "inexact-counts")
    assert f["severity"] == "error"
    assert findings(report, "leftover-bounded")[0]["severity"] == "warning"


def test_bound_carried_through_summary_and_compare(tmp_path):
    """The JSON summary sums the dumps' bounds (and keeps the sum when
    read back); compare gives each side's and warns with the figure."""
    bounds, total = 0, 0
    for i in range(2):
        out, got = run_killed(tmp_path, KILLER, "count", "count")
        bounds += int(got.header["meta.collection.leftover_bound"])
        total += sum(got.counts.values())
        (tmp_path / "both").mkdir(exist_ok=True)
        (tmp_path / "count" / os.path.basename(got.path)).rename(
            tmp_path / "both" / ("%d.txt" % i))
    first = tmp_path / "first.json"
    again = tmp_path / "again.json"
    for src, dst in ((tmp_path / "both", first), (first, again)):
        p = subprocess.run([PYSTATS_CLI, "summarize", str(src), "--json",
                            str(dst)], capture_output=True, text=True,
                           timeout=120)
        assert p.returncode == 0, p.stderr
        meta = json.loads(dst.read_text())["meta"]
        assert meta["leftover_bound"] == bounds
    cmp_json = tmp_path / "cmp.json"
    p = subprocess.run([PYSTATS_CLI, "compare", str(first),
                        str(tmp_path / "both"), "--json", str(cmp_json)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    c = json.loads(cmp_json.read_text())
    assert c["base"]["leftover_bound"] == c["head"]["leftover_bound"] == bounds
    want = "at most %d of %d instructions uncounted" % (bounds, total + bounds)
    assert any(w.startswith("head: " + want) for w in c["warnings"]), c["warnings"]
    assert want in p.stderr


# A desync forced for the tests: PYSTATS_TEST_DESYNC names a function
# whose first start segment counting drops, as an event that did not fit
# (segment counting's only test hook, read once at import).
DESYNC = """
import sys, pystats
# PYSTATS_TEST_DESYNC=work: its first start is dropped


def work():
    for i in range(100):
        match i:
            case int():
                pass
pystats.on(mode="count")
work()
pystats.off()
pystats.dump()
"""


def desync_env(out, name):
    e = env(out)
    e["PYSTATS_TEST_DESYNC"] = name
    return e


def test_first_desync_leaves_a_report_beside_the_dump(tmp_path):
    """The dump names a report of its first desync, in a directory beside
    it that readers skip: the versions, where, and the code objects
    involved disassembled (their opcodes by offset, as dis gives them).
    A dump without a desync has none."""
    import dis
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(DESYNC))
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, str(script)],
                       env=desync_env(out, "work"),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    [d] = dumps_in(str(out))
    desync = int(d.header.get("meta.collection.desync", 0))
    name = d.header.get("meta.collection.desync_report")
    assert desync == 1
    assert name is not None and name.startswith("desync/pystats-desync-")
    lines = (out / name).read_text().splitlines()
    assert lines[0] == "pystats desync report"
    assert lines[1] == "collector: " + d.header["pystats.collector"]
    assert lines[3] == "mode: count"
    assert lines[4] == "first desync: " + d.header["meta.collection.inexact_cause"]
    # work's code: every instruction by byte offset, base opcode and
    # oparg byte, as dis lists them (no adaptive forms, no caches)
    module = compile(textwrap.dedent(DESYNC), str(script), "exec")
    work = [c for c in module.co_consts
            if getattr(c, "co_name", None) == "work"][0]
    want = ["  %d %s %d" % (i.offset, i.opname, (i.arg or 0) & 0xFF)
            for i in dis.get_instructions(work)]
    head = "code %s line 6 work (%d code units)" % (
        script, len(work.co_code) // 2)
    assert head in lines, lines[:10]
    start = lines.index(head) + 1
    assert lines[start:start + len(want)] == want
    # check names the report beside the desync, which stays an error
    rc, report = check(out)
    (f,) = findings(report, "inexact-counts")
    assert f["severity"] == "error"
    assert "report (attach it to a bug report): " + name in json.dumps(f)
    # the same program without the forced desync: none, and no report
    plain = tmp_path / "plain"
    p = subprocess.run([sys.executable, str(script)], env=env(plain),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    [d] = dumps_in(str(plain))
    assert "meta.collection.desync" not in d.header
    assert "meta.collection.desync_report" not in d.header
    assert not (plain / "desync").exists()


# After a desync the thread's shadow stack is rebuilt from its real
# frames at its next event: the damage is the segments that were open
# then.  victim()'s first start is dropped (forced); the rebuild at its
# next event (its loop's first FOR_ITER) puts it and its callers back.
REBUILD = """
import sys, pystats

def later(i):
    t = 0
    for j in range(i % 5):
        match j:
            case int():
                t += j
    return t

def victim(n):
    t = 0
    for i in range(n):
        match i:
            case int():
                t += later(i)
    return t

def main():
    s = 0
    for k in range(3):
        s += victim(50)
    return s

pystats.on(mode=sys.argv[1])
main()
pystats.off()
"""


def per_code(d, name):
    """The function name's hot code in the dump d: its instructions, and
    its counts per line and per opcode (the hottest ones), by key."""
    out = {}
    for k, v in d.extra.items():
        head, _, what = k.partition("].")
        if head.startswith("code[<string>:") and \
                head.endswith(":" + name) and not what.startswith("site"):
            out[what] = int(v)
    return out


def test_a_desync_is_repaired_at_the_threads_next_event(tmp_path):
    """One desync, counted and reported; from the rebuild on, every count
    equals mode instructions' (the reference) on the same program: only
    victim()'s first call loses what it ran before its loop's first
    FOR_ITER fired (each of those instructions once), nothing else."""
    import dis
    got_dir, want_dir = tmp_path / "count", tmp_path / "instructions"
    for mode, out in (("count", got_dir), ("instructions", want_dir)):
        p = subprocess.run([sys.executable, "-c", REBUILD, mode],
                           env=desync_env(out, "victim"),
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
    [got] = dumps_in(str(got_dir))
    [want] = dumps_in(str(want_dir))
    assert int(got.header["meta.collection.desync"]) == 1
    assert "meta.collection.desync" not in want.header
    rc, report = check(got_dir)
    (f,) = findings(report, "inexact-counts")
    assert f["severity"] == "error"
    for name in ("later", "main"):
        assert per_code(got, name) == per_code(want, name), name
    # 50 iterations per call: later(i) matches i % 5 times, 100 a call
    assert want.counts["MATCH_CLASS"] == 3 * (50 + 100)
    # victim's instructions before its loop body, from dis: up to and
    # including the FOR_ITER (its first execution is what the rebuild
    # found running)
    ns = {}
    exec(compile(REBUILD.split("pystats.on(")[0], "<string>", "exec"), ns)
    lost_ops, lost_lines = {}, {}
    for ins in dis.get_instructions(ns["victim"]):
        lost_ops[ins.opname] = lost_ops.get(ins.opname, 0) + 1
        line = "line[%d]" % ins.positions.lineno
        lost_lines[line] = lost_lines.get(line, 0) + 1
        if ins.opname == "FOR_ITER":
            break
    w = per_code(want, "victim")
    expect = dict(w, instructions=w["instructions"] - sum(lost_ops.values()),
                  calls=w["calls"] - 1)     # the start dropped
    for k in w:
        if k.startswith("line["):
            expect[k] = w[k] - lost_lines.get(k, 0)
        elif k.startswith("opcode["):
            expect[k] = w[k] - lost_ops.get(k[7:-1], 0)
    assert per_code(got, "victim") == expect
    assert got.counts == {op: n - lost_ops.get(op, 0)
                          for op, n in want.counts.items()}


# A SIGTERM whose handler interrupts the collector while it folds or
# clears (snapshot() and clear() here; the census's fold at exit in a
# multiprocessing worker that Pool.terminate() kills): long straight-line
# code objects (two events to run, a thousand units to fold), so that most signals land in a fold.
FOLDING = """
import sys
import pystats

N = 300
BODY = "    y = y + x\\n" * 200
ns = {}
exec(compile("".join("def f%d(x):\\n    y = %d\\n%s    return y\\n"
                     % (i, i, BODY) for i in range(N)), "gen", "exec"), ns)
fs = [ns["f%d" % i] for i in range(N)]
pystats.on("count")
k = 0
while True:
    for f in fs:
        f(k)
    if k == 0:
        print("ready", flush=True)
    if k % 3:
        pystats.clear()
    else:
        pystats.snapshot()
    k += 1
"""


def test_sigterm_while_the_collector_folds_is_no_desync(tmp_path):
    """The handler's dump waits for the fold or clear it interrupted (it
    would fold the same code objects half folded: a false desync and
    counts taken twice): every dump of a process killed at a random
    moment of that loop is trusted, pairs within executions.  A signal
    that came during clear() is honoured when the clear is done, with
    nothing counted since: no dump, as for any empty period."""
    import random
    import signal
    import time
    script = tmp_path / "folding.py"
    script.write_text(textwrap.dedent(FOLDING))
    rng = random.Random(1234)
    written = 0
    for i in range(16):
        out = tmp_path / ("fold%d" % i)
        p = subprocess.Popen([sys.executable, str(script)], env=env(out),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        try:
            assert p.stdout.readline() == "ready\n", p.stderr.read()
            time.sleep(rng.uniform(0.0, 0.2))
            p.send_signal(signal.SIGTERM)
            _, err = p.communicate(timeout=120)
        finally:
            p.kill()
        assert p.returncode == -15, (p.returncode, err)
        assert err == "", err
        dumps = dumps_in(str(out))
        assert len(dumps) <= 1
        if not dumps:
            continue
        written += 1
        got = dumps[0]
        assert got.header["meta.dump.reason"] == "signal"
        assert int(got.header.get("meta.collection.desync", 0)) == 0, (
            i, got.header.get("meta.collection.inexact_cause"))
        bound = int(got.header.get("meta.collection.leftover_bound", 0))
        assert excess(got) <= bound, i
        rc, report = check(out)
        assert not [f for f in report["findings"]
                    if f["severity"] == "error"], (i, report)
    # Most signals land in a fold or while the functions run (and the
    # period has counts); some in a clear.
    assert written >= 4, written
