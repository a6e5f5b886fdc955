"""Where the dumps go, on a machine shared with other users.

The collector resolves a relative PYSTATS_DIR when it starts, gives a
name too long for a path one clear message (the dump then on stderr),
never follows a symbolic link for its directory, never writes into a
directory owned by another user (root excepted) or writable by others
without the sticky bit, and falls back from a shared default that is not
the user's to a private one.  The command reads the same default, warns
of other users' files in a directory others can write, and `pystats run`
reads back only the directory it made.

The default's base is PYSTATS_TMPDIR (default /tmp), so that these tests
never touch the machine's /tmp/py_stats.  "Another user" is uid 65534
(nobody): directories are given to it with os.chown, which needs root;
those tests are skipped otherwise.  The counts come from the workload:
MATCH_CLASS runs exactly n times in sets(n).
"""
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

import pytest

from conftest import SETS, clean_env, dumps_in, run_python

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
PYSTATS_CLI = os.path.join(ROOT, "build", "pystats")
OTHER = 65534
ME = os.geteuid()

needs_root = pytest.mark.skipif(ME != 0, reason="os.chown to another user "
                                "needs root")
needs_cli = pytest.mark.skipif(not os.access(PYSTATS_CLI, os.X_OK),
                               reason="build/pystats is not built")

# Collection for the whole program (-X pystats): an explicit dump of
# sets(3), and sets(4) written at exit.
TWO_DUMPS = SETS + """
import pystats
sets(3)
pystats.dump()
sets(4)
"""

MSG = re.compile(r"^pystats: cannot write a dump into (.*): (.*)$", re.M)


def stderr_counts(stderr):
    """MATCH_CLASS of each dump written on stderr, in order."""
    return [int(m) for m in re.findall(
        r"^opcode\[MATCH_CLASS\]\.execution_count : (\d+)$", stderr, re.M)]


def file_counts(d):
    return sorted(x.counts.get("MATCH_CLASS", 0) for x in dumps_in(str(d)))


def entries(d):
    return sorted(os.listdir(str(d)))


# ---- PYSTATS_DIR as given ------------------------------------------------

