"""What one sys.monitoring.DISABLE costs, CPython's side alone (no
collector): `python ft_disable.py [--threads T] [--functions F]
[--jumps J] [--reps R] [--only disable|none]`.

F freshly compiled functions of J-1 JUMP_FORWARDs each (an if/else
taken J times) get the JUMP event as a local event of a pure-Python
tool (sys.monitoring.set_local_events, so that nothing else fires it).
Pass 1 calls each function once: every jump fires JUMP once.  Variant
"disable" returns sys.monitoring.DISABLE from the callback (what mode
count does with a quiet jump: on a free-threaded build CPython stops the
world for each one), variant "none" returns None (the same callbacks,
nothing removed).  Pass 2 calls them again (no event after a disable).
T-1 other threads loop in Python code all along (their code has no
event).  Per DISABLE: (pass 1 disable - pass 1 none) / the disables;
also the cost of set_local_events per code object (one stop of the
world each on a free-threaded build: what disabling ahead of time, per
code object, would cost).  Medians over R repetitions, printed as one
JSON object.  --only runs one variant's pass 1 alone, once, and prints
nothing: under callgrind, the instructions of one DISABLE are
(disable(F2) - disable(F1) - none(F2) + none(F1)) / ((F2 - F1) (J - 1)).
"""
import argparse
import json
import statistics
import sys
import threading
import time
import types

MON = sys.monitoring
TOOL = 4
JUMP = MON.events.JUMP


def make_functions(f, j, tag):
    """f functions of one template's code, each a new code object (its
    own bytecode, never instrumented yet)."""
    body = "".join("    if x:\n        a = %d\n    else:\n        a = -1\n" % i
                   for i in range(j))
    ns = {}
    exec(compile("def f(x):\n%s    return a\n" % body,
                 "<ft_disable %s>" % tag, "exec"), ns)
    code = ns["f"].__code__
    return [types.FunctionType(code.replace(co_name="f%d" % k), ns)
            for k in range(f)]


def one(variant, f, j, tag, later=True):
    fns = make_functions(f, j, tag)
    for fn in fns:              # warm up, no events yet
        fn(1)
        fn(1)
    seen = [0]
    disable = MON.DISABLE

    if variant == "disable":
        def cb(code, src, dst):
            seen[0] += 1
            return disable
    else:
        def cb(code, src, dst):
            seen[0] += 1
    MON.register_callback(TOOL, JUMP, cb)
    t0 = time.perf_counter()
    for fn in fns:
        MON.set_local_events(TOOL, fn.__code__, JUMP)
    t1 = time.perf_counter()
    for fn in fns:
        fn(1)
    t2 = time.perf_counter()
    events1 = seen[0]
    for fn in fns if later else ():
        fn(1)
    t3 = time.perf_counter()
    for fn in fns:
        MON.set_local_events(TOOL, fn.__code__, 0)
    MON.register_callback(TOOL, JUMP, None)
    return {"local": t1 - t0, "first": t2 - t1, "later": t3 - t2,
            "events": events1}


def spin(stop):
    n = 0
    while not stop:
        n += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--functions", type=int, default=200)
    ap.add_argument("--jumps", type=int, default=21)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", choices=("disable", "none"))
    a = ap.parse_args()
    MON.use_tool_id(TOOL, "ft_disable")
    stop = []
    others = [threading.Thread(target=spin, args=(stop,), daemon=True)
              for _ in range(a.threads - 1)]
    for t in others:
        t.start()
    time.sleep(0.05)
    try:
        if a.only:
            one(a.only, a.functions, a.jumps, "only", later=False)
            return
        res = {"disable": [], "none": []}
        for rep in range(a.reps):
            for v in res:
                res[v].append(one(v, a.functions, a.jumps, "%s%d" % (v, rep)))
    finally:
        stop.append(1)
        for t in others:
            t.join()
    med = {v: {k: statistics.median(r[k] for r in rs) for k in rs[0]}
           for v, rs in res.items()}
    d, n = med["disable"], med["none"]
    out = {
        "python": "%d.%d" % sys.version_info[:2],
        "free_threading": not getattr(sys, "_is_gil_enabled", lambda: 1)()
        or bool(__import__("sysconfig").get_config_var("Py_GIL_DISABLED")),
        "gil": getattr(sys, "_is_gil_enabled", lambda: True)(),
        "threads": a.threads, "disables": d["events"],
        "events_none": n["events"],
        "us_per_disable": 1e6 * (d["first"] - n["first"]) / d["events"],
        "us_per_event_none": 1e6 * n["first"] / n["events"],
        "us_first_pass_disable": 1e6 * d["first"],
        "us_first_pass_none": 1e6 * n["first"],
        "us_later_pass_disable": 1e6 * d["later"],
        "us_per_set_local_events": 1e6 * d["local"] / a.functions,
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
