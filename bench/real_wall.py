"""The wall-clock view of make bench-real: pyperf times the work of
bench/real_workloads.py, one unit per loop.

    python real_wall.py --benchmarks-dir DIR [--only NAME,...] [pyperf options]

bench/real.py runs it once plain and once with PYTHONSTATS=count
inherited by pyperf's workers, and compares the medians.
"""
import os
import sys

import pyperf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from real_workloads import NAMES, load  # noqa: E402


def add_cmdline_args(cmd, args):
    cmd.extend(("--benchmarks-dir", args.benchmarks_dir))
    if args.only:
        cmd.extend(("--only", args.only))


def timed(work):
    def time_func(loops):
        t0 = pyperf.perf_counter()
        work(loops)
        return pyperf.perf_counter() - t0
    return time_func


def main():
    runner = pyperf.Runner(add_cmdline_args=add_cmdline_args)
    runner.argparser.add_argument("--benchmarks-dir", required=True)
    runner.argparser.add_argument("--only")
    args = runner.parse_args()
    for name in (args.only.split(",") if args.only else NAMES):
        runner.bench_time_func(name, timed(load(name, args.benchmarks_dir,
                                                stub=False)))


if __name__ == "__main__":
    main()
