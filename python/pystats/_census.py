"""The specialization census: reach every live code object and let the
collector read the state of its specializable instruction sites.

Code objects are not tracked by the garbage collector, so they are
reached through what holds them: functions, generators, coroutines and
async generators (gc.get_objects()), the frames running in every thread,
module code seen by the collector's audit hook ("exec"), and,
recursively, the code objects in co_consts.  On 3.12+ the collector also
records code objects as they are destroyed (a code watcher).  See
docs/FORMAT.md, "Census".

The census is taken in mode "census", and alongside counting in mode
"count" on 3.12+ ("count scope").  In a count window this module's code
must leave no trace in the counts: the collector runs take() with the
thread's monitoring events suspended, and nothing here leaves a module
imported that the program might import later (no dis, no linecache;
atexit imported and forgotten; gc is imported by the window itself), so
the program runs the same code with and without the census.

Everything a census needs is imported, and the library directories
read, at setup: the census at exit runs whatever the program did to the
import system by then (builtins.__import__ replaced, sys.path emptied),
and the collector holds this module from setup on.

A census may run short of memory (a MemoryError then leaves it out, and
the dump says so): what take() runs makes no function objects (no
lambda, generator expression or, on 3.11, comprehension), since
CPython 3.12 and 3.13 free the code object of a function whose making
failed for memory one reference too early (CPython gh-122752), which
crashes the process later.
"""
import gc
import opcode
import os
import sys
import sysconfig

from . import _collector

# Kinds of opcode, as src/ext/census_read.h numbers them.
NONE, BASE, SPECIALIZED, ADAPTIVE, PLAIN, INSTRUMENTED, SEGMENT = range(7)
MAX_SITES = 500          # sites reported one by one

# Which instructions a sys.monitoring event instruments: their opcode
# becomes INSTRUMENTED_<base> (CPython's EVENT_FOR_OPCODE table in
# Python/instrumentation.c, 3.12-3.14; BRANCH_LEFT and BRANCH_RIGHT are
# 3.14's halves of BRANCH).  Events missing here
# (PY_THROW, PY_UNWIND, RAISE, RERAISE, EXCEPTION_HANDLED) instrument
# nothing; LINE and INSTRUCTION replace the opcode with INSTRUMENTED_LINE
# / INSTRUMENTED_INSTRUCTION, which hide it and are never tolerated.
_CALLS = ("CALL", "CALL_KW", "CALL_FUNCTION_EX", "LOAD_SUPER_ATTR")
EVENT_OPCODES = {
    "PY_START": ("RESUME",),
    "PY_RESUME": ("RESUME",),
    "PY_RETURN": ("RETURN_VALUE", "RETURN_CONST"),
    "PY_YIELD": ("YIELD_VALUE",),
    "CALL": _CALLS,
    "C_RETURN": _CALLS,
    "C_RAISE": _CALLS,
    "JUMP": ("JUMP_FORWARD", "JUMP_BACKWARD"),
    "BRANCH": ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE",
               "POP_JUMP_IF_NOT_NONE", "FOR_ITER"),
    "BRANCH_LEFT": ("FOR_ITER", "NOT_TAKEN"),
    "BRANCH_RIGHT": ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE",
                     "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE", "POP_ITER",
                     "END_ASYNC_FOR"),
    "STOP_ITERATION": ("END_FOR", "END_SEND"),
}

# Families whose inline cache holds no specialization state, so no site:
# 3.14's JUMP_BACKWARD specializes once, to JUMP_BACKWARD_NO_JIT or
# JUMP_BACKWARD_JIT, and its counter is the JIT's warm-up counter
# (4095 << 4 | 12 to start with, pycore_backoff.h), not a backoff.
NOT_SITES = {"JUMP_BACKWARD"}

_ready = False
_libs = None             # _library_dirs(), read at setup


def all_opnames():
    """Every opcode's name, specialized forms included: dis._all_opname,
    built from opcode alone (see the module docstring)."""
    names = list(opcode.opname)
    spec = getattr(opcode, "_specialized_opmap", None)
    if spec is not None:                            # 3.13
        for name, op in spec.items():
            names[op] = name
    else:                                           # 3.11, 3.12
        empty = [op for op, n in enumerate(names) if n.startswith("<")]
        for op, name in zip(empty, opcode._specialized_instructions):
            names[op] = name
    names = names[:256]
    return names + ["<%d>" % i for i in range(len(names), 256)]


def _cache_entries(opmap):
    ice = opcode._inline_cache_entries
    if isinstance(ice, dict):                     # 3.13: by name
        return {opmap[n]: k for n, k in ice.items() if n in opmap}
    return {op: k for op, k in enumerate(ice) if k}


