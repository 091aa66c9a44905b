#!/usr/bin/env python3
"""Hostile and degenerate inputs through the hpcsim command: each is refused with exit 2 and its place
(file:line:column, or the flag), never a crash, an `internal error` or inf/NaN printed as a result.
Usage: robustness_checks.py HPCSIM SOURCE_DIR CHECK"""
import os
import shutil
import tempfile
import time

from cli_support import SOURCE, expect, expect_bad_input, hpcsim, run_check

EXAMPLES = os.path.join(SOURCE, "examples")
QUICKSTART = os.path.join(EXAMPLES, "quickstart.yaml")
SERVE = os.path.join(EXAMPLES, "serving", "roberta-g5.yaml")
CLUSTER = os.path.join(EXAMPLES, "scheduling", "cluster-ib.yaml")
SWF_LINE = "    1     10    0   100  4  -1  -1  4  200  -1  1  1  1  -1  1  -1  -1  -1\n"


def write(folder, name, text):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def refused(proc, *fragments):
    expect_bad_input(proc, *fragments)
    expect("internal error" not in proc.stderr, "no internal error", proc)


def alias_bomb(levels):
    text = "a0: &a0 [lol]\n"
    for level in range(1, levels + 1):
        text += f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 10) + "]\n"
    return text


def check_yaml_aliases():
    with tempfile.TemporaryDirectory() as tmp:
        cycle_list = write(tmp, "cycle-list.yaml", "name: x\ncluster: &c [*c]\n")
        cycle_map = write(tmp, "cycle-map.yaml", "jobs: &m\n  a: 1\n  b: *m\n")
        bomb = write(tmp, "bomb.yaml", alias_bomb(9))
        deep = write(tmp, "deep.yaml", "a: " + "[" * 5000 + "]" * 5000 + "\n")
        # Every command that reads YAML goes through the one loader; a few of them, each kind of file.
        refused(hpcsim("run", cycle_list, "--no-db"), "cycle-list.yaml:2:14: alias *c stands inside the value it names")
        refused(hpcsim("serve", cycle_list, "--no-db"), "cycle-list.yaml:2:14:")
        refused(hpcsim("schedule", cycle_map, "--nodes", "4", "--policy", "easy"),
                "cycle-map.yaml:3:6: alias *m stands inside the value it names")
        refused(hpcsim("run", QUICKSTART, "--no-db", "--set", "workload=&w {a: *w}"),
                "--set workload=&w {a: *w}: alias *w stands inside the value it names")
        start = time.monotonic()
        refused(hpcsim("run", bomb, "--no-db"), "bomb.yaml:6:", "aliases expand to more than 100000 values")
        refused(hpcsim("schedule", deep, "--nodes", "4", "--policy", "easy"), "deep.yaml:1:", "nested deeper than 64 levels")
        expect(time.monotonic() - start < 20, "the bomb and the deep nesting are refused at once")
        refused(hpcsim("run", write(tmp, "comma.yaml", ",\n"), "--no-db"), "comma.yaml:1:1: invalid YAML: unexpected ','")


