"""Runs (docs/CLI.md, "Runs"; docs/FORMAT.md 1.1, meta.run.id): the dumps
of one process tree carry one run id, so that `pystats summarize` and
`check` without input read the newest run of the default directory, not
every run it ever collected.  Real processes here: a parent that starts
children with subprocess and multiprocessing (spawn and fork) is one
run; two separate invocations are two.  The expected counts come from
the workload (MATCH_CLASS runs exactly n times in sets(n)) and the
expected files from the directory listed before and after each
invocation, never from the command's grouping."""
import json
import os
import subprocess
import sys

import pytest

from conftest import SETS, clean_env, dumps_in

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
PYSTATS_CLI = os.path.join(ROOT, "build", "pystats")

pytestmark = pytest.mark.skipif(not os.access(PYSTATS_CLI, os.X_OK),
                                reason="build/pystats is not built")

# A parent (sets(3)) with a subprocess child (sets(4)), two spawned
# multiprocessing workers and, where fork exists, two forked ones
# (sets(10) and sets(20) between each pair).
TREE = SETS + """
import multiprocessing as mp, subprocess, sys

def work(n):
    sets(n)
    return n

if __name__ == "__main__":
    sets(3)
    subprocess.run([sys.executable, "-c", %r], check=True)
    methods = ["spawn"] + (["fork"] if "fork" in mp.get_all_start_methods() else [])
    for m in methods:
        with mp.get_context(m).Pool(2) as p:
            assert sorted(p.map(work, [10, 20], chunksize=1)) == [10, 20]
    print(len(methods))
""" % (SETS + "sets(4)\n")


def env_for(tmp_path, **extra):
    """The collector on in every process, the default directory under
    tmp_path (PYSTATS_TMPDIR), no run id inherited from this process."""
    env = clean_env(PYTHONSTATS="1", PYSTATS_TMPDIR=str(tmp_path), **extra)
    if "PYSTATS_RUN_ID" not in extra:
        env.pop("PYSTATS_RUN_ID", None)
    return env


def invoke(tmp_path, script, **extra):
    """Run script; the names of the dumps it added to the default
    directory, and its stdout."""
    d = tmp_path / "py_stats"
    before = set(os.listdir(d)) if d.is_dir() else set()
    path = tmp_path / ("script%d.py" % len(before))
    path.write_text(script)
    p = subprocess.run([sys.executable, str(path)], env=env_for(tmp_path, **extra),
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return sorted(set(os.listdir(d)) - before), p.stdout


def cli(tmp_path, *args):
    return subprocess.run([PYSTATS_CLI] + list(args),
                          env=clean_env(PYSTATS_TMPDIR=str(tmp_path)),
                          capture_output=True, text=True, timeout=120)


def run_ids(tmp_path, names):
    return {d.header.get("meta.run.id") for d in dumps_in(str(tmp_path / "py_stats"))
            if os.path.basename(d.path) in names}


def match_class(summary_json):
    return json.loads(summary_json)["opcodes"]["MATCH_CLASS"]["execution_count"]


def test_a_process_tree_is_one_run_and_a_second_invocation_another(tmp_path):
    first, out = invoke(tmp_path, TREE)
    nmethods = int(out)
    # The parent, its subprocess child, and two workers per start method
    # (the resource tracker of spawn may add one that counted nothing).
    assert len(first) >= 2 + 2 * nmethods
    ids = run_ids(tmp_path, first)
    assert len(ids) == 1 and None not in ids, ids
    first_id = ids.pop()
    want_first = 3 + 4 + (10 + 20) * nmethods

    # One run in the directory: read whole, nothing said.
    p = cli(tmp_path, "summarize", "--json", "-")
    assert p.returncode == 0, p.stderr
    assert match_class(p.stdout) == want_first
    assert json.loads(p.stdout)["meta"]["files"] == len(first)
    assert "runs" not in p.stderr

    second, _ = invoke(tmp_path, SETS + "sets(5)\n")
    assert len(second) == 1
    (second_id,) = run_ids(tmp_path, second)
    assert second_id != first_id

    # Two runs: without input, the newest alone, and a line naming the
    # other with its number of dumps.
    p = cli(tmp_path, "summarize", "--json", "-")
    assert p.returncode == 0, p.stderr
    assert match_class(p.stdout) == 5
    assert json.loads(p.stdout)["meta"]["files"] == 1
    assert p.stderr.startswith("pystats: note: %s holds 2 runs; read the newest, %s (1 dump)"
                               % (tmp_path / "py_stats", second_id)), p.stderr
    assert "the others: %s (%d dumps);" % (first_id, len(first)) in p.stderr
    assert len(p.stderr.splitlines()) == 1

    # --run all, --run ID and a start of it, and check.
    p = cli(tmp_path, "summarize", "--json", "-", "--run", "all")
    assert match_class(p.stdout) == want_first + 5 and p.stderr == ""
    for sel in (first_id, first_id[:-4]):
        p = cli(tmp_path, "summarize", "--json", "-", "--run", sel)
        assert p.returncode == 0, p.stderr
        assert match_class(p.stdout) == want_first and p.stderr == ""
    p = cli(tmp_path, "check")
    assert "holds 2 runs; read the newest, %s" % second_id in p.stderr
    # A directory named: both runs, said.
    p = cli(tmp_path, "summarize", "--json", "-", str(tmp_path / "py_stats"))
    assert match_class(p.stdout) == want_first + 5
    assert "holds 2 runs, read together: %s (1 dump), %s (%d dumps)" % (
        second_id, first_id, len(first)) in p.stderr


def test_a_run_id_set_by_hand_makes_two_commands_one_run(tmp_path):
    a, _ = invoke(tmp_path, SETS + "sets(6)\n", PYSTATS_RUN_ID="suite-1")
    b, _ = invoke(tmp_path, SETS + "sets(7)\n", PYSTATS_RUN_ID="suite-1")
    assert run_ids(tmp_path, a + b) == {"suite-1"}
    p = cli(tmp_path, "summarize", "--json", "-")
    assert match_class(p.stdout) == 13 and p.stderr == ""


def test_a_run_id_that_is_not_one_is_refused_before_the_program_runs(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("print('ran')\n")
    p = subprocess.run([sys.executable, str(script)],
                       env=env_for(tmp_path, PYSTATS_RUN_ID="a b/c"),
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "ran" not in p.stdout
    assert "pystats: bad value 'a b/c' for PYSTATS_RUN_ID" in p.stderr


def test_pystats_run_reads_every_process_of_its_command(tmp_path):
    # Two Python processes started by a shell: two process trees, two
    # run ids, and pystats run still reads both (its own directory).
    py = sys.executable
    cmd = "'%s' -c '%s'; '%s' -c '%s'" % (py, SETS + "sets(2)", py, SETS + "sets(9)")
    env = clean_env(PYSTATS_TMPDIR=str(tmp_path))
    env.pop("PYSTATS_RUN_ID", None)
    out = tmp_path / "run"
    p = subprocess.run([PYSTATS_CLI, "run", "-o", str(out), "--json", str(tmp_path / "s.json"),
                        "--", "sh", "-c", cmd], env=env, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    ds = dumps_in(str(out))
    assert len({d.header["meta.run.id"] for d in ds}) == 2
    assert json.load(open(tmp_path / "s.json"))["opcodes"]["MATCH_CLASS"][
        "execution_count"] == 11
    assert "holds" not in p.stderr
