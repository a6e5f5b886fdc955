"""The work of 14 pyperformance benchmarks, callable without pyperf's
harness: `work = load(name, benchmarks_dir)` imports the benchmark's own
module (`bm_NAME/run_benchmark.py` of the installed pyperformance
package) and returns `work(units)`, which runs `units` repetitions of
that benchmark's work function.

The modules import pyperf only for its clock (`pyperf.perf_counter`, read
by the time functions around their loops); STUB_PYPERF puts a module in
its place whose clock is a counter, so that a run executes the same
instructions every time.  A benchmark whose default size is far longer
than a run under callgrind can afford gets a smaller one (SIZES): the
same code on a smaller input.

Run as a script (main() below), it is one measured run of bench/real.py
under callgrind.  MODE is plain (nothing on); count, count-nocensus (count without the
specialization census), census, instructions, noop, noop-segments,
noop-quiet (the collector's modes, a pystats.on()/off() window around
the work, then a dump); native (a CPython built with --enable-pystats:
sys._stats_on()/_stats_off() around the work, then cleared).
"""
import gc
import importlib.util
import json
import os
import sys
import types

NAMES = ("nbody", "richards", "float", "deltablue", "go", "json_loads",
         "hexiom", "chaos", "raytrace", "generators", "coroutines",
         "regex_effbot", "unpack_sequence", "spectral_norm")

# Sizes smaller than pyperformance's defaults, one unit of work each
# (the defaults in comments).
SIZES = {
    "nbody": 250,               # advance() steps per unit (20000)
    "richards": 600,            # the idle task's count (10000)
    "regex_effbot": (0, 5, 50, 250),  # string lengths (... 1000, 5000, 10000)
    "float": 3000,              # points (100000)
    "go": 3,                    # games per move (200)
    "chaos": 200,               # iterations (5000)
    "raytrace": 10,             # width and height (100)
    "generators": 2000,         # tree nodes (100000)
    "coroutines": 16,           # fibonacci(N) (25)
    "hexiom": 25,               # level (25, the default)
    "spectral_norm": 20,        # matrix size (130)
    "deltablue": 60,            # constraints (100)
    "unpack_sequence": 10,      # loops of 400 unpackings per unit
}


class _Clock:
    """pyperf.perf_counter: a counter, so that no run reads the time."""

    def __init__(self):
        self.t = 0.0

    def __call__(self):
        self.t += 1.0
        return self.t


def stub_pyperf():
    """A `pyperf` module holding only the clock the benchmarks read."""
    mod = types.ModuleType("pyperf")
    mod.perf_counter = _Clock()

    def missing(name):
        raise AttributeError("pyperf stub: the benchmark used pyperf.%s, "
                             "not only its clock" % name)
    mod.__getattr__ = missing
    sys.modules["pyperf"] = mod
    return mod


