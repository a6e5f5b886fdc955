"""Fault injection: the collector writes its dumps with the disk full,
the directory unwritable, not a directory or removed, and I/O errors.

A child process collects two periods (an explicit pystats.dump() and the
dump at exit, os._exit or SIGTERM) under tests/faults/faultshim.c
(LD_PRELOAD), which makes the Nth file system call in the dump directory
fail, for every N the dumps make.  Whatever happens:

- the process is not harmed: same exit status as without faults, no
  traceback, no crash;
- nothing counted is lost without a message: each period's counts are
  either in a whole dump file in the directory, or on stderr after
  "pystats: cannot write a dump into DIR: ERRNO";
- no half-written file is ever visible under a name a reader would read
  (every name not starting with '.' is a whole dump), and no temporary
  is left behind unless removing it was made to fail too.
"""
import os
import re
import shutil
import signal
import subprocess
import sys

import pytest

from conftest import clean_env, dumps_in, leftovers

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

CHILD = r"""
import os, signal, sys
import difflib, json, textwrap
import pystats

def f(n):
    for i in range(n):
        match i:
            case int():
                pass

# Period 1: enough distinct pairs for a dump larger than the writer's
# buffer, so that it takes more than one write().
pystats.on()
f(7)
json.dumps({"a": [1, 2.5, None], "b": "c"}, indent=2)
textwrap.fill("hello world " * 20, 30)
difflib.SequenceMatcher(None, "abcdefgh", "abxdefyh").ratio()
pystats.off()
print("dump1", pystats.dump(), flush=True)

# Period 2: written at exit, by os._exit or by SIGTERM.
pystats.on()
f(5)
pystats.off()
how = sys.argv[1]
if how == "os_exit":
    os._exit(3)
elif how == "sigterm":
    os.kill(os.getpid(), signal.SIGTERM)
    signal.pause()
"""

EXPECTED_RC = {"exit": 0, "os_exit": 3, "sigterm": -signal.SIGTERM}
STDERR_MSG = re.compile(r"^pystats: cannot write a dump into (.*): (\w+)$")


