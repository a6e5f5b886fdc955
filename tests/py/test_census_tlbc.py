"""The census on a free-threaded build (3.14t) reads every thread's copy
of the bytecode (docs/FORMAT.md 1.10, "On 3.14t").

Each thread runs its own copy of a code object's specialized bytecode
(co_tlbc; entry 0 is co_code_adaptive, the main thread's), specialized
on its own.  The census merges the copies site by site: a site counts
once; its state is the most advanced any copy has (specialized >
backing off > never tried), its form or failed attempts those of the
lowest-numbered copy in that state.  PYTHON_TLBC=0 gives every thread
entry 0 and turns specialization off (its counters are CPython's
"unreachable" counter): every adaptive site is then never tried.

The expected states are read in the child by Python itself, from each
copy as the thread that ran it sees it: _testinternalcapi.get_tlbc()
called in that thread (dis.get_instructions(adaptive=True) reads
co_code_adaptive, entry 0, whichever thread calls it), decoded with
dis's and opcode's tables, and merged by the rule above; they are
compared with the census of each function (_census_code) and with the
site rows of the dump (mode count, 1.18).  Threads are started with
_thread.start_joinable_thread: the thread state, so the copy's
index, is made by the thread that starts it, in that order, and
released before join() returns."""
import json
import sys
import sysconfig

import pytest

from conftest import clean_env, decode_text, dumps_in, run_python

FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
pytestmark = pytest.mark.skipif(
    not FREE_THREADED or sys.version_info < (3, 14),
    reason="thread-local bytecode: a free-threaded 3.14+ build only")

