"""3.11: mode count from line events (PYSTATS_TRACE_LINES=1, docs/FORMAT.md
1.6): code whose line events tell exactly which instructions ran is
counted from them, with its frames' opcode events off; everything else
keeps opcode events.  The counts, pairs, per code counts and calls are
the reference collector's, and those of the opcode method, on programs
made to trip the line method: calls and dunder calls mid-line, exceptions
raised mid-line and handled, generators (send, throw, close), iterators
raising StopIteration, __bool__ before a jump, finalizers, threads,
on()/off()/clear() inside line-counted frames, jumps needing
EXTENDED_ARG."""
import json
import sys

import pytest

from conftest import clean_env, dumps_in, run_python

pytestmark = pytest.mark.skipif(
    sys.version_info >= (3, 12), reason="3.11's trace function only")

PROGRAMS = {
    "calls_mid_line": """
def f(x):
    return x + 1
def g(x):
    y = x * 2
    return y
def run():
    t = 0
    for i in range(30):
        t += f(i) + g(i) * f(g(i))
    return t
""",
    "dunders": """
class V:
    def __init__(self, v):
        self.v = v
    def __add__(self, o):
        return V(self.v + o.v)
    def __getitem__(self, i):
        return self.v + i
    @property
    def double(self):
        return self.v * 2
def run():
    a = V(1)
    b = V(2)
    t = 0
    for i in range(20):
        t += (a + b)[i] + a.double
    return t
""",
    "bool_before_jump": """
class B:
    def __init__(self, n):
        self.n = n
    def __bool__(self):
        self.n -= 1
        return self.n > 0
def run():
    b = B(10)
    t = 0
    while b:
        t += 1
    if B(2):
        t += 100
    if B(1):
        t += 1000
    return t
""",
    "exceptions": """
def boom(x):
    return 10 // x
def mid(x):
    y = boom(x) + 1
    return y
def deep(x):
    z = mid(x) * 2
    return z
def catcher():
    t = 0
    for i in range(-3, 4):
        try:
            t += deep(i) + mid(i)
        except ZeroDivisionError:
            t -= 1
    return t
def keyerr(d, k):
    return d[k] + 1
def run():
    t = catcher()
    for k in ("a", "b", "c"):
        try:
            t += keyerr({"a": 1, "c": 3}, k)
        except KeyError:
            t += 5
    return t
""",
    "generators": """
def numbers(n):
    for i in range(n):
        yield i
def echo():
    x = 0
    while True:
        x = (yield x * 2) + 1
def closing():
    yield 1
    yield 2
def gen_return(n):
    yield n
    return n + 1
def run():
    t = 0
    for v in numbers(20):
        t += v
    e = echo()
    next(e)
    for i in range(5):
        t += e.send(i)
    try:
        e.throw(ValueError)
    except ValueError:
        t += 1
    c = closing()
    next(c)
    c.close()
    t += sum(numbers(5)) + len(list(numbers(4)))
    g = gen_return(3)
    t += next(g)
    try:
        next(g)
    except StopIteration as s:
        t += s.value
    return t
""",
    "iterator_stop": """
class It:
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        return self
    def __next__(self):
        self.n -= 1
        if self.n < 0:
            raise StopIteration
        return self.n
def run():
    t = 0
    for v in It(10):
        t += v
    for v in It(0):
        t += 1
    return t
""",
    "lambdas_comprehensions": """
def run():
    key = lambda v: -v
    t = sorted(range(20), key=key)
    u = [x * 2 for x in t if x % 3]
    w = {x: x + 1 for x in u}
    s = sum(x for x in w)
    f = (lambda a: (lambda b: a + b))(3)
    return s + f(4) + len(list(map(lambda v: v + 1, u)))
""",
    "one_line": """
def loop1(n):
    i = 0
    while i < n: i += 1
    return i
def loop2(n):
    t = 0
    for v in range(n): t += v
    return t
def condexpr(a):
    return a if a > 2 else -a
def both(a, b):
    if a and b:
        return 1
    return 2
def run():
    t = loop1(10) + loop2(10)
    for a in range(5):
        t += condexpr(a) + both(a, a - 2)
    return t
""",
    "finalizers": """
class D:
    hits = 0
    def __del__(self):
        D.hits += 1
def churn(n):
    D.hits = 0
    x = None
    for i in range(n):
        x = D()
        y = x
        x = y = None
    return D.hits
def run():
    return churn(20)
""",
    "recursion": """
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)
def run():
    return fib(12)
""",
    "big": "def big(x):\n    t = 0\n" + "".join(
        "    if x > %d:\n        t += %d\n" % (i, i) for i in range(150)) +
    "    return t\ndef run():\n    return big(50) + big(200)\n",
    # Jumps over more than 255 code units: EXTENDED_ARG before the jump.
    "extended_arg": "def wide(x):\n    t = 0\n    for i in range(x):\n" +
    "        if i % 2:\n" + "".join(
        "            t += %d\n" % i for i in range(120)) +
    "        else:\n            t -= 1\n    return t\n" +
    "def run():\n    return wide(4)\n",
}

