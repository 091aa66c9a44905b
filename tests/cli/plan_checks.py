#!/usr/bin/env python3
"""End-to-end checks of `hpcsim plan` on examples/capacity-plan/plan.yaml: the JSON contract, the ranking,
the Pareto front, the store, and errors at the key.
Usage: plan_checks.py HPCSIM SOURCE_DIR CHECK"""
import json
import os
import sqlite3
import tempfile

from cli_support import SOURCE, expect, expect_bad_input, hpcsim, run_check, set_flags

PLAN = os.path.join(SOURCE, "examples", "capacity-plan", "plan.yaml")
CONTRACT = {"node", "nodes", "network", "parallelism", "time_to_train_s", "cost_usd", "energy_kwh"}


def plan(*args):
    proc = hpcsim("plan", PLAN, "--no-db", "--format", "json", *args)
    expect(proc.returncode == 0, "plan should succeed", proc)
    return json.loads(proc.stdout), proc


def objectives(c):
    return (c["time_to_train_s"], c["cost_usd"], c["energy_kwh"])


def dominates(a, b):
    return all(x <= y for x, y in zip(a, b)) and any(x < y for x, y in zip(a, b))


def check_plan_json():
    doc, proc = plan()
    expect({"candidates", "pareto"} <= set(doc), "top-level keys", proc)
    expect(len(doc["candidates"]) > 20 and doc["pareto"], "candidates and a front", proc)
    for c in doc["candidates"] + doc["pareto"]:
        expect(CONTRACT <= set(c), f"contract keys in {sorted(c)}", proc)
        p = c["parallelism"]
        expect(p["dp"] * p["tp"] * p["pp"] == c["gpus"] == 8 * c["nodes"], "layout uses every GPU", proc)
        expect(p["micro_batch"] * p["microbatches"] * p["dp"] == 1536, "global batch kept", proc)
    expect("screened" in proc.stderr and "/s" in proc.stderr, "rates on stderr", proc)
    again, _ = plan()
    expect(again == doc, "the same plan prints the same JSON")


def check_plan_ranking():
    doc, proc = plan()
    cands = doc["candidates"]
    expect([c["rank"] for c in cands] == list(range(1, len(cands) + 1)), "ranks in order", proc)
    first = [c for c in cands if c["simulated"] and c["status"] == "ok" and c["meets_constraints"]]
    expect(first and cands[:len(first)] == first, "simulated configurations meeting the target come first", proc)
    costs = [c["cost_usd"] for c in first]
    expect(costs == sorted(costs), f"cheapest first: {costs}", proc)
    for c in first:
        expect(c["time_to_train_s"] <= 720 * 3600 and c["cost_usd"] <= 6e6, "meets the constraints", proc)
    simulated = [c for c in cands if c["simulated"] and c["status"] == "ok"]
    front = doc["pareto"]
    times = [p["time_to_train_s"] for p in front]
    expect(times == sorted(times), "front by time to train", proc)
    for p in front:
        expect(p["simulated"], "the front is simulated in full", proc)
        expect(not any(dominates(objectives(q), objectives(p)) for q in simulated), "front is non-dominated", proc)
    for q in simulated:
        expect(q in front or any(dominates(objectives(p), objectives(q)) or objectives(p) == objectives(q)
                                 for p in front), "every simulated point off the front is dominated", proc)
    table = hpcsim("plan", PLAN, "--no-db")
    expect(table.returncode == 0 and "Pareto front" in table.stdout and "cheapest" in table.stdout, "table", table)


def check_plan_store():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "r.db")
        proc = hpcsim("plan", PLAN, "--db", db, "--format", "json")
        expect(proc.returncode == 0, "plan stores", proc)
        doc = json.loads(proc.stdout)
        con = sqlite3.connect(db)
        (run_id, kind), = con.execute("SELECT id, kind FROM runs").fetchall()
        expect(kind == "plan", f"stored kind {kind}")
        metrics = dict(con.execute("SELECT name, value FROM metrics WHERE run_id = ?", (run_id,)).fetchall())
        for i, p in enumerate(doc["pareto"]):
            expect(abs(metrics[f"pareto.cost_usd[{i}]"] - p["cost_usd"]) <= 1e-6 * p["cost_usd"], "front stored", proc)
        expect(metrics["candidates.screened"] == len(doc["candidates"]), "screened count stored", proc)


