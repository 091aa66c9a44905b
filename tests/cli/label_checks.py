#!/usr/bin/env python3
"""Honest labels (issue 34 item 5): a what-if is named after what it ran, a changed model drops the old
model's sizes and says so, a layout that changes the global batch says so, and layouts the loader accepts
either run or are refused at their key. Usage: label_checks.py HPCSIM SOURCE_DIR CHECK"""
import csv
import json
import os
import shutil
import sqlite3
import tempfile

from cli_support import HPCSIM, SOURCE, expect, expect_bad_input, hpcsim, run_check, set_flags

EXAMPLES = os.path.join(SOURCE, "examples")
QUICKSTART = os.path.join(EXAMPLES, "quickstart.yaml")
GPT3 = os.path.join(EXAMPLES, "gpt3-175b-1024-a100.yaml")
RESNET = os.path.join(EXAMPLES, "resnet50-4096-a100.yaml")
NAME = "quickstart-gpt-1.3b-2x-dgx-a100"


def run_json(*args, env=None):
    proc = hpcsim("run", *args, "--no-db", "--format", "json", env=env)
    expect(proc.returncode == 0, f"run {' '.join(args)} succeeds", proc)
    return json.loads(proc.stdout), proc


def stored_names(db):
    con = sqlite3.connect(db)
    try:
        return [r[0] for r in con.execute("SELECT scenario_name FROM runs ORDER BY id")]
    finally:
        con.close()


