"""Shared helpers for the collector's tests: run Python in a child
process with collection settings, and read the dumps it leaves."""
import contextlib
import dis
import gc
import os
import subprocess
import sys
import tempfile
import textwrap
import urllib.parse

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# Whatever the test process itself leaves uncleared goes to a scratch
# directory, not to the user's /tmp/py_stats.
os.environ["PYSTATS_DIR"] = tempfile.mkdtemp(prefix="pystats-tests-")

# On a free-threaded build CPython warns, in every child, that importing
# the collector enabled the GIL (docs/COLLECTING.md, 3.14t): expected, and not what
# the tests that read a child's stderr are about.
if __import__("sysconfig").get_config_var("Py_GIL_DISABLED"):
    os.environ["PYTHONWARNINGS"] = ",".join(filter(None, [
        os.environ.get("PYTHONWARNINGS"),
        "ignore:The global interpreter lock (GIL) has been enabled"
        ":RuntimeWarning"]))

# Variables that would change what a child process collects.
_OURS = ("PYTHONSTATS", "PYSTATS_DIR", "PYSTATS_LABEL", "PYSTATS_BACKEND")


# A workload with a recognisable signature: MATCH_CLASS runs exactly n
# times in sets(n), and nowhere in the standard library code the tests run.
SETS = """
def sets(n):
    for i in range(n):
        match i:
            case int():
                pass
"""


