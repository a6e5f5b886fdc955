"""Pure-Python reference collector: the ground truth for instruction counts.

Built on ``sys.settrace`` with ``frame.f_trace_opcodes = True``.  Each
'opcode' event counts one instruction, named ``dis.opname[co_code[f_lasti]]``
(``co_code`` is the base, unspecialised, uninstrumented bytecode, so every
name is a base opcode), on the source line ``co_lines()`` gives for
``f_lasti`` (None where it gives None: exception clean-up code).  RESUME, which no opcode event reports, is added for
a 'call' event whose frame's current instruction is RESUME, unless that call
turns out to be a ``throw()`` (see below).  Pairs are (previous instruction
in the same thread, this instruction); the first instruction a thread runs
in a window has no predecessor.

Facts this relies on, checked by experiment on CPython 3.11.7, 3.12.1,
3.13.0 and 3.14.7 (and asserted in test_reference.py where practical):

* No 'opcode' event ever reports RESUME, on any of the three versions.
  Instructions before RESUME (MAKE_CELL, COPY_FREE_VARS, a generator's
  RETURN_GENERATOR and, on 3.13, the POP_TOP after it) are reported by no
  event at all.
* 'call' for a function start or a generator/coroutine resumption by
  next()/send(): f_lasti is the offset of that RESUME on all versions
  (e.g. 4 for a simple generator on 3.11-3.13: RETURN_GENERATOR, POP_TOP,
  RESUME).
* 'call' for throw() (and close(), which throws GeneratorExit) into a
  suspended generator:
    - 3.11 and 3.12: f_lasti is the YIELD_VALUE it is suspended at, so the
      "current instruction is RESUME" test alone excludes it.
    - 3.13: f_lasti already points at the RESUME *after* the YIELD_VALUE
      (a suspended 3.13 frame always does; the 'return' event of a yield
      also reports that RESUME), so it looks exactly like a send().  It is
      told apart by the next event: a throw's 'call' is immediately
      followed by an 'exception' event in the same frame, before any
      'opcode' event; a send()'s 'call' is followed by the opcode event of
      the instruction after RESUME.  This collector therefore holds the
      RESUME pending at 'call' and settles it at the thread's next event:
      dropped on 'exception' in that frame, counted otherwise.  This rule
      gives the right answer on all three versions.
    - throw() into an unstarted generator: 3.11/3.12 f_lasti 0
      (RETURN_GENERATOR), 3.13 f_lasti 2 (POP_TOP): no RESUME, no opcodes.
    - close() of a generator suspended outside any try: 3.11 reports
      call/exception/return and no instruction; 3.12 runs the implicit
      handler (CALL_INTRINSIC_1, RERAISE are reported); 3.13 takes a fast
      path that reports no event at all; 3.14 takes that fast path only
      when no tool has PY_UNWIND events, which sys.settrace has, so it
      runs (and reports) the handler as 3.12 does.  close() of an unstarted
      generator reports no instruction on any version.
* EXTENDED_ARG:
    - 3.11: an opcode event reports the EXTENDED_ARG, and the instruction
      it prefixes gets NO event (3.11's EXTENDED_ARG dispatches straight
      into the next instruction without tracing it).  That instruction
      executed all the same, so this collector (like the C one) counts
      it right after its EXTENDED_ARG, reading it from co_code.
    - 3.12, 3.13: both the EXTENDED_ARG and the instruction it prefixes
      are reported, each by its own event.
* Other per-version event facts:
    - yield from / await loops: SEND, YIELD_VALUE, RESUME (via 'call'),
      JUMP_BACKWARD_NO_INTERRUPT are all reported as usual; 3.12+ also
      reports END_SEND.
    - 3.12.1: sys.settrace() enables INSTRUCTION events only if some
      frame has *ever* had f_trace_opcodes set to True before that
      settrace() call (an interpreter-wide sticky flag).  Setting it only
      inside the first 'call' event yields no opcode events until the next
      settrace().  start()/measure() therefore set and clear
      f_trace_opcodes on their own frame before calling sys.settrace().
    - 3.13.0: in a 'call' event, setting f_trace_opcodes = True and
      f_trace_lines = False on a frame whose f_trace is still unset (the
      value returned from the 'call' event is stored without instrumenting
      the code) leaves that run of the frame with no opcode events at all;
      later calls of the same code do get them.  (Setting f_trace_opcodes
      alone happens to work.)  Assigning frame.f_trace first makes every
      order work, so the 'call' handler does that.
    - A generator suspended inside a window and resumed after it reports
      nothing (no stale events) on all three versions.
    - Interference from other sys.monitoring tools (3.12, 3.13), e.g. the
      collector under test: once a code object has been opcode-traced,
        * 3.13.0: after another tool has had INSTRUCTION events on it (even
          set and cleared again, even after free_tool_id), opcode tracing
          of that code reports nothing any more: its sys-trace local
          INSTRUCTION event still reads as set, so setting f_trace_opcodes
          does not re-instrument;
        * 3.12.1 and 3.13.0: if another tool has INSTRUCTION events on at
          the same time as opcode tracing, the trace reports nothing for
          that code, then and in every later window;
        * 3.13.0: opcode tracing running on fresh code at the same time
          deprives the other tool of its INSTRUCTION events.
      sys.monitoring.restart_events() at the start of each window repairs
      the first two for windows that do not overlap another tool's
      INSTRUCTION events; on 3.13, turning f_trace_opcodes off and on again
      (once per code object per window) also re-instruments.  So each
      window does both.  Never run this collector while another tool has
      INSTRUCTION events on: the counts of one of them will be wrong.

Scope: start()/stop() trace Python frames *called* while the window is open
(the frame that calls start() is already running and is not traced), in the
calling thread and in threads started meanwhile (via threading.settrace:
such a thread is traced from inside threading's bootstrap, i.e. Thread.run
and what it calls, plus any Python function the bootstrap calls afterwards).
measure() traces only the calling thread, and only fn and what it calls.
Frames of this module are never traced.
"""

