"""The collector against the pure-Python reference collector
(sys.settrace opcode events): identical instruction and pair counts on
every workload of the corpus."""
import sys

import pytest

import workloads
from reference import Reference


@pytest.mark.parametrize("name", workloads.ALL)
def test_measure_matches_reference(pystats, name):
    mod = workloads.load(name)
    mod.run()                       # warm up: imports, caches, specialization
    ref = Reference()
    expected_result = ref.measure(mod.run)
    result = pystats.measure(mod.run)
    assert result == expected_result
    snap = pystats.snapshot()
    assert snap["execution_count"] == ref.counts
    assert snap["pair_count"] == ref.pairs
    assert sum(snap["execution_count"].values()) > 20


def test_window_in_threads_matches_reference(pystats):
    """on()/off() count every thread: worker threads' instructions add up
    to three times one worker measured alone."""
    mod = workloads.load("threads")
    ref = Reference()
    ref.measure(mod.work, 1, {})
    one = ref.counts
    pystats.on()
    mod.run()
    pystats.off()
    got = pystats.snapshot()["execution_count"]
    # BINARY_OP % and + run only in the workers' loop: 2 per iteration.
    assert got["BINARY_OP"] >= 3 * one["BINARY_OP"]
    assert one["BINARY_OP"] == 3 * 200