CHILD = r"""
import json, sys
import pystats
from reference import Reference, code_key
programs = json.loads(sys.argv[1])
out = {}
for name, src in programs.items():
    g = {"__name__": name}
    exec(compile(src, name + ".py", "exec"), g)
    run = g["run"]
    run()
    ref = Reference()
    expected = ref.measure(run)
    pystats.clear()
    got = pystats.measure(run)
    snap = pystats.snapshot()
    pystats.clear()
    out[name] = {
        "result": got == expected,
        "counts": snap["execution_count"] == ref.counts,
        "pairs": snap["pair_count"] == ref.pairs,
        "code": {k: v["opcodes"] for k, v in snap["code"].items()}
                == ref.code_counts,
        "calls": snap["calls"],
    }
out["desync"] = pystats._collector._seg_state()["desync"]
print(json.dumps(out))
"""


def child(code, lines, *args):
    proc = run_python(code, args=args,
                      env=clean_env(PYSTATS_TRACE_LINES=lines))
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def results():
    progs = json.dumps(PROGRAMS)
    return child(CHILD, "1", progs), child(CHILD, "0", progs)


def test_no_desync(results):
    """Every line event met a way the run could have left its line."""
    assert results[0]["desync"] == 0 and results[1]["desync"] == 0


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_matches_reference_and_opcode_method(results, name):
    lines, opcodes = results
    got = lines[name]
    assert got["result"] and got["counts"] and got["pairs"] and got["code"]
    assert got["calls"] == opcodes[name]["calls"]


USED = r"""
import json, sys
import pystats
def plain(n):
    t = 0
    for i in range(n):
        t += i
    return sys._getframe().f_trace_opcodes
def numbers(n):
    for i in range(n):
        yield sys._getframe().f_trace_opcodes
lam = lambda: sys._getframe().f_trace_opcodes
def condexpr(a):
    return sys._getframe().f_trace_opcodes if a else None
def one_line_loop(n):
    while n: n -= 1; r = sys._getframe().f_trace_opcodes
    return r
def handler():
    try:
        return sys._getframe().f_trace_opcodes
    except KeyError:
        return None
def andand(a, b):
    return a and b and sys._getframe().f_trace_opcodes
def after_andand(a, b):
    if a and b:
        return sys._getframe().f_trace_opcodes
def listcomp():
    return [sys._getframe().f_trace_opcodes for _ in range(1)][0]
seen = {}
def ends_in_loop(n):
    for i in range(n):
        seen["ends_in_loop"] = sys._getframe().f_trace_opcodes
def if_in_loop(n):
    for i in range(n):
        if i:
            seen["if_in_loop"] = sys._getframe().f_trace_opcodes
outer = sys._getframe()
pystats.on()
r = {"plain": plain(3), "generator": list(numbers(2)), "lambda": lam(),
     "condexpr": condexpr(1), "one_line_loop": one_line_loop(3),
     "handler": handler(), "andand": andand(1, 1),
     "after_andand": after_andand(1, 1),
     "listcomp": listcomp(), "running_at_on": outer.f_trace_opcodes}
ends_in_loop(2)
if_in_loop(2)
pystats.off()
r.update(seen)
r["desync"] = pystats._collector._seg_state()["desync"]
print(json.dumps(r))
"""


