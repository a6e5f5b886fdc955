"""pp_classes: class-heavy code in the style of pyperformance's richards
and deltablue: objects with slots and dict attributes, inheritance,
properties, method calls through a scheduler loop, isinstance checks."""


class Task:
    def __init__(self, ident, prio, work):
        self.ident = ident
        self.prio = prio
        self.work = work
        self.done = 0
        self.next = None

    def step(self):
        self.work -= 1
        self.done += 1
        return self.work > 0

    @property
    def active(self):
        return self.work > 0


class IdleTask(Task):
    def step(self):
        self.done += 1
        return False


class Packet:
    __slots__ = ("dest", "kind", "data")

    def __init__(self, dest, kind):
        self.dest = dest
        self.kind = kind
        self.data = [0] * 4


class Scheduler:
    def __init__(self):
        self.head = None
        self.count = 0

    def add(self, task):
        task.next = self.head
        self.head = task

    def schedule(self):
        packets = []
        t = self.head
        while t is not None:
            if t.active and t.step():
                packets.append(Packet(t.ident, t.prio % 3))
            elif isinstance(t, IdleTask):
                t.step()
            self.count += 1
            t = t.next
            if t is None and any(x.active for x in self.tasks()):
                t = self.head
        return packets

    def tasks(self):
        t = self.head
        while t is not None:
            yield t
            t = t.next


def run():
    s = Scheduler()
    for i in range(6):
        s.add(Task(i, i * 7, 5 + i))
    s.add(IdleTask(99, 0, 0))
    packets = s.schedule()
    kinds = [p.kind for p in packets]
    for p in packets:
        p.data[p.kind] += p.dest
    return s.count, len(packets), sum(kinds)
