"""`pystats run` with a real interpreter: collection on in every Python
process of the command, a fresh directory per run, the summary and the
verdict, and a run without a dump explained instead of passed."""
import json
import os
import re
import subprocess
import sys
import sysconfig

import pytest

from conftest import SETS, clean_env, dumps_in

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
PYSTATS_CLI = os.path.join(ROOT, "build", "pystats")

pytestmark = pytest.mark.skipif(not os.access(PYSTATS_CLI, os.X_OK),
                                reason="build/pystats is not built")

SETS_SCRIPT = SETS + "sets(%d)\n"


def run(*args, **env):
    return subprocess.run([PYSTATS_CLI, "run"] + list(args),
                          env=clean_env(**env), capture_output=True,
                          text=True, timeout=120)


def test_every_python_process_of_the_command_is_counted(tmp_path):
    out = tmp_path / "run"
    script = "import subprocess, sys\n" + SETS_SCRIPT % 3 + \
        "subprocess.run([sys.executable, '-c', %r], check=True)\n" % (SETS_SCRIPT % 4)
    p = run("-o", str(out), "--label", "two-processes", "--json",
            str(tmp_path / "s.json"), "--", sys.executable, "-c", script)
    assert p.returncode == 0, p.stderr
    ds = dumps_in(str(out))
    assert len(ds) == 2
    assert sorted(d.counts["MATCH_CLASS"] for d in ds) == [3, 4]
    assert {d.header["meta.label"] for d in ds} == {"two-processes"}
    summary = json.load(open(tmp_path / "s.json"))
    assert summary["opcodes"]["MATCH_CLASS"]["execution_count"] == 7
    # The command's stdout is its own; the reports are in out/report.
    assert p.stdout == ""
    md = (out / "report" / "summary.md").read_text()
    assert md.startswith("# pystats summary\n") and "**Trust:** " in md
    assert "pystats run: trust: " in p.stderr


def raw_sums(dumps):
    """Instructions (execution_count lines) and per-code instructions,
    summed from the dumps' raw lines."""
    total, code = 0, {}
    for d in dumps:
        total += sum(d.counts.values())
        for k, v in d.extra.items():
            if k.startswith("code[") and k.endswith("].instructions"):
                code[k[5:-len("].instructions")]] = \
                    code.get(k[5:-len("].instructions")], 0) + int(v)
    return total, code


def test_headline_and_reports(tmp_path):
    """The headline's figures are the dumps' own: the instructions are
    the execution_count lines summed, the hottest code the largest sum of
    code[..].instructions; the three reports are in DIR/report, and the
    dumps alone are read back from DIR."""
    out = tmp_path / "run"
    script = "import subprocess, sys\n" + SETS_SCRIPT % 5 + \
        "subprocess.run([sys.executable, '-c', %r], check=True)\n" % (SETS_SCRIPT % 2)
    p = run("-o", str(out), "--", sys.executable, "-c", script)
    assert p.returncode == 0, p.stderr
    ds = dumps_in(str(out))
    assert len(ds) == 2
    total, code = raw_sums(ds)
    lines = [l for l in p.stderr.splitlines() if l.startswith("pystats run:")]
    assert "pystats run: 2 dumps in %s" % out in lines
    (instr,) = [l for l in lines if " instructions executed" in l]
    assert instr.startswith("pystats run: %s instructions executed: " % format(total, ","))
    hot = [l for l in lines if l.startswith("pystats run:   hot code: ")]
    assert hot, lines
    top = max(code.values())
    assert ": %s instructions (" % format(top, ",") in hot[0]
    paths = [str(out / "report" / ("summary." + e)) for e in ("md", "json", "html")]
    assert lines[-1] == "pystats run: reports: " + " ".join(paths)
    assert all(os.path.getsize(x) > 0 for x in paths)
    report = json.load(open(paths[1]))
    assert report["meta"]["files"] == 2
    assert report["meta"]["total_execution_count"] == total
    # summarize DIR reads the two dumps, not the reports beside them.
    again = subprocess.run([PYSTATS_CLI, "summarize", "--json", "-", str(out)],
                           capture_output=True, text=True, timeout=60)
    assert json.loads(again.stdout)["meta"]["files"] == 2


NO_CENSUS = "pystats run:   fails to specialize: not known: no dump has a " \
    "specialization census"


