"""asyncio: run, await, sleep(0), gather, async generators, an exception
through await.  Small on purpose: the event loop's own code is counted."""

import asyncio


async def leaf(x):
    await asyncio.sleep(0)
    return x * 2


async def failing():
    await asyncio.sleep(0)
    raise ValueError("boom")


async def ticker(n):
    for i in range(n):
        yield i
        await asyncio.sleep(0)


async def main():
    total = await leaf(1)
    total += sum(await asyncio.gather(leaf(2), leaf(3)))
    async for v in ticker(3):
        total += v
    total += sum([v async for v in ticker(2)])
    try:
        await failing()
    except ValueError:
        total += 100
    return total


def run():
    return asyncio.run(main())


# asyncio initialises its event-loop policy (and imports a module) on its
# first use in a process; do that once here so that every run() call
# executes the same instructions.
run()
