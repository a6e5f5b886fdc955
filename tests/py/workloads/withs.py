"""with statements: a context manager that suppresses, one that lets the
exception propagate, nested withs, contextlib."""

import contextlib


class Suppress:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, exc_type, exc, tb):
        self.log.append("exit")
        return exc_type is not None and issubclass(exc_type, KeyError)


@contextlib.contextmanager
def tag(log, name):
    log.append("<" + name)
    try:
        yield name
    finally:
        log.append(name + ">")


def run():
    log = []
    for i in range(5):
        with Suppress(log):
            if i % 2:
                raise KeyError(i)          # suppressed
            log.append(i)
    for i in range(3):
        try:
            with Suppress(log) as s, tag(log, "t") as t:
                log.append((s is not None, t))
                raise ValueError(i)        # propagates
        except ValueError:
            log.append("caught")
    with tag(log, "a"), tag(log, "b"):
        log.append("body")
    with contextlib.suppress(ZeroDivisionError):
        1 / 0
    return log