def test_relative_dir_is_resolved_when_collection_starts(tmp_path):
    start, later = tmp_path / "start", tmp_path / "later"
    start.mkdir()
    later.mkdir()
    code = SETS + """
import os, sys
os.chdir(sys.argv[1])
sets(5)
"""
    env = clean_env(PYSTATS_DIR="rel/out")
    p = subprocess.run([sys.executable, "-X", "pystats", "-c", code,
                        str(later)], cwd=str(start), env=env,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    assert file_counts(start / "rel" / "out") == [5]
    assert not (later / "rel").exists()


def test_a_dir_name_too_long_for_a_path_sends_the_dump_to_stderr(tmp_path):
    long_dir = str(tmp_path / ("d" * 6000))
    p = run_python(TWO_DUMPS, xopts=["pystats"],
                   env=clean_env(PYSTATS_DIR=long_dir))
    assert "Traceback" not in p.stderr
    assert "Error processing line" not in p.stderr
    msgs = MSG.findall(p.stderr)
    # One message per dump, each one line naming the directory (cut).
    assert [why for where, why in msgs] == ["ENAMETOOLONG"] * 2, p.stderr
    assert all(where.startswith(str(tmp_path)) and "(%d bytes)" %
               len(long_dir) in where and len(where) < 300
               for where, why in msgs)
    assert p.stderr.count("pystats: writing the dump to stderr instead") == 2
    assert stderr_counts(p.stderr) == [3, 4]


def test_a_dir_name_that_is_not_utf8_is_a_name_like_any_other(tmp_path):
    raw = os.fsencode(str(tmp_path)) + b"/d\xffd"
    p = run_python(TWO_DUMPS, xopts=["pystats"],
                   env=clean_env(PYSTATS_DIR=os.fsdecode(raw)))
    assert p.stderr == ""
    assert file_counts(os.fsdecode(raw)) == [3, 4]


# ---- the directory itself ------------------------------------------------

def test_a_symbolic_link_is_never_followed(tmp_path):
    target = tmp_path / "etc"
    target.mkdir()
    link = tmp_path / "py_stats"
    link.symlink_to(target)
    p = run_python(TWO_DUMPS, xopts=["pystats"],
                   env=clean_env(PYSTATS_DIR=str(link)))
    assert entries(target) == []
    assert MSG.findall(p.stderr) == [
        (str(link), "a symbolic link (not followed)")] * 2, p.stderr
    assert stderr_counts(p.stderr) == [3, 4]
    # Nor with a trailing slash, which would make open() follow it.
    p = run_python(TWO_DUMPS, xopts=["pystats"],
                   env=clean_env(PYSTATS_DIR=str(link) + "/"))
    assert entries(target) == []
    assert stderr_counts(p.stderr) == [3, 4]


def test_the_default_is_not_followed_through_a_link_either(tmp_path):
    """`ln -s /etc /tmp/py_stats` by another user: the default falls back
    to the user's private directory, the link's target stays as it was."""
    target = tmp_path / "etc"
    target.mkdir()
    (tmp_path / "py_stats").symlink_to(target)
    p = run_python(TWO_DUMPS, xopts=["pystats"],
                   env=clean_env(PYSTATS_TMPDIR=str(tmp_path)))
    assert entries(target) == []
    private = tmp_path / ("py_stats-%d" % ME)
    assert file_counts(private) == [3, 4]
    assert stat.S_IMODE(os.stat(private).st_mode) == 0o700
    assert p.stderr.count("this user's dumps go to") == 1, p.stderr


@needs_root
def test_a_directory_of_another_user_is_refused(tmp_path):
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    os.chown(str(theirs), OTHER, OTHER)
    p = run_python(TWO_DUMPS, xopts=["pystats"],
                   env=clean_env(PYSTATS_DIR=str(theirs)))
    assert entries(theirs) == []
    assert MSG.findall(p.stderr) == [
        (str(theirs), "owned by another user (uid %d)" % OTHER)] * 2
    assert stderr_counts(p.stderr) == [3, 4]


def test_a_directory_others_can_write_needs_the_sticky_bit(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(str(shared), 0o777)
    p = run_python(TWO_DUMPS, xopts=["pystats"],
                   env=clean_env(PYSTATS_DIR=str(shared)))
    assert entries(shared) == []
    assert MSG.findall(p.stderr) == [
        (str(shared), "writable by others without the sticky bit")] * 2
    assert stderr_counts(p.stderr) == [3, 4]
    # As /tmp is: others cannot remove or rename what is not theirs.
    os.chmod(str(shared), 0o1777)
    p = run_python(TWO_DUMPS, xopts=["pystats"],
                   env=clean_env(PYSTATS_DIR=str(shared)))
    assert p.stderr == ""
    assert file_counts(shared) == [3, 4]


@needs_root
def test_a_root_directory_is_trusted(tmp_path):
    """Root excepted: a directory of root's, group- or sticky-shared,
    takes the dumps of everyone allowed to write into it."""
    d = tmp_path / "roots"
    d.mkdir()
    os.chmod(str(d), 0o1777)
    assert os.stat(str(d)).st_uid == 0
    p = run_python(TWO_DUMPS, xopts=["pystats"],
                   env=clean_env(PYSTATS_DIR=str(d)))
    assert p.stderr == ""
    assert file_counts(d) == [3, 4]


def test_dumps_keep_the_umask(tmp_path):
    d = tmp_path / "out"
    code = "import os; os.umask(0o077)\n" + TWO_DUMPS
    run_python(code, xopts=["pystats"], env=clean_env(PYSTATS_DIR=str(d)))
    modes = {stat.S_IMODE(os.stat(x.path).st_mode) for x in dumps_in(str(d))}
    assert modes == {0o600}
    code = "import os; os.umask(0o022)\n" + TWO_DUMPS
    d2 = tmp_path / "out2"
    run_python(code, xopts=["pystats"], env=clean_env(PYSTATS_DIR=str(d2)))
    modes = {stat.S_IMODE(os.stat(x.path).st_mode) for x in dumps_in(str(d2))}
    assert modes == {0o644}


# ---- the default ---------------------------------------------------------

def test_the_default_is_the_shared_one_when_it_is_the_users(tmp_path):
    p = run_python(TWO_DUMPS, xopts=["pystats"],
                   env=clean_env(PYSTATS_TMPDIR=str(tmp_path)))
    assert p.stderr == ""
    assert entries(tmp_path) == ["py_stats"]    # made, and used
    assert file_counts(tmp_path / "py_stats") == [3, 4]
    p = run_python(TWO_DUMPS, xopts=["pystats"],
                   env=clean_env(PYSTATS_TMPDIR=str(tmp_path)))
    assert p.stderr == ""
    assert file_counts(tmp_path / "py_stats") == [3, 3, 4, 4]


@needs_root
@needs_cli
def test_another_users_default_gives_a_private_one(tmp_path):
    """Another user made /tmp/py_stats (mode 0777): this user's dumps go
    to /tmp/py_stats-UID (0700), said once per process, and summarize and
    check without input read them there."""
    shared = tmp_path / "py_stats"
    shared.mkdir()
    os.chmod(str(shared), 0o777)
    os.chown(str(shared), OTHER, OTHER)
    env = clean_env(PYSTATS_TMPDIR=str(tmp_path))
    p = run_python(TWO_DUMPS, xopts=["pystats"], env=env)
    private = tmp_path / ("py_stats-%d" % ME)
    assert entries(shared) == []
    assert file_counts(private) == [3, 4]
    assert stat.S_IMODE(os.stat(private).st_mode) == 0o700
    assert p.stderr.splitlines() == [
        "pystats: %s: owned by another user (uid %d); this user's dumps go "
        "to %s instead" % (shared, OTHER, private)]
    # A forged dump in the shared directory is not read by default.
    forged = open(dumps_in(str(private))[0].path).read().replace(
        "execution_count : 3", "execution_count : 1000")
    (shared / "forged.txt").write_text(forged)
    s = subprocess.run([PYSTATS_CLI, "summarize", "--json", "-"], env=env,
                       capture_output=True, text=True, timeout=60)
    assert s.returncode == 0, s.stderr
    assert json.loads(s.stdout)["opcodes"]["MATCH_CLASS"][
        "execution_count"] == 7
    c = subprocess.run([PYSTATS_CLI, "check", "--json", "-"], env=env,
                       capture_output=True, text=True, timeout=60)
    assert json.loads(c.stdout)["files"] == 2, c.stdout


@needs_root
@needs_cli
def test_a_user_after_root_gets_a_private_default():
    """Root ran first and made the shared default (0755): another user's
    process writes to a directory of its own instead of stderr, and that
    user's summarize reads it.  The child starts as root (the interpreter
    lives where only root may read) and becomes uid 65534 before it
    collects."""
    base = tempfile.mkdtemp(prefix="pystats-shared-")
    try:
        os.chmod(base, 0o1777)      # as /tmp
        os.mkdir(os.path.join(base, "py_stats"), 0o755)
        code = SETS + """
import os
os.setegid(%d)
os.seteuid(%d)
sets(6)
""" % (OTHER, OTHER)
        env = clean_env(PYSTATS_TMPDIR=base)
        p = run_python(code, xopts=["pystats=count"], env=env)
        private = os.path.join(base, "py_stats-%d" % OTHER)
        assert os.listdir(os.path.join(base, "py_stats")) == []
        assert "EACCES; this user's dumps go to %s instead" % private \
            in p.stderr, p.stderr
        assert stderr_counts(p.stderr) == []
        st = os.stat(private)
        assert (st.st_uid, stat.S_IMODE(st.st_mode)) == (OTHER, 0o700)
        [d] = dumps_in(private)
        assert d.counts["MATCH_CLASS"] == 6

        def as_other():
            os.setgid(OTHER)
            os.setuid(OTHER)
        s = subprocess.run([PYSTATS_CLI, "summarize", "--json", "-"],
                           env=env, capture_output=True, text=True,
                           timeout=60, preexec_fn=as_other, cwd="/")
        assert s.returncode == 0, s.stderr
        assert json.loads(s.stdout)["opcodes"]["MATCH_CLASS"][
            "execution_count"] == 6
    finally:
        shutil.rmtree(base)


# ---- the reader ----------------------------------------------------------

@needs_root
@needs_cli
def test_files_of_another_user_in_an_open_directory_are_warned_of(tmp_path):
    d = tmp_path / "open"
    run_python(TWO_DUMPS, xopts=["pystats"], env=clean_env(PYSTATS_DIR=str(d)))
    mine, theirs = sorted(x.path for x in dumps_in(str(d)))
    os.chown(theirs, OTHER, OTHER)
    os.chmod(str(d), 0o1777)
    s = subprocess.run([PYSTATS_CLI, "summarize", "--json", "-", str(d)],
                       env=clean_env(), capture_output=True, text=True,
                       timeout=60)
    assert s.returncode == 0, s.stderr
    warned = [line for line in s.stderr.splitlines() if "owned by uid" in line]
    assert warned == ["pystats: warning: %s: owned by uid %d, not by you or "
                      "root, in a directory others can write: anyone could "
                      "have written it" % (theirs, OTHER)]
    # Read all the same.
    assert json.loads(s.stdout)["opcodes"]["MATCH_CLASS"][
        "execution_count"] == 7
    c = subprocess.run([PYSTATS_CLI, "check", "--json", "-", str(d)],
                       env=clean_env(), capture_output=True, text=True,
                       timeout=60)
    found = [f for f in json.loads(c.stdout)["findings"]
             if f["check"] == "foreign-files"]
    assert [(f["severity"], f["files"]) for f in found] == [
        ("warning", [theirs])]
    # The same files in a directory only its owner can write: no warning.
    os.chmod(str(d), 0o755)
    s = subprocess.run([PYSTATS_CLI, "summarize", "--json", "-", str(d)],
                       env=clean_env(), capture_output=True, text=True,
                       timeout=60)
    assert "owned by uid" not in s.stderr
    assert mine != theirs


# ---- pystats run ---------------------------------------------------------

def pystats_run(*args, env):
    return subprocess.run([PYSTATS_CLI, "run"] + list(args), env=env,
                          capture_output=True, text=True, timeout=120)


def run_dir_of(p):
    return next(line.split("dumps go to ", 1)[1] for line in
                p.stderr.splitlines() if line.startswith("pystats run: dumps go to "))


@needs_cli
def test_run_makes_its_directory_privately(tmp_path):
    env = clean_env(PYSTATS_TMPDIR=str(tmp_path))
    p = pystats_run("--quiet", "--", sys.executable, "-c", SETS + "sets(2)\n",
                    env=env)
    assert p.returncode == 0, p.stderr
    d = run_dir_of(p)
    assert os.path.dirname(d) == str(tmp_path / "py_stats")
    assert stat.S_IMODE(os.stat(d).st_mode) == 0o700
    assert file_counts(d) == [2]
    out = tmp_path / "given"
    p = pystats_run("-o", str(out), "--quiet", "--", sys.executable, "-c",
                    SETS + "sets(2)\n", env=env)
    assert p.returncode == 0, p.stderr
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o700


@needs_root
@needs_cli
def test_run_under_another_users_default_uses_the_private_one(tmp_path):
    shared = tmp_path / "py_stats"
    shared.mkdir()
    os.chmod(str(shared), 0o777)
    os.chown(str(shared), OTHER, OTHER)
    env = clean_env(PYSTATS_TMPDIR=str(tmp_path))
    p = pystats_run("--quiet", "--", sys.executable, "-c", SETS + "sets(2)\n",
                    env=env)
    assert p.returncode == 0, p.stderr
    d = run_dir_of(p)
    assert os.path.dirname(d) == str(tmp_path / ("py_stats-%d" % ME))
    assert entries(shared) == []
    # -o into a directory of another user's is refused before the run.
    p = pystats_run("-o", str(shared), "--", sys.executable, "-c", "pass",
                    env=env)
    assert p.returncode == 3
    assert "owned by another user (uid %d)" % OTHER in p.stderr


FORGER = SETS + """
import os, shutil
sets(2)
d = os.environ["PYSTATS_DIR"]
os.rename(d, d + ".away")
os.mkdir(d, 0o700)
with open(os.path.join(d, "forged.txt"), "w") as f:
    f.write("pystats.format : 1\\nmeta.label : FORGED\\n"
            "opcode[MATCH_CLASS].execution_count : 1000\\n")
"""


@needs_cli
def test_run_reads_back_only_the_directory_it_made(tmp_path):
    """The command renames the run's directory away and puts another,
    with a forged dump, in its place: nothing of it is read."""
    env = clean_env(PYSTATS_TMPDIR=str(tmp_path))
    p = pystats_run("--", sys.executable, "-c", FORGER, env=env)
    assert p.returncode == 6, p.stdout + p.stderr
    assert "FORGED" not in p.stdout and "1,000" not in p.stdout
    assert "is no longer the directory this run created" in p.stderr
