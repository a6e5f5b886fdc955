"""Whole-process semantics: startup switches, what is written at exit
and how, forks, many writers, unwritable directories."""
import os
import signal
import subprocess
import sys

import pytest

from conftest import Dump, SETS, add, clean_env, dumps_in, leftovers, run_python



def test_nothing_collected_by_default(stats_dir):
    run_python(SETS + "sets(10)\nimport pystats\n",
               env=clean_env(PYSTATS_DIR=stats_dir))
    assert dumps_in(stats_dir) == []


def test_x_pystats_counts_the_main_module(stats_dir):
    run_python(SETS + "sets(25)\n", xopts=["pystats"],
               env=clean_env(PYSTATS_DIR=stats_dir))
    [d] = dumps_in(stats_dir)
    assert d.counts["MATCH_CLASS"] == 25
    h = d.header
    assert h["meta.dump.reason"] == "exit"
    assert h["meta.collection.on_at_dump"] == "1"
    assert h["meta.collection.mode"] == "count"
    assert h["meta.python.version"].startswith("%d.%d." % sys.version_info[:2])
    assert h["pystats.counts"] == "base-instructions"
    # Pairs and counts are consistent: every counted instruction but the
    # first has exactly one predecessor.
    assert sum(d.pairs.values()) == sum(d.counts.values()) - 1


def test_x_pystats_dir_option(tmp_path):
    target = str(tmp_path / "via-x" / "nested")
    run_python(SETS + "sets(3)\n", xopts=["pystats", "pystats_dir=" + target])
    [d] = dumps_in(target)
    assert d.counts["MATCH_CLASS"] == 3


CHILD = SETS + """
import subprocess, sys
sets(5)
subprocess.run([sys.executable, "-c", %r], check=True)
""" % (SETS + "sets(7)\n")


def test_pythonstats_reaches_subprocesses(stats_dir):
    run_python(CHILD, env=clean_env(PYTHONSTATS=1, PYSTATS_DIR=stats_dir))
    sets = sorted(d.counts["MATCH_CLASS"] for d in dumps_in(stats_dir))
    assert sets == [5, 7]


def test_x_pystats_is_for_its_own_process_only(stats_dir):
    run_python(CHILD, xopts=["pystats"], env=clean_env(PYSTATS_DIR=stats_dir))
    assert [d.counts["MATCH_CLASS"] for d in dumps_in(stats_dir)] == [5]


def test_pythonstats_zero_means_off(stats_dir):
    run_python(SETS + "sets(3)\n",
               env=clean_env(PYTHONSTATS=0, PYSTATS_DIR=stats_dir))
    assert dumps_in(stats_dir) == []


def test_dash_S_says_so_and_starts_at_import(stats_dir):
    import sysconfig
    # pystats importable, but no site: the startup hook cannot run.
    env = clean_env()
    env["PYTHONPATH"] += os.pathsep + sysconfig.get_paths()["purelib"]
    p = run_python(SETS + "import pystats\nsets(4)\n", flags=["-S"],
                   xopts=["pystats", "pystats_dir=" + stats_dir], env=env)
    assert "startup hook did not run (python -S)" in p.stderr
    [d] = dumps_in(stats_dir)
    assert d.counts["MATCH_CLASS"] == 4


def test_dash_E_ignores_pythonstats_and_says_so(stats_dir):
    p = run_python(SETS + "import pystats\nsets(4)\n", flags=["-E"],
                   env=clean_env(PYTHONSTATS=1, PYSTATS_DIR=stats_dir))
    assert "ignores the environment" in p.stderr
    assert dumps_in(stats_dir) == [] and dumps_in("/nonexistent") == []


def test_dash_I_with_x_option_still_collects(tmp_path):
    d = str(tmp_path / "iso")
    run_python(SETS + "sets(2)\n", flags=["-I"],
               xopts=["pystats", "pystats_dir=" + d])
    [dump] = dumps_in(d)
    assert dump.counts["MATCH_CLASS"] == 2


