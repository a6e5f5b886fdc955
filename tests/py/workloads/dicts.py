"""dict operations: insert, lookup, get/setdefault, update, pop, iteration
in insertion order, comprehension, merging.  Keys are ints and strings, but
no iteration depends on string hashing."""


def run():
    d = {}
    for i in range(50):
        d[i] = i * i
    d2 = {"a": 1, "b": 2, "c": 3}
    total = 0
    for k in d:
        total += d[k]
    for k, v in d2.items():
        total += v
    for i in range(60):
        total += d.get(i, -1)
    counts = {}
    for word in "the cat and the dog and the bird".split():
        counts[word] = counts.get(word, 0) + 1
        counts.setdefault("seen", 0)
    d.update({100: 1, 101: 2})
    total += d.pop(100) + d.pop(999, 0)
    merged = d2 | {"d": 4}
    del merged["a"]
    inverted = {v: k for k, v in merged.items()}
    return total, sorted(counts.items()), list(merged), inverted[4]
