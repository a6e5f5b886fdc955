"""if/elif/else chains, boolean operators, conditional expressions."""


def classify(x):
    if x < 0:
        return "neg"
    elif x == 0:
        return "zero"
    elif x < 10:
        return "small"
    elif x < 100 and x % 2 == 0:
        return "even"
    elif x < 100 or x == 1000:
        return "odd-or-1000"
    else:
        return "big"


def run():
    out = []
    for x in (-5, 0, 3, 42, 43, 1000, 5000, 7, 99, 100):
        out.append(classify(x))
        flag = x > 5 and not x % 5 or x == 3
        out.append("y" if flag else "n")
        if x is None or x in (1, 2, 3):
            out.append("in")
    return "".join(out)