import dis
import sys
import threading

__all__ = ["Reference"]

_THIS_FILE = __file__
_OPNAME = dis.opname
_RESUME = dis.opmap["RESUME"]
_EXTENDED_ARG = dis.opmap["EXTENDED_ARG"]
_EXT_ARG_SILENT = sys.version_info < (3, 12)


def _prime_opcode_tracing():
    # 3.12: the interpreter enables opcode events at settrace() only if
    # f_trace_opcodes has been set on some frame before (see above).
    frame = sys._getframe()
    frame.f_trace_opcodes = True
    frame.f_trace_opcodes = False
    # 3.12+: undo what other sys.monitoring tools left behind (see above).
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is not None:
        monitoring.restart_events()


def code_key(code):
    """A code object's key as the collector writes it (docs/FORMAT.md,
    hot code): FILE:LINE:QUALNAME."""
    qual = code.co_qualname
    for c in "]:\n\r":
        qual = qual.replace(c, "_")
    file = code.co_filename.replace("\n", "_").replace("\r", "_")
    return "%s:%d:%s" % (file, code.co_firstlineno, qual)


def line_table(code):
    """{offset: line} of every code unit of code, from co_lines() (line
    None where it gives None)."""
    table = {}
    for start, end, line in code.co_lines():
        for off in range(start, end, 2):
            table[off] = line
    return table


class _ThreadState:
    __slots__ = ("counts", "pairs", "prev", "pending", "pending_lasti",
                 "code_counts", "line_counts")

    def __init__(self):
        self.counts = {}
        self.pairs = {}
        self.code_counts = {}       # code key -> {name: n}
        self.line_counts = {}       # code key -> {line or None: n}
        self.prev = None
        self.pending = None  # frame whose RESUME awaits the next event
        self.pending_lasti = -1     # and where that RESUME is


