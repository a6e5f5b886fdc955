"""Run by test_renames.py under each interpreter: the instructions each
case of corpus.py executes, by name, as `dis` names them (sys.settrace
opcode events, the instruction at f_lasti).  Prints a JSON list of
{name: count}, one per case."""
import dis
import importlib.util
import json
import sys

spec = importlib.util.spec_from_file_location("corpus", sys.argv[1])
corpus = importlib.util.module_from_spec(spec)
spec.loader.exec_module(corpus)
names = {}


def name_at(code, offset):
    t = names.get(code)
    if t is None:
        t = names[code] = {i.offset: i.opname
                           for i in dis.get_instructions(code)}
    return t[offset]


def run(fn, args):
    counts = {}

    def trace(frame, event, arg):
        if frame.f_code.co_filename != corpus.__file__:
            return None
        frame.f_trace_opcodes = True
        if event == "opcode":
            n = name_at(frame.f_code, frame.f_lasti)
            counts[n] = counts.get(n, 0) + 1
        return trace

    sys.settrace(trace)
    try:
        fn(*args)
    finally:
        sys.settrace(None)
    return counts


out = []
for fn, args in corpus.CASES:
    run(fn, args)  # 3.12 misses events of a code object's first traced run
    out.append(run(fn, args))
print(json.dumps(out))