def segment_opcodes():
    """Base names of the instructions segment counting instruments."""
    found = set()
    for event in _collector._census_segment_events():
        found.update(EVENT_OPCODES.get(event, ()))
    return found


def tables():
    """(names, kind, base, caches): 256 entries each, for this interpreter.

    base maps a specialized form to its family and INSTRUMENTED_X to X;
    caches is the number of inline cache entries after the opcode, its
    base's (an INSTRUMENTED_ form keeps its base opcode's caches)."""
    names = all_opnames()
    opmap = {}
    for op, name in enumerate(names):
        opmap.setdefault(name, op)
    ice = _cache_entries(opmap)
    base = list(range(256))
    kind = [NONE] * 256
    for fam, forms in opcode._specializations.items():
        fop = opmap[fam]
        site = fam not in NOT_SITES     # else: family and caches, no kind
        if site:
            kind[fop] = BASE if ice.get(fop, 0) else PLAIN
        for form in forms:
            op = opmap.get(form)
            if op is None:
                continue
            if site:
                kind[op] = (ADAPTIVE if form.endswith("_ADAPTIVE")
                            else SPECIALIZED)
            base[op] = fop
    segment = segment_opcodes()
    for op, name in enumerate(names):
        if name.startswith("INSTRUMENTED_"):
            under = name[len("INSTRUMENTED_"):]
            kind[op] = SEGMENT if under in segment else INSTRUMENTED
            if under in opmap:
                base[op] = base[opmap[under]]
    caches = [ice.get(base[op], 0) for op in range(256)]
    return names, bytes(kind), bytes(base), bytes(caches)


def setup():
    """Called by on() when a census is wanted: tables, hooks.  Idempotent."""
    global _ready, _libs
    if _ready:
        return
    _collector._census_tables(*tables())
    _libs = _library_dirs()
    # atexit runs before the collector's exit dump (written from
    # Py_AtExit, when no Python code can run any more): take the census
    # there, as late as Python code can.  A C function, so that calling
    # it is no Python call a count window would see.  The handler lives
    # in the interpreter, not in the module: the module is left as
    # unimported as it was, so that a program importing atexit later
    # runs its import either way.
    had = "atexit" in sys.modules
    import atexit
    atexit.register(_collector._census_take)
    if not had:
        del sys.modules["atexit"]
    # 3.12+: the code objects reachable now; from here on the collector's
    # code watcher keeps the set (no walk at each census).
    if sys.version_info >= (3, 12):
        _seed()
    _ready = True


def _seed():
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        _collector._census_seed(live_code_objects())
    finally:
        if gc_was_on:
            gc.enable()


def census_code_objects(count_scope):
    """The code objects the census reads: those of the collector's
    registry (3.12+), else those a walk of the heap reaches.  In scope
    count only the code some instruction of which was counted in this
    period (_census_ran: not the frames that merely enclose a window)."""
    codes = _collector._census_registry(count_scope)
    if codes is None:
        codes = live_code_objects()
        if count_scope:
            ran = []
            for co in codes:
                if _collector._census_ran(co):
                    ran.append(co)
            codes = ran
        return codes
    # And the code running now, wherever it came from.
    seen = set(map(id, codes))
    for frame in sys._current_frames().values():
        while frame is not None:
            co = frame.f_code
            if id(co) not in seen and (not count_scope or
                                       _collector._census_ran(co)):
                seen.add(id(co))
                codes.append(co)
            frame = frame.f_back
    return codes


def live_code_objects():
    roots = gc.get_objects()
    for frame in sys._current_frames().values():
        while frame is not None:
            roots.append(frame.f_code)
            frame = frame.f_back
    roots += _collector._census_module_codes()
    # Functions, generators, coroutines, async generators and code
    # objects among them, and the code in their co_consts: in C.
    return _collector._census_gather(roots)


def _library_dirs():
    paths = sysconfig.get_paths()
    dirs = set()
    for k in ("stdlib", "platstdlib", "purelib", "platlib"):
        if k in paths:
            dirs.add(os.path.join(paths[k], ""))
    dirs.add(os.path.join(os.path.dirname(os.path.abspath(__file__)), ""))
    return tuple(dirs)


def is_user_code(co, libs):
    f = co.co_filename
    if f.startswith("<frozen") or not f:
        return False
    return not os.path.abspath(f).startswith(libs) if not f.startswith("<") \
        else True


def _line_of(co, offset):
    for i, pos in enumerate(co.co_positions()):
        if i == offset // 2:
            return pos[0]
    return None