def test_written_at_exit_although_off(stats_dir):
    run_python(SETS + """
import pystats
pystats.on(); sets(6); pystats.off()
sets(100)
""", env=clean_env(PYSTATS_DIR=stats_dir))
    [d] = dumps_in(stats_dir)
    assert d.counts["MATCH_CLASS"] == 6
    assert d.header["meta.collection.on_at_dump"] == "0"
    assert d.header["meta.collection.windows"] == "1"


def test_atexit_handlers_work_is_in_the_exit_dump(stats_dir):
    run_python(SETS + """
import atexit, pystats
atexit.register(sets, 9)
pystats.on()
""", env=clean_env(PYSTATS_DIR=stats_dir))
    [d] = dumps_in(stats_dir)
    assert d.counts["MATCH_CLASS"] == 9


def test_uncaught_exception_and_sys_exit(stats_dir):
    p = run_python(SETS + """
import pystats
pystats.on(); sets(2); pystats.off()
raise SystemExit(3)
""", env=clean_env(PYSTATS_DIR=stats_dir), check=False)
    assert p.returncode == 3
    p = run_python(SETS + """
import pystats
pystats.on(); sets(4); pystats.off()
raise KeyError("boom")
""", env=clean_env(PYSTATS_DIR=stats_dir), check=False)
    assert p.returncode == 1 and "KeyError" in p.stderr
    assert sorted(d.counts["MATCH_CLASS"] for d in dumps_in(stats_dir)) == [2, 4]


def test_os_exit_writes_its_dump(stats_dir):
    p = run_python(SETS + """
import os, pystats
pystats.on(); sets(8)
os._exit(5)
""", env=clean_env(PYSTATS_DIR=stats_dir), check=False)
    assert p.returncode == 5
    [d] = dumps_in(stats_dir)
    assert d.counts["MATCH_CLASS"] == 8
    assert d.header["meta.dump.reason"] == "os._exit"


def test_sigterm_without_handler_writes_and_dies_of_it(stats_dir):
    p = run_python(SETS + """
import os, signal, pystats
pystats.on(); sets(11)
os.kill(os.getpid(), signal.SIGTERM)
sets(1000)
""", env=clean_env(PYSTATS_DIR=stats_dir), check=False)
    assert p.returncode == -signal.SIGTERM
    [d] = dumps_in(stats_dir)
    assert d.counts["MATCH_CLASS"] == 11
    assert d.header["meta.dump.reason"] == "signal"
    assert leftovers(stats_dir) == []


def test_sigterm_handler_of_the_program_is_left_alone(stats_dir):
    p = run_python(SETS + """
import os, signal, sys, pystats
signal.signal(signal.SIGTERM, lambda *a: sys.exit(7))
pystats.on(); sets(3)
os.kill(os.getpid(), signal.SIGTERM)
""", env=clean_env(PYSTATS_DIR=stats_dir), check=False)
    assert p.returncode == 7
    [d] = dumps_in(stats_dir)
    assert d.header["meta.dump.reason"] == "exit"


def test_nothing_written_when_nothing_collected_or_cleared(stats_dir):
    run_python(SETS + """
import pystats
pystats.on(); pystats.off(); pystats.clear()
pystats.on(); sets(5); pystats.off(); pystats.clear()
""", env=clean_env(PYSTATS_DIR=stats_dir))
    assert dumps_in(stats_dir) == []


def test_dump_then_exit_never_repeats(stats_dir):
    run_python(SETS + """
import pystats
pystats.on(); sets(5); pystats.off()
assert pystats.dump() is True
assert pystats.dump() is False
""", env=clean_env(PYSTATS_DIR=stats_dir))
    [d] = dumps_in(stats_dir)
    assert d.header["meta.dump.reason"] == "explicit"
    assert d.counts["MATCH_CLASS"] == 5


