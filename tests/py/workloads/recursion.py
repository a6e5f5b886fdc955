"""recursion: fib, mutual recursion, recursive tree walk."""


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def is_even(n):
    return True if n == 0 else is_odd(n - 1)


def is_odd(n):
    return False if n == 0 else is_even(n - 1)


def build(depth):
    if depth == 0:
        return None
    return (build(depth - 1), depth, build(depth - 1))


def walk(node):
    if node is None:
        return 0
    left, v, right = node
    return walk(left) + v + walk(right)


def run():
    return fib(15), is_even(30), walk(build(6))
