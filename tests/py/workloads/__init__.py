"""A corpus of small deterministic workloads.

Each module defines ``run()``, which does a small, fixed amount of work
(well under 50k bytecode instructions) whose instruction sequence does not
depend on hash randomization, time or scheduling, except where a module
says so (threads: per-thread sequences are fixed, their interleaving is
not, so only counts, and pairs within each thread, are deterministic).
"""

import importlib

ALL = [
    "loops",
    "branches",
    "matching",
    "comprehensions",
    "closures",
    "generators",
    "async_",
    "exceptions",
    "withs",
    "classes",
    "recursion",
    "callbacks",
    "threads",
    "extended_arg",
    "attrs",
    "strings",
    "dicts",
    "deep_start",
    "gen_variants",
    "async_more",
    "finalizers",
    "pp_generators",
    "pp_coroutines",
    "pp_classes",
]

# Not in ALL: when the GC runs depends on how many objects everything in
# the process allocates, which the pure-Python reference collector
# changes; the two modes of the C collector allocate alike, so
# test_segments.py compares them on it.
EXTRA = ["gc_breaker"]


def load(name):
    """Return the workload module called ``name`` (one of ALL)."""
    if name not in ALL and name not in EXTRA:
        raise KeyError(f"unknown workload {name!r}")
    return importlib.import_module(f"{__name__}.{name}")
