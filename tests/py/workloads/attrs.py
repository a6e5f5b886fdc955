"""attribute- and method-heavy loops: instance attributes, slots,
properties, bound method calls, getattr/setattr."""


class Vec:
    __slots__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def add(self, other):
        return Vec(self.x + other.x, self.y + other.y)

    def norm1(self):
        return abs(self.x) + abs(self.y)


class Account:
    rate = 2

    def __init__(self):
        self.balance = 0
        self.history = []

    @property
    def doubled(self):
        return self.balance * self.rate

    def deposit(self, amount):
        self.balance += amount
        self.history.append(amount)


def run():
    acc = Account()
    v = Vec(0, 0)
    step = Vec(1, -2)
    for i in range(100):
        v = v.add(step)
        acc.deposit(i)
        if acc.doubled > 1000:
            acc.balance -= 500
    for name in ("balance", "rate"):
        setattr(acc, name, getattr(acc, name) + 1)
    return v.norm1(), acc.balance, len(acc.history), acc.rate
