"""What a user sees when collection is asked for wrongly, and `python -m
pystats`:

- `-X pystats=bogus` and `PYTHONSTATS=bogus` (and bad values of
  -X pystats_census / PYSTATS_CENSUS, -X pystats_backend /
  PYSTATS_BACKEND): exactly one line on stderr naming the bad value and
  the valid ones, exit status 2, the program not run, no dump; the valid
  modes the line names are the ones the collector's C code accepts (its
  own error message for on(mode=...) lists them), and each of them works
  from the command line;
- `import pystats` finding another module (PyPI's unrelated PyStats also
  imports as pystats): one line naming that module's file, exit 1;
- `python -m pystats ...` is the pystats command: same output, same exit
  status; without the command installed, one line and exit 1."""
import os
import re
import shutil
import subprocess
import sys
import sysconfig

import pytest

from conftest import clean_env, dumps_in, run_python

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
PYSTATS_CLI = os.path.join(ROOT, "build", "pystats")

PROGRAM = "print('the program ran')"


def c_modes():
    """The modes the C extension accepts, from its own error message."""
    import pystats
    with pytest.raises(ValueError) as e:
        pystats.on(mode="no-such-mode")
    known = re.search(r"\(known: (.*)\)", str(e.value)).group(1)
    return re.findall(r"'([^']+)'", known)


def refused(proc, value, option):
    """The process exited 2 before the program ran, with one line."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stdout == "", proc.stdout
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    line = lines[0]
    assert line.startswith("pystats: ")
    assert repr(value) in line and option in line, line
    return line


def test_bad_mode_one_line_exit_2_valid_modes_named(tmp_path):
    stats = tmp_path / "stats"
    ways = [
        ("-X pystats", dict(xopts=["pystats=bogus",
                                   "pystats_dir=%s" % stats])),
        ("PYTHONSTATS", dict(env=clean_env(PYTHONSTATS="bogus",
                                           PYSTATS_DIR=stats))),
    ]
    for option, how in ways:
        line = refused(run_python(PROGRAM, check=False, **how), "bogus",
                       option)
        named = line.split("(valid: ", 1)[1]
        modes = re.findall(r"[a-z][a-z-]*", named.split(";")[0])
        assert modes == c_modes(), line
        assert "1 is count" in line and "0 is off" in line
    assert dumps_in(str(stats)) == []


def test_every_mode_the_message_names_works(tmp_path):
    for mode in c_modes() + ["1"]:
        stats = tmp_path / ("stats-" + mode)
        proc = run_python(
            "def f(n):\n    return n + 1\nf(1)\n" + PROGRAM,
            xopts=["pystats=" + mode, "pystats_dir=%s" % stats])
        assert proc.stdout == "the program ran\n"
        assert proc.stderr == ""
        dumps = dumps_in(str(stats))
        if not mode.startswith("noop"):    # the noop modes count nothing
            assert len(dumps) == 1, (mode, dumps)
        # 1 is count; on 3.11 instructions is count too (FORMAT.md 1.7).
        same = {"1": "count"}
        if sys.version_info < (3, 12):
            same["instructions"] = "count"
        for dump in dumps:
            assert dump.header["meta.collection.mode"] == same.get(mode,
                                                                   mode)


def test_zero_means_off_for_both(tmp_path):
    stats = tmp_path / "stats"
    for how in (dict(xopts=["pystats=0", "pystats_dir=%s" % stats]),
                dict(env=clean_env(PYTHONSTATS="0", PYSTATS_DIR=stats))):
        proc = run_python(PROGRAM + "\nimport pystats\n"
                          "print(pystats.is_on())", **how)
        assert proc.stdout == "the program ran\nFalse\n"
        assert proc.stderr == ""
    assert dumps_in(str(stats)) == []


def test_command_line_wins_over_the_environment(tmp_path):
    stats = tmp_path / "stats"
    proc = run_python("import pystats; print(pystats.is_on())",
                      xopts=["pystats=0"],
                      env=clean_env(PYTHONSTATS="bogus", PYSTATS_DIR=stats))
    assert proc.stdout == "False\n" and proc.stderr == ""


@pytest.mark.parametrize("xopt,env,value,option", [
    ("pystats_census=2", {}, "2", "-X pystats_census"),
    (None, {"PYSTATS_CENSUS": "no"}, "no", "PYSTATS_CENSUS"),
    ("pystats_backend=mine", {}, "mine", "-X pystats_backend"),
    (None, {"PYSTATS_BACKEND": "ours"}, "ours", "PYSTATS_BACKEND"),
])
def test_bad_option_values_one_line_exit_2(tmp_path, xopt, env, value,
                                           option):
    stats = tmp_path / "stats"
    xopts = ["pystats", "pystats_dir=%s" % stats] + ([xopt] if xopt else [])
    line = refused(run_python(PROGRAM, xopts=xopts, env=clean_env(**env),
                              check=False), value, option)
    assert line.endswith(")")
    assert dumps_in(str(stats)) == []


def test_census_option_values_that_are_valid(tmp_path):
    if sys.version_info < (3, 12):
        pytest.skip("the census alongside counting is 3.12+")
    for value, has_census in (("0", False), ("1", True)):
        stats = tmp_path / ("stats" + value)
        run_python("def f(n):\n    return n + 1\nf(1)\n",
                   xopts=["pystats", "pystats_dir=%s" % stats,
                          "pystats_census=" + value])
        [dump] = dumps_in(str(stats))
        assert ("meta.census.scope" in dump.header) == has_census


def test_another_module_named_pystats(tmp_path):
    """An unrelated module imported as pystats before this one (here on
    PYTHONPATH, as PyPI's PyStats would be from an earlier site
    directory): one line naming its file, exit 1, program not run."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "pystats.py").write_text("def mean(xs):\n    return 0\n")
    for how in (dict(xopts=["pystats"], env=clean_env()),
                dict(env=clean_env(PYTHONSTATS="1"))):
        how["env"]["PYTHONPATH"] = str(other)
        proc = run_python(PROGRAM, check=False, **how)
        assert proc.returncode == 1, proc.stderr
        assert proc.stdout == ""
        [line] = proc.stderr.splitlines()
        assert str(other / "pystats.py") in line
        assert "not this collector" in line and "PyStats" in line


