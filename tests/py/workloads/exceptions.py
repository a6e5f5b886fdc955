"""exceptions: caught in the same frame, propagated through several frames,
re-raised, raise from, try/except/else/finally, except*-free."""


class AppError(Exception):
    pass


def level3(x):
    if x % 2:
        raise AppError(x)
    return x


def level2(x):
    return level3(x) + 1


def level1(x):
    try:
        return level2(x)
    finally:
        pass


def reraiser(x):
    try:
        level1(x)
    except AppError:
        raise


def chainer(x):
    try:
        {}[x]
    except KeyError as e:
        raise AppError("missing") from e


def run():
    caught = 0
    for i in range(10):
        try:
            if i % 3 == 0:
                raise ValueError(i)        # caught in the same frame
            caught += 0
        except ValueError:
            caught += 1
        else:
            caught += 10
        finally:
            caught += 100

    for i in range(6):
        try:
            level1(i)                      # propagates through 3 frames
        except AppError:
            caught += 1000

    for i in range(4):
        try:
            reraiser(i)
        except AppError as e:
            caught += e.args[0]

    try:
        chainer("k")
    except AppError as e:
        caught += 1 if isinstance(e.__cause__, KeyError) else 0

    try:
        try:
            raise TypeError("inner")
        except TypeError:
            raise RuntimeError("during handling")
    except RuntimeError as e:
        caught += 1 if e.__context__ is not None else 0

    try:
        int("not a number")                # raised by C code
    except ValueError:
        caught += 1
    return caught
