"""Python code driven from C, again and again from the same call
instruction: generators that all(), any(), sum(), list(), zip(), max()
or "".join() resume, and functions that map(), filter() and sorted()
call.  Between two resumptions the calling frame is restarted after
the call, eagerly, and its next event is the same call again (mode
count, 3.12+: seg_eager_restart(), and the start callback taking the
restart back).  Mode count must give the counts and pairs of mode
instructions, which takes one event per instruction, whether the
generator runs out, is abandoned midway, or raises; and as many
YIELD_VALUEs as the generators yielded values."""
import sys

import pytest

from conftest import measured_snapshot, same_counts, window_snapshots

SEGMENTS = sys.version_info >= (3, 12)
N = 300


def desync(stats):
    return stats._collector._seg_state()["desync"]


def gen(n):
    for i in range(n):
        yield i


def gen_raising(n, at):
    for i in range(n):
        if i == at:
            raise ValueError(i)
        yield i


def gen_with_finally(n, log):
    try:
        for i in range(n):
            yield i
    finally:
        log.append(n)


def double(x):
    return 2 * x


def odd(x):
    return x % 2


def key(x):
    return -x


def c_all():
    return all(x >= 0 for x in range(N))


def c_any_to_the_end():
    return any(x < 0 for x in range(N))


def c_any_abandoned():
    # stops at the 101st value; the generator is closed when freed
    return any(x > 99 for x in range(N))


def c_all_abandoned_kept():
    g = (x < 50 for x in range(N))
    r = all(g)
    # resumed again from another call after all() abandoned it
    return r, sum(1 for _ in g)


def c_sum():
    return sum(x * x for x in range(N))


def c_sum_of_generator_function():
    return sum(gen(N))


def c_list():
    return list(x + 1 for x in range(N))


def c_zip():
    return list(zip(gen(N), (x * 2 for x in range(N))))


def c_zip_unequal():
    # the longer generator is resumed once more than the shorter yields
    return list(zip(gen(N), gen(N // 2)))


def c_max_and_join():
    return max(x % 17 for x in range(N)), "".join(str(x) for x in range(N // 10))


def c_raises():
    try:
        return sum(gen_raising(N, N // 3))
    except ValueError as e:
        return e.args


def c_raises_in_genexpr():
    try:
        return all(1 // (x - N // 2) is not None for x in range(N))
    except ZeroDivisionError:
        return "raised"


def c_finally_abandoned():
    log = []
    r = any(x == 10 for x in gen_with_finally(N, log))
    return r, log


def c_nested():
    return all(all(y <= x for y in range(x)) for x in range(40))


def c_calls_functions():
    return (list(map(double, range(N))), list(filter(odd, range(N))),
            sorted(range(N), key=key)[:3])


def c_generator_calls_functions():
    return sum(double(x) for x in range(N))


CASES = [c_all, c_any_to_the_end, c_any_abandoned, c_all_abandoned_kept, c_sum,
         c_sum_of_generator_function, c_list, c_zip, c_zip_unequal, c_max_and_join,
         c_raises, c_raises_in_genexpr, c_finally_abandoned, c_nested, c_calls_functions,
         c_generator_calls_functions]

# Values yielded by the generators of each case: counted from the data,
# not by the collector.
YIELDS = {
    c_all: N, c_any_to_the_end: N, c_any_abandoned: 101, c_all_abandoned_kept: N + (N - 51),
    c_sum: N, c_sum_of_generator_function: N, c_list: N, c_zip: 2 * N,
    c_zip_unequal: N // 2 + (N // 2 + 1), c_max_and_join: N + N // 10,
    c_raises: N // 3, c_raises_in_genexpr: N // 2, c_finally_abandoned: 11 + 11,
    c_nested: sum(range(40)) + 40, c_calls_functions: 0, c_generator_calls_functions: N,
}


@pytest.mark.skipif(not SEGMENTS, reason="segment counting is 3.12+")
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_driven_from_c_identical_in_both_modes(stats, case):
    case()                          # warm up: specialization, quiet sites
    before = desync(stats)
    seg = measured_snapshot(stats, "count", case)
    ins = measured_snapshot(stats, "instructions", case)
    same_counts(seg, ins)
    assert seg["execution_count"].get("YIELD_VALUE", 0) == YIELDS[case]
    assert desync(stats) == before


@pytest.mark.skipif(not SEGMENTS, reason="segment counting is 3.12+")
def test_driven_from_c_in_a_window(stats):
    """The same cases, one window each mode: the calling frame was under
    way when the window opened (seeded), so its first stop is another
    case than measure()'s."""
    before = desync(stats)
    res = window_snapshots(stats, CASES)
    same_counts(res["count"], res["instructions"])
    assert res["count"]["execution_count"]["YIELD_VALUE"] == sum(YIELDS.values())
    assert desync(stats) == before
