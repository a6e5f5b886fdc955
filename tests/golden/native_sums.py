"""Every figure of raw native dumps, summed here, against `pystats
summarize --json` of the same dumps.

Usage: python3 native_sums.py SUMMARY.json FAIL_KINDS.tsv EVAL_CALLS.tsv MINOR DUMP...

Computed independently of the program: lines are split at the last ':'
and summed; failure kinds are named from the version's SPEC_FAIL_ table
(data/tables/, facts from CPython's Python/specialize.c) by the rule of
CPython's Tools/scripts/summarize_stats.py, written out again here.
Prints the number of figures compared and every difference; exits 1 if
any differs.
"""

import collections
import json
import re
import sys


def read_table(path):
    t = collections.defaultdict(list)
    for ln in open(path, encoding="utf-8"):
        if ln.startswith("#") or not ln.strip():
            continue
        num, name = ln.rstrip("\n").split("\t")[:2]
        t[int(num)].append(name)
    return t


def label(minor, opname, kind, defines):
    """summarize_stats.py's kind_to_text of 3.minor, and the SPEC_FAIL_
    name it picked (the JSON summary's key)."""
    names = defines.get(kind, [])
    if kind <= (6 if minor == 11 else 8):
        return (names[0].replace("_", " ").lower(), names[0]) if names else (f"kind {kind}",) * 2
    prefix = opname
    if minor == 11:
        if opname.endswith("ATTR"):
            prefix = "ATTR"
        if opname.endswith("SUBSCR"):
            prefix = "SUBSCR"
        if opname.startswith("PRECALL"):
            prefix = "CALL"
    elif opname == "LOAD_SUPER_ATTR":
        prefix = "SUPER"
    elif opname.endswith("ATTR"):
        prefix = "ATTR"
    elif opname in ("FOR_ITER", "SEND") or (minor >= 14 and opname == "GET_ITER"):
        prefix = "ITER"
    elif opname.endswith("SUBSCR"):
        prefix = "SUBSCR"
    for name in names:
        if name.startswith(prefix):
            return name[len(prefix) + 1:].replace("_", " ").lower(), name
    return (f"kind {kind}",) * 2


def main():
    summary, kinds_tsv, calls_tsv, minor = sys.argv[1:5]
    minor = int(minor)
    dumps = sys.argv[5:]
    defines, calls = read_table(kinds_tsv), read_table(calls_tsv)
    raw = collections.Counter()
    for p in dumps:
        for ln in open(p, encoding="utf-8"):
            if not ln.strip():
                continue
            key, _, val = ln.rpartition(":")
            raw[key.strip()] += int(val)
    d = json.load(open(summary, encoding="utf-8"))
    ops, compared, differ, unnamed = d["opcodes"], 0, [], 0

    def cmp(what, exp, got):
        nonlocal compared
        compared += 1
        if exp != got:
            differ.append(f"{what}: dumps {exp}, pystats {got}")

    fails = collections.defaultdict(collections.Counter)
    for key, v in raw.items():
        m = re.fullmatch(r"opcode\[([A-Z_0-9]+)\]\.(.*)", key)
        if m:
            op, rest = m.groups()
            o = ops.get(op, {})
            spec = o.get("specialization", {})
            if rest == "execution_count":
                cmp(key, v, o.get("execution_count"))
            elif rest == "specializable":
                cmp(key, bool(v), o.get("specializable"))
            elif rest.startswith("pair_count["):
                cmp(key, v, o.get("pair_count", {}).get(rest[11:-1]))
            elif rest.startswith("specialization.failure_kinds["):
                kind = int(rest[len("specialization.failure_kinds["):-1])
                name = label(minor, op, kind, defines)[1]
                unnamed += name.startswith("kind ")
                fails[op][name] += v
            elif rest.startswith("specialization."):
                cmp(key, v, spec.get(rest[len("specialization."):]))
            else:
                differ.append(f"{key}: a line this test does not know")
            continue
        m = re.fullmatch(r"Calls via PyEval_EvalFrame\[(\d+)\]", key)
        if m:
            name = calls[int(m.group(1))][0]
            cmp(key, v, d["calls"].get(f"Calls via PyEval_EvalFrame[{name}]"))
        elif key.startswith("Calls ") or key.startswith("Frame"):
            cmp(key, v, d["calls"].get(key))
        elif key.startswith("Object "):
            cmp(key, v, d["objects"].get(key))
        elif key.startswith("GC["):
            gen, _, field = key[3:].partition("] ")
            cmp(key, v, d["gc"].get(gen, {}).get(field))
        elif key.startswith("Rare event ("):
            cmp(key, v, d["rare_events"].get(key[len("Rare event ("):-1]))
        elif key.startswith("JIT "):
            cmp(key, v, d["optimization"]["jit"].get(key))
        else:
            differ.append(f"{key}: a line this test does not know")
    for op, byname in fails.items():
        got = ops.get(op, {}).get("specialization", {}).get("failure_kinds", {})
        for name, v in byname.items():
            cmp(f"{op} failure kind {name!r}", v, got.get(name))
        extra = set(got) - set(byname)
        if extra:
            differ.append(f"{op}: failure kinds not in the dumps: {sorted(extra)}")
    cmp("total executions", sum(v for k, v in raw.items() if k.endswith(".execution_count")
                                and k.startswith("opcode[")),
        d["meta"]["total_execution_count"])
    for x in differ:
        print("DIFF", x)
    print(f"{compared} figures compared, {len(differ)} differ, "
          f"{unnamed} failure-kind lines without a name in the table")
    return 1 if differ or unnamed else 0


if __name__ == "__main__":
    sys.exit(main())
