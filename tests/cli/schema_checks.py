#!/usr/bin/env python3
"""End-to-end checks of `hpcsim schema`: docs/reference.md is its output, every key has a meaning, the kinds.
Usage: schema_checks.py HPCSIM SOURCE_DIR CHECK"""
import difflib
import os

from cli_support import HPCSIM, SOURCE, expect, expect_bad_input, hpcsim, run_check

REFERENCE = os.path.join(SOURCE, "docs", "reference.md")
KINDS = ["scenario", "gpu", "node", "network", "storage", "filesystem", "reliability", "frontend", "jobs", "campaign", "serve"]


def schema(*args):
    proc = hpcsim("schema", *args)
    expect(proc.returncode == 0, f"hpcsim schema {' '.join(args)} should succeed", proc)
    return proc.stdout


def check_schema_reference():
    generated = schema()
    with open(REFERENCE, encoding="utf-8") as f:
        written = f.read()
    if written != generated:
        diff = difflib.unified_diff(written.splitlines(keepends=True), generated.splitlines(keepends=True),
                                    "docs/reference.md", "hpcsim schema")
        expect(False, "docs/reference.md is stale:\n" + "".join(diff) +
               f"\nRegenerate it with: scripts/update-reference.sh {HPCSIM}")


def key_rows(text):
    """(key, type, required or default, meaning) of every table row but the header."""
    rows = []
    for line in text.splitlines():
        if not line.startswith("| `"):
            continue
        # A '|' inside a cell would split the Markdown row; four cells means none did.
        cells = line[len("| "):-len(" |")].split(" | ")
        expect(len(cells) == 4 and line.endswith(" |"), f"a row of four cells: {line}")
        rows.append(cells)
    return rows


def check_schema_meanings():
    rows = key_rows(schema())
    expect(len(rows) > 300, f"every file kind's keys are listed ({len(rows)} rows)")
    missing = [key for key, _, _, meaning in rows if not meaning.strip()]
    expect(not missing, f"{len(missing)} keys have no meaning: " + ", ".join(missing))
    # An optional key says what its absence means ("default 1", "default none: required for pfs").
    silent = [key for key, _, need, _ in rows if need == "optional"]
    expect(not silent, f"{len(silent)} optional keys say nothing of their default: " + ", ".join(silent))


def check_schema_kinds():
    everything = schema()
    for kind in KINDS:
        section = schema(kind)
        expect(section.startswith(f"## {kind}\n"), f"hpcsim schema {kind} prints its own section")
        expect(section in everything, f"hpcsim schema {kind} is the reference's {kind} section")
    gpu = schema("gpu")
    for key in ["sm_count", "clocks.boost", "memory.capacity", "flops_per_clock_per_sm.tensor.bf16",
                "achievable.matmul", "sm.max_warps", "tdp"]:
        expect(f"| `{key}` |" in gpu, f"hpcsim schema gpu lists {key}")
    expect("## node" not in gpu, "hpcsim schema gpu prints the gpu keys only")
    expect("| `memory.capacity` | quantity (a size in bytes, with its unit) > 0 | required |" in gpu,
           "a row gives the type, its unit and whether it is required")
    expect_bad_input(hpcsim("schema", "bogus"), "bogus")


run_check({"schema_reference": check_schema_reference, "schema_meanings": check_schema_meanings,
           "schema_kinds": check_schema_kinds})
