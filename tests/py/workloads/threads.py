"""threads: start three threading.Thread workers that do some work, join
them.

Each thread's own instruction sequence is deterministic.  So that the
calling thread's path through threading's start()/join() code is too (it
depends on whether a worker got the GIL first), run() raises the switch
interval for its duration: a worker then runs only once the calling thread
blocks, and runs until it blocks or ends.  Cross-thread interleaving of the
pair sequence is not part of any count (pairs are per thread).
"""

import sys
import threading


def work(k, out):
    acc = 0
    for i in range(200):
        acc += (i * k) % 13
    out[k] = acc


def run():
    out = {}
    old = sys.getswitchinterval()
    sys.setswitchinterval(1.0)
    try:
        threads = [threading.Thread(target=work, args=(k, out)) for k in range(1, 4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    return [out[k] for k in range(1, 4)]
