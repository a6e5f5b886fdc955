"""pp_coroutines: what pyperformance's coroutines benchmark exercises, in
small: a chain of coroutines awaiting each other recursively, driven by
send(None) until StopIteration, no event loop."""


async def fibonacci(n):
    if n <= 1:
        return n
    return await fibonacci(n - 1) + await fibonacci(n - 2)


def drive(coro):
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value
    raise AssertionError("a coroutine that never awaited a future suspended")


def run():
    return [drive(fibonacci(n)) for n in range(12)]
