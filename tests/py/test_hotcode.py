"""Hot code (per code object instructions, calls, top opcodes) and call
statistics, in both exact modes ("count": segments on 3.12+, the trace
function on 3.11; "instructions"): per-code counts equal the reference
collector's attribution, calls are exact for known call trees, dumps
write what snapshot() reports (docs/FORMAT.md, "Hot code", "Calls")."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

import workloads
from conftest import clean_env, dumps_in, measured_snapshot as measured, run_python
from reference import Reference, code_key

MODES = ("count", "instructions")
V312 = sys.version_info >= (3, 12)
WORKLOADS_DIR = os.path.dirname(os.path.abspath(workloads.__file__))


def per_code(snap):
    return {k: v["opcodes"] for k, v in snap["code"].items()}


def check_consistent(snap):
    """Each entry's instructions are the sum of its opcodes, and the
    entries add up to the execution counts."""
    for key, v in snap["code"].items():
        assert v["instructions"] == sum(v["opcodes"].values()) > 0, key
    assert sum(v["instructions"] for v in snap["code"].values()) == \
        sum(snap["execution_count"].values())
    assert sum(v["calls"] for v in snap["code"].values()) == \
        snap["calls"]["python_starts"]


# -- attribution against the reference collector ----------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", workloads.ALL)
def test_measure_per_code_matches_reference(stats, mode, name):
    mod = workloads.load(name)
    mod.run()
    ref = Reference()
    ref.measure(mod.run)
    snap = measured(stats, mode, mod.run)
    assert per_code(snap) == ref.code_counts
    check_consistent(snap)


def in_workloads(counts):
    return {k: v for k, v in counts.items() if k.startswith(WORKLOADS_DIR)}


def call_run(mod):
    mod.run()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["recursion", "generators", "exceptions",
                                  "classes", "closures", "async_"])
def test_window_per_code_matches_reference(stats, mode, name):
    mod = workloads.load(name)
    mod.run()
    ref = Reference()
    ref.start()
    call_run(mod)
    ref.stop()
    stats.clear()
    stats.on(mode=mode)
    call_run(mod)
    stats.off()
    snap = stats.snapshot()
    stats.clear()
    got = in_workloads(per_code(snap))
    assert got and got == in_workloads(ref.code_counts)
    check_consistent(snap)


# -- calls -------------------------------------------------------------------

def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def gen3():
    yield 1
    yield 2
    yield 3


def consume():
    return list(gen3())


def raiser():
    raise ValueError("x")


def catcher():
    try:
        raiser()
    except ValueError:
        return 1


def gen_catching():
    for _ in range(2):
        try:
            yield 1
        except KeyError:
            pass


def thrower():
    g = gen_catching()
    next(g)
    g.throw(KeyError)
    try:
        g.throw(KeyError)
    except StopIteration:
        pass


@pytest.mark.parametrize("mode", MODES)
def test_fib_calls_exact(stats, mode):
    snap = measured(stats, mode, fib, 10)
    entry = snap["code"][code_key(fib.__code__)]
    assert entry["calls"] == 177
    assert snap["calls"]["python_starts"] == 177
    assert snap["calls"]["returns"] == 177
    assert snap["calls"]["resumptions"] == 0
    assert snap["calls"]["unwinds"] == 0
    # 177 calls: each a RESUME; 88 of them recurse.
    assert entry["opcodes"]["RESUME"] == 177
    check_consistent(snap)


@pytest.mark.parametrize("mode", MODES)
def test_generator_calls_exact(stats, mode):
    snap = measured(stats, mode, consume)
    c = snap["calls"]
    assert c["python_starts"] == 2          # consume, gen3
    assert c["resumptions"] == 3            # gen3 after each yield
    assert c["yields"] == 3
    assert c["returns"] == 2                # gen3 exhausted, consume
    assert snap["code"][code_key(gen3.__code__)]["calls"] == 1
    assert snap["code"][code_key(gen3.__code__)]["opcodes"]["RESUME"] == 4


@pytest.mark.parametrize("mode", MODES)
def test_exception_calls_exact(stats, mode):
    snap = measured(stats, mode, catcher)
    c = snap["calls"]
    assert c["python_starts"] == 2
    assert c["raises"] == 2                 # in raiser, then in catcher
    assert c["unwinds"] == 1                # raiser
    assert c["returns"] == 1                # catcher
    assert c["handled"] == (1 if V312 else 0)


@pytest.mark.parametrize("mode", MODES)
def test_throw_calls_exact(stats, mode):
    snap = measured(stats, mode, thrower)
    c = snap["calls"]
    assert c["python_starts"] == 2          # thrower, gen_catching
    assert c["throws"] == 2
    assert c["yields"] == 2
    assert c["returns"] == 2
    assert c["resumptions"] == 0
    assert snap["code"][code_key(gen_catching.__code__)]["calls"] == 1


@pytest.mark.parametrize("mode", MODES)
def test_straight_line_from_dis(stats, mode):
    import dis

    def straight(a, b):
        c = a + b
        d = c * a
        return d - b

    snap = measured(stats, mode, straight, 3, 4)
    ops = {}
    for ins in dis.get_instructions(straight):
        ops[ins.opname] = ops.get(ins.opname, 0) + 1
    entry = snap["code"][code_key(straight.__code__)]
    assert entry["opcodes"] == ops
    assert entry["calls"] == 1


# -- records outlive their code objects; clear, merge ------------------------

SRC = "def dyn(n):\n    t = 0\n    for i in range(n):\n        t += i\n    " \
      "return t\n"


def run_dynamic():
    for _ in range(3):
        ns = {}
        exec(compile(SRC, "<dyn:file>", "exec"), ns)
        ns["dyn"](5)
        del ns


@pytest.mark.parametrize("mode", MODES)
def test_dead_code_objects_kept_and_merged(stats, mode):
    import gc
    snap = measured(stats, "count", lambda: None)   # warm up
    stats.clear()
    stats._collector._set_measure_mode(mode)
    try:
        stats.measure(run_dynamic)
    finally:
        stats._collector._set_measure_mode("count")
    gc.collect()
    snap = stats.snapshot()
    entry = snap["code"]["<dyn%3Afile>:1:dyn"]   # as the dump spells it
    assert entry["calls"] == 3
    one = measured(stats, mode, lambda: exec(compile(SRC, "<dyn:file>",
                                                      "exec"), {}))
    assert "<dyn%3Afile>:1:dyn" not in one["code"]  # defined, never run
    check_consistent(snap)
    stats.clear()
    assert stats.snapshot()["code"] == {}


def test_clear_resets_calls(stats):
    measured(stats, "count", fib, 5)
    snap = stats.snapshot()
    assert snap["code"] == {}
    assert not any(snap["calls"].values())


# -- dumps ------------------------------------------------------------------

CHILD = r"""
import pystats
SRC = %r
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
fns = []
for k in range(3):
    def made(x):
        return x + 1
    fns.append(made)
