"""generators: next, send, close (inside/outside try/finally, before
start), throw (caught and not), yield from a generator and from a list."""


def counter(n):
    for i in range(n):
        yield i


def accumulator():
    total = 0
    while True:
        value = yield total
        if value is None:
            break
        total += value
    return total


def guarded(log):
    try:
        yield 1
        yield 2
    finally:
        log.append("closed")


def plain():
    yield 1
    yield 2


def catcher():
    caught = 0
    while True:
        try:
            yield caught
        except ValueError:
            caught += 1


def delegator():
    got = yield from counter(3)
    yield got
    yield from [10, 20, 30]
    inner = yield from accumulator()
    yield inner


def run():
    log = []
    total = sum(counter(20))
    total += sum(x * 2 for x in counter(5))

    acc = accumulator()
    next(acc)
    for v in range(1, 6):
        total += acc.send(v)
    try:
        acc.send(None)
    except StopIteration as stop:
        total += stop.value

    g = guarded(log)
    next(g)
    g.close()                      # close inside try/finally
    g = plain()
    next(g)
    g.close()                      # close outside any try
    g = guarded(log)
    g.close()                      # close before start

    c = catcher()
    next(c)
    for _ in range(3):
        total += c.throw(ValueError)   # caught inside
    try:
        c.throw(KeyError)              # not caught: propagates out
    except KeyError:
        total += 100
    u = plain()
    try:
        u.throw(RuntimeError)          # throw into an unstarted generator
    except RuntimeError:
        total += 1

    d = delegator()
    out = [next(d) for _ in range(7)]  # 0, 1, 2, None, 10, 20, 30
    out.append(next(d))                # accumulator's first yield: 0
    out.append(d.send(4))
    out.append(d.send(5))
    try:
        d.send(None)                   # accumulator returns; delegator yields it
    except StopIteration:
        pass
    out.append(next(d, "end"))

    d2 = delegator()
    next(d2)
    try:
        d2.throw(IndexError)           # thrown through yield from
    except IndexError:
        total += 1
    return total, log, out
