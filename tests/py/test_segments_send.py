"""Frames stopped at a SEND (`await`, `yield from`): when the
sub-iterator runs to its end, the frame goes on at the SEND's target;
when it yields, the SEND falls through to the frame's own YIELD_VALUE.
Mode count (3.12+) restarts such a frame at the target on the fast path
of its next event (a call, or its own quiet return found later:
seg_send_went_on()), and only when that event is not its own yield.
Mode count must give the counts and pairs of mode instructions, which
takes one event per instruction: coroutines awaited to their end, in
chains deeper than the quiet returns settled at once, sub-iterators
that yield, sub-iterators that are no generators (a class whose
__next__ is Python code, C iterators wrapping generators), async
generators, and sub-iterators that raise or are thrown into."""
import itertools
import sys

import pytest

from conftest import (counted_as_instructions, measured_snapshot, same_counts,
                      window_snapshots)

SEGMENTS = sys.version_info >= (3, 12)


def desync(stats):
    return stats._collector._seg_state()["desync"]


def drive(coro):
    """Run a coroutine to its end as an event loop would: send None
    until StopIteration; its value."""
    try:
        while True:
            coro.send(None)
    except StopIteration as e:
        return e.value


class Suspend:
    """An awaitable whose __await__ is a generator: the awaiting chain
    suspends once, then gets the value."""

    def __init__(self, v):
        self.v = v

    def __await__(self):
        yield
        return self.v


class Countdown:
    """An iterator that is no generator: its __next__ is Python code whose
    return is a value passed on, not the end."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):
        if self.n == 0:
            raise StopIteration(-1)
        self.n -= 1
        return self.n


async def fib(n):
    if n <= 1:
        return n
    return await fib(n - 1) + await fib(n - 2)


async def fib_suspending(n):
    if n <= 1:
        return await Suspend(n)
    return await fib_suspending(n - 1) + await fib_suspending(n - 2)


async def deep(n):
    # a chain deeper than the quiet returns settled at once (8)
    if n == 0:
        return 1
    return 1 + await deep(n - 1)


async def await_in_loop(n):
    t = 0
    for i in range(n):
        t += await fib(i % 5)
    return t


async def failing(i):
    if i % 3 == 0:
        raise ValueError(i)
    return i


async def await_raising(n):
    t = 0
    for i in range(n):
        try:
            t += await failing(i)
        except ValueError:
            t -= 1
    return t


def gen(n):
    for i in range(n):
        yield i
    return n


def yield_from_returning(n):
    t = 0
    for i in range(n):
        t += yield from gen(i % 4)
    return t


def yield_from_countdown(n):
    for i in range(n):
        r = yield from Countdown(i % 4)
        assert r == -1
    return n


def yield_from_c_iterators(n):
    yield from itertools.chain(gen(n), gen(n // 2))
    yield from map(abs, gen(n))
    yield from zip(gen(n), gen(n + 1))


def inner_thrown():
    while True:
        try:
            yield 1
        except KeyError:
            return 7


def outer_thrown():
    r = yield from inner_thrown()
    yield r
    r = yield from gen(3)
    return r


async def agen(n):
    for i in range(n):
        yield i
        await Suspend(i)


async def async_for(n):
    t = 0
    async for v in agen(n):
        t += v
    ag = agen(3)
    t += await ag.asend(None)
    t += await anext(ag)
    await ag.aclose()
    return t


def c_fib():
    return drive(fib(12))


def c_fib_suspending():
    return drive(fib_suspending(9))


def c_deep():
    return drive(deep(40))


def c_await_in_loop():
    return drive(await_in_loop(60))


def c_await_raising():
    return drive(await_raising(60))


def c_yield_from_returning():
    return list(yield_from_returning(60))


def c_yield_from_countdown():
    return list(yield_from_countdown(60))


def c_yield_from_c_iterators():
    return list(yield_from_c_iterators(40))


def c_thrown():
    g = outer_thrown()
    out = [next(g), g.throw(KeyError)]
    out.extend(g)
    return out


def c_async_for():
    return drive(async_for(30))


CASES = [c_fib, c_fib_suspending, c_deep, c_await_in_loop, c_await_raising,
         c_yield_from_returning, c_yield_from_countdown, c_yield_from_c_iterators,
         c_thrown, c_async_for]


def fib_calls(n):
    """Calls of fib(n), computed: 1 + those of its two recursive calls."""
    return 1 if n <= 1 else 1 + fib_calls(n - 1) + fib_calls(n - 2)


@pytest.mark.skipif(not SEGMENTS, reason="segment counting is 3.12+")
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_send_identical_in_both_modes(stats, case):
    case()                          # warm up: specialization, quiet sites
    before = desync(stats)
    counted_as_instructions(stats, case)
    assert desync(stats) == before


@pytest.mark.skipif(not SEGMENTS, reason="segment counting is 3.12+")
def test_awaits_to_the_end_counted(stats):
    """fib(12) awaits every call but the first to its end: one END_SEND
    each, and one RETURN_VALUE per call, drive()'s and c_fib()'s."""
    c_fib()
    seg = measured_snapshot(stats, "count", c_fib)
    calls = fib_calls(12)
    assert seg["execution_count"]["END_SEND"] == calls - 1
    assert seg["execution_count"]["RETURN_VALUE"] == calls + 2


@pytest.mark.skipif(not SEGMENTS, reason="segment counting is 3.12+")
def test_send_in_a_window(stats):
    """The same cases, one window each mode (frames under way when the
    window opened are seeded)."""
    before = desync(stats)
    res = window_snapshots(stats, CASES)
    same_counts(res["count"], res["instructions"])
    assert desync(stats) == before