def test_line_method_used_where_eligible():
    r = child(USED, "1")
    assert r["plain"] is False
    assert r["generator"] == [False, False]
    assert r["lambda"] is False
    # The loop's exit to an implicit return on the loop's line, the jump
    # back with no line after an if: quiet, told apart all the same.
    assert r["ends_in_loop"] is False and r["if_in_loop"] is False
    # A line left two ways to one place counts from opcode events; the
    # next line from line events again.
    assert r["after_andand"] is False
    assert r["desync"] == 0
    # Lines with a jump within them (a conditional expression, a one-line
    # loop, a chain of and), frames with a handler, comprehensions, a
    # frame running at on(): opcode events.
    for name in ("condexpr", "one_line_loop", "handler", "andand",
                 "listcomp", "running_at_on"):
        assert r[name] is True, name


def test_off_by_default():
    r = child(USED, "0")
    assert r["plain"] is True and r["generator"] == [True, True]


WORK = """
def work(n):
    t = 0
    for i in range(n):
        t += i * 2
    return t
"""


def mid_line(name, call, *, then=""):
    """The source of a function of a child program that makes call in
    the middle of a line, between two statements of that line."""
    return ("def %s():\n    a = work(5)\n    b = a + 1; %s; c = b + 2\n"
            "    d = c + work(3)\n%s    return d\n" % (name, call, then))


WINDOWS = "import json, sys, threading\nimport pystats\n" + WORK + \
    mid_line("stops", "pystats.off()") + \
    mid_line("clears", "pystats.clear()") + \
    mid_line("starts", "pystats.on()", then="    pystats.off()\n") + r"""
def snap():
    s = pystats.snapshot()
    return {"e": s["execution_count"],
            "p": sorted([list(k), v] for k, v in s["pair_count"].items()),
            "c": s["calls"],
            "code": {k: v["opcodes"] for k, v in s["code"].items()}}
out = {}
pystats.on(); stops(); out["off"] = snap(); pystats.clear()
pystats.on(); clears(); pystats.off(); out["clear"] = snap(); pystats.clear()
pystats.measure(starts); out["on_in_measure"] = snap(); pystats.clear()
def threaded():
    ts = [threading.Thread(target=work, args=(2000,)) for _ in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
pystats.on(); threaded(); pystats.off(); out["threads"] = snap()
pystats.clear()
import time
def blocked(lock, started):
    a = work(3)
    b = a + 1; started.release(); lock.acquire(); c = b + 2
    return c
def cross_thread_off():
    lock = threading.Lock()
    lock.acquire()
    started = threading.Lock()
    started.acquire()
    t = threading.Thread(target=blocked, args=(lock, started))
    t.start()
    started.acquire()
    time.sleep(0.3)     # the thread waits in lock.acquire(), mid-line
    pystats.off()
    lock.release()
    t.join()
pystats.on(); cross_thread_off(); out["other_thread_at_off"] = snap()
out["desync"] = pystats._collector._seg_state()["desync"]
print(json.dumps(out, sort_keys=True))
"""


def test_windows_as_with_opcode_events():
    lines, opcodes = child(WINDOWS, "1"), child(WINDOWS, "0")
    assert set(lines) == {"off", "clear", "on_in_measure", "threads",
                          "other_thread_at_off", "desync"}
    assert lines["desync"] == 0
    for k in sorted(lines):
        assert lines[k] == opcodes[k], k


DUMPS = "import os, sys\nimport pystats\n" + WORK + \
    mid_line("dumps", "pystats.dump()") + \
    mid_line("forks", "pid = os.fork()", then="""\
    if pid == 0:
        pystats.off()
        pystats.dump()
        os._exit(0)
    os.waitpid(pid, 0)
""") + r"""
pystats.on()
dumps()
forks()
pystats.off()
pystats.dump()
print(pystats._collector._seg_state()["desync"])
"""


def dumped(tmp_path, lines):
    d = tmp_path / ("lines" + lines)
    proc = run_python(DUMPS, env=clean_env(PYSTATS_TRACE_LINES=lines,
                                           PYSTATS_DIR=str(d)))
    assert proc.stdout.strip() == "0"
    return sorted(((x.header.get("meta.dump.reason"),
                    x.header.get("meta.forked")), sorted(x.counts.items()),
                   sorted(x.pairs.items()),
                   sorted((k, v) for k, v in x.extra.items()
                          if k.startswith(("code[", "calls."))))
                  for x in dumps_in(str(d)))


def test_dump_and_fork_as_with_opcode_events(tmp_path):
    """dump() counts what ran up to its own CALL; a fork child starts
    from the instruction after the fork's CALL."""
    lines, opcodes = dumped(tmp_path, "1"), dumped(tmp_path, "0")
    assert len(lines) == 3
    assert lines == opcodes
