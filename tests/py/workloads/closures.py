"""closures, cells, nonlocal, lambdas, nested functions."""


def make_counter(start):
    count = start

    def inc(step=1):
        nonlocal count
        count += step
        return count

    def get():
        return count

    return inc, get


def compose(*fns):
    def composed(x):
        for f in reversed(fns):
            x = f(x)
        return x
    return composed


def run():
    inc, get = make_counter(10)
    for i in range(20):
        inc(i % 3)
    add = lambda a: lambda b: a + b
    f = compose(add(1), lambda v: v * 2, add(3))
    results = [f(i) for i in range(10)]
    adders = [add(i) for i in range(5)]
    return get(), results, [a(100) for a in adders]
