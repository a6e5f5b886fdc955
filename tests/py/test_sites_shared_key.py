"""Code objects that share a key (docs/FORMAT.md 1.18): two generator
expressions on one line have one key, and only the hotter one's site
rows are written; the other's rows and their executions are counted in
census.shared_key_site_rows and census.shared_key_site_executions. The
expected figures come from the code objects themselves (the census
reading of test_sites.py, in Python) and from the same program run
under a sys.monitoring INSTRUCTION tool."""
import json
import sys

from conftest import clean_env, dumps_in, run_python
from test_sites import READING, needs_segments, site_executions, site_rows

SCRIPT = READING + r'''
import json, sys


def pair(v):
    # Two generator expressions on one line: one key.
    return sum(p.real for p in v), sum(-p.imag for p in v[:10])


def window():
    v = [complex(i, i % 3) for i in range(40)]
    for _ in range(25):
        pair(v)


gens = [c for c in pair.__code__.co_consts if hasattr(c, "co_code")]
assert len(gens) == 2 and gens[0].co_firstlineno == gens[1].co_firstlineno
if sys.argv[1] == "ref":
    M = sys.monitoring
    TOOL = M.PROFILER_ID
    counts = {}

    def instruction(code, offset):
        for i, g in enumerate(gens):
            if code is g:
                k = "%d|%d" % (i, offset)
                counts[k] = counts.get(k, 0) + 1

    M.use_tool_id(TOOL, "reference")
    # No INSTRUCTION event for RESUME: its runs are PY_START's and
    # PY_RESUME's.
    EV = (M.events.INSTRUCTION, M.events.PY_START, M.events.PY_RESUME)
    for ev in EV:
        M.register_callback(TOOL, ev, instruction)
    M.set_events(TOOL, EV[0] | EV[1] | EV[2])
    window()
    M.set_events(TOOL, 0)
    with open(sys.argv[2], "w") as f:
        json.dump(counts, f)
else:
    import pystats
    pystats.on()
    window()
    pystats.off()
    with open(sys.argv[2], "w") as f:
        json.dump([reading(g) for g in gens], f)
    assert pystats.dump()
'''


def run(tmp_path, which, *args, env=None):
    script = tmp_path / "work_shared.py"
    script.write_text(SCRIPT)
    run_python("import runpy, sys; sys.argv[:] = [%r, %r] + %r; "
               "runpy.run_path(%r, run_name='__main__')"
               % (str(script), which, list(args), str(script)), env=env)


@needs_segments
def test_the_rows_of_a_code_object_sharing_a_key_are_counted(tmp_path):
    ref = tmp_path / "ref.json"
    d = str(tmp_path / "stats")
    run(tmp_path, "ref", str(ref))
    run(tmp_path, "count", str(tmp_path / "rows.json"),
        env=clean_env(PYSTATS_DIR=d))
    [dump] = dumps_in(d)
    with open(ref) as f:
        counts = json.load(f)
    with open(tmp_path / "rows.json") as f:
        reading = json.load(f)

    def executions(i, offsets):
        # A site's executions are its events in the reference run.
        return sum(counts.get("%d|%d" % (i, int(o)), 0) for o in offsets)

    # The first generator runs 40 items a call, the second 10: the first
    # is hotter and its rows are the key's.
    [key] = [k for k in site_rows(dump) if k.endswith(":pair.<locals>.<genexpr>")]
    rows, execs = site_rows(dump)[key], site_executions(dump)[key]
    assert rows == {int(o): r for o, r in reading[0].items()}
    for o in rows:
        assert execs[o] == executions(0, [o]), o
    # The second's: every row it has, and their executions, counted.
    other = reading[1]
    assert len(other) >= 2
    assert int(dump.extra["census.shared_key_site_rows"]) == len(other)
    assert int(dump.extra["census.shared_key_site_executions"]) == \
        executions(1, other)
    # 25 calls of 10 items: FOR_ITER 11 times a call, LOAD_ATTR 10 times.
    assert executions(1, other) >= 25 * (11 + 10)


@needs_segments
def test_no_shared_key_no_count(tmp_path):
    d = str(tmp_path / "stats")
    run_python("import pystats\n"
               "def f(v):\n    return sum(p.real for p in v)\n"
               "pystats.on()\nf([1j] * 10)\npystats.off()\n"
               "assert pystats.dump()\n", env=clean_env(PYSTATS_DIR=d))
    [dump] = dumps_in(d)
    assert dump.extra["census.shared_key_site_rows"] == "0"
    assert dump.extra["census.shared_key_site_executions"] == "0"
    assert sys.version_info >= (3, 12)
