"""A pyperf hook that counts the benchmark's instructions, and nothing
else, with this package's collector.

    python bench.py --hook pystats_collector [--inherit-environ PYSTATS_DIR]
    pyperformance run --hook pystats_collector ...

Registered in the `pyperf.hook` entry-point group as `pystats_collector`
(pyperf's own `pystats` hook drives the counters of a CPython built with
--enable-pystats).  pyperf runs the hook in every worker process, as a
context manager around each timed call, and calls teardown(metadata)
once per series of values (warmups, values, calibration).

What is counted (see README.md, "pyperf"):

- `bench_func` and `bench_time_func` benchmarks, `timeit` too (it is
  `bench_time_func` of a generated timing function) (scope "function"): the
  benchmark callable is swapped, for the duration of the timed call, for
  `functools.partial(pystats.measure, callable)`, which is C code: the
  dumps count exactly the callable's instructions in the calling thread,
  not one of pyperf's (its timing loop, the hook machinery).  For
  `bench_time_func` the callable is the benchmark's own time function,
  its `for` loop over `loops` included: that loop is the benchmark's
  code.
- Every other kind (`bench_async_func`, a pyperf this hook does not
  recognize) (scope "window"): collection is switched on as the last
  thing `__enter__` does and off as the first thing `__exit__` does, so
  the dumps also count pyperf's code between the two: the rest of
  `contextlib.ExitStack.enter_context`, the hook loop and the call of
  the task function in `WorkerTask._compute_values`, pyperf's task
  function (its timer calls and its loop over `loops`), and
  `ExitStack.__exit__` up to this hook's `__exit__`.  The metadata says
  which scope was used.
- `bench_command` times a child process: the hook runs in pyperf's
  worker, which only waits for the child, and counts nothing of it.

Each teardown writes one dump (pystats.dump()) labelled with the
benchmark's name, with the number of benchmark calls it covers
(`benchmark.calls`, docs/FORMAT.md 1.19): the sum of pyperf's `loops` over
the series' timed calls, each timed call running the benchmark callable
(bench_func) or the time function's loop (bench_time_func) `loops` times.
pyperf's `inner_loops` is not in it: a constant per benchmark that the
benchmark declares, not a count.  `pystats compare --by-label` compares
each benchmark per call with it, whatever loops pyperf calibrated.  On 3.12+ the dump carries the specialization census
at that teardown of the worker's live code objects some instruction of
which was counted in the series (not pyperf's code around the timed
calls, nor the benchmark module's top level), in scope "count"
(docs/FORMAT.md 1.10: the families segment counting instruments, FOR_ITER
and RESUME on 3.13+, left out), as mode count takes one at dump time
elsewhere: it is taken after pyperf's series of timed calls, outside
every one of them, and counts nothing (scope "function": _census.take()
in teardown; scope "window": by dump(), after off()).  PYSTATS_CENSUS=0
(passed with --inherit-environ PYSTATS_CENSUS) leaves it out; on
3.11 there is none (its trace function holds specialization back in the
code it counts).  The hook adds to the run's metadata:

    pystats_collector_scope         "function" or "window"
    pystats_collector_dir           where the dumps went
    pystats_collector_dir_from      how that directory was found
    pystats_collector_label         the dumps' label (benchmark name)
    pystats_collector_mode          "count" ("instructions" on a free-
                                    threaded interpreter without the GIL)
    pystats_collector_census        "count" (a census in every dump) or
                                    "none"
    pystats_collector_instructions  instructions counted (all teardowns
                                    of this worker so far)
    pystats_collector_dumps         dump files written by this worker
    pystats_collector_timing        "counting inside the timed calls":
                                    the values pyperf measured in this
                                    run include counting, and are not
                                    timings to compare or keep

The same is said once per benchmark on stderr, by the worker that
calibrates its loops (the first of each benchmark, `--calibrate-loops`).

The output directory: PYSTATS_DIR if the worker has it (pyperf passes
only a few variables to its workers: give `--inherit-environ
PYSTATS_DIR`), else the nearest ancestor process's PYSTATS_DIR (read from
/proc, so `PYSTATS_DIR=... python bench.py` works without
--inherit-environ), else /tmp/py_stats.
"""
import functools
import os
import sys