@pytest.mark.parametrize("mode", ["instructions", "count"])
def test_headline_says_when_no_site_could_be_read(tmp_path, mode):
    # Mode instructions takes no census, nor mode count on 3.11: the
    # headline says the failing sites are unknown instead of leaving
    # them out unsaid; with a census (count on 3.12+) it does not.
    if mode == "instructions" and sys.version_info < (3, 12):
        pytest.skip("mode instructions is 3.12+")
    p = run("-o", str(tmp_path / "run"), "--mode", mode, "--",
            sys.executable, "-c", SETS_SCRIPT % 2)
    assert p.returncode == 0, p.stderr
    [dump] = dumps_in(str(tmp_path / "run"))
    census = "meta.census.scope" in dump.header
    assert census == (mode == "count" and sys.version_info >= (3, 12))
    said = [l for l in p.stderr.splitlines() if l.startswith(NO_CENSUS)]
    assert len(said) == (0 if census else 1), p.stderr


HINT = "pystats run: hint: the test runner's own code ("
SPIN = "def spin(n):\n    t = 0\n    for i in range(n):\n        t += i\n    return t\n"


@pytest.mark.parametrize("package, hinted", [("pluggy", True),
                                             ("pluggyx", False)])
def test_headline_hints_at_code_when_a_test_runner_leads(tmp_path, package,
                                                         hinted):
    # A package named as pytest's plugin caller, hottest by far: the
    # headline says --code would rank the package under test instead;
    # not for a package that only starts alike, nor with --code.
    lib = tmp_path / "lib" / package
    lib.mkdir(parents=True)
    (lib / "__init__.py").write_text(SPIN)
    cmd = ["--", sys.executable, "-c",
           "import %s; %s.spin(20000)" % (package, package)]
    env = {"PYTHONPATH": str(tmp_path / "lib")}
    p = run("-o", str(tmp_path / "run"), *cmd, **env)
    assert p.returncode == 0, p.stderr
    assert "pystats run:   hot code: spin (%s:1)" % package in p.stderr
    said = [l for l in p.stderr.splitlines() if l.startswith(HINT)]
    assert said == ([HINT + package + ") is among the hottest: --code PKG "
                     "ranks your package's code only"] if hinted else [])
    p = run("-o", str(tmp_path / "run2"), "--code", package, *cmd, **env)
    assert p.returncode == 0, p.stderr
    assert HINT not in p.stderr


def test_default_directories_are_fresh_per_run(tmp_path):
    # The default base (/tmp) moved under tmp_path: PYSTATS_TMPDIR.
    p1 = run("--quiet", "--", sys.executable, "-c", SETS_SCRIPT % 2,
             PYSTATS_TMPDIR=tmp_path)
    p2 = run("--quiet", "--", sys.executable, "-c", SETS_SCRIPT % 2,
             PYSTATS_TMPDIR=tmp_path)
    dirs = [next(line.split("dumps go to ", 1)[1] for line in
                 p.stderr.splitlines() if "dumps go to " in line)
            for p in (p1, p2)]
    assert p1.returncode == p2.returncode == 0, p1.stderr + p2.stderr
    assert dirs[0] != dirs[1]
    assert all(d.startswith("%s/py_stats/run-" % tmp_path) for d in dirs)
    assert [len(dumps_in(d)) for d in dirs] == [1, 1]
    assert p1.stdout.startswith("verdict: ")


@pytest.mark.parametrize("flag, says", [
    ("-E", "ignores PYTHONSTATS and PYSTATS_DIR (-E)"),
    ("-I", "ignores PYTHONSTATS and PYSTATS_DIR (-I)"),
    ("-S", "-S: the startup hook"),
])
def test_no_dump_is_an_error_that_says_why(tmp_path, flag, says):
    p = run("-o", str(tmp_path / "run"), "--", sys.executable, flag, "-c",
            SETS_SCRIPT % 2)
    assert p.returncode == 1
    assert "the run wrote no dump into" in p.stderr
    assert says in p.stderr
    assert p.stdout == ""


@pytest.mark.skipif(not sysconfig.get_config_var("Py_GIL_DISABLED"),
                    reason="needs a free-threaded CPython")
@pytest.mark.parametrize("how", ["env", "flag"])
def test_a_segment_mode_refused_without_the_gil_is_named(tmp_path, how):
    # Mode count needs the GIL: a free-threaded CPython running without
    # it collects nothing, and the reason is that, not a command that
    # started no Python.
    flags, env = (["-X", "gil=0"], {}) if how == "flag" else \
        ([], {"PYTHON_GIL": "0"})
    p = run("-o", str(tmp_path / "run"), "--mode", "count", "--",
            sys.executable, *flags, "-c", SETS_SCRIPT % 2, **env)
    assert p.returncode == 1
    assert "is a free-threaded CPython running without the GIL" in p.stderr
    assert "where mode count is refused" in p.stderr
    assert "started no Python process" not in p.stderr
    # With the GIL (the collector enables it by default) the same runs.
    p = run("-o", str(tmp_path / "run2"), "--mode", "count", "--",
            sys.executable, "-c", SETS_SCRIPT % 2)
    assert p.returncode == 0, p.stderr


