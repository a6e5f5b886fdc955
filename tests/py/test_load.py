"""Load: 64 processes of 16 threads each, collecting and dumping at once
into one directory, forking inside threads, and processes killed
(SIGKILL) in the middle of their dumps.  Every dump left is whole, and
every count adds up for the processes that exited normally."""
import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from conftest import Dump, SETS, clean_env, dumps_in

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
PYSTATS_CLI = os.path.join(ROOT, "build", "pystats")

PROCS = 64
THREADS = 16
ROUNDS = 3
K = 40          # MATCH_CLASS executions per measure() in the parent
FORK_K = 7      # ... and in each fork child


WORKER = SETS + """
import os, sys, threading, pystats
THREADS, ROUNDS, K, FORK_K = %d, %d, %d, %d
start = threading.Barrier(THREADS)

def work(t):
    start.wait()
    for r in range(ROUNDS):
        pystats.measure(sets, K)
        if t %% 4 == 0:
            # Dumping (and so clearing) while the other threads count.
            # False when another thread's dump has just taken everything:
            # nothing to write is no error.
            assert pystats.dump() in (True, False)
        if t %% 8 == 1 and r == 1:
            # A fork inside a thread, while the others count and dump.
            pid = os.fork()
            if pid == 0:
                pystats.measure(sets, FORK_K)
                os._exit(0)
            assert os.waitpid(pid, 0)[1] == 0

threads = [threading.Thread(target=work, args=(t,)) for t in range(THREADS)]
for t in threads:
    t.start()
for t in threads:
    t.join()
# Every event fitted its thread's shadow stack (segment counting, 3.12+).
assert pystats._collector._seg_state()["desync"] == 0
""" % (THREADS, ROUNDS, K, FORK_K)

FORKS_PER_PROC = sum(1 for t in range(THREADS) if t % 8 == 1)

# Processes that dump as fast as they can until killed: the dumps are made
# long (many different instructions and pairs) so that kills land inside
# the writing of one.
DUMPER = SETS + """
import sys, threading, pystats

def varied(n):
    out = []
    d = {}
    for i in range(n):
        s = "k%d" % i
        d[s] = d.get(s, 0) + i * 2 - 1
        out.append((i, s, -i, i / 3, i // 3, i % 5, i ** 2, i << 1, i >> 1))
        x = [j for j in range(3)]
        try:
            if i % 7 == 0:
                raise KeyError(s)
        except KeyError as e:
            out.append(str(e))
        with _null():
            pass
    return len(out), sorted(d.items())[:3], {*x}, lambda: n

class _null:
    def __enter__(self):
        return self
    def __exit__(self, *a):
        return False

def work():
    while True:
        pystats.measure(sets, 5)
        pystats.measure(varied, 20)
        pystats.dump()

for _ in range(4):
    threading.Thread(target=work, daemon=True).start()
print("ready", flush=True)
threading.Event().wait()
"""


def whole(path):
    """The reader's contract: first line, final newline, key : value."""
    with open(path, "rb") as f:
        data = f.read()
    assert data.startswith(b"pystats.format : 2\n"), path
    assert data.endswith(b"\n"), "%s: cut short" % path
    for line in data.decode("utf-8").splitlines():
        key, sep, value = line.rpartition(" : ")
        assert sep and key, "%s: bad line %r" % (path, line)
    return Dump(path)