def _source_line(filename, line, files):
    """Line `line` of `filename`, stripped; '' if it cannot be read.
    linecache if the program has imported it (it knows the sources of
    <string>s some tools register), else the file itself, read once."""
    lc = sys.modules.get("linecache")
    if lc is not None:
        try:
            return lc.getline(filename, line).strip()
        except MemoryError:  # the census is left out, not cut
            raise
        except Exception:   # a name os.stat refuses (NUL), a loader's error
            return ""
    lines = files.get(filename)
    if lines is None:
        lines = []
        if not filename.startswith("<") and "\0" not in filename:
            try:
                with open(filename, "rb") as f:
                    text = f.read().decode("utf-8", "replace")
                # Lines as Python numbers them (universal newlines, as
                # linecache reads them), not str.splitlines, which also
                # breaks at form feeds, U+2028 and others.
                lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            except (OSError, ValueError):
                pass
        files[filename] = lines
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def _file_lines(filename, files):
    """The lines of `filename` as Python numbers them (a line end kept
    or not), or []: linecache if the program has imported it, else the file
    itself (UTF-8, undecodable bytes replaced), read once."""
    lines = files.get(filename)
    if lines is not None:
        return lines
    lc = sys.modules.get("linecache")
    lines = []
    if lc is not None:
        try:
            lines = lc.getlines(filename)    # each line with its "\n"
        except MemoryError:  # the census is left out, not cut
            raise
        except Exception:   # a name os.stat refuses (NUL), a loader's error
            lines = []
    elif not filename.startswith("<") and "\0" not in filename:
        try:
            with open(filename, "rb") as f:
                text = f.read().decode("utf-8", "replace")
            lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            if lines and lines[-1] == "":
                lines.pop()
        except (OSError, ValueError):
            pass
    files[filename] = lines
    return lines


def source_rows(spans):
    """spans: [(filename, first, last)] of the code that has site rows,
    hottest first: [(filename, n, text)] for each line of each span, once
    per file, files in the order they first appear, lines in order."""
    wanted = {}
    for f, first, last in spans:
        wanted.setdefault(f, set()).update(range(max(first, 1), last + 1))
    rows = []
    files = {}
    for f, numbers in wanted.items():
        lines = _file_lines(f, files)
        for n in sorted(numbers):
            if n > len(lines):
                break
            text = lines[n - 1]
            rows.append((f, n, text[:-1] if text.endswith("\n") else text))
    return rows


def _site_order(s):
    return (-s[3], s[0].co_filename, s[1])


def site_rows(found):
    """found: [(code, offset, family, attempts, counter value)]: the rows
    of the sites that failed to specialize, most attempts first, as the
    collector writes them (census.site[I], in its text encoding)."""
    found.sort(key=_site_order)
    rows = []
    files = {}
    for co, offset, fam, attempts, value in found[:MAX_SITES]:
        line = _line_of(co, offset)
        src = _source_line(co.co_filename, line, files) if line else ""
        rows.append((fam, attempts, value, co.co_filename, line or 0,
                     co.co_qualname, src))
    return rows


def take(scope=None):
    """Walk the live code objects now; the next dump writes the result.

    scope None: called by the collector (pc_census_take), in the scope
    the dump period wants, if any.  "count" or "census": now, in that
    scope, whatever the period wants: the pyperf hook takes one in scope
    "count" at its teardown, after measure() calls whose segment events
    instrumented (and so reset) the families that scope leaves out."""
    if scope is None:
        if not _ready or _collector._state()["census_scope"] is None:
            return
    else:
        setup()
    # No collection while walking: the cyclic GC would run the program's
    # finalizers here, outside the program's own flow.
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        libs = _libs if _libs is not None else _library_dirs()
        user = {}
        _collector._census_begin(scope)
        count_scope = _collector._census_totals()["scope"] == "count"
        if count_scope:
            # The hot-code records' instructions up to now: the rows are
            # of the code that ran, hottest first (1.18).
            _collector._census_fold()
        found = []
        codes = census_code_objects(count_scope)
        for co in codes:
            f = co.co_filename
            mine = user.get(f)
            if mine is None:
                mine = user[f] = is_user_code(co, libs)
            sites = [] if mine else None
            _collector._census_code(co, sites)
            for s in sites or ():
                found.append((co,) + s)
        if count_scope:
            spans = _collector._census_site_select(codes)
            _collector._census_source(source_rows(spans))
        _collector._census_sites(site_rows(found))
    finally:
        if gc_was_on:
            gc.enable()