# -- python -m pystats -------------------------------------------------

def installed_commands():
    """pystats commands in this interpreter's scripts directories: there,
    `python -m pystats` finds one whatever PATH says."""
    from pystats.__main__ import _scripts_dirs
    return [d for d in _scripts_dirs()
            if os.path.exists(os.path.join(d, "pystats"))]


def run_m(args, path, **kw):
    env = clean_env(PATH=path, **kw)
    return subprocess.run([sys.executable, "-m", "pystats"] + args, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(not os.access(PYSTATS_CLI, os.X_OK),
                    reason="build/pystats is not built")
def test_python_m_pystats_is_the_command(tmp_path):
    if installed_commands():
        pytest.skip("a pystats command is installed in %s"
                    % installed_commands())
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shutil.copy(PYSTATS_CLI, bindir / "pystats")
    stats = tmp_path / "stats"
    run_python("def f(n):\n    return n + 1\nf(1)\n",
               xopts=["pystats", "pystats_dir=%s" % stats])
    for args in (["--help"], ["summarize", str(stats)],
                 ["check", str(stats)], ["no-such-command"],
                 ["summarize", str(tmp_path / "missing")]):
        direct = subprocess.run([PYSTATS_CLI] + args, capture_output=True,
                                text=True, timeout=120,
                                env=clean_env(PATH=str(bindir)))
        via = run_m(args, str(bindir))
        assert via.returncode == direct.returncode, args
        assert via.stdout == direct.stdout, args
        assert via.stderr == direct.stderr, args
    assert "summarize" in run_m(["--help"], str(bindir)).stdout + \
        run_m(["--help"], str(bindir)).stderr


def test_python_m_pystats_without_the_command(tmp_path):
    if installed_commands():
        pytest.skip("a pystats command is installed in %s"
                    % installed_commands())
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = run_m(["--help"], str(empty))
    assert proc.returncode == 1
    assert proc.stdout == ""
    [line] = proc.stderr.splitlines()
    assert line.startswith("pystats: the pystats command is not installed")
    assert "cpython-pystats" in line and "pip install" in line
    assert "make install" in line


@pytest.mark.skipif(not os.access(PYSTATS_CLI, os.X_OK),
                    reason="build/pystats is not built")
def test_python_m_pystats_from_the_development_build(tmp_path):
    """`make` puts the package into build/pyX.Y and the command at
    build/pystats: the package run from there finds that command."""
    ext_dir = os.path.join(ROOT, "build", "py%d.%d%s" % (
        sys.version_info[:2] + ("t" if sysconfig.get_config_var(
            "Py_GIL_DISABLED") else "",)))
    if not os.path.exists(os.path.join(ext_dir, "pystats", "__main__.py")):
        pytest.skip("no development build of the package in %s" % ext_dir)
    if installed_commands():
        pytest.skip("a pystats command is installed in %s"
                    % installed_commands())
    empty = tmp_path / "empty"
    empty.mkdir()
    via = run_m(["--help"], str(empty), PYTHONPATH=ext_dir)
    direct = subprocess.run([PYSTATS_CLI, "--help"], capture_output=True,
                            text=True, timeout=120)
    assert (via.returncode, via.stdout, via.stderr) == (
        direct.returncode, direct.stdout, direct.stderr)


def test_an_unknown_variable_is_named_once_per_process_tree(tmp_path):
    """PYTHONSTATS_DIR (PYSTATS_DIR meant) and a misspelt PYSTATS_LABLE
    each get one line naming the variable meant, from the first process
    that collects; its subprocess, collecting too, stays silent; the
    dumps still go where the known variables say."""
    wrong_dir = "PYTHON" + "STATS_DIR"     # spelled apart: see the scan below
    wrong_label = "PYSTATS_" + "LABLE"
    env = clean_env(PYTHONSTATS="1", PYSTATS_DIR=tmp_path / "stats",
                    **{wrong_dir: tmp_path / "elsewhere", wrong_label: "x"})
    proc = run_python("""
        import subprocess, sys
        subprocess.run([sys.executable, "-c", "pass"], check=True)
    """, env=env)
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("pystats:")]
    assert sorted(lines) == sorted([
        "pystats: %s is not a variable pystats reads; it is ignored; did you "
        "mean PYSTATS_DIR?" % wrong_dir,
        "pystats: %s is not a variable pystats reads; it is ignored; did you "
        "mean PYSTATS_LABEL?" % wrong_label]), proc.stderr
    assert len(dumps_in(tmp_path / "stats")) == 2
    assert not (tmp_path / "elsewhere").exists()


