"""hpcsim run with a `resilience:` section: the whole run with failures (issue 40), and its hostile inputs."""
import json
import os

from cli_support import SOURCE, expect, expect_bad_input, hpcsim, run_check, set_flags

SMALL = os.path.join(SOURCE, "tests", "data", "cli", "resilience", "small.yaml")


def run_json(*args):
    proc = hpcsim("run", SMALL, "--format", "json", *args)
    expect(proc.returncode == 0, "run with resilience should succeed", proc)
    return proc, json.loads(proc.stdout)


def check_resilience_run():
    proc, out = run_json()
    r = out["resilience"]
    expect(r["replicas"] == 200 and r["seed"] == 3, "replicas and seed reported", proc)
    t = r["time_to_train_s"]
    expect(t["p5"] <= t["p50"] <= t["p95"], "percentiles ordered", proc)
    expect(t["mean"] > r["work_s"] == 168 * 3600, "failures make the run longer than its compute", proc)
    expect(0 < r["ettr"] < 1, "ETTR in (0, 1)", proc)
    causes = r["interruptions"]["by_cause"]
    expect(set(causes) == {"gpu_recoverable", "gpu_host_replacement", "host_other", "infiniband_recoverable",
                           "infiniband_hardware", "infiniband_other"}, "every cause reported", proc)
    expect(abs(sum(causes.values()) - r["interruptions"]["total"]) < 1e-6, "causes add up", proc)
    expect(r["checkpoint"]["interval_s"] == 1800, "the given interval is used", proc)
    # Byte-identical with the same seed (apart from the wall-clock figures), different with another.
    again, _ = run_json()
    strip = lambda text: "\n".join(l for l in text.splitlines() if "sim_wall_s" not in l)
    expect(strip(again.stdout) == strip(proc.stdout), "same seed, same output", again)
    _, other = run_json("--set", "resilience.seed=4")
    expect(other["resilience"]["time_to_train_s"]["mean"] != t["mean"], "another seed, another draw")
    # Without the section the step's report is unchanged: no resilience keys.
    plain = hpcsim("run", os.path.join(SOURCE, "examples", "quickstart.yaml"), "--format", "json")
    expect(plain.returncode == 0 and "resilience" not in json.loads(plain.stdout), "no section, no resilience", plain)


def check_resilience_errors():
    bad = lambda *sets: hpcsim("run", SMALL, *set_flags(*sets))
    expect_bad_input(bad("resilience.checkpoint.interval=1 s"), "--set", "shorter than the checkpoint's write")
    expect_bad_input(bad("resilience.spares=3"), "more than the job's 2 nodes")
    expect_bad_input(bad("resilience.detection=-5 min"), "detection")
    expect_bad_input(bad("resilience.replicas=0"), "replicas")
    expect_bad_input(bad("resilience.reliability=nope"), "reliability")
    expect_bad_input(bad("resilience.tokens=1e9"), "one of steps, tokens and compute_time")
    expect_bad_input(bad("resilience.checkpoint.snapshot=1 s"), "mode: async")
    # A reliability spec with a zero or negative rate, through $HPCSIM_CONFIG_DIR.
    import shutil
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        configs = os.path.join(root, "configs")
        shutil.copytree(os.path.join(SOURCE, "configs"), configs)
        path = os.path.join(configs, "reliability", "h200-crusoe.yaml")
        text = open(path).read()
        for value in ("0", "-8550"):
            open(path, "w").write(text.replace("fit: 8550", "fit: " + value))
            proc = hpcsim("run", SMALL, env={"HPCSIM_CONFIG_DIR": configs})
            expect_bad_input(proc, "h200-crusoe.yaml:", "must be > 0")


