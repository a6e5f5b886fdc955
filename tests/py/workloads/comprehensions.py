"""list/dict/set comprehensions and generator expressions."""


def run():
    data = list(range(40))
    squares = [x * x for x in data if x % 2]
    table = {x: x % 7 for x in data}
    residues = {x % 5 for x in data}
    nested = [[i * j for j in range(4)] for i in range(6)]
    flat = [v for row in nested for v in row if v]
    total = sum(x for x in data if x > 10)
    biggest = max((v, k) for k, v in table.items())
    any_big = any(x > 30 for x in data)
    all_small = all(x < 100 for x in data)
    return (len(squares), sum(table.values()), sorted(residues), len(flat),
            total, biggest, any_big, all_small)