def test_headline_names_a_free_threaded_build(tmp_path):
    # The title of the dumps' group: "Python 3.14t" for a free-threaded
    # build, as CPython names its interpreter, "Python 3.14" otherwise.
    p = run("-o", str(tmp_path / "run"), "--", sys.executable, "-c",
            SETS_SCRIPT % 2)
    assert p.returncode == 0, p.stderr
    ver = "%d.%d%s" % (sys.version_info[:2] + (
        "t" if sysconfig.get_config_var("Py_GIL_DISABLED") else "",))
    assert " instructions executed: pystats collector dumps, Python %s, " \
        "counting " % ver in p.stderr, p.stderr


def test_interpreter_without_the_hook_is_named(tmp_path):
    # A virtual environment without pystats installed: the hook is absent.
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)],
                   check=True)
    py = str(venv / "bin" / "python")
    p = run("-o", str(tmp_path / "run"), "--", py, "-c", SETS_SCRIPT % 2)
    assert p.returncode == 1
    assert "the startup hook is not installed in the interpreter " + py \
        in p.stderr


def test_the_probe_leaves_no_dump_in_the_run_directory(tmp_path):
    # A command that runs no Python: run probes python3 (here the test's
    # own interpreter, where the hook works) to explain why.  The probe's
    # dump goes to a private directory of its own, removed after: the run
    # directory stays empty, and can be used again.
    out = tmp_path / "run"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    path = os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]
    for _ in range(2):
        p = run("-o", str(out), "--", "true", PATH=path, TMPDIR=tmp)
        assert p.returncode == 1, p.stderr
        assert "the run wrote no dump into" in p.stderr
        assert "the startup hook works in python3" in p.stderr
        assert "already holds files" not in p.stderr
        assert os.listdir(out) == []
        assert os.listdir(tmp) == []


SHIM = os.path.join(ROOT, "build", "faults", "libfaultshim.so")


@pytest.mark.skipif(not os.path.exists(SHIM), reason="make faults: no fault shim")
@pytest.mark.parametrize("ops, errno_name, says", [
    # Every write into the run directory fails: a full disk.
    ("write", "ENOSPC", "the disk is full (ENOSPC)"),
    # Every open there fails: a read-only file system.
    ("open", "EROFS", "the directory is read-only to the command (EROFS)"),
])
def test_a_dump_that_could_not_be_written_is_named(tmp_path, ops, errno_name, says):
    # The collector says why on the command's stderr and leaves a mark
    # where run looks; run names the reason, not a guess.
    out = tmp_path / "run"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    # The faults are the command's only (through env), not run's own;
    # after whatever is preloaded already (a sanitizer runtime stays first).
    preload = (os.environ.get("LD_PRELOAD", "") + " " + SHIM).strip()
    p = run("-o", str(out), "--", "env", "LD_PRELOAD=" + preload, "PSF_FAULT_DIR=%s" % out,
            "PSF_FAULT_OPS=" + ops, "PSF_FAULT_AT=1-", "PSF_FAULT_ERRNO=" + errno_name,
            sys.executable, "-c", SETS_SCRIPT % 2, TMPDIR=tmp)
    assert p.returncode == 1, p.stderr[-2000:]
    assert "pystats: cannot write a dump into %s: %s" % (out, errno_name) in p.stderr
    assert ("pystats: error: 1 process of the command could not write its dump into %s:\n"
            "  - %s" % (out, says)) in p.stderr
    assert "the command started no Python process" not in p.stderr
    assert "likely reasons" not in p.stderr
    # The dump itself is still on stderr, whole.
    assert "opcode[MATCH_CLASS].execution_count : 2\n" in p.stderr
    assert os.listdir(out) == [] and os.listdir(tmp) == []


@pytest.mark.skipif(sys.version_info < (3, 12),
                    reason="3.11's census mode has sites too, but the census "
                    "headline is tested where the census needs no trace")
def test_census_mode_headline_names_its_sites(tmp_path):
    """Mode census counts no instruction: the headline gives the sites
    the census read (the census.family[F].sites lines summed), not
    "0 instructions executed"."""
    out = tmp_path / "run"
    p = run("-o", str(out), "--mode", "census", "--", sys.executable, "-c",
            SETS_SCRIPT % 5)
    assert p.returncode == 0, p.stderr
    sites = 0
    for d in dumps_in(str(out)):
        for line in open(d.path):
            k, _, v = line.rpartition(":")
            if re.match(r"census\.family\[[^]]+\]\.sites\s*$", k):
                sites += int(v)
    assert sites > 0
    lines = [l for l in p.stderr.splitlines() if l.startswith("pystats run:")]
    assert not [l for l in lines if "instructions executed" in l], lines
    assert [l for l in lines if l.startswith(
        "pystats run: a census, no instructions counted: %s sites" %
        format(sites, ","))], lines
