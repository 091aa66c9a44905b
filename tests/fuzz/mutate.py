"""Seeded mutations of hpcsim's input texts (YAML, SWF, CSV) and of flag values, for fuzz_inputs.py.

Every function takes a random.Random, so one case number always makes the same input. The YAML mutations
work on the text (no YAML library in the standard library): they find scalar values by a per-line pattern,
which is enough to replace, delete, duplicate and nest them while most of a file stays well-formed, so the
mutated input reaches the checks behind the parser and not only the parser."""
import re

# Numbers the simulator's range checks must refuse or survive: zero, signs, the float and int limits, NaN.
HOSTILE_NUMBERS = [
    "0", "-1", "1", "-0", "0.5", "1e308", "-1e308", "1e-300", "1e400", "nan", "NaN", ".nan", "inf", "-inf", ".inf",
    "2147483647", "2147483648", "-2147483649", "4294967296", "9223372036854775807", "9223372036854775808",
    "18446744073709551616", "1e9", "1e12", "1e18", "1e22", "1e30", "0x10", "1_000", "1e", "--1", "+5", "3.", ".5",
]
# Integers at the edges of int32, uint32 and int64 (values read into an int).
INTEGER_EDGES = ["2147483647", "2147483648", "3000000000", "4294967295", "4294967296", "-2147483648", "65536", "1000000",
                 "9223372036854775807", "9223372036854775808", "100000"]
# The same without NaN and infinity, for places whose value may be echoed as text (a name).
FINITE_NUMBERS = [n for n in HOSTILE_NUMBERS if not re.search(r"nan|inf", n, re.I)]
HOSTILE_STRINGS = [
    "", '""', "''", "~", "null", "true", "false", "[]", "{}", "x" * 5000, "../../../../etc/passwd", "/dev/zero",
    "a\\tb", "\u00e9\u00e8\u4e2d", '"\\u0000"', "'", '"', "?", "- x", "!!binary AAAA", "!tag x", "%YAML", "@x", "`x",
    "|", ">", "&", "*", "*undefined", "<<: *x",
]
UNITS = ["s", "ms", "h", "min", "GB/s", "Gb/s", "TB/s", "B", "KiB", "MiB", "GiB", "PiB", "EiB", "MHz", "GHz", "W", "kW",
         "TFLOP/s", "USD", "us", "ns", "B/s", "flop", "parsec", ""]

NUMBER = re.compile(r"^[-+]?(\d[\d_]*\.?\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?)$")
QUANTITY = re.compile(r"^([-+]?[\d.]+(?:[eE][-+]?\d+)?)\s*([A-Za-z/%][\w/%]*)$")
# A scalar value on a line: after `key: `, `- ` or inside a flow collection, up to `,`, `]`, `}`, a comment or
# the end of the line. Keys (followed by `:`) are skipped because the value may not hold a colon.
SCALAR = re.compile(r"(?:(?<=:\s)|(?<=-\s)|(?<=\[)|(?<=,\s)|(?<=,))\s*([^\s,\[\]{}#:&*!|>'\"][^,\[\]{}#:]*?)"
                    r"(?=\s*(?:,|\]|\}|\s#|$))")


def hostile_for(value, rng):
    """A hostile replacement for one scalar, of its kind most of the time (a unit kept on a quantity)."""
    value = value.strip()
    roll = rng.random()
    if roll < 0.08:
        return structural(rng)
    if NUMBER.match(value):
        if roll < 0.3:
            try:
                x = float(value.replace("_", ""))
                y = rng.choice([x * 1e6, x * 1e12, -x, x + 1, x - 1, x / 1e9, x * 2, 0.0])
                return str(int(y)) if y.is_integer() and abs(y) < 1e19 else repr(y)
            except ValueError:
                pass
        if roll < 0.45:
            return rng.choice(INTEGER_EDGES)
        return rng.choice(HOSTILE_NUMBERS) if roll < 0.9 else rng.choice(FINITE_STRINGS)
    m = QUANTITY.match(value)
    if m:
        unit = m.group(2) if roll < 0.75 else rng.choice(UNITS)
        number = rng.choice(HOSTILE_NUMBERS)
        return f"{number} {unit}".strip() if rng.random() < 0.9 else f"{number}{unit}"
    if value in ("true", "false"):
        return rng.choice(["yes", "no", "1", "0", "True", "", "maybe", "~"])
    # A name or word: strings, and numbers that print finitely (the name may be echoed as text).
    return rng.choice(FINITE_STRINGS) if roll < 0.7 else rng.choice(FINITE_NUMBERS)