@contextlib.contextmanager
def native_stats_dir():
    """Held while a --enable-pystats CPython writes its statistics to the
    directory CPython fixes (/tmp/py_stats) and a test picks out the
    files that are new: one test at a time, across the interpreters'
    suites that run side by side (tests/run.py)."""
    import fcntl
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    os.makedirs(os.path.join(root, "build"), exist_ok=True)
    with open(os.path.join(root, "build", "native-stats.lock"), "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in _OURS}
    env["PYTHONPATH"] = HERE
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run_python(code, *, args=(), xopts=(), flags=(), env=None, check=True,
               timeout=120):
    """Run `code` (dedented) as a script in a new interpreter."""
    cmd = [sys.executable] + list(flags)
    for x in xopts:
        cmd += ["-X", x]
    cmd += ["-c", textwrap.dedent(code)] + list(args)
    proc = subprocess.run(cmd, env=env if env is not None else clean_env(),
                          capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError("child failed (%d):\n%s\n%s" % (
            proc.returncode, proc.stdout, proc.stderr))
    return proc


# Header values that are free text, encoded (docs/FORMAT.md 1.1, 1.16).
FREE_TEXT_HEADERS = ("meta.label", "meta.python.sys_version",
                     "meta.python.git", "meta.python.config_args",
                     "meta.python.implementation", "meta.process.cwd",
                     "meta.census.error")


def decode_text(field):
    """A free-text field of a dump, decoded as docs/FORMAT.md 1.16 says."""
    return urllib.parse.unquote_to_bytes(field).decode("utf-8",
                                                       "surrogatepass")


class Dump:
    """One dump file of this project's format, parsed; free-text header
    values decoded."""

    def __init__(self, path):
        self.path = path
        self.header = {}
        self.counts = {}
        self.pairs = {}
        self.extra = {}
        with open(path, encoding="utf-8") as f:
            text = f.read()
        assert text.endswith("\n"), "%s: no final newline" % path
        lines = text.splitlines()
        assert lines[0] == "pystats.format : 2", path
        for line in lines:
            key, sep, value = line.rpartition(" : ")
            assert sep, "%s: bad line %r" % (path, line)
            if key in FREE_TEXT_HEADERS:
                self.header[key] = decode_text(value)
            elif key == "meta.python.path":
                self.header[key] = [decode_text(p) for p in value.split("|")]
            elif key.startswith(("pystats.", "meta.")):
                self.header[key] = value
            elif key.endswith(".execution_count"):
                self.counts[key[len("opcode["):-len("].execution_count")]] = \
                    int(value)
            elif ".pair_count[" in key:
                a, b = key[len("opcode["):-1].split("].pair_count[")
                self.pairs[(a, b)] = int(value)
            elif key.startswith(("census.", "GC[", "gc[", "Object ", "rare.",
                                 "objects.", "code[", "code_lines.", "calls.",
                                 "source[")):
                self.extra[key] = value
            else:
                raise AssertionError("%s: unknown key %r" % (path, key))

    def __repr__(self):
        return "<Dump %s %s>" % (os.path.basename(self.path), self.header.get(
            "meta.dump.reason"))


def dumps_in(directory):
    """Every whole dump in directory (hidden temporaries and directories
    excluded)."""
    if not os.path.isdir(directory):
        return []
    return [Dump(os.path.join(directory, n))
            for n in sorted(os.listdir(directory))
            if not n.startswith(".") and not os.path.isdir(
                os.path.join(directory, n))]    # pystats run's report/


def leftovers(directory):
    return [n for n in os.listdir(directory) if n.startswith(".")]


def add(a, b):
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v
    return out


@pytest.fixture
def stats_dir(tmp_path):
    return str(tmp_path / "stats")


@pytest.fixture
def pystats():
    import pystats as mod
    if mod.is_on():
        mod.off()
    mod.clear()
    yield mod
    if mod.is_on():
        mod.off()
    mod.clear()


@pytest.fixture
def stats(pystats):
    """pystats, its measure() mode set back to count afterwards."""
    yield pystats
    pystats._collector._set_measure_mode("count")


@contextlib.contextmanager
def fresh_gc():
    """Run the block from one GC state, whatever came before: measure()
    and windows count the Python code of collections that start while
    they count (gc.callbacks, finalizers) as the program's, and when an
    automatic collection starts depends on every allocation since the
    last one, so two calls compared must start alike.  Everything already
    tracked is frozen (gc.freeze: O(1), so no full collection of the
    test process), which leaves no generation holding anything and every
    generation's count at zero after gc.collect(); unfrozen afterwards."""
    gc.freeze()
    try:
        gc.collect()
        yield
    finally:
        gc.unfreeze()


def measured_snapshot(stats, mode, fn, *args):
    """snapshot() of measure(fn, *args) in mode, from a clear state and
    a fresh GC state (fresh_gc)."""
    stats.clear()
    stats._collector._set_measure_mode(mode)
    try:
        with fresh_gc():
            stats.measure(fn, *args)
    finally:
        stats._collector._set_measure_mode("count")
    snap = stats.snapshot()
    stats.clear()
    return snap


def same_counts(a, b):
    """Mode count's execution and pair counts (a) equal mode
    instructions' (b), each a dict of opcode (pair) to count."""
    for key in ("execution_count", "pair_count"):
        diff = {k: (a[key].get(k), b[key].get(k))
                for k in set(a[key]) | set(b[key]) if a[key].get(k) != b[key].get(k)}
        assert not diff, "%s differ (count, instructions): %r" % (key, diff)


def window_snapshots(stats, cases):
    """Each of cases run once (warm-up: specialization, quiet sites), then
    all of them in one window per mode, count and instructions: the two
    snapshots, {mode: snapshot}.  Frames under way when a window opens
    are seeded, another case than measure()'s."""
    res = {}
    for case in cases:
        case()
    for mode in ("count", "instructions"):
        stats.clear()
        stats.on(mode=mode)
        for case in cases:
            case()
        stats.off()
        res[mode] = stats.snapshot()
        stats.clear()
    return res


def adaptive_ops(fn):
    """The opcode name at each instruction of fn's code as it runs now
    (instrumented, specialized), with its offset."""
    raw = fn.__code__._co_code_adaptive
    return [(i.offset, dis._all_opname[raw[i.offset]])
            for i in dis.get_instructions(fn)]


def counted_as_instructions(stats, fn, *args):
    """measure(fn, *args) in mode count and in mode instructions (one
    event per instruction): the same counts and pairs.  Returns both
    snapshots."""
    count = measured_snapshot(stats, "count", fn, *args)
    ins = measured_snapshot(stats, "instructions", fn, *args)
    same_counts(count, ins)
    return count, ins


@pytest.fixture(autouse=True)
def _gc_callbacks_as_they_were():
    """Whatever a test leaves in gc.callbacks is taken out after it:
    hypothesis appends a callback of its own (it times collections), and
    the in-process reference collector (sys.settrace on 3.11) then counts
    that callback's instructions wherever a collection happens to fall,
    so later tests' counts would depend on when the heap fills."""
    before = list(gc.callbacks)
    yield
    gc.callbacks[:] = before