def test_fork_child_starts_from_zero(stats_dir):
    run_python(SETS + """
import os, pystats
pystats.on()
sets(10)
pid = os.fork()
if pid == 0:
    sets(3)
    os._exit(0)
os.waitpid(pid, 0)
sets(20)
""", env=clean_env(PYSTATS_DIR=stats_dir))
    ds = dumps_in(stats_dir)
    assert len(ds) == 2
    child = next(d for d in ds if d.header["meta.process.forked"] == "1")
    parent = next(d for d in ds if d.header["meta.process.forked"] == "0")
    assert child.counts["MATCH_CLASS"] == 3
    assert parent.counts["MATCH_CLASS"] == 30
    assert child.header["meta.process.ppid"] == parent.header[
        "meta.process.pid"]


POOL = SETS + """
import multiprocessing as mp, os, pystats

def task(n):
    return pystats.measure(sets, n)

if __name__ == "__main__":
    ctx = mp.get_context("fork")
    pool = ctx.Pool(3)
    pool.map(task, range(1, 41), chunksize=1)
    if os.environ["HOW"] == "terminate":
        pool.terminate()
    else:
        pool.close()
    pool.join()
"""


@pytest.mark.parametrize("how", ["close", "terminate"])
def test_forked_pool_workers_add_up_exactly(stats_dir, how):
    run_python(POOL, env=clean_env(PYSTATS_DIR=stats_dir, HOW=how))
    ds = dumps_in(stats_dir)
    assert ds, "workers left no dump"
    assert all(d.header["meta.process.forked"] == "1" for d in ds)
    total = {}
    for d in ds:
        total = add(total, d.counts)
    # Each task is measure(sets, n): sets' own instructions, n from 1 to 40.
    assert total["MATCH_CLASS"] == sum(range(1, 41))
    assert total["RESUME"] == 40
    reasons = {d.header["meta.dump.reason"] for d in ds}
    # terminate() sends SIGTERM to workers that have not yet left through
    # os._exit; which of the two comes first is a race.
    assert reasons <= ({"signal", "os._exit"} if how == "terminate"
                       else {"os._exit"})
    assert leftovers(stats_dir) == []


WRITER = SETS + """
import pystats, sys
for k in range(5):
    pystats.measure(sets, 10)
    assert pystats.dump()
"""


def test_twenty_processes_dump_into_one_directory(stats_dir):
    env = clean_env(PYSTATS_DIR=stats_dir)
    procs = [subprocess.Popen([sys.executable, "-c", WRITER], env=env)
             for _ in range(20)]
    assert [p.wait(timeout=120) for p in procs] == [0] * 20
    ds = dumps_in(stats_dir)
    assert len(ds) == 100
    assert sum(d.counts["MATCH_CLASS"] for d in ds) == 20 * 5 * 10
    assert leftovers(stats_dir) == []
    assert len({os.path.basename(d.path) for d in ds}) == 100


def test_unwritable_directory_goes_to_stderr(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    p = run_python(SETS + """
import pystats
pystats.on(); sets(4); pystats.off()
""", env=clean_env(PYSTATS_DIR=str(blocker / "sub")))
    assert "cannot write a dump into" in p.stderr
    assert "writing the dump to stderr instead" in p.stderr
    assert "opcode[MATCH_CLASS].execution_count : 4" in p.stderr


def test_label_and_header_provenance(stats_dir):
    run_python(SETS + "import pystats\npystats.measure(sets, 1)\n",
               env=clean_env(PYSTATS_DIR=stats_dir, PYSTATS_LABEL="bench-x"))
    [d] = dumps_in(stats_dir)
    h = d.header
    assert h["meta.label"] == "bench-x"
    assert h["pystats.collector"].startswith("pystats ")
    assert h["meta.collection.mechanism"] == (
        "monitoring" if sys.version_info >= (3, 12) else "trace")
    assert h["meta.python.sys_version"] == sys.version   # exact (FORMAT.md 1.16)
    assert int(h["meta.process.pid"]) > 0
    assert h["meta.time.start"] <= h["meta.time.end"]
    assert h["meta.time.end"].endswith("Z")
