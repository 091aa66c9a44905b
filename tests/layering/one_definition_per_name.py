#!/usr/bin/env python3
"""Every class or struct at namespace scope (outside anonymous namespaces) has one name in the whole program.
Two types of one name in namespace hpcsim break the one-definition rule without a compiler error when no file
includes both: the linker then keeps one of their template instantiations for both (the fuzz harness under
ASan found std::vector<ScalingPoint> of report_data.h freeing a scaling_report.h vector: 48 vs 296 bytes).
Usage: one_definition_per_name.py SOURCE_DIR"""
import collections
import os
import re
import sys

LAYERS = ["sim-core", "configs", "models", "workloads", "analysis", "cli", "python/src"]
TYPE = re.compile(r"^(struct|class)\s+([A-Za-z_]\w*)\s*(final\s*)?(:(?!:)[^;{]*)?\{", re.M)  # not Outer::Inner


def anonymous_spans(text):
    spans = []
    for m in re.finditer(r"namespace\s*\{", text):
        i, depth = m.end(), 1
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        spans.append((m.start(), i))
    return spans


def main():
    root = sys.argv[1]
    where = collections.defaultdict(set)
    for layer in LAYERS:
        for folder, _, files in os.walk(os.path.join(root, layer)):
            for name in files:
                if not name.endswith((".h", ".cpp")):
                    continue
                path = os.path.join(folder, name)
                with open(path, errors="replace") as f:
                    text = f.read()
                spans = anonymous_spans(text)
                for m in TYPE.finditer(text):  # at column 0: namespace scope in this code base's style
                    if not any(a <= m.start() < b for a, b in spans):
                        where[m.group(2)].add(os.path.relpath(path, root))
    clashes = {k: sorted(v) for k, v in where.items() if len(v) > 1}
    for name, paths in sorted(clashes.items()):
        print(f"{name} is defined in {', '.join(paths)}: give one of them another name")
    return 1 if clashes else 0


if __name__ == "__main__":
    sys.exit(main())