import pystats
from pystats import _census, _collector

try:
    from pyperf._hooks import HookError
except ImportError:  # pyperf not installed: the class is still usable
    class HookError(Exception):
        pass

__all__ = ["PystatsCollector", "HookError"]

NAME = "pystats_collector"

# The mode the hook counts in: count, or instructions where a free-
# threaded interpreter runs without the GIL (count needs it).
MODE = _collector.DEFAULT_MODE
# A census alongside counting: mode count on 3.12+ (segment events leave
# most families free to specialize; 3.11's trace function and mode
# instructions do not).
CENSUS_ALONGSIDE = pystats.MECHANISM == "monitoring" and MODE == "count"

# pyperf's task functions whose benchmark callable can be measured
# exactly: qualified name -> the closure variable holding the callable.
_TASK_FUNCS = {
    "Runner.bench_func.<locals>.task_func": "func",
    "Runner.bench_time_func.<locals>.task_func": "time_func",
}


def _ancestor_env(name, depth=16):
    """(value, pid) of `name` in the environment of the nearest ancestor
    process that has it, or (None, None).  Linux /proc only."""
    pid = os.getppid()
    key = name.encode() + b"="
    for _ in range(depth):
        if pid <= 1:
            break
        try:
            with open("/proc/%d/environ" % pid, "rb") as f:
                env = f.read()
            with open("/proc/%d/stat" % pid, "rb") as f:
                stat = f.read()
        except OSError:
            break
        for item in env.split(b"\0"):
            if item.startswith(key):
                return os.fsdecode(item[len(key):]), pid
        pid = int(stat.rpartition(b")")[2].split()[1])
    return None, None


def output_directory():
    """(directory, where it came from) for this worker's dumps."""
    d = sys._xoptions.get("pystats_dir")
    if isinstance(d, str) and d:
        return d, "-X pystats_dir"
    d = os.environ.get("PYSTATS_DIR")
    if d:
        return d, "PYSTATS_DIR"
    d, pid = _ancestor_env("PYSTATS_DIR")
    if d:
        return d, "PYSTATS_DIR of process %d" % pid
    return pystats.DEFAULT_DIR, "default"


def run_id():
    """This worker's run id: PYSTATS_RUN_ID if it was given to the worker
    (--inherit-environ PYSTATS_RUN_ID) or to an ancestor (read from
    /proc), else one shared by every worker of this pyperf process, its
    parent: "pyperf-PID-START" (START its start time in clock ticks
    since boot, so that a reused pid makes another id)."""
    if pystats._run_id_inherited:
        return pystats._meta_run_id[0]
    v, _ = _ancestor_env("PYSTATS_RUN_ID")
    if v and pystats.run_id_valid(v):
        return v
    ppid = os.getppid()
    try:
        with open("/proc/%d/stat" % ppid, "rb") as f:
            start = int(f.read().rpartition(b")")[2].split()[19])
    except (OSError, ValueError, IndexError):
        return pystats._meta_run_id[0]
    return "pyperf-%d-%d" % (ppid, start)


def _find_task():
    """pyperf's WorkerTask whose values are being computed, found on the
    stack: WorkerTask._compute_values -> ExitStack.enter_context ->
    __enter__."""
    f = sys._getframe(2)
    for _ in range(8):
        if f is None:
            return None
        if f.f_code.co_name == "_compute_values":
            task = f.f_locals.get("self")
            if hasattr(task, "task_func") and hasattr(task, "name"):
                return task
        f = f.f_back
    return None


def _callable_cell(task_func):
    """The closure cell of pyperf's task function that holds the
    benchmark callable, or None if this is not one we know."""
    var = _TASK_FUNCS.get(getattr(task_func, "__qualname__", None))
    if var is None or getattr(task_func, "__module__", None) != \
            "pyperf._runner":
        return None
    code = getattr(task_func, "__code__", None)
    if code is None or var not in code.co_freevars:
        return None
    return task_func.__closure__[code.co_freevars.index(var)]


# The run's metadata and the stderr line say that counting runs inside
# the timed calls (said once per process).
TIMING = "counting inside the timed calls"
_timing_said = False