CHILD = r'''
import _thread, dis, json, opcode, sys
import _testinternalcapi
import pystats
from pystats import _census, _collector

mode, out_path = sys.argv[1], sys.argv[2]
EXCLUDED = {"FOR_ITER", "RESUME"} if mode == "count" else set()


# ---- Python's own reading of one copy of the bytecode ----------------------

def _families():
    fam = {}
    for base, forms in opcode._specializations.items():
        if base == "JUMP_BACKWARD":     # 3.14: the JIT's counter, no site
            continue
        fam[base] = base
        for form in forms:
            fam[form] = base
    return fam


FAM = _families()


def _caches(name):
    return opcode._inline_cache_entries.get(name, 0)


def read_copy(raw):
    """{offset: (family, state, detail, counter)} of one copy."""
    sites, i = {}, 0
    while i < len(raw) // 2:
        name = dis._all_opname[raw[2 * i]]
        under = name[len("INSTRUMENTED_"):] if name.startswith(
            "INSTRUMENTED_") else name
        fam = FAM.get(under)
        base = fam or under
        if fam is not None:
            counter = (raw[2 * i + 2] | raw[2 * i + 3] << 8
                       if _caches(fam) else 0)
            if fam in EXCLUDED:
                st, detail = "excluded", ""
            elif under != fam:
                st, detail = "specialized", under
            elif not _caches(fam):
                st, detail = "plain", ""
            elif counter & 15 == 15:    # unreachable: specialization off
                st, detail = "never_tried", ""
            elif counter & 15 > 1:      # warm-up exponent 1 (3.12+)
                st, detail = "backing_off", (counter & 15) - 1
            else:
                st, detail = "never_tried", ""
            sites[2 * i] = (fam, st, detail, counter)
        i += 1 + (_caches(base) if base in opcode.opmap else 0)
    return sites


RANK = {"plain": 0, "never_tried": 1, "backing_off": 2, "specialized": 3}


def merge(copies):
    """The rule: copies in copy order, entry 0 first."""
    out = {}
    for off, first in copies[0].items():
        best = first
        if first[1] != "excluded":
            for c in copies[1:]:
                if RANK[c[off][1]] > RANK[best[1]]:
                    best = c[off]
        out[off] = best
    return out


def totals(merged):
    fams = {}
    for fam, st, detail, counter in merged.values():
        if st == "excluded":
            continue
        f = fams.setdefault(fam, {
            "sites": 0, "specialized": 0, "backing_off": 0,
            "failed_attempts": 0, "never_tried": 0, "forms": {}})
        f["sites"] += 1
        if st == "specialized":
            f["specialized"] += 1
            f["forms"][detail] = f["forms"].get(detail, 0) + 1
        elif st == "backing_off":
            f["backing_off"] += 1
            f["failed_attempts"] += detail
        elif st == "never_tried":
            f["never_tried"] += 1
    return fams


# ---- the work ---------------------------------------------------------------

class Plain:
    def __init__(self):
        self.x = 1
        self.y = 1


class Slotted:
    __slots__ = ("x",)

    def __init__(self):
        self.x = 2


class Lazy(complex):        # 3.14: a C type's getset descriptor fails
    y = complex.real


def worker_only(objs):
    t = 0
    for o in objs:
        t += o.x
    return t


def main_specialized(objs):
    t = 0
    for o in objs:
        t += o.x
    return t


def worker_failing(objs):
    t = 0
    for o in objs:
        t += o.y
    return t


def failing_and_specialized(objs):
    t = 0
    for o in objs:
        t += o.y
    return t


def slot_first(objs):
    t = 0
    for o in objs:
        t += o.x
    return t


def instance_first(objs):
    t = 0
    for o in objs:
        t += o.x
    return t


FUNCS = [worker_only, main_specialized, worker_failing,
         failing_and_specialized, slot_first, instance_first]
copies = {f.__name__: [] for f in FUNCS}    # each thread's, in copy order
dis_in_thread = {}      # what dis shows in the thread that ran the code


def start(runs, hold=None):
    """A thread running fn(arg) for each (fn, arg) of runs, then reading
    its copies; it waits for hold (if any) before it ends, so that a
    thread started meanwhile gets another copy.  Returns its handle once
    its copies are read: join() returns once its thread state, and so
    its copy's index, is released."""
    ran = _thread.allocate_lock()
    ran.acquire()

    def body():
        try:
            for fn, arg in runs:
                fn(arg)
            for fn, arg in runs:
                copies[fn.__name__].append(
                    (_testinternalcapi.get_tlbc_id(fn),
                     _testinternalcapi.get_tlbc(fn)))
                # (Not over segment counting's INSTRUMENTED_ opcodes,
                # which dis's adaptive reading cannot place labels in.)
                if mode != "count":
                    dis_in_thread.setdefault(fn.__name__, [
                        i.opname
                        for i in dis.get_instructions(fn, adaptive=True)
                        if FAM.get(i.opname) == "LOAD_ATTR"])
        finally:
            ran.release()
            if hold is not None:
                hold.acquire()

    handle = _thread.start_joinable_thread(body)
    ran.acquire()
    return handle


plain = [Plain() for _ in range(200)]
_census.setup()
if mode != "none":
    pystats.on(mode=mode)

# Run in a worker thread only: the main copy never ran.
start([(worker_only, plain)]).join()
# Specialized in the main copy; a worker's copy ran once: never tried.
main_specialized(plain)
start([(main_specialized, plain[:1])]).join()
# Failing in a worker only.
start([(worker_failing, [Lazy() for _ in range(300)])]).join()
# Failing in a worker, specialized in the main copy.
failing_and_specialized(plain)
start([(failing_and_specialized, [Lazy() for _ in range(300)])]).join()
# Two threads alive at once, two copies specialized to different forms:
# the first started (the lower copy) gives the form.
slotted = [Slotted() for _ in range(200)]
hold = _thread.allocate_lock()
hold.acquire()
first = start([(slot_first, slotted), (instance_first, plain)], hold)
start([(slot_first, plain), (instance_first, slotted)]).join()
hold.release()
first.join()

if mode != "none":
    pystats.off()

out = {"functions": {}}
for fn in FUNCS:
    code = fn.__code__
    main_copy = code._co_code_adaptive
    assert _testinternalcapi.get_tlbc(fn) == main_copy     # entry 0
    main_id = _testinternalcapi.get_tlbc_id(fn)
    ids = [i for i, _ in copies[fn.__name__]]
    # PYTHON_TLBC=0: a worker ran entry 0 itself, read above.
    others = [(i, c) for i, c in copies[fn.__name__] if i != main_id]
    assert len({i for i, _ in others}) == len(others)
    readings = [read_copy(main_copy)] + [read_copy(c) for _, c in others]
    merged = merge(readings)
    _collector._census_begin("count" if mode == "count" else "census")
    sites = []
    _collector._census_code(code, sites)
    got = _collector._census_totals()
    out["functions"][fn.__name__] = {
        "key": "%s:%d:%s" % (code.co_filename, code.co_firstlineno,
                             code.co_qualname),
        "copies": [{str(o): list(s) for o, s in r.items()}
                   for r in readings],
        "same_copy": [i == main_id for i in ids],
        "dis_in_thread": dis_in_thread.get(fn.__name__),
        "want": totals(merged),
        "want_rows": {str(o): [s[0], s[1], str(s[2])]
                      for o, s in merged.items() if s[1] != "plain"},
        "want_sites": [[o, s[0], s[2], s[3] >> 4]
                       for o, s in sorted(merged.items())
                       if s[1] == "backing_off"],
        "got": got["families"],
        "got_sites": [list(s) for s in sites],
        "code_objects": got["code_objects"],
        "hidden": got["instrumented_code_objects"],
    }
with open(out_path, "w") as f:
    json.dump(out, f)
if mode != "none":
    assert pystats.dump()
'''