def check_plan_errors():
    with tempfile.TemporaryDirectory() as tmp:
        text = open(PLAN).read()
        line = next(i for i, l in enumerate(text.splitlines(), 1) if "max_time_to_train:" in l)
        bad = os.path.join(tmp, "plan.yaml")
        with open(bad, "w") as f:
            f.write(text.replace("720 h", "24 parsecs"))
        db = os.path.join(tmp, "r.db")
        proc = hpcsim("plan", bad, "--db", db)
        expect_bad_input(proc, f"plan.yaml:{line}:", "constraints.max_time_to_train", "parsecs")
        expect(not os.path.exists(db), "nothing stored for bad input")
        expect_bad_input(hpcsim("plan", PLAN, "--no-db", "--set", "constraints.budget=2e6 EUR"),
                         "constraints.budget", "EUR")
        expect_bad_input(hpcsim("plan", PLAN, "--no-db", "--set", "hardware.nodes=[dgx-a100-8gb]"),
                         "unknown node 'dgx-a100-8gb'")
        expect_bad_input(hpcsim("run", PLAN, "--no-db"), "hpcsim plan")


def check_plan_filesystems():
    """hardware.filesystems is a dimension of the search: every configuration names its file system, its price
    per hour is in the cost, and the input pipeline's stall is in the time (examples/storage/plan.yaml: a disk
    Lustre starves more than 16 DGX A100 nodes reading ImageNet, so its time stops falling with more nodes)."""
    storage = os.path.join(SOURCE, "examples", "storage", "plan.yaml")
    proc = hpcsim("plan", storage, "--no-db", "--format", "json")
    expect(proc.returncode == 0, "storage plan should succeed", proc)
    doc = json.loads(proc.stdout)
    cands = doc["candidates"]
    expect({c["filesystem"] for c in cands} == {"lustre-hdd-edr", "lustre-nvme-opa"}, "both file systems searched", proc)
    hdd = {(c["nodes"], c["parallelism"]["micro_batch"]): c for c in cands if c["filesystem"] == "lustre-hdd-edr"}
    nvme = {(c["nodes"], c["parallelism"]["micro_batch"]): c for c in cands if c["filesystem"] == "lustre-nvme-opa"}
    # Beyond what the disks feed, more nodes do not train faster (the screen's times, every candidate has one).
    t = {n: hdd[(n, 128)]["screened_time_to_train_s"] for n in (16, 32, 64)}
    expect(abs(t[32] - t[16]) < 0.02 * t[16] and abs(t[64] - t[16]) < 0.02 * t[16], f"starved beyond 16 nodes: {t}", proc)
    expect(nvme[(64, 128)]["screened_time_to_train_s"] < 0.6 * nvme[(32, 128)]["screened_time_to_train_s"],
           "the flash one keeps scaling", proc)
    # Each configuration reports the step's wait for its input: the disks' at 16 nodes (simulated), none on flash.
    sim16 = [c for c in cands if c["simulated"] and c["status"] == "ok" and c["nodes"] == 16]
    expect(any(c["filesystem"] == "lustre-hdd-edr" and c["io_stall_s"] > 0 for c in sim16) and
           all(c["io_stall_s"] == 0 for c in sim16 if c["filesystem"] == "lustre-nvme-opa"), f"io_stall_s: {sim16}", proc)
    # The price per hour: the same 8-node layout, unstarved on both, differs by (60 - 20) USD per hour.
    a, b = hdd[(8, 128)], nvme[(8, 128)]
    hours = a["screened_time_to_train_s"] / 3600
    expect(abs(a["screened_time_to_train_s"] - b["screened_time_to_train_s"]) < 1e-9 * hours * 3600, "same time at 8 nodes", proc)
    expect(abs((b["screened_cost_usd"] - a["screened_cost_usd"]) - 40 * hours) < 1e-6 * b["screened_cost_usd"],
           f"the file systems' prices are in the cost: {a['screened_cost_usd']} {b['screened_cost_usd']}", proc)
    # The stored front names each point's file system, and hpcsim report's Pareto figure labels it.
    with tempfile.TemporaryDirectory() as tmp:
        db, out = os.path.join(tmp, "r.db"), os.path.join(tmp, "out")
        expect(hpcsim("plan", storage, "--db", db).returncode == 0, "the storage plan stores")
        expect(hpcsim("report", db, "--out", out).returncode == 0, "the report of the plan")
        with open(os.path.join(out, "pareto.csv")) as f:
            labels = [line.rsplit(",tp", 1)[0] for line in f.read().splitlines()[1:]]
        front = [p["filesystem"] for p in doc["pareto"]]
        expect(len(labels) == len(front) and all(fs in label for fs, label in zip(front, labels)),
               f"the figure's labels name the file systems {front}: {labels}")
    # Without file systems a plan has none in its JSON; a dataset without them is an error at its key.
    plain, _ = plan("--set", "search.full_simulations=2")
    expect(all("filesystem" not in c for c in plain["candidates"]), "no file systems searched, none named")
    expect_bad_input(hpcsim("plan", storage, "--no-db", "--set", "hardware.filesystems=[{filesystem: lustre-hdd}]"),
                     "lustre-hdd")
    expect_bad_input(hpcsim("plan", PLAN, "--no-db", "--set", "workload.dataset=imagenet-1k"), "hardware.filesystems")