def check_values_at_key():
    with tempfile.TemporaryDirectory() as tmp:
        def jobs(name, job):
            return write(tmp, name, "jobs:\n  - " + job + "\n")
        schedule = ("--cluster", CLUSTER, "--policy", "easy")
        refused(hpcsim("schedule", jobs("neg.yaml", "{submit: -5 s, nodes: 1, run: 10 s}"), *schedule),
                "neg.yaml:2:14: must be >= 0 s")
        refused(hpcsim("schedule", jobs("far.yaml", "{submit: 1e308 s, nodes: 1, run: 10 s}"), *schedule),
                "far.yaml:2:14: a time may be at most 1e9 s")
        refused(hpcsim("schedule", jobs("steps.yaml", "{submit: 0 s, nodes: 1, training: {workload: {model: resnet50, "
                                        "batch_per_gpu: 256, precision: fp16, optimizer: momentum}, "
                                        "steps: 1000000000000000000}}"), *schedule),
                "steps.yaml:2:", "must be <= 1e+09")
        refused(hpcsim("schedule", write(tmp, "neg.swf", SWF_LINE.replace("  10  ", " -10  ", 1)), "--nodes", "100",
                       "--policy", "easy"),
                "neg.swf:1:10: field 2 of an SWF job line (submit time) is negative")
        refused(hpcsim("schedule", write(tmp, "far.swf", SWF_LINE.replace("  100  ", "  1e308  ", 1)), "--nodes", "100",
                       "--policy", "easy"),
                "far.swf:1:21: field 4 of an SWF job line is a time of more than 1e9 s")
        refused(hpcsim("serve", SERVE, "--no-db", "--set", "serving.rate_rps=1e-300"),
                "--set serving.rate_rps=1e-300: 20000 requests at 1e-300 per second arrive over more than 1e9 s")
        # A spec of the config root: a network's rate of 1e-300 Gb/s stalled the step, a GPU's HBM bandwidth
        # gave a time of NaN.
        root = os.path.join(tmp, "configs")
        shutil.copytree(os.path.join(SOURCE, "configs"), root)
        gpu = os.path.join(root, "gpus", "a100-sxm4-80gb.yaml")
        with open(gpu) as f:
            text = f.read()
        with open(gpu, "w") as f:
            f.write(text.replace("  bandwidth: 2039 GB/s", "  bandwidth: 1e-300 GB/s", 1))
        refused(hpcsim("run", QUICKSTART, "--no-db", env={"HPCSIM_CONFIG_DIR": root}),
                "a100-sxm4-80gb.yaml:25:14: a bandwidth above 0 may be no less than 1 B/s")


def check_no_nan_results():
    refused(hpcsim("collective", "--node", "dgx-a100-80gb", "--gpus", "1", "--op", "allreduce", "--size", "1GiB"),
            "--gpus must be 2..8 for this cluster (a collective needs at least 2 GPUs), got 1")
    refused(hpcsim("collective", "--node", "g5-2xlarge", "--op", "allreduce", "--size", "1GiB"),
            "a collective needs at least 2 GPUs; this cluster has 1")
    refused(hpcsim("collective", "--node", "dgx-a100-80gb", "--op", "allreduce", "--size", "1e30B"),
            "--size: a size may be at most 1 PiB")
    refused(hpcsim("io", "--storage", "nvme-p5500", "--samples", "10", "--sample-size", "1e30B"),
            "--sample-size 1e30B: a sample may be at most 1 PiB")
    proc = hpcsim("collective", "--node", "dgx-a100-80gb", "--gpus", "2", "--op", "allreduce", "--min", "1MiB",
                  "--max", "1PiB", "--format", "json")
    expect(proc.returncode == 0, "a sweep up to the largest size runs", proc)
    expect("inf" not in proc.stdout and "nan" not in proc.stdout, "no inf or NaN in the rows", proc)


def check_empty_inputs():
    with tempfile.TemporaryDirectory() as tmp:
        swf = ("--nodes", "100", "--policy", "easy")
        refused(hpcsim("schedule", write(tmp, "empty.swf", ""), *swf), "empty.swf: the trace is empty")
        refused(hpcsim("schedule", write(tmp, "comments.swf", "; MaxNodes: 100\n\n"), *swf),
                "comments.swf: no job lines")
        refused(hpcsim("schedule", write(tmp, "big.swf", SWF_LINE.replace("  4  -1  -1  4  ", "  400  -1  -1  400  ")),
                       *swf),
                "big.swf: no job to schedule: all 1 were skipped")
        refused(hpcsim("schedule", write(tmp, "none.yaml", "jobs: []\n"), *swf), "none.yaml:1:7: must not be empty")
        os.mkdir(os.path.join(tmp, "cases"))
        refused(hpcsim("validate", os.path.join(tmp, "cases")), "holds no validation case")


run_check({
    "robust_yaml_aliases": check_yaml_aliases,
    "robust_values_at_key": check_values_at_key,
    "robust_no_nan_results": check_no_nan_results,
    "robust_empty_inputs": check_empty_inputs,
})