class Reference:
    """Opcode and opcode-pair counts from sys.settrace opcode events."""

    def __init__(self):
        self._states = []           # every _ThreadState ever created
        self._tls = threading.local()
        self._epoch = 0
        self._active = False
        self._seen = {}             # id -> code set up in this window
        self._old_trace = None
        self._global_fn = self._global
        self._local_fn = self._local
        self._lines = {}            # id -> (code, line_table(code))

    # -- collection -------------------------------------------------------

    def _state(self):
        tls = self._tls
        st = getattr(tls, "state", None)
        if st is None or tls.epoch != self._epoch:
            st = _ThreadState()
            tls.state = st
            tls.epoch = self._epoch
            self._states.append(st)
        return st

    def _line(self, code, offset):
        got = self._lines.get(id(code))
        if got is None or got[0] is not code:
            got = self._lines[id(code)] = (code, line_table(code))
        return got[1].get(offset)

    def _emit(self, st, name, code, offset):
        key = code_key(code)
        per = st.code_counts.setdefault(key, {})
        per[name] = per.get(name, 0) + 1
        line = self._line(code, offset)
        per = st.line_counts.setdefault(key, {})
        per[line] = per.get(line, 0) + 1
        counts = st.counts
        counts[name] = counts.get(name, 0) + 1
        prev = st.prev
        if prev is not None:
            key = (prev, name)
            pairs = st.pairs
            pairs[key] = pairs.get(key, 0) + 1
        st.prev = name

    def _global(self, frame, event, arg):
        if event != "call" or not self._active:
            return None
        code = frame.f_code
        if code.co_filename == _THIS_FILE:
            return None
        st = self._state()
        # f_trace before f_trace_opcodes: needed on 3.13 (see module doc).
        frame.f_trace = self._local_fn
        if id(code) not in self._seen:
            # 3.13: force re-instrumentation once per code per window.
            self._seen[id(code)] = code
            frame.f_trace_opcodes = False
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        if st.pending is not None:
            self._emit(st, "RESUME", st.pending.f_code, st.pending_lasti)
            st.pending = None
        lasti = frame.f_lasti
        co_code = code.co_code
        if 0 <= lasti < len(co_code) and co_code[lasti] == _RESUME:
            st.pending = frame
            st.pending_lasti = lasti
        return self._local_fn

    def _local(self, frame, event, arg):
        if not self._active:
            return None
        st = self._state()
        pending = st.pending
        if event == "opcode":
            if pending is not None:
                st.pending = None
                self._emit(st, "RESUME", pending.f_code, st.pending_lasti)
            code = frame.f_code
            co_code = code.co_code
            i = frame.f_lasti
            op = co_code[i]
            self._emit(st, _OPNAME[op], code, i)
            # 3.11: the instruction an EXTENDED_ARG extends runs without
            # an event of its own; it executed all the same.
            while _EXT_ARG_SILENT and op == _EXTENDED_ARG:
                i += 2
                op = co_code[i]
                self._emit(st, _OPNAME[op], code, i)
        elif pending is not None:
            st.pending = None
            if not (event == "exception" and pending is frame):
                self._emit(st, "RESUME", pending.f_code, st.pending_lasti)
        return self._local_fn

    def _open_window(self):
        self._epoch += 1            # fresh per-thread state: no predecessor
        self._seen = {}
        self._active = True

    def _settle_pending(self):
        for st in self._states:
            if st.pending is not None:
                self._emit(st, "RESUME", st.pending.f_code, st.pending_lasti)
                st.pending = None

    # -- public API -------------------------------------------------------

    def start(self):
        """Trace Python calls made from now on, in this and new threads."""
        if self._active:
            raise RuntimeError("reference collector already started")
        self._old_trace = sys.gettrace()    # put back by stop()
        self._open_window()
        _prime_opcode_tracing()
        threading.settrace(self._global_fn)
        sys.settrace(self._global_fn)      # last: nothing below is traced

    def stop(self):
        """Stop counting (in every thread) and remove the trace hooks."""
        self._active = False
        sys.settrace(self._old_trace)      # first: nothing below is traced
        threading.settrace(None)
        self._seen = {}
        self._settle_pending()

    def measure(self, fn, *args, **kwargs):
        """Call fn(*args, **kwargs) counting exactly its own instructions
        in the calling thread; return its result (or propagate its
        exception)."""
        if self._active:
            raise RuntimeError("reference collector already started")
        old = sys.gettrace()
        self._open_window()
        _prime_opcode_tracing()
        sys.settrace(self._global_fn)
        try:
            return fn(*args, **kwargs)
        finally:
            sys.settrace(old)
            self._active = False
            self._seen = {}
            self._settle_pending()

    def clear(self):
        self._states = []
        self._epoch += 1

    @property
    def counts(self):
        """dict: opcode name -> execution count."""
        total = {}
        for st in list(self._states):
            for name, n in list(st.counts.items()):
                total[name] = total.get(name, 0) + n
        return total

    @property
    def pairs(self):
        """dict: (previous opcode name, opcode name) -> count."""
        total = {}
        for st in list(self._states):
            for key, n in list(st.pairs.items()):
                total[key] = total.get(key, 0) + n
        return total

    @property
    def code_counts(self):
        """dict: code key (see code_key) -> {opcode name: count}."""
        total = {}
        for st in list(self._states):
            for key, per in list(st.code_counts.items()):
                mine = total.setdefault(key, {})
                for name, n in list(per.items()):
                    mine[name] = mine.get(name, 0) + n
        return total

    @property
    def line_counts(self):
        """dict: code key (see code_key) -> {line or None: count}, each
        instruction on the line co_lines() gives for its offset."""
        total = {}
        for st in list(self._states):
            for key, per in list(st.line_counts.items()):
                mine = total.setdefault(key, {})
                for line, n in list(per.items()):
                    mine[line] = mine.get(line, 0) + n
        return total

    @property
    def total(self):
        return sum(self.counts.values())
