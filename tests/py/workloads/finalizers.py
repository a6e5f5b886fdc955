"""Python code run by the interpreter between instructions: __del__ of
objects freed by a reference drop (in a loop, on return, while an
exception unwinds the stack), weakref callbacks, gc.collect() of cycles
with __del__, and a property and __getitem__ called from LOAD_ATTR and
BINARY_SUBSCR."""

import gc
import weakref

freed = []


class Noisy:
    def __init__(self, n):
        self.n = n

    def __del__(self):
        freed.append(self.n)


class Box:
    def __init__(self, v):
        self._v = v

    @property
    def v(self):
        return self._v

    def __getitem__(self, i):
        return self._v + i


def on_dead(ref):
    freed.append(-1)


def drops_on_return(n):
    keep = Noisy(n)
    return n + 1


def raises_with_local(n):
    keep = Noisy(n)
    raise ValueError(n)


def run():
    del freed[:]
    total = 0
    for i in range(5):
        x = Noisy(i)
        x = None                   # __del__ from STORE_FAST
        total += drops_on_return(i)
    for i in range(3):
        try:
            raises_with_local(i)   # __del__ while unwinding
        except ValueError:
            total += 1
    objs = [Noisy(100 + i) for i in range(3)]
    refs = [weakref.ref(o, on_dead) for o in objs]
    del objs                       # weakref callbacks and __del__
    gc.disable()
    a, b = Noisy(200), Noisy(201)
    a.other, b.other = b, a
    del a, b
    gc.collect()                   # a cycle with finalizers
    gc.enable()
    box = Box(7)
    for i in range(4):
        total += box.v + box[i]
    return total, len(freed), len(refs)
