"""C code calling back into Python: sorted/min/max with key, map, filter,
functools.reduce, list.sort, dict(map(...))."""

import functools


def key(x):
    return (x % 7, -x)


def run():
    data = [(i * 37) % 101 for i in range(50)]
    a = sorted(data, key=key)
    b = list(map(lambda x: x + 1, data))
    c = list(filter(lambda x: x % 3 == 0, data))
    d = functools.reduce(lambda acc, x: acc + x, data, 0)
    e = min(data, key=key), max(data, key=lambda x: -x)
    data.sort(key=lambda x: -x)
    f = dict(map(lambda x: (x, x * x), range(10)))
    return a[:5], sum(b), len(c), d, e, data[:3], sum(f.values())
