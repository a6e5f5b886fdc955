"""for/while loops with break, continue and else."""


def run():
    total = 0
    for i in range(60):
        if i % 3 == 0:
            continue
        if i > 50:
            break
        total += i
    else:
        total = -1  # not reached: the loop breaks

    for i in range(10):
        total += i
    else:
        total += 1000  # reached: no break

    n = 0
    while n < 40:
        n += 1
        if n % 7 == 0:
            continue
        total ^= n
    else:
        total += 1

    while True:
        n -= 3
        if n < 0:
            break

    for row in range(5):
        for col in range(5):
            if col > row:
                break
            total += row * col
    return total
