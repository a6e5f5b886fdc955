"""More generator paths: close() and throw() through `yield from` (into a
generator and into a list iterator), a generator that catches the
GeneratorExit of close() and returns, one that yields again while
closing (RuntimeError), return values through nested `yield from`,
generators abandoned suspended (closed when collected), a Python
iterator class whose __next__ raises StopIteration, and generator
expressions consumed by C code (sum, list, any, all)."""


def inner(log):
    try:
        for i in range(3):
            yield i
    finally:
        log.append("inner closed")


def outer(log):
    try:
        got = yield from inner(log)
        yield got
    finally:
        log.append("outer closed")


def from_list():
    yield from [1, 2, 3]


def catch_exit():
    try:
        yield 1
    except GeneratorExit:
        return "ignored"


def stubborn():
    try:
        yield 1
    finally:
        yield 2


def nested_returns(n):
    if n == 0:
        return 1
    x = yield from nested_returns(n - 1)
    yield x
    return x + 1


class Countdown:
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):
        if self.n <= 0:
            raise StopIteration
        self.n -= 1
        return self.n


def echo():
    received = []
    while True:
        try:
            value = yield len(received)
        except KeyError as e:
            received.append(("err", e.args[0]))
            continue
        if value is None:
            return received
        received.append(value)


def run():
    log = []
    total = 0

    g = outer(log)
    next(g)
    g.close()                          # close through yield from

    g = outer(log)
    next(g)
    try:
        g.throw(ValueError("x"))       # throw through yield from, uncaught
    except ValueError:
        total += 1

    g = from_list()
    next(g)
    try:
        g.throw(KeyError)              # throw into yield from a list
    except KeyError:
        total += 2
    g = from_list()
    next(g)
    g.close()

    g = catch_exit()
    next(g)
    g.close()                          # GeneratorExit caught, returns

    g = stubborn()
    next(g)
    try:
        g.close()                      # yields while closing
    except RuntimeError:
        total += 4

    g = nested_returns(4)
    total += sum(g)

    for _ in range(2):
        h = inner(log)
        next(h)
        del h                          # abandoned suspended: closed now

    total += sum(Countdown(6))
    total += sum(x for x in Countdown(4) if x % 2)
    total += len([x * 2 for x in Countdown(5)])
    total += any(x > 2 for x in range(10))
    total += all(x < 5 for x in range(4))

    e = echo()
    next(e)
    e.send(3)
    e.throw(KeyError("k"))
    e.send(4)
    try:
        e.send(None)
    except StopIteration as stop:
        total += len(stop.value)
    return total, log