pystats.on(mode=%r)
fib(10)
for f in fns:
    f(1)
for _ in range(3):
    exec(compile(SRC, "<dyn:file>", "exec"), {"__name__": "d"})
class K:
    def meth(self):
        return [i for i in range(4)]
K().meth()
pystats.off()
"""

SRC_CALL = SRC + "dyn(4)\n"


def parse_code(extra):
    code, calls = {}, {}
    for k, v in extra.items():
        if k.startswith("calls."):
            calls[k[len("calls."):]] = int(v)
            continue
        if not k.startswith("code[") or "].site[" in k or \
                "].site_executions[" in k:
            continue            # the census's site rows (1.18)
        if k.endswith("].instructions"):
            key, what = k[5:-len("].instructions")], ("instructions",)
        elif k.endswith("].calls"):
            key, what = k[5:-len("].calls")], ("calls",)
        elif "].line[" in k:
            head, _, line = k.rpartition("].line[")
            assert line.endswith("]"), k
            line = None if line == "none]" else int(line[:-1])
            key, what = head[5:], ("lines", line)
        else:
            head, sep, op = k.rpartition("].opcode[")
            assert sep and op.endswith("]"), k
            key, what = head[5:], ("opcodes", op[:-1])
        file, line, qual = key.rsplit(":", 2)
        assert int(line) >= 0 and qual
        e = code.setdefault(key, {"opcodes": {}, "lines": {}})
        if what[0] in ("opcodes", "lines"):
            e[what[0]][what[1]] = int(v)
        else:
            e[what[0]] = int(v)
    return code, calls


@pytest.mark.parametrize("mode", MODES)
def test_dump_lines(stats_dir, mode):
    run_python(CHILD % (SRC_CALL, mode),
               env=clean_env(PYSTATS_DIR=stats_dir))
    (d,) = dumps_in(stats_dir)
    code, calls = parse_code(d.extra)
    total = sum(e["instructions"] for e in code.values())
    assert total == sum(d.counts.values())
    fib_key = [k for k in code if k.endswith(":fib")]
    assert len(fib_key) == 1
    assert code[fib_key[0]]["calls"] == 177
    made = [k for k in code if k.endswith(":<module>.made")
            or k.endswith(":made")]
    assert len(made) == 1 and code[made[0]]["calls"] == 3   # merged
    assert code["<dyn%3Afile>:1:dyn"]["calls"] == 3         # merged, dead
    assert any(k.endswith(":K.meth") for k in code)
    for k, e in code.items():
        assert 0 < len(e["opcodes"]) <= 5
        assert sum(e["opcodes"].values()) <= e["instructions"]
        assert e["calls"] >= 0
        # Lines (1.18), of dead code objects too, add up exactly.
        assert sum(e["lines"].values()) == e["instructions"], k
    assert code["<dyn%3Afile>:1:dyn"]["lines"][4] > 0     # the loop body
    assert calls["python_starts"] == sum(e["calls"] for e in code.values())
    assert calls["returns"] >= 177


def test_fork_child_starts_from_zero(stats):
    if not hasattr(os, "fork"):
        pytest.skip("no fork")
    key = code_key(fib.__code__)
    stats.on()
    fib(8)
    pid = os.fork()
    if pid == 0:
        snap = stats.snapshot()
        # The child's own after-fork hooks run in Python: counted.
        ok = (key not in snap["code"] and
              snap["calls"]["python_starts"] ==
              sum(v["calls"] for v in snap["code"].values()))
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    stats.off()
    assert os.WEXITSTATUS(status) == 0
    assert stats.snapshot()["code"][key]["calls"] == 67


# -- where the code came from (docs/FORMAT.md 1.1) ---------------------------

def test_dump_records_cwd_and_sys_path(tmp_path):
    """meta.process.cwd and meta.python.path give back the working
    directory and sys.path the program saw, made absolute, whatever
    characters the names hold (free text, 1.16; | separates entries)."""
    odd = tmp_path / "run | 100% [a:b] é\u2028"
    odd.mkdir()
    (odd / "rel lib").mkdir()
    out = tmp_path / "dumps"
    env = clean_env(PYTHONPATH=os.pathsep.join(
        ["rel lib", str(tmp_path / "x|y"), os.path.dirname(__file__)]))
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent("""
            import json, os, sys
            seen = [os.getcwd(), list(sys.path)]
            import pystats
            pystats.on(); sum(range(3)); pystats.off()
            print(json.dumps(seen))
        """)],
        cwd=odd, env=dict(env, PYSTATS_DIR=str(out)), capture_output=True,
        text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    cwd, path = json.loads(proc.stdout)
    (dump,) = dumps_in(out)
    assert dump.header["meta.process.cwd"] == cwd == str(odd)
    assert dump.header["meta.python.path"] == [
        os.path.abspath(os.path.join(cwd, p)) for p in path]
    assert str(odd / "rel lib") in dump.header["meta.python.path"]


def test_summary_names_code_by_module(tmp_path):
    """The summary names hot code by the module the import system gave it
    (module.__name__, the independent source), code outside sys.path by
    its path relative to the working directory (my-scripts is no
    identifier, so the working directory, on sys.path under -c, makes no
    module of it)."""
    lib = tmp_path / "lib"
    (lib / "pkg" / "sub").mkdir(parents=True)
    (lib / "pkg" / "__init__.py").write_text("def init_fn():\n    return sum(range(9))\n")
    (lib / "pkg" / "sub" / "leaf.py").write_text("def leaf_fn():\n    return sum(range(7))\n")
    (lib / "top.py").write_text("def top_fn():\n    return sum(range(5))\n")
    work = tmp_path / "work"
    (work / "my-scripts").mkdir(parents=True)
    (work / "my-scripts" / "helper.py").write_text("def helper_fn():\n    return 1\n")
    out = tmp_path / "dumps"
    proc = subprocess.run(
        [sys.executable, "-X", "pystats", "-c", textwrap.dedent("""
            import json, runpy
            import pkg, pkg.sub.leaf, top
            pkg.init_fn(); pkg.sub.leaf.leaf_fn(); top.top_fn()
            import os
            ns = runpy.run_path(os.path.abspath("my-scripts/helper.py"))
            ns["helper_fn"]()
            print(json.dumps({f.__name__: m.__name__ for m, f in
                              ((pkg, pkg.init_fn), (pkg.sub.leaf, pkg.sub.leaf.leaf_fn),
                               (top, top.top_fn))}))
        """)],
        cwd=work, env=clean_env(PYTHONPATH=os.pathsep.join(
            [str(lib), os.environ.get("PYTHONPATH", "")]), PYSTATS_DIR=str(out)),
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    modules = json.loads(proc.stdout)
    cli = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "build", "pystats")
    if not os.access(cli, os.X_OK):
        pytest.skip("build/pystats is not built")
    summary = json.loads(subprocess.run(
        [cli, "summarize", "--json", "-", str(out)], capture_output=True,
        text=True, check=True, timeout=60).stdout)
    by_function = {}
    for key, c in summary["code"].items():
        by_function.setdefault(c["function"], []).append(c)
    for fn, mod in modules.items():
        (c,) = by_function[fn]
        assert c["file"] == mod, (fn, c)
        assert c["path"].startswith(str(lib) + os.sep)
    (h,) = by_function["helper_fn"]
    assert h["file"] == os.path.join("my-scripts", "helper.py")
    assert h["path"] == str(work / "my-scripts" / "helper.py")


def test_gone_working_directory(tmp_path):
    """A program whose working directory was removed, with a relative
    sys.path entry: pystats imports, the dump has no meta.process.cwd and
    keeps the relative entry as it is."""
    gone = tmp_path / "gone"
    gone.mkdir()
    out = tmp_path / "dumps"
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent("""
            import os, sys
            os.rmdir(os.getcwd())
            sys.path.insert(0, "rel")
            import pystats
            pystats.on(); sum(range(3)); pystats.off()
        """)],
        cwd=gone, env=dict(clean_env(), PYSTATS_DIR=str(out)),
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    (dump,) = dumps_in(str(out))
    assert "meta.process.cwd" not in dump.header
    assert dump.header["meta.python.path"][0] == "rel"