FINITE_STRINGS = [s for s in HOSTILE_STRINGS if not re.search(r"nan|inf", s, re.I)]


def nested(rng, depth=None):
    depth = depth or rng.choice([10, 63, 64, 65, 200, 3000])
    if rng.random() < 0.5:
        return "[" * depth + "1" + "]" * depth
    return "{a: " * depth + "1" + "}" * depth


def structural(rng):
    """A value that is not a scalar: a self-referencing alias, deep nesting, a long or empty collection."""
    return rng.choice([
        "&fz [*fz]", "&fz {a: *fz}", "&fz [1, [2, *fz]]", "*fz", nested(rng), "[]", "{}",
        "[" + ", ".join(["1"] * rng.choice([2, 1000, 20000])) + "]", "{a: 1, a: 2}", "[1, {b: [c]}]",
    ])


def alias_bomb(rng):
    levels = rng.choice([3, 6, 9, 12])
    width = rng.choice([2, 10])
    text = "fz0: &fz0 [lol]\n"
    for level in range(1, levels + 1):
        text += f"fz{level}: &fz{level} [" + ", ".join([f"*fz{level - 1}"] * width) + "]\n"
    return text, f"*fz{levels}"


def scalar_sites(text):
    sites = []
    offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.lstrip()
        if not stripped.startswith("#"):
            for m in SCALAR.finditer(line.rstrip("\r\n")):
                if m.group(1).strip():
                    sites.append((offset + m.start(1), offset + m.end(1)))
        offset += len(line)
    return sites


def block_end(lines, i):
    """The line after the block that starts at line i (its more-indented children)."""
    indent = len(lines[i]) - len(lines[i].lstrip())
    j = i + 1
    while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
        j += 1
    return j


def mutate_yaml_once(text, rng, extra_keys=()):
    op = rng.choices(
        ["scalar", "delete", "duplicate", "unknown", "schema_key", "alias_scalar", "bomb", "anchor_alias", "indent",
         "swap", "truncate", "flip", "insert_bytes", "empty", "repeat"],
        [30, 5, 4, 1, 10, 2, 1, 2, 2, 2, 2, 2, 1, 1, 1])[0]
    lines = text.splitlines(keepends=True)
    content = [i for i, l in enumerate(lines) if l.strip() and not l.lstrip().startswith("#")]
    if op in ("scalar", "alias_scalar", "anchor_alias"):
        sites = scalar_sites(text)
        if not sites:
            return text + "\n" + structural(rng)
        start, end = rng.choice(sites)
        if op == "scalar":
            return text[:start] + hostile_for(text[start:end], rng) + text[end:]
        if op == "alias_scalar":
            return text[:start] + rng.choice(["&fz [*fz]", "&fz {k: *fz}", "*nowhere", "&fz " + text[start:end]]) + text[end:]
        # An anchor on one value and its alias at another: legal, and the value lands where it does not belong.
        (s1, e1), (s2, e2) = sorted(rng.sample(sites, 2)) if len(sites) > 1 else (sites[0], sites[0])
        if s1 == s2:
            return text
        return text[:s1] + "&fzv " + text[s1:e1] + text[e1:s2] + "*fzv" + text[e2:]
    if op == "delete" and content:
        i = rng.choice(content)
        return "".join(lines[:i] + lines[block_end(lines, i):])
    if op == "duplicate" and content:
        i = rng.choice(content)
        j = block_end(lines, i)
        return "".join(lines[:j] + lines[i:j] + lines[j:])
    if op == "unknown":
        i = rng.randrange(len(lines) + 1)
        return "".join(lines[:i] + ["fuzz_unknown_key: 1\n"] + lines[i:])
    if op == "schema_key" and extra_keys:
        key, sample = rng.choice(extra_keys)
        value = hostile_for(sample, rng)
        # A dotted key written as nested maps at the top level (it may duplicate a key the file has).
        parts = key.split(".")
        block = ""
        for depth, part in enumerate(parts):
            block += "  " * depth + part + (":\n" if depth < len(parts) - 1 else f": {value}\n")
        return text.rstrip("\n") + "\n" + block
    if op == "bomb":
        anchors, alias = alias_bomb(rng)
        sites = scalar_sites(text)
        if sites and rng.random() < 0.7:
            start, end = rng.choice(sites)
            # Anchors must come before their alias: put them in a top-level key first (an unknown key).
            return anchors + text[:start] + alias + text[end:]
        return anchors + text
    if op == "indent" and content:
        i = rng.choice(content)
        lines[i] = ("  " + lines[i]) if rng.random() < 0.5 else lines[i].lstrip()
        return "".join(lines)
    if op == "swap" and len(content) > 1:
        i, j = rng.sample(content, 2)
        lines[i], lines[j] = lines[j], lines[i]
        return "".join(lines)
    if op == "empty":
        return rng.choice(["", "\n", "# only a comment\n", "---\n", "~\n", "[]\n", "{}\n", "...\n", "\t\n", "x\n"])
    if op == "repeat" and content:
        i = rng.choice(content)
        return "".join(lines[:i] + [lines[i]] * rng.choice([2, 100, 5000]) + lines[i:])
    return mutate_bytes(text, rng, op)


