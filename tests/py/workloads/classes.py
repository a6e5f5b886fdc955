"""class bodies executed inside run(): methods, properties, inheritance,
super(), class attributes, dunder methods."""


def run():
    class Base:
        kind = "base"
        registry = []

        def __init__(self, v):
            self.v = v
            Base.registry.append(v)

        def value(self):
            return self.v

        @property
        def double(self):
            return self.v * 2

        def __add__(self, other):
            return type(self)(self.v + other.v)

        def __eq__(self, other):
            return self.v == other.v

        __hash__ = None

    class Child(Base):
        kind = "child"

        def value(self):
            return super().value() + 1

        @classmethod
        def make(cls, v):
            return cls(v)

        @staticmethod
        def helper(x):
            return x - 1

    total = 0
    for i in range(10):
        c = Child.make(i)
        total += c.value() + c.double + Child.helper(i)
    s = Child(1) + Child(2)
    return total, s.v, s == Child(3), len(Base.registry), Child.kind
