"""string formatting: f-strings with format specs and conversions,
str.format, %-formatting, join, split."""


def run():
    out = []
    for i in range(30):
        name = "item" + str(i)
        out.append(f"{name!r:>10}|{i:04d}|{i / 7:.3f}|{i:x}")
        out.append("{0}-{1:>3}".format(name, i))
        out.append("%s=%d" % (name, i))
    text = ",".join(out)
    parts = text.split(",")
    return len(text), len(parts), parts[-1].upper()