def mutate_bytes(text, rng, op=None):
    data = bytearray(text.encode("utf-8", "surrogateescape"))
    op = op or rng.choice(["truncate", "flip", "insert_bytes"])
    if not data:
        return rng.choice(["", "\x00", "\xff"])
    if op == "truncate":
        return data[:rng.randrange(len(data))].decode("utf-8", "surrogateescape")
    if op == "flip":
        for _ in range(rng.choice([1, 1, 2, 5, 20])):
            i = rng.randrange(len(data))
            data[i] = rng.choice([data[i] ^ (1 << rng.randrange(8)), rng.randrange(256), ord(rng.choice(":-[]{}&*#'\"\t\n0"))])
        return data.decode("utf-8", "surrogateescape")
    i = rng.randrange(len(data) + 1)
    junk = rng.choice([b"\x00", b"\xff\xfe", b"\r", b"\t", b"\xef\xbb\xbf", b"\xc3", b": :", b"\n---\n", b"\n...\n",
                       b"\xe2\x80\xa8", bytes(rng.randrange(256) for _ in range(rng.choice([1, 8, 64])))])
    data[i:i] = junk
    return data.decode("utf-8", "surrogateescape")


def mutate_yaml(text, rng, extra_keys=()):
    for _ in range(rng.choice([1, 1, 1, 1, 2, 3])):
        text = mutate_yaml_once(text, rng, extra_keys)
    return text


def mutate_fields(text, rng, separator, comment):
    """SWF (whitespace) and CSV (comma) files: replace, delete or duplicate fields and lines, then bytes."""
    lines = text.splitlines(keepends=True)
    data = [i for i, l in enumerate(lines) if l.strip() and not l.lstrip().startswith(comment)]
    for _ in range(rng.choice([1, 1, 2, 3, 8])):
        op = rng.choice(["field", "field", "field", "field", "drop_field", "add_field", "delete", "duplicate",
                         "bytes", "reorder", "header"])
        if op == "bytes" or not data:
            return mutate_bytes("".join(lines), rng)
        i = rng.choice(data)
        if i >= len(lines):
            continue
        fields = lines[i].rstrip("\r\n").split(separator) if separator else lines[i].split()
        if op in ("field", "drop_field", "add_field") and fields:
            k = rng.randrange(len(fields))
            if op == "field":
                fields[k] = hostile_for(fields[k], rng) if rng.random() < 0.8 else rng.choice(HOSTILE_NUMBERS)
            elif op == "drop_field":
                del fields[k]
            else:
                fields.insert(k, rng.choice(HOSTILE_NUMBERS))
            lines[i] = (separator or " ").join(fields) + "\n"
        elif op == "delete":
            del lines[i]
            data = [j for j, l in enumerate(lines) if l.strip() and not l.lstrip().startswith(comment)]
        elif op == "duplicate":
            lines.insert(i, lines[i] * rng.choice([1, 1, 50]))
        elif op == "reorder":
            rng.shuffle(lines)
        else:
            lines.insert(rng.randrange(len(lines) + 1), comment + " " + rng.choice(["gpu: x", "", ":", "hpcsim-cuda-bench 9",
                                                                                "MaxNodes: -1", "MaxProcs: 1e308"]) + "\n")
    return "".join(lines)


def hostile_flag(value, rng):
    """A flag's value: usually hostile of its kind, sometimes the NaN/inf family."""
    return hostile_for(value, rng) if rng.random() < 0.85 else rng.choice(HOSTILE_NUMBERS)