def module(name, benchmarks_dir):
    """Import bm_NAME/run_benchmark.py as a module (its __main__ block
    does not run)."""
    path = os.path.join(benchmarks_dir, "bm_" + name, "run_benchmark.py")
    if not os.path.exists(path):
        raise SystemExit("real_workloads: no benchmark %s at %s" % (name, path))
    spec = importlib.util.spec_from_file_location("bm_" + name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def repeat(fn, *args):
    def work(units):
        for _ in range(units):
            fn(*args)
    return work


def load(name, benchmarks_dir, stub=True):
    """work(units) for benchmark NAME.  stub: replace pyperf by its clock
    (False under pyperf itself, which is then imported for real)."""
    if stub:
        stub_pyperf()
    m = module(name, benchmarks_dir)
    size = SIZES.get(name)
    if name == "nbody":
        return lambda units: m.bench_nbody(units, m.DEFAULT_REFERENCE, size)
    if name == "richards":
        # run() starts an idle task whose record counts down from 10000:
        # the schedule ends at zero.
        rec = m.IdleTaskRec

        class IdleRec(rec):
            def __init__(self):
                rec.__init__(self)
                self.count = size
        m.IdleTaskRec = IdleRec
        # run(n) returns after its first iteration when the counts are
        # not those of a full one: one run(1) per unit.
        return repeat(m.Richards().run, 1)
    if name == "float":
        return repeat(m.benchmark, size)
    if name == "deltablue":
        return repeat(m.delta_blue, size)
    if name == "go":
        m.GAMES = size
        return repeat(m.versus_cpu)
    if name == "json_loads":
        objs = (json.dumps(m.DICT), json.dumps(m.TUPLE),
                json.dumps(m.DICT_GROUP))
        return repeat(m.bench_json_loads, objs)
    if name == "hexiom":
        return lambda units: m.main(units, size)
    if name == "chaos":
        # The splines of the benchmark's main(), which also takes the
        # command line and pyperf's runner.
        sp = m.Spline
        v = m.GVector
        splines = [
            sp([v(1.597350, 3.304460, 0.0), v(1.575810, 4.123260, 0.0),
                v(1.313210, 5.288350, 0.0), v(1.618900, 5.329910, 0.0),
                v(2.889940, 5.502700, 0.0), v(2.373060, 4.381830, 0.0),
                v(1.662000, 4.360280, 0.0)],
               3, [0, 0, 0, 1, 1, 1, 2, 2, 2]),
            sp([v(2.804500, 4.017350, 0.0), v(2.550500, 3.525230, 0.0),
                v(1.979010, 2.620360, 0.0), v(1.979010, 2.620360, 0.0)],
               3, [0, 0, 0, 1, 1, 1]),
            sp([v(2.001670, 4.011320, 0.0), v(2.335040, 3.312830, 0.0),
                v(2.366800, 3.233460, 0.0), v(2.366800, 3.233460, 0.0)],
               3, [0, 0, 0, 1, 1, 1]),
        ]
        game = m.Chaosgame(splines, m.DEFAULT_THICKNESS)
        return repeat(game.create_image_chaos, m.DEFAULT_WIDTH,
                      m.DEFAULT_HEIGHT, size, None, m.DEFAULT_RNG_SEED)
    if name == "raytrace":
        return lambda units: m.bench_raytrace(units, size, size, None)
    if name == "generators":
        # bench_generators() builds a tree of 100000 nodes and walks it
        # `loops` times; the same walk over a smaller tree.
        tree = m.tree(range(size))

        def work(units):
            for _ in range(units):
                for _ in tree:
                    pass
        return work
    if name == "coroutines":
        # bench_coroutines() drives fibonacci(25); the same on fewer.
        def work(units):
            for _ in range(units):
                coro = m.fibonacci(size)
                try:
                    while True:
                        coro.send(None)
                except StopIteration:
                    pass
        return work
    if name == "regex_effbot":
        m.bench_regex_effbot.data = m.init_benchmarks(size)
        return lambda units: m.bench_regex_effbot(units)
    if name == "unpack_sequence":
        return lambda units: m.bench_all(units * size)
    if name == "spectral_norm":
        m.DEFAULT_N = size
        return lambda units: m.bench_spectral_norm(units)
    raise SystemExit("real_workloads: unknown benchmark " + name)


COLLECTOR_MODES = ("count", "count-nocensus", "census", "instructions",
                   "noop", "noop-segments", "noop-quiet")
MODES = ("plain",) + COLLECTOR_MODES + ("native",)


def start(mode):
    if mode in COLLECTOR_MODES:
        import pystats
        if mode == "count-nocensus":
            pystats.on(mode="count", census=False)
        else:
            pystats.on(mode=mode)
    elif mode == "native":
        sys._stats_on()
    elif mode != "plain":
        raise SystemExit("real_workloads: unknown mode " + mode)


def stop(mode):
    if mode in COLLECTOR_MODES:
        import pystats
        pystats.off()
        pystats.dump()
    elif mode == "native":
        sys._stats_off()
        sys._stats_clear()


def main():
    """MODE BENCHMARKS_DIR NAME:WARMUP:UNITS ...: for each benchmark, the
    mode switched on, WARMUP units of work (specialization, the
    collector's first instrumentation of the code), then UNITS units,
    then off() and the dump.  os.getpgrp() is the marker at which
    bench/real.py has callgrind start a new part (--dump-before=getpgrp):
    of each benchmark's three parts, the second is exactly the UNITS
    units, the third the mode's off() and dump."""
    mode, benchmarks_dir = sys.argv[1:3]
    if mode not in MODES:
        raise SystemExit("real_workloads: unknown mode " + mode)
    for arg in sys.argv[3:]:
        name, warmup, units = arg.split(":")
        work = load(name, benchmarks_dir)
        start(mode)
        work(int(warmup))
        os.getpgrp()
        work(int(units))
        os.getpgrp()
        stop(mode)
        os.getpgrp()
        del work
        del sys.modules["bm_" + name]
        gc.collect()


if __name__ == "__main__":
    main()
