"""One benchmark run with threads: `python threads_workload.py MODE KIND
N THREADS`.

THREADS threads (started with _thread, each waited for with a lock it
releases: no threading module, whose join loops depend on scheduling)
each run KIND(N), the loops of overhead_workload.py (tight, attrs, gen),
all at once.  MODE: plain (nothing on), or one of the collector's modes
(count, noop-quiet, ...), a pystats.on()/off() window around the
threads.  Importing the collector enables the GIL on a free-threaded
build (docs/COLLECTING.md, 3.14t), plain included; with PYTHON_GIL=0 the GIL stays
off, and mode instructions counts the threads in parallel (the segment
modes are refused there).  Prints the wall time of the threads, from
the first start to the last release, in seconds.
"""
import _thread
import gc
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pystats  # noqa: E402
from overhead_workload import attrs, gen, tight  # noqa: E402


def run(fn, n, threads):
    def worker(lock):
        try:
            fn(n)
        finally:
            lock.release()

    locks = []
    t0 = time.perf_counter()
    for _ in range(threads):
        lock = _thread.allocate_lock()
        lock.acquire()
        _thread.start_new_thread(worker, (lock,))
        locks.append(lock)
    for lock in locks:
        lock.acquire()
    return time.perf_counter() - t0


def main():
    mode, kind, n, threads = (sys.argv[1], sys.argv[2], int(sys.argv[3]),
                              int(sys.argv[4]))
    fn = {"tight": tight, "attrs": attrs, "gen": gen}[kind]
    gc.disable()
    if mode == "plain":
        wall = run(fn, n, threads)
    else:
        pystats.on(mode=mode, census=False)
        wall = run(fn, n, threads)
        pystats.off()
        pystats.clear()
    print("%.6f" % wall)


if __name__ == "__main__":
    main()