def check_resilience_timeline():
    """--replica-trace: replica 0 as Chrome trace-event JSON, its phases adding up to the run's figures."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "replica.json")
        proc = hpcsim("run", SMALL, "--no-db", "--format", "json", "--set", "resilience.replicas=1", "--set", "resilience.compute_time=20000 h",
                      "--replica-trace", path)
        expect(proc.returncode == 0, "run with --replica-trace should succeed", proc)
        r = json.loads(proc.stdout)["resilience"]
        events = json.load(open(path))["traceEvents"]
        ops = [e for e in events if e["ph"] == "X"]
        lanes = {e["args"]["name"]: e["tid"] for e in events if e["name"] == "thread_name"}
        expect({"job", "failures"} <= set(lanes), f"job and failure lanes: {sorted(lanes)}")
        failures = [e for e in ops if e["tid"] == lanes["failures"]]
        expect(len(failures) == r["interruptions"]["total"], "one mark per interruption (one replica)")
        job = [e for e in ops if e["tid"] == lanes["job"]]
        end_us = job[-1]["ts"] + job[-1]["dur"]
        expect(abs(end_us / 1e6 / r["time_to_train_s"]["mean"] - 1) < 1e-8, "the timeline ends when the replica does")
        compute = sum(e["dur"] for e in job if e["cat"] == "compute") / 1e6
        expect(abs(compute / (r["work_s"] + r["lost_s"]["recompute"]) - 1) < 1e-8, "compute = work + recomputation")
        names = {e["name"] for e in job}
        expect({"compute", "checkpoint", "detection", "restore"} <= names, f"phases named: {sorted(names)}")
    # Hostile: no resilience section, a serve scenario, an unwritable file.
    plain = hpcsim("run", os.path.join(SOURCE, "examples", "quickstart.yaml"), "--no-db", "--replica-trace", "x.json")
    expect_bad_input(plain, "quickstart.yaml:", "resilience: section")
    expect(not os.path.exists("x.json"), "no file for a refused run")
    proc = hpcsim("run", SMALL, "--no-db", "--replica-trace", "/nonexistent/dir/r.json")
    expect(proc.returncode == 1 and "--replica-trace" in proc.stderr, "an unwritable file names the flag", proc)


def check_stragglers():
    """stragglers: the slowest rank sets the step; the expected step weighs the slowed steps by their odds."""
    path = os.path.join(SOURCE, "tests", "data", "cli", "resilience", "stragglers.yaml")
    proc = hpcsim("run", path, "--no-db", "--format", "json")
    expect(proc.returncode == 0, "run with stragglers should succeed", proc)
    out = json.loads(proc.stdout)
    g = out["stragglers"]
    plain = hpcsim("run", os.path.join(SOURCE, "examples", "quickstart.yaml"), "--no-db", "--format", "json")
    base = json.loads(plain.stdout)["step_time_s"]
    expect(out["step_time_s"] == base, "the step without stragglers is unchanged", proc)
    gpus, nodes = out["gpus"], 2
    expect(abs(g["p_slow_gpu"] / (1 - 0.99 ** gpus) - 1) < 1e-8, f"P(a slow GPU among {gpus}): {g['p_slow_gpu']}", proc)
    expect(abs(g["p_slow_link"] / (1 - 0.9 ** nodes) - 1) < 1e-8, "P(a degraded link among 2 nodes)", proc)
    s = g["step_time_s"]
    expect(base < s["slow_gpu"] < 2 * base, f"half clocks: slower, not twice (memory-bound work): {s}", proc)
    expect(s["slow_link"] >= base and s["both"] >= max(s["slow_gpu"], s["slow_link"]) * (1 - 1e-9), f"{s}", proc)
    pg, pl = g["p_slow_gpu"], g["p_slow_link"]
    expected = ((1 - pg) * (1 - pl) * base + pg * (1 - pl) * s["slow_gpu"] + (1 - pg) * pl * s["slow_link"] +
                pg * pl * s["both"])
    expect(abs(s["expected"] - expected) < 1e-8 * expected, "expected step weighs the cases", proc)
    expect(abs(g["step_time_ratio"] / (s["expected"] / base) - 1) < 1e-8, "ratio", proc)
    # Only the GPUs: no link keys.
    proc = hpcsim("run", path, "--no-db", "--format", "json", "--set", "stragglers.slow_links=0")
    expect(proc.returncode == 0 and "p_slow_link" not in json.loads(proc.stdout)["stragglers"], "links off", proc)
    # Hostile input: at the key, exit 2.
    bad = lambda *sets: hpcsim("run", path, "--no-db", *set_flags(*sets))
    expect_bad_input(bad("stragglers.slow_gpus=1.5"), "slow_gpus")
    expect_bad_input(bad("stragglers.slow_gpus=-0.01"), "slow_gpus")
    expect_bad_input(bad("stragglers.gpu_clock=0"), "gpu_clock")
    expect_bad_input(bad("stragglers.gpu_clock=1.2"), "gpu_clock")
    expect_bad_input(bad("stragglers.link_bandwidth=nan"), "link_bandwidth")
    expect_bad_input(bad("stragglers.slow_gpus=0", "stragglers.slow_links=0"), "stragglers.yaml:", "nothing is slow")
    no_clock = os.path.join(os.path.dirname(path), "..", "..", "..", "..", "examples", "quickstart.yaml")
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        lone = os.path.join(tmp, "lone.yaml")
        open(lone, "w").write("extends: " + os.path.abspath(no_clock) + "\nstragglers:\n  slow_gpus: 0.01\n")
        expect_bad_input(hpcsim("run", lone, "--no-db"), "lone.yaml:3:", "needs stragglers.gpu_clock")


def check_mixed_nodes():
    """mixed_nodes: the job runs at the slower generation's step (even) or splits the batch by speed."""
    path = os.path.join(SOURCE, "tests", "data", "cli", "resilience", "mixed-nodes.yaml")
    quick = os.path.join(SOURCE, "examples", "quickstart.yaml")
    run = lambda p, *sets: hpcsim("run", p, "--no-db", "--format", "json", *set_flags(*sets))
    a100 = json.loads(run(quick).stdout)
    h100 = json.loads(run(quick, "cluster.node=dgx-h100").stdout)
    proc = run(path, "mixed_nodes.batch_split=even")
    expect(proc.returncode == 0, "run with mixed_nodes (even) should succeed", proc)
    out = json.loads(proc.stdout)
    even = out["mixed"]
    expect(out["step_time_s"] == a100["step_time_s"], "the step of cluster.node alone is unchanged", proc)
    expect(even["micro_batch"] == {"first": 4, "second": 4} and even["replicas"] == {"first": 8, "second": 8}, f"{even}", proc)
    expect(even["step_time_s"]["job"] == a100["step_time_s"], "even: the slower generation's step", proc)
    expect(abs(even["step_time_s"]["second"] / h100["step_time_s"] - 1) < 1e-8, "the H100's homogeneous step", proc)
    expect(even["global_batch"] == 64 and "speedup_vs_even" not in even, f"{even}", proc)
    expect(abs(even["idle_fraction"] - (1 - h100["step_time_s"] / a100["step_time_s"])) < 1e-8, "idle", proc)
    proc = run(path)
    expect(proc.returncode == 0, "run with mixed_nodes (proportional) should succeed", proc)
    prop = json.loads(proc.stdout)["mixed"]
    expect(prop["micro_batch"]["second"] > prop["micro_batch"]["first"] >= 1, f"{prop}", proc)
    expect(a100["throughput"]["samples_per_s"] < prop["samples_per_s"] < h100["throughput"]["samples_per_s"], f"between: {prop}", proc)
    expect(prop["samples_per_s"] > even["samples_per_s"] and prop["speedup_vs_even"] > 1, f"{prop}", proc)
    expect(prop["idle_fraction"] < even["idle_fraction"], "the faster generation idles less", proc)
    table = hpcsim("run", path, "--no-db")
    expect(table.returncode == 0 and "mixed" in table.stdout, "the table shows the mixed metrics", table)
    # Hostile input: at the key, exit 2.
    bad = lambda *sets: hpcsim("run", path, "--no-db", *set_flags(*sets))
    expect_bad_input(bad("mixed_nodes.node=dgx-h10"), "--set mixed_nodes.node=dgx-h10", "did you mean")
    expect_bad_input(bad("mixed_nodes.nodes=0"), "nodes")
    expect_bad_input(bad("mixed_nodes.nodes=2"), "at least one must be cluster.node")
    expect_bad_input(bad("mixed_nodes.batch_split=uneven"), "uneven")
    expect_bad_input(bad("mixed_nodes.node=dgx-1v-32gb"), "no bf16 math units")
    expect_bad_input(bad("mixed_nodes.node=g5-2xlarge"), "uses 8 per node")
    expect_bad_input(bad("parallelism.tp=8", "parallelism.pp=2"), "do not divide into replicas")
    expect_bad_input(bad("parallelism.dp=8"), "idle")
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:  # in a file: at its line and column
        wrong = os.path.join(tmp, "wrong.yaml")
        open(wrong, "w").write("extends: " + os.path.abspath(path) + "\nmixed_nodes:\n  node: dgx-h100\n  nodes: 5\n")
        expect_bad_input(hpcsim("run", wrong, "--no-db"), "wrong.yaml:4:10:", "give 1 to 1")


run_check({"resilience_run": check_resilience_run, "stragglers": check_stragglers, "resilience_errors": check_resilience_errors,
           "resilience_timeline": check_resilience_timeline, "mixed_nodes": check_mixed_nodes})
