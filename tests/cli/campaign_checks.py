#!/usr/bin/env python3
"""End-to-end checks of `hpcsim campaign`: the JSON report, the example on 8 and 32 nodes, the store, errors.
Usage: campaign_checks.py HPCSIM SOURCE_DIR CHECK"""
import json
import os
import tempfile

from cli_support import SOURCE, expect, expect_bad_input, hpcsim, run_check

EXAMPLE = os.path.join(SOURCE, "examples", "campaign", "resnet50-asha.yaml")


def campaign(*args):
    proc = hpcsim("campaign", EXAMPLE, *args, "--no-db", "--format", "json")
    expect(proc.returncode == 0, "campaign should succeed", proc)
    return json.loads(proc.stdout), proc


def check_campaign_json():
    doc, proc = campaign()
    expect(set(doc) == {"name", "summary", "rungs", "trials"}, "top-level keys", proc)
    s = doc["summary"]
    expect(s["trials"] == 64 and len(doc["trials"]) == 64, "64 trials", proc)
    rungs = doc["rungs"]
    expect([r["budget_steps"] for r in rungs] == [1000, 3000, 9000, 27000], "rungs 1000 x 3^k", proc)
    counts = [r["trials"] for r in rungs]
    expect(counts[0] == 64 and all(a >= b for a, b in zip(counts, counts[1:])) and counts[-1] >= 1,
           f"every trial finishes rung 0 and fewer go on: {counts}", proc)
    expect(s["jobs"] == sum(counts), "one job per rung segment", proc)
    best = doc["trials"][s["best_trial"]]
    expect(best["rung"] == 3 and best["loss"] == s["best_loss"], "the best trial reached the full budget", proc)
    top = [t["loss"] for t in doc["trials"] if t["rung"] == 3]
    expect(s["best_loss"] == min(top), "the best is the lowest loss at the top rung", proc)
    expect(0 < s["time_to_best_s"] <= s["makespan_s"] and s["gpu_hours"] > 0, "times and GPU-hours", proc)
    # GPU-hours and the best trial's time from the per-job CSV: run time x nodes x 8 GPUs per DGX A100.
    csv = hpcsim("campaign", EXAMPLE, "--no-db", "--format", "csv")
    rows = [dict(zip(csv.stdout.splitlines()[0].split(","), line.split(","))) for line in csv.stdout.splitlines()[1:]]
    expect(len(rows) == s["jobs"], "one CSV row per job", csv)
    node_s = sum((float(r["end_s"]) - float(r["start_s"])) * int(r["nodes"]) for r in rows)
    expect(abs(s["gpu_hours"] - node_s * 8 / 3600) < 1e-6 * s["gpu_hours"], "GPU-hours = node-seconds x 8 / 3600", csv)
    last = max(float(r["end_s"]) for r in rows if int(r["trial"]) == s["best_trial"])
    expect(abs(s["time_to_best_s"] - last) < 1e-6, "time to best = the end of the best trial's last job", csv)


def check_campaign_cluster_size():
    eight, _ = campaign()
    wide, proc = campaign("--set", "cluster.nodes=32")
    full, _ = campaign("--set", "search.early_stopping=none")
    expect(wide["summary"]["makespan_s"] < eight["summary"]["makespan_s"], "32 nodes finish sooner", proc)
    expect(full["summary"]["gpu_hours"] > 2 * eight["summary"]["gpu_hours"], "ASHA saves GPU-hours", proc)
    again, _ = campaign()
    expect(again == eight, "the same inputs give the same campaign", proc)


def check_campaign_store():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "c.db")
        proc = hpcsim("campaign", EXAMPLE, "--db", db)
        expect(proc.returncode == 0, "stored", proc)
        expect("time to best" in proc.stdout and "GPU-hours" in proc.stdout, "the table", proc)
        shown = hpcsim("show", db)
        expect("campaign" in shown.stdout and "time_to_best_s" in shown.stdout, "show lists the campaign run", shown)


def check_campaign_errors():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "c.db")
        expect_bad_input(hpcsim("campaign", EXAMPLE, "--set", "search.budget.max_steps=28000", "--db", db),
                         "resnet50-asha.yaml:", "power of eta")
        expect_bad_input(hpcsim("campaign", EXAMPLE, "--set", "trial.workload.model=nosuchnet", "--db", db),
                         "nosuchnet")
        expect_bad_input(hpcsim("campaign", EXAMPLE, "--set", "search.early_stopping=hyperband", "--db", db),
                         "early_stopping")
        bad = os.path.join(tmp, "bad.yaml")
        with open(bad, "w") as f:
            f.write(open(EXAMPLE).read().replace("{choice: [128, 256]", "{choice: [128, 0]"))
        expect_bad_input(hpcsim("campaign", bad, "--db", db), "bad.yaml:")
        expect(not os.path.exists(db), "nothing stored for bad input")


run_check({"campaign_json": check_campaign_json, "campaign_cluster_size": check_campaign_cluster_size,
           "campaign_store": check_campaign_store, "campaign_errors": check_campaign_errors})