def check_plan_goodput():
    """A plan with a resilience: section ranks by the whole run with failures: every configuration simulated in
    full reports its ETTR, and its time to train is its failure-free time over its ETTR."""
    goodput = os.path.join(SOURCE, "examples", "resilience", "gpt3-plan-goodput.yaml")
    proc = hpcsim("plan", goodput, "--no-db", "--format", "json", "--set", "resilience.replicas=100",
                  "--set", "search.full_simulations=4")
    expect(proc.returncode == 0, "goodput plan should succeed", proc)
    doc = json.loads(proc.stdout)
    ok = [c for c in doc["candidates"] if c["simulated"] and c["status"] == "ok"]
    expect(ok, "configurations simulated in full", proc)
    for c in ok:
        expect(0 < c["ettr"] < 1, f"ETTR in (0, 1): {c['ettr']}", proc)
        expect(abs(c["time_to_train_s"] * c["ettr"] - c["failure_free_time_to_train_s"]) < 1e-6 * c["time_to_train_s"],
               "time to train = failure-free time / ETTR", proc)
    for c in doc["candidates"]:
        expect(("ettr" in c) == (c["simulated"] and c["status"] == "ok"), "ETTR only where simulated", proc)
    plain, _ = plan("--set", "search.full_simulations=4")
    expect(all("ettr" not in c for c in plain["candidates"]), "no resilience section, no ETTR")
    # The same configuration costs more with failures than without.
    key = lambda c: (c["node"], c["nodes"], c["network"], json.dumps(c["parallelism"], sort_keys=True))
    without = {key(c): c for c in plain["candidates"] if c["simulated"] and c["status"] == "ok"}
    both = [c for c in ok if key(c) in without]
    expect(both, "a configuration simulated in both plans", proc)
    for c in both:
        w = without[key(c)]
        expect(c["failure_free_time_to_train_s"] == w["time_to_train_s"], "the same failure-free time", proc)
        expect(c["cost_usd"] > w["cost_usd"] and c["time_to_train_s"] > w["time_to_train_s"], "failures cost", proc)
    # Hostile: the run's length is the plan's; spares beyond the smallest job; a bad rate of replicas.
    bad = lambda *sets: hpcsim("plan", goodput, "--no-db", *set_flags(*sets))
    expect_bad_input(bad("resilience.tokens=1e9"), "--set resilience.tokens=1e9:", "train: section")
    expect_bad_input(bad("resilience.spares=100", "resilience.spare_swap=5 min", "resilience.repair=24 h"), "more than the job's 64 nodes")
    expect_bad_input(bad("resilience.replicas=0"), "replicas")
    expect_bad_input(bad("resilience.checkpoint.interval=1 s"), "shorter than the checkpoint's write")


run_check({"plan_filesystems": check_plan_filesystems, "plan_json": check_plan_json, "plan_goodput": check_plan_goodput, "plan_ranking": check_plan_ranking, "plan_store": check_plan_store,
           "plan_errors": check_plan_errors})
