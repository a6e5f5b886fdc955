"""Segment counting against the per-instruction mechanism on generated
programs: nested for/while loops with break, continue and else, if/elif
chains, try/except/finally with raises, with-blocks, calls, generators,
comprehensions, coroutines driven by send(), and yield-from delegation
with send(), throw() and close(), in random combinations (fixed seeds,
so a failure names its program).  Every program must give identical execution counts
and pairs in modes "count" and "instructions"; on 3.11 the two modes are
one mechanism and the test holds trivially."""
import random

import pytest

from test_segments import assert_same, desync, measured, windowed

SEEDS = range(300)


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.loops = 0

    def block(self, depth, ind):
        n = self.rng.randint(1, 3 if depth < 3 else 1)
        out = []
        for _ in range(n):
            out += self.stmt(depth, ind)
        return out

    def stmt(self, depth, ind):
        r = self.rng
        pad = "    " * ind
        k = r.randint(1, 97)
        simple = [
            [pad + "x = (x * 3 + %d) %% 1009" % k],
            [pad + "x += helper(x)"],
            [pad + "x += sum([i * 2 for i in range(x %% %d)])" % r.randint(2, 5)],
        ]
        if depth >= 3:
            return r.choice(simple)
        kind = r.randrange(15)
        if kind == 11:
            return [pad + "x = (x + drive(co(x %% %d))) %% 1009" % r.randint(2, 5)]
        if kind == 12:
            return [pad + "x = (x + sum(outer(x %% %d))) %% 1009" % r.randint(2, 5)]
        if kind == 13:
            return [pad + "g = outer(%d)" % r.randint(2, 5),
                    pad + "next(g)",
                    pad + "try:",
                    pad + "    g.throw(KeyError(1))",
                    pad + "except (KeyError, StopIteration):",
                    pad + "    x += 1",
                    pad + "g.close()"]
        if kind == 14:
            return [pad + "g = outer(%d)" % r.randint(2, 5),
                    pad + "x += next(g) + g.send(3)" if r.random() < 0.5 else pad + "x += next(g)",
                    pad + "g.close()"]
        if kind < 3:
            return r.choice(simple)
        if kind == 3:
            out = [pad + "if x %% 3 == %d:" % r.randrange(3)]
            out += self.block(depth + 1, ind + 1)
            if r.random() < 0.6:
                out += [pad + "elif x % 2:"] + self.block(depth + 1, ind + 1)
            if r.random() < 0.6:
                out += [pad + "else:"] + self.block(depth + 1, ind + 1)
            return out
        if kind == 4:
            self.loops += 1
            v = "i%d" % self.loops
            out = [pad + "for %s in range(%d):" % (v, r.randint(0, 4))]
            out += self.loop_body(depth, ind + 1, v)
            if r.random() < 0.3:
                out += [pad + "else:"] + self.block(depth + 1, ind + 1)
            return out
        if kind == 5:
            self.loops += 1
            v = "w%d" % self.loops
            out = [pad + "%s = 0" % v, pad + "while %s < %d:" % (v, r.randint(0, 4)),
                   pad + "    %s += 1" % v]
            out += self.loop_body(depth, ind + 1, v)
            return out
        if kind == 6:
            self.loops += 1
            v = "t%d" % self.loops
            # a loop whose back edge keeps its event: only a raise ends it
            return [pad + "%s = 0" % v, pad + "try:",
                    pad + "    while True:",
                    pad + "        %s += 1" % v,
                    pad + "        x = (x + 1) % 1009",
                    pad + "        1 // (%d - %s)" % (r.randint(1, 4), v),
                    pad + "except ZeroDivisionError:",
                    pad + "    pass"]
        if kind == 7:
            out = [pad + "try:"]
            out += [pad + "    if x %% %d == 0:" % r.randint(2, 4),
                    pad + "        raise ValueError(x)"]
            out += self.block(depth + 1, ind + 1)
            out += [pad + "except ValueError:"] + self.block(depth + 1, ind + 1)
            if r.random() < 0.5:
                out += [pad + "finally:"] + self.block(depth + 1, ind + 1)
            return out
        if kind == 8:
            out = [pad + "with Ctx(x %% %d == 0):" % r.randint(2, 5),
                   pad + "    if x % 2:",
                   pad + "        raise KeyError(x)"]
            out += self.block(depth + 1, ind + 1)
            return out
        if kind == 9:
            return [pad + "for v in numbers(x %% %d):" % r.randint(2, 5),
                    pad + "    x = (x + v) % 1009"]
        return [pad + "x += sum(numbers(x %% %d))" % r.randint(2, 6)]

    def loop_body(self, depth, ind, v):
        r = self.rng
        pad = "    " * ind
        out = []
        if r.random() < 0.4:
            out += [pad + "if (x + %s) %% %d == 0:" % (v, r.randint(2, 4)),
                    pad + "    " + r.choice(["break", "continue"])]
        out += self.block(depth + 1, ind)
        return out

    def program(self):
        body = self.block(0, 2)
        return "\n".join([
            "class Ctx:",
            "    def __init__(self, swallow):",
            "        self.swallow = swallow",
            "    def __enter__(self):",
            "        return self",
            "    def __exit__(self, t, v, tb):",
            "        return self.swallow",
            "def helper(y):",
            "    return y % 7",
            "def numbers(n):",
            "    for i in range(n):",
            "        yield i",
            "class Aw:",
            "    def __init__(self, v):",
            "        self.v = v",
            "    def __await__(self):",
            "        if self.v % 2:",
            "            yield self.v",
            "        return self.v",
            "async def co(n):",
            "    t = 0",
            "    for i in range(n):",
            "        try:",
            "            t += await Aw(i)",
            "            if i == 3:",
            "                raise ValueError",
            "        except ValueError:",
            "            t -= 1",
            "    return t",
            "def drive(c):",
            "    try:",
            "        while True:",
            "            c.send(None)",
            "    except StopIteration as e:",
            "        return e.value",
            "def inner(n):",
            "    for i in range(n):",
            "        try:",
            "            got = yield i",
            "        except KeyError:",
            "            yield -1",
            "            return",
            "        if got:",
            "            yield got",
            "def outer(n):",
            "    yield from inner(n)",
            "    yield from [n, n + 1]",
            "def run(x):",
            "    try:",
        ] + body + [
            "    except KeyError:",
            "        x += 1",
            "    return x",
        ])


@pytest.mark.parametrize("seed", SEEDS)
def test_generated_program_identical_in_both_modes(pystats, seed):
    src = Gen(seed).program()
    ns = {}
    exec(compile(src, "<generated %d>" % seed, "exec"), ns)
    run = ns["run"]
    for x in (0, 5):
        run(x)                      # warm up: specialization, caches
    before = desync(pystats)
    for x in (1, 2, 7):
        seg = measured(pystats, "count", run, x)
        ins = measured(pystats, "instructions", run, x)
        assert sum(seg[0].values()) > 5, src
        assert_same(seg, ins)
    # And in a window, opened and closed around the call.
    assert_same(windowed(pystats, "count", run, 3),
                windowed(pystats, "instructions", run, 3))
    assert desync(pystats) == before, src
