"""code with EXTENDED_ARG: a function with more than 256 constants, more
than 256 locals, and jumps longer than 255 code units.  Generated at import
time with exec() of generated source (deterministic)."""

_N = 300


def _source():
    lines = ["def big(flag, reps):", "    total = 0"]
    # > 256 locals: STORE_FAST / LOAD_FAST with an extended oparg.
    lines += [f"    v{i} = {i}.25" for i in range(_N)]
    lines += ["    for r in range(reps):",
              "        if flag:"]
    # > 256 distinct constants and a long forward jump over them.
    lines += [f"            total += {i}.5" for i in range(_N)]
    lines += ["        else:",
              "            total -= 1",
              f"        total += v{_N - 1} - v0",
              "    return total"]
    return "\n".join(lines) + "\n"


_ns = {}
exec(compile(_source(), __name__ + "<generated>", "exec"), _ns)
big = _ns["big"]


def run():
    return big(True, 3) + big(False, 5)