def test_every_variable_the_sources_name_is_known():
    """Every PYSTATS_*/PYTHONSTATS_* name written anywhere in the
    sources, tests, benchmarks, tools and docs is one the collector
    knows (so that none of ours is ever called unknown), but for the C
    macro PYSTATS_VARS (the list `pystats run` passes on)."""
    import pystats
    pat = re.compile(r"(?<![A-Za-z0-9_])((?:PYSTATS|PYTHONSTATS)_[A-Z][A-Z0-9_]*)")
    names = {}
    for top in ("src", "python", "tests", "bench", "tools", "docs",
                "Makefile", "README.md", ".ci"):
        path = os.path.join(ROOT, top)
        files = [path] if os.path.isfile(path) else [
            os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs]
        for f in files:
            if f == os.path.abspath(__file__) or "/golden/" in f and \
                    f.endswith((".txt", ".json", ".md")):
                continue
            try:
                text = open(f, encoding="utf-8").read()
            except (UnicodeDecodeError, IsADirectoryError):
                continue
            for n in pat.findall(text):
                names.setdefault(n, os.path.relpath(f, ROOT))
    names.pop("PYSTATS_VARS", None)
    unknown = {n: f for n, f in names.items()
               if n not in pystats.KNOWN_VARIABLES}
    assert not unknown, unknown
    assert "PYSTATS_DIR" in names and "PYSTATS_TMPDIR" in names