def site_rows(dump):
    """{decoded key: {offset: [FAMILY, STATE, DETAIL]}} of the dump."""
    out = {}
    for k, v in dump.extra.items():
        if k.startswith("code[") and "].site[" in k:
            key, off = k[len("code["):-1].rsplit("].site[", 1)
            f, line, qual = key.split(":")[:3]  # generated code: 5 parts
            out.setdefault("%s:%s:%s" % (decode_text(f), line,
                                         decode_text(qual)),
                           {})[off] = v.split(" | ")[:3]
    return out


def run(tmp_path, tlbc, mode):
    pytest.importorskip("_testinternalcapi")
    d = str(tmp_path / "stats")
    out = tmp_path / "out.json"
    run_python(CHILD, args=[mode, str(out)],
               env=clean_env(PYSTATS_DIR=d, PYTHON_TLBC=tlbc))
    with open(out) as f:
        r = json.load(f)
    return r["functions"], dumps_in(d)


def state(copy, fam):
    """The states of family fam's sites in one copy's reading."""
    return [s[1:3] for s in copy.values() if s[0] == fam]


NO_FAILURE = {"specialized": 1, "backing_off": 0, "failed_attempts": 0,
              "never_tried": 0}


@pytest.mark.parametrize("mode", ["count", "census", "none"])
@pytest.mark.parametrize("tlbc", ["1", "0"])
def test_every_copy_is_read(tmp_path, tlbc, mode):
    fns, dumps = run(tmp_path, tlbc, mode)
    for name, f in fns.items():
        assert f["code_objects"] == 1 and f["hidden"] == 0, name
        # Python's reading of the copies, merged, is the census.
        assert f["got"] == f["want"], name
        assert f["got_sites"] == f["want_sites"], name
        # One site per attribute load, whatever the number of copies.
        assert f["got"]["LOAD_ATTR"]["sites"] == 1, name
    la = {name: f["got"]["LOAD_ATTR"] for name, f in fns.items()}
    ncopies = {name: len(f["copies"]) for name, f in fns.items()}
    if tlbc == "0":
        # One copy, shared, and no specialization: counters unreachable,
        # every adaptive site never tried (not backing off).
        assert set(ncopies.values()) == {1}
        assert all(all(f["same_copy"]) for f in fns.values())
        for name, f in fns.items():
            assert la[name] == {"sites": 1, "specialized": 0,
                                "backing_off": 0, "failed_attempts": 0,
                                "never_tried": 1, "forms": {}}, name
            assert f["got_sites"] == []
            assert not [s for s in f["copies"][0].values()
                        if s[1] == "backing_off"]
            assert [s[3] & 15 for s in f["copies"][0].values()
                    if s[0] == "LOAD_ATTR"] == [15]
    else:
        assert ncopies == {"worker_only": 2, "main_specialized": 2,
                           "worker_failing": 2, "failing_and_specialized": 2,
                           "slot_first": 3, "instance_first": 3}
        assert not any(any(f["same_copy"]) for f in fns.values())
        c = {name: f["copies"] for name, f in fns.items()}
        # Never run in the main thread: only the worker's copy says the
        # site specialized.
        assert state(c["worker_only"][0], "LOAD_ATTR") == [["never_tried", ""]]
        assert state(c["worker_only"][1], "LOAD_ATTR") == \
            [["specialized", "LOAD_ATTR_INSTANCE_VALUE"]]
        assert la["worker_only"] == dict(
            NO_FAILURE, sites=1, forms={"LOAD_ATTR_INSTANCE_VALUE": 1})
        # dis, called in that worker, read copy 0 all the same.
        if mode != "count":
            assert fns["worker_only"]["dis_in_thread"] == ["LOAD_ATTR"]
        # The main copy specialized, the worker's not yet tried.
        assert state(c["main_specialized"][1], "LOAD_ATTR") == \
            [["never_tried", ""]]
        assert la["main_specialized"] == dict(
            NO_FAILURE, sites=1, forms={"LOAD_ATTR_INSTANCE_VALUE": 1})
        # Failing in the worker's copy only: its failures.
        assert state(c["worker_failing"][1], "LOAD_ATTR") == \
            [["backing_off", 7]]
        assert la["worker_failing"] == {
            "sites": 1, "specialized": 0, "backing_off": 1,
            "failed_attempts": 7, "never_tried": 0, "forms": {}}
        [(_, fam, attempts, value)] = fns["worker_failing"]["got_sites"]
        assert (fam, attempts, value) == ("LOAD_ATTR", 7, 202)
        # Failing in a worker, specialized in the main copy: specialized,
        # and no failed attempts (they are the specialized copy's).
        assert state(c["failing_and_specialized"][1], "LOAD_ATTR") == \
            [["backing_off", 7]]
        assert la["failing_and_specialized"] == dict(
            NO_FAILURE, sites=1, forms={"LOAD_ATTR_INSTANCE_VALUE": 1})
        # Two copies specialized differently: the lower copy's form.
        assert la["slot_first"]["forms"] == {"LOAD_ATTR_SLOT": 1}
        assert la["instance_first"]["forms"] == {"LOAD_ATTR_INSTANCE_VALUE": 1}
        assert state(c["slot_first"][2], "LOAD_ATTR") == \
            [["specialized", "LOAD_ATTR_INSTANCE_VALUE"]]
        # Other families too: BINARY_OP (t += ...) of the worker's copy.
        assert fns["worker_only"]["got"]["BINARY_OP"]["forms"] == \
            {"BINARY_OP_ADD_INT": 1}
    if mode == "none":
        assert dumps == []
        return
    [dump] = dumps
    assert dump.header["meta.census.scope"] == mode
    if mode == "count":
        rows = site_rows(dump)
        for name, f in fns.items():
            assert rows[f["key"]] == f["want_rows"], name
        if tlbc == "1":
            [off] = [o for o, r in fns["worker_only"]["want_rows"].items()
                     if r[0] == "LOAD_ATTR"]
            assert rows[fns["worker_only"]["key"]][off] == \
                ["LOAD_ATTR", "specialized", "LOAD_ATTR_INSTANCE_VALUE"]
    failing = [v.split(" | ") for k, v in dump.extra.items()
               if k.startswith("census.site[") and "| worker_failing |" in v]
    if tlbc == "1":
        assert [s[:3] for s in failing] == [["LOAD_ATTR", "7", "202"]]
    else:
        assert failing == []
