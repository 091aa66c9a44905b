#!/usr/bin/env python3
"""End-to-end checks of the hpcsim command: output keys, determinism, exit codes and error messages.
Usage: cli_checks.py HPCSIM SOURCE_DIR CHECK"""
import json
import os
import subprocess
import sys
import tempfile

HPCSIM, SOURCE, CHECK = sys.argv[1], sys.argv[2], sys.argv[3]
QUICKSTART = os.path.join(SOURCE, "examples", "quickstart.yaml")
DATA = os.path.join(SOURCE, "tests", "data", "cli")
TEST_CONFIGS = os.path.join(DATA, "configs")
FIXED_KEYS = ["step_time_s", "throughput.samples_per_s", "throughput.tokens_per_s", "tflops_per_gpu", "mfu",
              "breakdown_s.compute", "breakdown_s.communication_exposed", "breakdown_s.io_stall",
              "breakdown_s.pipeline_bubble", "breakdown_s.optimizer", "breakdown_s.other",
              "memory_per_gpu_bytes", "fits_in_memory", "gpus", "sim_wall_s", "events"]


def hpcsim(*args, env=None):
    full_env = dict(os.environ)
    full_env.pop("HPCSIM_CONFIG_DIR", None)
    full_env.update(env or {})
    return subprocess.run([HPCSIM, *args], capture_output=True, text=True, env=full_env, timeout=300)


def expect(condition, message, proc=None):
    if not condition:
        detail = f"\n--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}" if proc else ""
        sys.exit(f"FAILED: {message}{detail}")


def expect_bad_input(proc, *fragments):
    expect(proc.returncode == 2, f"exit code 2 expected, got {proc.returncode}", proc)
    for f in fragments:
        expect(f in proc.stderr, f"stderr should mention {f!r}", proc)


def lookup(doc, dotted):
    for part in dotted.split("."):
        doc = doc[part]
    return doc


def check_json_keys():
    proc = hpcsim("run", QUICKSTART, "--no-db", "--format", "json")
    expect(proc.returncode == 0, "run should succeed", proc)
    doc = json.loads(proc.stdout)
    for key in FIXED_KEYS:
        try:
            lookup(doc, key)
        except KeyError:
            expect(False, f"missing JSON key {key}", proc)
    expect(doc["step_time_s"] > 0, "step time must be positive", proc)
    expect(doc["gpus"] == 16, "quickstart uses 16 GPUs", proc)
    expect(isinstance(doc["fits_in_memory"], bool), "fits_in_memory is a JSON boolean", proc)
    expect(doc["events"] > 0, "the engine processed events", proc)
    parts = sum(v for v in doc["breakdown_s"].values())
    expect(abs(parts - doc["step_time_s"]) <= 1e-6 * doc["step_time_s"], "breakdown adds up to the step time", proc)


def check_deterministic():
    outputs = []
    for _ in range(2):
        proc = hpcsim("run", QUICKSTART, "--no-db", "--format", "json")
        expect(proc.returncode == 0, "run should succeed", proc)
        doc = json.loads(proc.stdout)
        doc.pop("sim_wall_s")
        outputs.append(proc.stdout.splitlines())
    strip = [[line for line in out if '"sim_wall_s"' not in line] for out in outputs]
    expect(strip[0] == strip[1], "two runs must be byte-identical apart from sim_wall_s")


def check_store():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "results.db")
        for _ in range(2):
            proc = hpcsim("run", QUICKSTART, "--db", db, "--format", "csv")
            expect(proc.returncode == 0, "run should succeed", proc)
        proc = hpcsim("show", db)
        expect(proc.returncode == 0, "show should succeed", proc)
        expect(proc.stdout.count("quickstart-gpt-1.3b-2x-dgx-a100") == 2, "show lists both runs", proc)
        expect("breakdown_s.communication_exposed" in proc.stdout, "show lists metrics", proc)


def check_errors():
    expect_bad_input(hpcsim("run", os.path.join(DATA, "malformed.yaml")), "malformed.yaml:4:")
    expect_bad_input(hpcsim("run", os.path.join(DATA, "unknown_key.yaml")),
                     "unknown_key.yaml:11:3:", "did you mean 'precision'")
    expect_bad_input(hpcsim("run", os.path.join(DATA, "missing.yaml")), "missing.yaml")
    bad_unit = hpcsim("run", QUICKSTART, "--set", "cluster.node=bad-unit-node", env={"HPCSIM_CONFIG_DIR": TEST_CONFIGS})
    expect_bad_input(bad_unit, "bad-unit-gpu.yaml:4:14:")
    expect_bad_input(hpcsim("run", QUICKSTART, "--set", "cluster.node=zero-gpu-node",
                            env={"HPCSIM_CONFIG_DIR": TEST_CONFIGS}), "zero-gpu-node.yaml:3:7:")
    expect_bad_input(hpcsim("run", QUICKSTART, "--set", "cluster.node=dgx-a100-80g"), "did you mean 'dgx-a100-80gb'")
    expect_bad_input(hpcsim("run", QUICKSTART, "--set", "workload.layers=-3"), "--set workload.layers=-3")
    expect_bad_input(hpcsim("run", QUICKSTART, "--set", "nonsense"), "--set nonsense")
    expect_bad_input(hpcsim("run", QUICKSTART, "--frobnicate"), "--frobnicate")
    expect_bad_input(hpcsim("run", QUICKSTART, "--format", "xml"), "xml")
    expect_bad_input(hpcsim("show", os.path.join(DATA, "no-such.db")), "no-such.db")
    expect_bad_input(hpcsim("show", QUICKSTART), "quickstart.yaml")


def check_list_and_version():
    proc = hpcsim("list")
    expect(proc.returncode == 0 and "a100-sxm4-80gb" in proc.stdout and "ib-hdr" in proc.stdout, "list", proc)
    proc = hpcsim("version")
    expect(proc.returncode == 0 and proc.stdout.startswith("hpcsim "), "version", proc)


{"json_keys": check_json_keys, "deterministic": check_deterministic, "store": check_store,
 "errors": check_errors, "list_version": check_list_and_version}[CHECK]()
print("1 passed, 0 failed")