class PystatsCollector:
    """The `pystats_collector` pyperf hook (see the module's doc)."""

    def __init__(self):
        if pystats.backend() == "native":
            # measure() and on()/off() drive the native counters; the
            # counts cannot be read back, only dumped.
            self._readable = False
        else:
            self._readable = True
        if pystats.is_on() or (self._readable and
                               pystats.snapshot()["execution_count"]):
            # Whole-process collection (PYTHONSTATS inherited, -X
            # pystats): what it counted so far is pyperf's start-up, not
            # the benchmark.
            pystats.off()
            pystats.clear()
            sys.stderr.write(
                "pystats: the %s hook switched whole-process collection "
                "off and discarded what it had counted (the worker's "
                "start-up): it counts only the benchmark\n" % NAME)
        self.directory, self.directory_from = output_directory()
        self.census = (self._readable and CENSUS_ALONGSIDE and
                       pystats.requested_census() is not False)
        if self.census:
            # Tables and hooks now, so that the module code the worker
            # runs from here on is seen too (docs/FORMAT.md 1.10).
            _census.setup()
        self.label = os.environ.get("PYSTATS_LABEL", "")
        self.scope = None
        self._configured = False
        self._cell = None
        self._callable = None
        self._loops = 0

    def _configure(self, task):
        if task is not None:
            self.label = task.name
        meta = pystats._meta()
        meta["run_id"] = run_id()
        _collector._configure(meta=meta, directory=self.directory,
                              label=self.label,
                              default=self.directory_from == "default")
        self._configured = True

    def __enter__(self):
        task = _find_task()
        if not self._configured:
            self._configure(task)
        cell = _callable_cell(task.task_func) if task is not None else None
        # The loops of this timed call: pyperf calls task_func(task,
        # task.loops) next (and doubles task.loops after it while it
        # calibrates).
        loops = getattr(task, "loops", 0) if task is not None else 0
        self._loops = loops if isinstance(loops, int) and loops > 0 else 0
        if cell is not None:
            self.scope = "function"
            self._cell = cell
            self._callable = cell.cell_contents
            cell.cell_contents = functools.partial(pystats.measure,
                                                   self._callable)
            return
        self.scope = "window"
        # The last thing done here: counting starts after this call.
        # dump() takes this window's census (scope count, 3.12+).
        _collector.on(census=self.census if CENSUS_ALONGSIDE else None)

    def __exit__(self, exc_type, exc_value, traceback):
        # The first thing done here: off()'s own CALL is the last
        # instruction counted (a no-op in scope "function").
        _collector.off()
        if self._cell is not None:
            self._cell.cell_contents = self._callable
            self._cell = self._callable = None
        if self._loops and self._readable:
            # The benchmark calls this timed call made: its loops
            # (benchmark.calls of the series' dump).
            _collector._benchmark_calls(self._loops)
            self._loops = 0

    def teardown(self, metadata):
        counted = None
        if self._readable:
            counted = sum(pystats.snapshot()["execution_count"].values())
        if self.census and self.scope == "function":
            # After the series' timed calls, outside measure(): the walk
            # is neither timed nor counted.
            _census.take("count")
        wrote = pystats.dump()
        metadata["pystats_collector_scope"] = self.scope or "none"
        metadata["pystats_collector_dir"] = self.directory
        metadata["pystats_collector_dir_from"] = self.directory_from
        metadata["pystats_collector_mode"] = MODE
        metadata["pystats_collector_census"] = (
            "count" if self.census and self.scope in ("function", "window")
            else "none")
        if self.label:
            metadata["pystats_collector_label"] = self.label
        if counted is not None:
            metadata["pystats_collector_instructions"] = metadata.get(
                "pystats_collector_instructions", 0) + counted
        metadata["pystats_collector_dumps"] = metadata.get(
            "pystats_collector_dumps", 0) + (1 if wrote else 0)
        metadata["pystats_collector_timing"] = TIMING
        global _timing_said
        if not _timing_said and "--calibrate-loops" in sys.argv:
            _timing_said = True
            sys.stderr.write("pystats: %s: the values of %s are timed with "
                             "counting on (%s), slower than without: not "
                             "timings to compare or keep\n"
                             % (NAME, self.label or "this benchmark", MODE))
