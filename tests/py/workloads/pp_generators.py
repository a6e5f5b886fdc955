"""pp_generators: what pyperformance's generators benchmark exercises, in
small: a tree walked in order by recursive generators delegating with
`yield from`, every generator resumed at least once, `for` loops that
exhaust generators."""


class Tree:
    def __init__(self, left, value, right):
        self.left = left
        self.value = value
        self.right = right

    def __iter__(self):
        if self.left:
            yield from self.left
        yield self.value
        if self.right:
            yield from self.right


def build(lo, hi):
    if lo >= hi:
        return None
    mid = (lo + hi) // 2
    return Tree(build(lo, mid), mid, build(mid + 1, hi))


def squares(n):
    for i in range(n):
        yield i * i


def run():
    tree = build(0, 40)
    total = 0
    for _ in range(3):
        for v in tree:
            total += v
    for sq in squares(50):
        total += sq
    return total