def run_check(directory):
    """`pystats check` of the directory, as JSON (None without the CLI)."""
    if not os.access(PYSTATS_CLI, os.X_OK):
        return None
    proc = subprocess.run([PYSTATS_CLI, "check", directory, "--json", "-"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode in (0, 6), proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def load_run(tmp_path_factory):
    """64 processes x 16 threads, measuring, dumping and forking at once."""
    d = str(tmp_path_factory.mktemp("load") / "stats")
    env = clean_env(PYSTATS_DIR=d)
    t0 = time.monotonic()
    procs = [subprocess.Popen([sys.executable, "-W", "ignore", "-c", WORKER],
                              env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
             for _ in range(PROCS)]
    outs = [p.communicate(timeout=300) for p in procs]
    elapsed = time.monotonic() - t0
    bad = [(p.returncode, e) for p, (o, e) in zip(procs, outs)
           if p.returncode != 0]
    assert not bad, bad[:3]
    return d, {str(p.pid) for p in procs}, elapsed


def test_64_processes_16_threads_every_dump_whole(load_run):
    d, pids, elapsed = load_run
    ds = [whole(os.path.join(d, n)) for n in sorted(os.listdir(d))
          if not n.startswith(".")]
    assert [n for n in os.listdir(d) if n.startswith(".")] == []
    assert len({x.header["meta.process.pid"] for x in ds
                if x.header["meta.process.forked"] == "0"}) == PROCS
    print("load: %d processes x %d threads, %d dumps in %.1f s"
          % (PROCS, THREADS, len(ds), elapsed))


def test_64_processes_16_threads_every_count_adds_up(load_run):
    d, pids, elapsed = load_run
    ds = [Dump(os.path.join(d, n)) for n in sorted(os.listdir(d))
          if not n.startswith(".")]
    parents = [x for x in ds if x.header["meta.process.pid"] in pids]
    children = [x for x in ds if x.header["meta.process.forked"] == "1"]
    assert len(parents) + len(children) == len(ds)
    # Each thread's measure() calls, wherever dumps cut them.
    for pid in pids:
        mine = [x for x in parents if x.header["meta.process.pid"] == pid]
        assert sum(x.counts.get("MATCH_CLASS", 0) for x in mine) \
            == THREADS * ROUNDS * K, pid
        assert sum(x.counts.get("RESUME", 0) for x in mine) \
            == THREADS * ROUNDS, pid
        kids = [x for x in children if x.header["meta.process.ppid"] == pid]
        assert len(kids) == FORKS_PER_PROC, pid
        assert [x.counts["MATCH_CLASS"] for x in kids] \
            == [FORK_K] * FORKS_PER_PROC
        assert {x.header["meta.dump.reason"] for x in kids} == {"os._exit"}
    assert sum(x.counts.get("MATCH_CLASS", 0) for x in ds) \
        == PROCS * (THREADS * ROUNDS * K + FORKS_PER_PROC * FORK_K)


def test_64_processes_16_threads_pairs_consistent_in_every_dump(load_run):
    d, pids, elapsed = load_run
    for n in sorted(os.listdir(d)):
        if n.startswith("."):
            continue
        x = Dump(os.path.join(d, n))
        into, out = {}, {}
        for (a, b), v in x.pairs.items():
            out[a] = out.get(a, 0) + v
            into[b] = into.get(b, 0) + v
        assert sum(x.pairs.values()) < sum(x.counts.values()), n
        assert all(v <= x.counts.get(a, 0) for a, v in out.items()), n
        assert all(v <= x.counts.get(b, 0) for b, v in into.items()), n
    report = run_check(d)
    if report is not None:
        assert report["counts"]["error"] == 0, report["findings"]


@pytest.fixture(scope="module")
def killed_run(tmp_path_factory):
    """Processes dumping from 4 threads each, SIGKILLed at random times."""
    d = str(tmp_path_factory.mktemp("killed") / "stats")
    env = clean_env(PYSTATS_DIR=d)
    rng = random.Random(6)
    n = 32
    procs = [subprocess.Popen([sys.executable, "-c", DUMPER], env=env,
                              stdout=subprocess.PIPE, text=True)
             for _ in range(n)]
    try:
        for p in procs:
            assert p.stdout.readline() == "ready\n"
        deadline = time.monotonic()
        for p in procs:
            deadline += rng.uniform(0.01, 0.06)
            time.sleep(max(0.0, deadline - time.monotonic()))
            p.send_signal(signal.SIGKILL)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait(timeout=60)
            p.stdout.close()
    assert all(p.returncode == -signal.SIGKILL for p in procs)
    return d, n


def test_processes_killed_mid_dump_leave_only_whole_dumps(killed_run):
    d, n = killed_run
    names = os.listdir(d)
    files = [x for x in names if not x.startswith(".")]
    cut = [x for x in names if x.startswith(".")]
    assert len(files) > n, "the processes wrote too few dumps to mean much"
    for x in files:
        dump = whole(os.path.join(d, x))
        assert dump.counts, x
        assert dump.header["meta.dump.reason"] == "explicit"
    # Temporaries of the dumps the kills cut short stay hidden; readers
    # never see them.
    print("kill: %d processes killed, %d whole dumps, %d cut-short "
          "temporaries left hidden" % (n, len(files), len(cut)))


def test_processes_killed_mid_dump_check_finds_no_error(killed_run):
    d = killed_run[0]
    report = run_check(d)
    if report is not None:
        assert report["counts"]["error"] == 0, report["findings"]
        # The cut-short temporaries, exactly, are reported (a warning).
        cut = sorted(n for n in os.listdir(d) if n.startswith("."))
        named = sorted(os.path.basename(p) for f in report["findings"]
                       if f["check"] == "cut-short-temporaries"
                       for p in f["files"])
        assert named == cut