@pytest.fixture(scope="session")
def shim():
    r = subprocess.run(["make", "-s", "faults"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    path = os.path.join(ROOT, "build", "faults", "libfaultshim.so")
    assert os.path.exists(path)
    return path


def parse_dump_text(lines):
    """(header, counts) of a dump given as its lines."""
    header, counts = {}, {}
    for line in lines:
        key, sep, value = line.rpartition(" : ")
        assert sep, "bad dump line %r" % line
        if key.startswith(("pystats.", "meta.")):
            header[key] = value
        elif key.startswith("opcode["):
            counts[key] = int(value)
        else:
            counts[key] = value
    return header, counts


def stderr_dumps(stderr):
    """The dumps written on stderr, each with the message before it."""
    out = []
    lines = stderr.splitlines()
    i = 0
    while i < len(lines):
        if lines[i] == "pystats.format : 2":
            j = i
            while j < len(lines) and not lines[j].startswith("pystats: ") \
                    and " : " in lines[j]:
                j += 1
            msg = [m for m in lines[max(0, i - 2):i] if STDERR_MSG.match(m)]
            assert msg and lines[i - 1] == \
                "pystats: writing the dump to stderr instead", \
                "a dump on stderr without its message:\n" + stderr
            out.append(parse_dump_text(lines[i:j]))
            i = j
        else:
            i += 1
    return out


def run_child(shim, stats, how, log=None, **faults):
    env = clean_env(PYSTATS_DIR=stats, PYTHONHASHSEED=0)
    pre = env.get("LD_PRELOAD", "")
    # After whatever is preloaded already (a sanitizer runtime must stay
    # first).
    env["LD_PRELOAD"] = (pre + " " + shim).strip()
    env["PSF_FAULT_DIR"] = stats
    if log:
        env["PSF_FAULT_LOG"] = log
    for k, v in faults.items():
        env["PSF_FAULT_" + k.upper()] = str(v)
    return subprocess.run([sys.executable, "-c", CHILD, how], env=env,
                          capture_output=True, text=True, timeout=60)


def key_of(counts):
    """A period's instruction and pair counts (the counters that must be
    the same in every run; a dump may hold others, such as timings)."""
    return tuple(sorted((k, v) for k, v in counts.items()
                        if k.startswith("opcode[")))


def collected(stats, proc):
    """Every period's counts found: in whole files and on stderr."""
    found = []
    for d in dumps_in(stats):   # parses each: whole, or the test fails
        text = open(d.path).read()
        lines = text.splitlines()
        assert lines[-1].startswith("opcode["), d.path
        header, counts = parse_dump_text(lines)
        found.append((header, counts))
    return found, stderr_dumps(proc.stderr)


@pytest.fixture(scope="module")
def baseline(shim, tmp_path_factory):
    """A run of each kind without faults: its dumps and how many
    candidate calls it made."""
    out = {}
    for how in EXPECTED_RC:
        d = tmp_path_factory.mktemp("baseline-" + how)
        stats, log = str(d / "stats"), str(d / "log")
        proc = run_child(shim, stats, how, log=log)
        assert proc.returncode == EXPECTED_RC[how], proc.stderr
        assert proc.stderr == "", proc.stderr
        files, on_stderr = collected(stats, proc)
        assert len(files) == 2 and not on_stderr
        calls = len(open(log).read().splitlines())
        ops = {line.split()[1] for line in open(log).read().splitlines()}
        assert {"open", "write", "fsync", "close", "rename"} <= ops, ops
        # The first dump takes more than one write().
        writes = [line for line in open(log).read().splitlines()
                  if line.split()[1] == "write"]
        assert len(writes) >= 3, writes
        out[how] = (sorted(key_of(c) for h, c in files), calls)
    return out


def check_run(proc, stats, log, how, expected, label):
    where = "%s (%s)" % (label, how)
    assert proc.returncode == EXPECTED_RC[how], "%s: exit %r\n%s" % (
        where, proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr, where + "\n" + proc.stderr
    assert "Fatal Python error" not in proc.stderr, where
    files, on_stderr = collected(stats, proc)
    got = sorted([key_of(c) for h, c in files] +
                 [key_of(c) for h, c in on_stderr])
    assert got == expected, "%s: counts lost or duplicated\n%s" % (
        where, proc.stderr)
    # dump() says whether the explicit dump reached a file.
    first_in_file = any(h["meta.dump.reason"] == "explicit"
                        for h, c in files)
    assert ("dump1 %s" % first_in_file) in proc.stdout, where
    # Temporaries are removed, unless removing them was what failed.
    log_text = open(log).read() if os.path.exists(log) else ""
    if os.path.isdir(stats) and "unlink fail" not in log_text:
        assert leftovers(stats) == [], where
    return len(on_stderr)


def fault_runs(shim, tmp_path, baseline, how, errno, onwards=False,
               **faults):
    """One run for each N from 1 to one past the number of candidate
    calls a run without faults makes."""
    expected, calls = baseline[how]
    to_stderr = 0
    for n in range(1, calls + 2):
        d = tmp_path / ("%s-%s-n%d" % (how, errno, n))
        stats, log = str(d / "stats"), str(d / "log")
        os.makedirs(str(d))
        at = "%d-" % n if onwards else str(n)
        proc = run_child(shim, stats, how, log=log, at=at, errno=errno,
                         **faults)
        to_stderr += check_run(proc, stats, log, how, expected,
                               "fault %s at call %s" % (errno, at))
        shutil.rmtree(str(d))
    # The faults did bite: some dumps had to go to stderr.
    assert to_stderr > 0


@pytest.mark.parametrize("errno", ["ENOSPC", "EIO", "EACCES"])
def test_one_failing_call(shim, tmp_path, baseline, errno):
    fault_runs(shim, tmp_path, baseline, "exit", errno)


def test_disk_fills_up_mid_write(shim, tmp_path, baseline):
    """A write that stores half its bytes, then ENOSPC."""
    fault_runs(shim, tmp_path, baseline, "exit", "ENOSPC", short=1)


@pytest.mark.parametrize("errno", ["ENOSPC", "EIO", "EROFS"])
def test_every_call_fails_from_n_on(shim, tmp_path, baseline, errno):
    """The disk stays full (or broken) once it fails."""
    fault_runs(shim, tmp_path, baseline, "exit", errno, onwards=True)


@pytest.mark.parametrize("how", ["os_exit", "sigterm"])
def test_faults_in_other_exit_paths(shim, tmp_path, baseline, how):
    fault_runs(shim, tmp_path, baseline, how, "EIO")
    fault_runs(shim, tmp_path, baseline, how, "ENOSPC", short=1)


def test_directory_removed_mid_run(tmp_path, shim, baseline):
    """The directory disappears between two dumps: it is made again."""
    stats = str(tmp_path / "stats")
    code = CHILD.replace("# Period 2", 'import shutil; '
                         'shutil.rmtree(os.environ["PYSTATS_DIR"])\n'
                         "# Period 2")
    env = clean_env(PYSTATS_DIR=stats, PYTHONHASHSEED=0)
    proc = subprocess.run([sys.executable, "-c", code, "exit"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert "dump1 True" in proc.stdout
    [d] = dumps_in(stats)
    assert d.header["meta.dump.reason"] == "exit"
    assert d.counts["MATCH_CLASS"] == 5


def test_directory_is_a_file(tmp_path, shim, baseline):
    stats = tmp_path / "stats"
    stats.write_text("not a directory\n")
    proc = run_child(shim, str(stats), "exit")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert re.search(r"^pystats: cannot write a dump into %s: ENOTDIR$" %
                     re.escape(str(stats)), proc.stderr, re.M), proc.stderr
    dumps = stderr_dumps(proc.stderr)
    assert sorted(key_of(c) for h, c in dumps) == baseline["exit"][0]
    assert stats.read_text() == "not a directory\n"
