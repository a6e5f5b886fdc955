"""asyncio beyond the basics: gather with an exception (return_exceptions
and not), async generators closed early (break in async for, aclose,
athrow), async with, tasks cancelled, awaiting a coroutine that awaits a
coroutine three deep, and an exception raised through several awaits."""

import asyncio


class Resource:
    def __init__(self, log):
        self.log = log

    async def __aenter__(self):
        await asyncio.sleep(0)
        self.log.append("enter")
        return self

    async def __aexit__(self, *exc):
        self.log.append("exit")
        return False


async def numbers(n, log):
    try:
        for i in range(n):
            yield i
            await asyncio.sleep(0)
    finally:
        log.append("numbers closed")


async def bad(x):
    await asyncio.sleep(0)
    raise KeyError(x)


async def level3(x):
    await asyncio.sleep(0)
    if x < 0:
        raise ValueError(x)
    return x


async def level2(x):
    return await level3(x) + 1


async def level1(x):
    return await level2(x) * 2


async def sleeper():
    await asyncio.sleep(10)


async def main():
    log = []
    total = 0
    results = await asyncio.gather(level1(1), bad(2), return_exceptions=True)
    total += results[0] + isinstance(results[1], KeyError)
    try:
        await asyncio.gather(level1(2), bad(3))
    except KeyError:
        total += 10
    async for v in numbers(10, log):
        if v == 3:
            break
    agen = numbers(5, log)
    await agen.__anext__()
    await agen.aclose()
    agen = numbers(5, log)
    await agen.__anext__()
    try:
        await agen.athrow(IndexError)
    except IndexError:
        total += 100
    async with Resource(log):
        total += await level1(3)
    try:
        await level1(-1)
    except ValueError:
        total += 1000
    task = asyncio.ensure_future(sleeper())
    await asyncio.sleep(0)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        total += 10000
    return total, log


def run():
    return asyncio.run(main())


run()   # asyncio's first-use initialisation, once (see async_.py)