def check_labels_what_if_names():
    plain, _ = run_json(QUICKSTART)
    expect(plain["scenario"] == NAME, f"a run without --set keeps the file's name: {plain['scenario']}")
    doc, _ = run_json(QUICKSTART, "--set", "cluster.nodes=4", "--set", "cluster.network=eth-100g-tcp")
    expect(doc["scenario"] == NAME + " [cluster.nodes=4, cluster.network=eth-100g-tcp]",
           f"a what-if is named with its --set values: {doc['scenario']}")
    serve = hpcsim("run", os.path.join(EXAMPLES, "serving", "roberta-g5.yaml"), "--no-db", "--format", "json",
                   "--set", "serving.replicas=2")
    expect(serve.returncode == 0 and "[serving.replicas=2]" in json.loads(serve.stdout)["scenario"],
           "a serve what-if too", serve)
    campaign = hpcsim("campaign", os.path.join(EXAMPLES, "campaign", "resnet50-asha.yaml"), "--no-db", "--format", "json",
                      "--set", "cluster.nodes=32")
    expect(campaign.returncode == 0 and json.loads(campaign.stdout)["name"].endswith(" [cluster.nodes=32]"),
           "a campaign what-if too", campaign)
    with tempfile.TemporaryDirectory() as tmp:
        # A plan what-if: named with its values, and stored with the plan text that ran.
        db = os.path.join(tmp, "p.db")
        plan = hpcsim("plan", os.path.join(EXAMPLES, "capacity-plan", "plan.yaml"), "--screen-only", "--db", db,
                      "--format", "json", "--set", "pue=1.2")
        expect(plan.returncode == 0 and json.loads(plan.stdout)["plan"].endswith(" [pue=1.2]"), "a plan what-if", plan)
        con = sqlite3.connect(db)
        name, text = con.execute("SELECT scenario_name, scenario_text FROM runs").fetchone()
        con.close()
        expect(name.endswith(" [pue=1.2]") and "pue: 1.2" in text, f"stored as it ran: {name}", plan)
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "r.db")
        for args in ([], ["--set", "cluster.nodes=4"]):
            proc = hpcsim("run", QUICKSTART, "--db", db, *args)
            expect(proc.returncode == 0, "stored", proc)
        proc = hpcsim("sweep", QUICKSTART, "--vary", "cluster.nodes=1,2", "--vary", "workload.batch_per_gpu=2,4",
                      "--db", db)
        expect(proc.returncode == 0, "the sweep runs", proc)
        names = stored_names(db)
        expect(names[:2] == [NAME, NAME + " [cluster.nodes=4]"], f"run names as stored: {names[:2]}")
        # cluster.nodes=2 with batch 4 is the file itself: that point links to the first run.
        expect(sorted(names[2:]) == sorted(f"{NAME} [cluster.nodes={n}, workload.batch_per_gpu={b}]"
                                           for n, b in (("1", "2"), ("1", "4"), ("2", "2"))),
               f"sweep points are named with their values: {names[2:]}")
        # The report's runs table tells the points apart (names, and the study point of each run).
        out = os.path.join(tmp, "report")
        proc = hpcsim("report", db, "--out", out)  # exit 1 without matplotlib: the CSVs are written all the same
        expect(proc.returncode in (0, 1) and os.path.exists(os.path.join(out, "runs.csv")), "runs.csv written", proc)
        with open(os.path.join(out, "runs.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        points = {r["study_point"] for r in rows if r["study_point"]}
        expect(points == {"study 1: nodes=1, batch_per_gpu=2", "study 1: nodes=1, batch_per_gpu=4",
                          "study 1: nodes=2, batch_per_gpu=2", "study 1: nodes=2, batch_per_gpu=4"},
               f"every point labelled in runs.csv: {points}", proc)
        expect(rows[0]["study_point"] == "study 1: nodes=2, batch_per_gpu=4", "the linked run names its point", proc)
        expect(len({r["scenario"] for r in rows}) == len(rows), "no two runs share a name", proc)
        html = open(os.path.join(out, "report.html")).read()
        expect("<th>study point</th>" in html and "study 1: nodes=1, batch_per_gpu=2" in html,
               "the page's runs table has the study point", proc)


def check_labels_model_change():
    # A changed model runs at its own sizes: the same as a file that names it without the GPT's sizes.
    changed, proc = run_json(QUICKSTART, "--set", "workload.model=bert-large")
    expect("--set workload.model=bert-large: the file's seq_len, layers, hidden, heads, vocab (sizes of its model gpt) "
           "are dropped" in proc.stderr, "the dropped sizes are named", proc)
    with tempfile.TemporaryDirectory() as tmp:
        text = open(QUICKSTART).read()
        for key in ("layers", "hidden", "heads", "seq_len", "vocab"):
            text = "\n".join(line for line in text.splitlines() if not line.strip().startswith(key + ":")) + "\n"
        bert = os.path.join(tmp, "bert.yaml")
        open(bert, "w").write(text.replace("model: gpt", "model: bert-large"))
        alone, _ = run_json(bert)
    expect(changed["step_time_s"] == alone["step_time_s"] and changed["memory_per_gpu_bytes"] == alone["memory_per_gpu_bytes"],
           f"--set workload.model=bert-large is BERT-large itself: {changed['step_time_s']} vs {alone['step_time_s']}")
    # A size given with --set stays; the model named by the file is no change and drops nothing.
    kept, proc = run_json(QUICKSTART, "--set", "workload.model=bert-large", "--set", "workload.seq_len=128")
    expect("the file's layers, hidden, heads, vocab (" in proc.stderr and kept["step_time_s"] < changed["step_time_s"],
           "a size set with the model stays", proc)
    same, proc = run_json(QUICKSTART, "--set", "workload.model=gpt")
    expect("dropped" not in proc.stderr, "setting the file's own model drops nothing", proc)
    # A sweep over models says what each value drops, and its points run at the new model's sizes.
    with tempfile.TemporaryDirectory() as tmp:
        proc = hpcsim("sweep", QUICKSTART, "--vary", "workload.model=gpt,bert-large,resnet50", "--db",
                      os.path.join(tmp, "s.db"), "--format", "json")
        expect(proc.returncode == 0, "a model sweep runs", proc)
        expect("--vary workload.model=bert-large: the file's seq_len" in proc.stderr and
               "--vary workload.model=resnet50: the file's seq_len" in proc.stderr, "each change is named", proc)
        by = {p["values"]["workload.model"]: p for p in json.loads(proc.stdout)["points"]}
        expect(all(p["status"] == "ok" for p in by.values()), "every model's point runs", proc)
        expect(by["bert-large"]["metrics"]["step_time_s"] == alone["step_time_s"], "the sweep's BERT is BERT-large", proc)


def check_labels_global_batch():
    # tp 8 x pp 4 on 4 nodes leaves dp 1: the global batch falls from the file's 64 to 4, said on stderr.
    doc, proc = run_json(QUICKSTART, "--set", "cluster.nodes=4", "--set", "parallelism.tp=8", "--set", "parallelism.pp=4")
    expect("note: --set cluster.nodes=4, parallelism.tp=8, parallelism.pp=4: the global batch is 4 samples (micro batch 4 "
           "x 1 microbatch x dp 1), not the file's 64 samples (micro batch 4 x 1 microbatch x dp 16)" in proc.stderr,
           "the changed global batch is said", proc)
    expect(doc["parallelism"]["dp"] == 1, "dp 1", proc)
    _, proc = run_json(QUICKSTART, "--set", "cluster.nodes=4")
    expect("the global batch is 128 samples" in proc.stderr, "more replicas: a larger global batch, said too", proc)
    # A batch asked for, or a change that keeps it, says nothing.
    _, proc = run_json(QUICKSTART, "--set", "parallelism.tp=2", "--set", "workload.global_batch=64")
    expect("global batch" not in proc.stderr, "a --set batch is what was asked", proc)
    _, proc = run_json(QUICKSTART, "--set", "cluster.network=eth-100g-tcp")
    expect("global batch" not in proc.stderr, "a network change keeps the batch", proc)
    _, proc = run_json(os.path.join(EXAMPLES, "parallelism", "gpt-2.7b.yaml"), "--set", "parallelism.tp=8",
                       "--set", "parallelism.pp=2")
    expect("global batch" not in proc.stderr, "a file with a global_batch keeps it", proc)


def check_labels_layouts():
    # tp on a model without tensor-parallel layers: refused at the flag that set it.
    expect_bad_input(hpcsim("run", RESNET, "--no-db", "--set", "parallelism.tp=2", "--set", "cluster.nodes=1"),
                     "--set parallelism.tp=2: tp 2: model 'resnet50' has no tensor-parallel layers")
    with tempfile.TemporaryDirectory() as tmp:
        cnn = os.path.join(tmp, "cnn.yaml")
        open(cnn, "w").write(open(RESNET).read().replace("parallelism: {}", "parallelism: {tp: 2}")
                             if "parallelism: {}" in open(RESNET).read()
                             else open(RESNET).read() + "\nparallelism: {tp: 2}\n")
        proc = hpcsim("run", cnn, "--no-db", "--set", "cluster.nodes=1")
        expect_bad_input(proc, "cnn.yaml:", "has no tensor-parallel layers")
    # Layouts whose groups sit unevenly on the nodes (tp 3 on 8-GPU nodes; pipeline stages of 12 GPUs) run.
    for sets in (["parallelism.tp=3"], ["parallelism.tp=1", "parallelism.dp=12", "parallelism.pp=2"]):
        args = set_flags(*sets)
        doc, proc = run_json(GPT3, *args)
        expect(doc["step_time_s"] > 0 and "internal error" not in proc.stderr, f"{sets} runs", proc)
    # The same collective over an uneven group, whichever node is the larger, gives a finite time.
    a, _ = run_json(GPT3, "--set", "parallelism.tp=3")
    b, _ = run_json(GPT3, "--set", "parallelism.tp=3", "--exact")
    expect(a["step_time_s"] == b["step_time_s"], "the symmetric shortcut agrees with every group simulated")


def check_labels_mi300x():
    # A DGX A100 with MI300X GPUs (64 KiB of shared memory per block) runs the GPT quickstart: the attention
    # kernel's tiles are sized to the GPU, as FlashAttention-2 sizes them.
    with tempfile.TemporaryDirectory() as tmp:
        configs = os.path.join(tmp, "configs")
        shutil.copytree(os.path.join(SOURCE, "configs"), configs)
        open(os.path.join(configs, "nodes", "test-mi300x-node.yaml"), "w").write("extends: dgx-a100-80gb.yaml\ngpu: mi300x\n")
        doc, proc = run_json(QUICKSTART, "--set", "cluster.node=test-mi300x-node", env={"HPCSIM_CONFIG_DIR": configs})
        expect(doc["step_time_s"] > 0 and doc["fits_in_memory"], "the MI300X node runs the quickstart", proc)
        a100, _ = run_json(QUICKSTART, env={"HPCSIM_CONFIG_DIR": configs})
        expect(a100["step_time_s"] != doc["step_time_s"], "and predicts its own step time", proc)


run_check({"labels_what_if_names": check_labels_what_if_names, "labels_model_change": check_labels_model_change,
           "labels_global_batch": check_labels_global_batch, "labels_layouts": check_labels_layouts,
           "labels_mi300x": check_labels_mi300x})
