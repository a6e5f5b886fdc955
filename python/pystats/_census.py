"""The specialization census: reach every live code object and let the
collector read the state of its specializable instruction sites.

Code objects are not tracked by the garbage collector, so they are
reached through what holds them: functions, generators, coroutines and
async generators (gc.get_objects()), the frames running in every thread,
module code seen by an audit hook ("exec"), and, recursively, the code
objects in co_consts.  On 3.12+ the collector also records code objects
as they are destroyed (a code watcher).  See docs/FORMAT.md, "Census".
"""
import atexit
import dis
import gc
import linecache
import opcode
import os
import sys
import sysconfig
import types

from . import _collector

# Kinds of opcode, as src/ext/census.h numbers them.
NONE, BASE, SPECIALIZED, ADAPTIVE, PLAIN, INSTRUMENTED = range(6)
MAX_SITES = 500          # sites reported one by one
MAX_MODULE_CODES = 20000

_ready = False
_module_codes = []


def _cache_entries():
    ice = opcode._inline_cache_entries
    if isinstance(ice, dict):                     # 3.13: by name
        return {opcode.opmap[n]: k for n, k in ice.items() if n in opcode.opmap}
    return {op: k for op, k in enumerate(ice) if k}


def tables():
    """(names, kind, base, caches): 256 entries each, for this interpreter."""
    names = list(dis._all_opname)[:256]
    names += ["<%d>" % i for i in range(len(names), 256)]
    base = [dis._deoptop(op) if op < 256 else op for op in range(256)]
    base = [b if b < 256 else op for op, b in enumerate(base)]
    ice = _cache_entries()
    caches = [ice.get(base[op], 0) for op in range(256)]
    kind = [NONE] * 256
    families = opcode._specializations
    for fam, forms in families.items():
        fop = dis._all_opmap[fam]
        kind[fop] = BASE if ice.get(fop, 0) else PLAIN
        for form in forms:
            op = dis._all_opmap.get(form)
            if op is None or op >= 256:
                continue
            kind[op] = ADAPTIVE if form.endswith("_ADAPTIVE") else SPECIALIZED
            base[op] = fop
    for op, name in enumerate(names):
        if name.startswith("INSTRUMENTED_"):
            kind[op] = INSTRUMENTED
    return names, bytes(kind), bytes(base), bytes(caches)


def _audit(event, args):
    if event == "exec" and _ready and len(_module_codes) < MAX_MODULE_CODES:
        code = args[0] if args else None
        if isinstance(code, types.CodeType):
            _module_codes.append(code)


def setup():
    """Called by on(mode='census'): tables, hooks.  Idempotent."""
    global _ready
    if _ready:
        return
    _collector._census_tables(*tables())
    sys.addaudithook(_audit)
    # atexit runs before the collector's exit dump (written from
    # Py_AtExit, when no Python code can run any more): take the census
    # there, as late as Python code can.
    atexit.register(take)
    _ready = True


def live_code_objects():
    seen = {}
    stack = []

    def add(co):
        if id(co) not in seen:
            seen[id(co)] = co
            stack.append(co)

    for obj in gc.get_objects():
        t = type(obj)
        if t is types.FunctionType:
            add(obj.__code__)
        elif t is types.GeneratorType:
            add(obj.gi_code)
        elif t is types.CoroutineType:
            add(obj.cr_code)
        elif t is types.AsyncGeneratorType:
            add(obj.ag_code)
        elif t is types.CodeType:
            add(obj)
    for frame in sys._current_frames().values():
        while frame is not None:
            add(frame.f_code)
            frame = frame.f_back
    for co in _module_codes:
        add(co)
    while stack:
        for c in stack.pop().co_consts:
            if isinstance(c, types.CodeType):
                add(c)
    return list(seen.values())


def _library_dirs():
    paths = sysconfig.get_paths()
    dirs = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")
            if k in paths}
    dirs.add(os.path.dirname(os.path.abspath(__file__)))
    return tuple(os.path.join(d, "") for d in dirs)


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


def site_lines(found):
    """found: [(code, offset, family, attempts, counter value)]: dump
    lines for the sites that failed to specialize, most attempts first."""
    found.sort(key=lambda s: (-s[3], s[0].co_filename, s[1]))
    lines = []
    for i, (co, offset, fam, attempts, value) in enumerate(found[:MAX_SITES]):
        line = _line_of(co, offset)
        src = linecache.getline(co.co_filename, line).strip() if line else ""
        fields = [fam, str(attempts), str(value), co.co_filename,
                  str(line or 0), co.co_qualname, src]
        text = " | ".join(f.replace("\n", " ").replace("\r", " ")
                          for f in fields)
        lines.append("census.site[%d] : %s\n" % (i, text))
    return "".join(lines)


def take():
    """Walk the live code objects now; the next dump writes the result."""
    if not _ready or not _collector._state()["census_wanted"]:
        return
    libs = _library_dirs()
    _collector._census_begin()
    found = []
    for co in live_code_objects():
        sites = [] if is_user_code(co, libs) else None
        _collector._census_code(co, sites)
        if sites:
            found.extend((co,) + s for s in sites)
    _collector._census_sites(site_lines(found))
