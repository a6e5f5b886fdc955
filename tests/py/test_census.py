"""Census mode: the specialization state of known code, on every version,
and the census in dumps."""
import sys

import pytest

from conftest import clean_env, dumps_in, run_python

V = sys.version_info[:2]


class Plain:
    def __init__(self):
        self.x = 1


class Lazy:
    def __getattr__(self, name):    # every o.y goes through __getattr__
        return 5


def mono(objs):
    t = 0
    for o in objs:
        t += o.x
    return t


def failing(objs):
    t = 0
    for o in objs:
        t += o.y
    return t


def never(o):
    return o.x


def census_of(pystats, code):
    from pystats import _census, _collector
    _census.setup()
    _collector._census_begin()
    sites = []
    _collector._census_code(code, sites)
    return _collector._census_totals()["families"], sites


def test_monomorphic_site_is_specialized(pystats):
    mono([Plain() for _ in range(200)])
    fams, sites = census_of(pystats, mono.__code__)
    la = fams["LOAD_ATTR"]
    assert la["sites"] == 1
    assert la["specialized"] == 1
    assert la["forms"] == {"LOAD_ATTR_INSTANCE_VALUE": 1}
    assert la["backing_off"] == 0 and la["never_tried"] == 0
    assert sites == []


def test_failing_site_backs_off(pystats):
    failing([Lazy() for _ in range(300)])
    fams, sites = census_of(pystats, failing.__code__)
    la = fams["LOAD_ATTR"]
    assert la["sites"] == 1
    assert la["specialized"] == 0
    assert la["backing_off"] == 1
    # 300 executions.  3.12+: warm-up counter 1 (backoff exponent 1), so
    # attempts at executions 2, 6, 14, 30, 62, 126, 254 (each failure
    # doubles the wait): 7 failures, exponent 8.  After each failed
    # attempt the instruction is dispatched again and that execution
    # already counts down: 255 - 46 - 7 = 202 left.
    # 3.11: the code is quickened after 8 iterations, then the adaptive
    # counter starts at 31 (exponent 5): attempts after 8+32, +64, +128
    # executions: 3 failures.
    expected = 3 if V == (3, 11) else 7
    assert la["failed_attempts"] == expected
    [(offset, fam, attempts, value)] = sites
    assert (fam, attempts) == ("LOAD_ATTR", expected)
    assert offset % 2 == 0
    if V >= (3, 12):
        assert value == 202


def test_never_run_code_is_never_tried(pystats):
    fams, sites = census_of(pystats, never.__code__)
    la = fams["LOAD_ATTR"]
    assert la == {"sites": 1, "specialized": 0, "backing_off": 0,
                  "failed_attempts": 0, "never_tried": 1, "forms": {}}
    assert sites == []


def test_caches_that_are_not_specialization_state_are_skipped(pystats):
    def loop(n):
        t = 0
        for i in range(n):
            if i < 500:        # POP_JUMP_IF_* branch history on 3.13
                t += 1
        return t               # JUMP_BACKWARD's counter on 3.13
    loop(1000)
    fams, sites = census_of(pystats, loop.__code__)
    for name in ("JUMP_BACKWARD", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE"):
        if V >= (3, 13):
            assert name not in fams       # their caches are no site's state
        elif name in fams:                # 3.11's JUMP_BACKWARD_QUICK
            assert fams[name]["backing_off"] == 0
            assert fams[name]["never_tried"] == 0
    assert sites == []
    if V >= (3, 12):                      # FOR_ITER_RANGE
        assert fams["FOR_ITER"]["specialized"] == 1
    assert fams["COMPARE_OP"]["specialized"] == 1


CENSUS_SCRIPT = """
import pystats
class Lazy:
    def __getattr__(self, name):
        return 5
def failing(objs):
    t = 0
    for o in objs:
        t += o.y
    return t
pystats.on(mode="census")
failing([Lazy() for _ in range(300)])
"""


def test_census_dump_names_the_failing_site(stats_dir):
    p = run_python(CENSUS_SCRIPT, env=clean_env(PYSTATS_DIR=stats_dir))
    [d] = dumps_in(stats_dir)
    h = d.header
    assert h["meta.collection.mode"] == "census"
    assert d.counts == {}                  # no per-instruction counting
    census = d.extra
    assert int(census["census.code_objects"]) > 100
    sites = [v for k, v in census.items() if k.startswith("census.site[")]
    mine = [s.split(" | ") for s in sites if "failing" in s]
    assert len(mine) == 1, sites
    fam, attempts, value, filename, line, func, src = mine[0]
    assert fam == "LOAD_ATTR" and func == "failing"
    assert filename == "<string>" and line == "9"
    assert int(attempts) == (3 if V == (3, 11) else 7)
    assert int(census["census.family[LOAD_ATTR].backing_off"]) >= 1
    assert p.returncode == 0


def test_census_window_installs_no_events(pystats):
    pystats.on(mode="census")
    try:
        assert not pystats._collector._state()["installed"]
        if V >= (3, 12):
            assert sys.monitoring.get_tool(3) is None
            assert sys.monitoring.get_tool(4) is None
        with pytest.raises(ValueError, match="census"):
            pystats.measure(mono, [])
    finally:
        pystats.off()
    assert pystats.snapshot()["execution_count"] == {}
