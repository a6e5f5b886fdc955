"""The overview's "runs unspecialized" families, computed from raw native
dumps (3.11 names opcodes by number) and the opcode table (data/tables): for each family with
specialization lines, executions of its base instruction (and *_ADAPTIVE
forms) plus its misses, largest first, ties by name; the top three.
Prints "FAMILY COUNT" lines.  Usage: overview_families.py TABLE FILE..."""
import sys

family, by_number = {}, {}
with open(sys.argv[1]) as f:
    for line in f:
        if line.startswith("#") or not line.strip():
            continue
        number, name, fam = line.split()[:3]
        family[name] = fam
        by_number[number] = name
generic, has_spec = {}, set()
for path in sys.argv[2:]:
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            key, sep, value = line.strip().rpartition(":")
            key = key.strip()
            if not sep or not key.startswith("opcode["):
                continue
            name, _, rest = key[len("opcode["):].partition("]")
            name = by_number.get(name, name)    # 3.11 writes numbers
            fam = family.get(name, name)
            if rest == ".execution_count" and (name == fam or name.endswith("_ADAPTIVE")):
                generic[fam] = generic.get(fam, 0) + int(value)
            elif rest.startswith(".specialization."):
                has_spec.add(fam)
                if rest == ".specialization.miss":
                    generic[fam] = generic.get(fam, 0) + int(value)
rows = sorted(((-n, f) for f, n in generic.items() if f in has_spec and n))
for n, f in rows[:3]:
    print(f, -n)
