"""Small functions run on two interpreters by test_renames.py: CASES,
each a callable and its arguments.  Only constructs whose instructions
are renamed, split or merged between versions, or the same: no `while`
loop (3.14 no longer duplicates its test: a change of layout), no
constant slice (3.14 folds it), no dict display (3.14 dropped
BUILD_CONST_KEY_MAP for one LOAD_CONST per key): those are real changes
in the work, and a comparison shows them as such."""
import collections
import threading

class O:
    y = 1
    z = 2
    def method(self, v):
        return v

def f_loop(xs):
    total = 0
    for x in xs:
        total += x
    return total

def f_subscript(d, i):
    return d[i] + d[i + 1]

def f_return_none(a):
    a.append(1)

def f_return_const(a):
    if a:
        return 1
    return "x"

def f_kwargs(f):
    return f(1, b=2, c=3)

def f_fstring(x, y):
    return f"{x} and {y!r} and {x:>10}"

def f_closure(a, b=3):
    def inner(c):
        return a + c
    return inner(b)

def f_with(lock):
    with lock:
        return 1

def f_try(x):
    try:
        return 1 / x
    except ZeroDivisionError:
        return None

def f_assert(x):
    assert x, "no"
    return x

def f_compare(a, b):
    if a < b and b < 10:
        return a
    return b

def f_attr(o):
    o.x = o.y + o.z
    return o.method(1)

def f_listcomp(xs):
    return [x * 2 for x in xs if x]

def f_gen(n):
    for i in range(n):
        yield i * i

def f_store_subscr(d, k, v):
    d[k] = v
    del d[k]
    return d

def f_global():
    return collections.OrderedDict(a=len([1, 2]))

def f_unpack(t):
    a, b = t
    c, *d = t
    return a, b, c, d

def f_bool(a, b):
    x = not a
    return x or b

def f_nested_loops(n):
    s = 0
    for i in range(n):
        for j in range(i):
            s += i * j
    return s

def f_match(x):
    match x:
        case int():
            return 1
        case [a, b]:
            return a
        case _:
            return 0

CASES = [
    (f_loop, ([1, 2, 3],)), (f_subscript, ([5, 6, 7], 1)), (f_return_none, ([],)),
    (f_return_const, (0,)), (f_return_const, (1,)), (f_kwargs, (lambda a, b, c: a,)),
    (f_fstring, (1, 2)), (f_closure, (1,)), (f_with, (threading.Lock(),)),
    (f_try, (0,)), (f_try, (2,)), (f_assert, (1,)), (f_compare, (3, 5)), (f_compare, (30, 5)),
    (f_attr, (O(),)), (f_listcomp, ([0, 1, 2],)), (lambda: list(f_gen(3)), ()),
    (f_store_subscr, ({}, 1, 2)), (f_global, ()), (f_unpack, ((1, 2),)),
    (f_bool, (0, 1)), (f_bool, (1, 0)), (f_nested_loops, (4,)), (f_match, (1,)),
    (f_match, ([1, 2],)), (f_match, ("s",)),
]

class ACM:
    async def __aenter__(self):
        return 1
    async def __aexit__(self, *a):
        return None

async def f_async_with(cm):
    async with cm as v:
        return v

def drive(coro):
    try:
        coro.send(None)
    except StopIteration as e:
        return e.value

CASES.append((lambda: drive(f_async_with(ACM())), ()))


def f_swap(a, b):
    a, b = b, a
    return a, b


def f_assert_fails(x):
    try:
        assert x, "no"
    except AssertionError:
        return 0
    return 1


CASES += [(f_swap, (1, 2)), (f_assert_fails, (0,))]


class Yield1:
    def __await__(self):
        yield
        return 5


async def f_await():
    return await Yield1()


def drive2(coro):
    coro.send(None)
    try:
        coro.send(None)
    except StopIteration as e:
        return e.value


CASES.append((lambda: drive2(f_await()), ()))
