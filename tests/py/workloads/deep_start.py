"""A run that starts while frames are already deep in the stack: window()
switches collection on thirty Python frames down (generators and a
sorted() key among them), works there, then returns through all of them
and their callers' remaining instructions before switching off at the top.
run() is the same work without the switching, for measure()."""


def leaf(n):
    total = 0
    for i in range(n):
        if i % 4 == 1:
            continue
        total += i * i
    return total


def descend(depth, at_bottom):
    if depth == 0:
        return at_bottom()
    if depth % 10 == 5:
        # Through a generator and C code calling back (sorted's key).
        return sum(g for g in down_gen(depth, at_bottom))
    if depth % 10 == 7:
        got = []
        sorted([1], key=lambda x: got.append(descend(depth - 1, at_bottom)))
        return got[0] + 1
    value = descend(depth - 1, at_bottom)
    for j in range(3):
        value += j
    return value


def down_gen(depth, at_bottom):
    yield descend(depth - 1, at_bottom)
    yield 1


def window(on, off):
    """on() deep down, off() at the top."""
    def bottom():
        on()
        return leaf(40) + leaf(7)
    result = descend(30, bottom)
    result += leaf(5)
    off()
    return result


def run():
    return descend(30, lambda: leaf(40) + leaf(7)) + leaf(5)
