"""match statements: literals, sequences, mappings, classes, guards."""


class Point:
    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y


def describe(obj):
    match obj:
        case 0 | 1:
            return "bit"
        case int(n) if n < 0:
            return "negative"
        case int():
            return "int"
        case "a" | "b":
            return "letter"
        case [x, y]:
            return f"pair {x} {y}"
        case [x, *rest]:
            return f"seq {x} +{len(rest)}"
        case {"kind": "circle", "r": r}:
            return f"circle {r}"
        case {"kind": k, **others}:
            return f"{k} {len(others)}"
        case Point(0, y):
            return f"on y axis {y}"
        case Point(x=x, y=y) if x == y:
            return "diagonal"
        case Point():
            return "point"
        case None:
            return "none"
        case _:
            return "other"


def run():
    items = [0, 1, -4, 17, "a", "z", [1, 2], [1, 2, 3], (), {"kind": "circle", "r": 2},
             {"kind": "box", "w": 1, "h": 2}, Point(0, 5), Point(3, 3), Point(1, 2),
             None, 2.5]
    return [describe(o) for o in items * 3]
