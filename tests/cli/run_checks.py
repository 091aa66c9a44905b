#!/usr/bin/env python3
"""End-to-end checks of `hpcsim run --trace` (Chrome trace-event JSON) and `hpcsim run --scale` (throughput
and scaling efficiency per GPU count). Usage: run_checks.py HPCSIM SOURCE_DIR CHECK"""
import json
import os
import sqlite3
import tempfile

from cli_support import DATA, SOURCE, expect, expect_bad_input, hpcsim, run_check

QUICKSTART = os.path.join(SOURCE, "examples", "quickstart.yaml")
SCALE_SMALL = os.path.join(SOURCE, "tests", "data", "scenarios", "scale_small.yaml")
# The quickstart GPT as a two-stage pipeline of four microbatches.
PIPELINE = ["--set", "parallelism.pp=2", "--set", "parallelism.dp=8", "--set", "parallelism.microbatches=4"]


def trace_of(*args):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "step.trace.json")
        proc = hpcsim("run", *args, "--no-db", "--trace", path)
        expect(proc.returncode == 0, "run --trace should succeed", proc)
        expect(os.path.exists(path), "--trace writes the file", proc)
        with open(path, "rb") as f:
            return f.read()


def check_run_trace():
    raw = trace_of(QUICKSTART, *PIPELINE)
    doc = json.loads(raw)
    events = doc["traceEvents"]
    lanes = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    expect("stage 0 compute" in lanes.values(), f"lanes include 'stage 0 compute': {sorted(lanes.values())}")
    expect("stage 1 compute" in lanes.values(), "a two-stage pipeline has a 'stage 1 compute' lane")
    ops = [e for e in events if e["ph"] == "X"]
    expect(len(ops) > 10, "the step has its ops as complete events")
    for e in ops:
        expect(e["pid"] == 0 and e["tid"] in lanes, f"every op is on a named lane of pid 0: {e}")
        expect(e["ts"] >= 0 and e["dur"] >= 0, f"times are non-negative microseconds: {e}")
        expect(e["args"]["category"] in ("compute", "communication", "optimizer"), f"category: {e}")
    expect(any(e["args"]["category"] == "communication" for e in ops), "the all-reduces are in the trace")
    # The last op ends near the step time (microseconds; io stall none here).
    proc = hpcsim("run", QUICKSTART, *PIPELINE, "--no-db",
                  "--format", "json")
    step_us = json.loads(proc.stdout)["step_time_s"] * 1e6
    end_us = max(e["ts"] + e["dur"] for e in ops)
    expect(abs(end_us - step_us) <= 1e-3 * step_us, f"the trace ends at the step time: {end_us} vs {step_us} us")
    again = trace_of(QUICKSTART, *PIPELINE)
    expect(raw == again, "the same run writes the same trace bytes")


def check_run_trace_errors():
    proc = hpcsim("run", QUICKSTART, "--no-db", "--trace", os.path.join(DATA, "no-such-dir", "t.json"))
    expect(proc.returncode == 1, f"an unwritable --trace path exits 1, got {proc.returncode}", proc)
    expect("--trace" in proc.stderr and "no-such-dir" in proc.stderr, "the error names the flag and path", proc)
    expect(proc.stdout == "", "nothing is simulated or printed when the trace cannot be written", proc)
    expect_bad_input(hpcsim("run", QUICKSTART, "--no-db", "--trace", "t.json", "--scale", "8,16"),
                     "--trace", "--scale")
    expect_bad_input(hpcsim("run", QUICKSTART, "--no-db", "--exact", "--scale", "8,16"), "--exact", "--scale")


def scale_json(*args):
    proc = hpcsim("run", *args, "--format", "json")
    expect(proc.returncode == 0, "run --scale should succeed", proc)
    return json.loads(proc.stdout), proc


def check_run_scale():
    rows, proc = scale_json(SCALE_SMALL, "--no-db", "--scale", "1,2,4,8,16")
    expect([r["gpus"] for r in rows] == [1, 2, 4, 8, 16], "one row per count, in order", proc)
    expect([r["nodes"] for r in rows] == [1, 1, 1, 1, 2], "16 GPUs take two 8-GPU nodes", proc)
    expect(rows[0]["efficiency"] == 1 and rows[0]["speedup"] == 1, "efficiency 1 at the first count", proc)
    for r in rows:
        low, high = r["step_time_interval_s"]
        expect(low < r["step_time_s"] * 1.5 and high > r["step_time_s"] * 0.5 and low < high,
               "each point carries its step-time interval", proc)
        for key in ("step_time_s", "samples_per_s", "tokens_per_s", "speedup", "efficiency"):
            expect(key in r, f"row has {key}", proc)
        expect(r["tokens_per_s"] is None, "ResNet-50 has no tokens", proc)
        expect(abs(r["efficiency"] - r["speedup"] / r["gpus"]) < 1e-9, "efficiency = speedup / (N / N_first)", proc)
        expect(0 < r["efficiency"] <= 1 + 1e-9, f"efficiency in (0, 1]: {r}", proc)
    table = hpcsim("run", SCALE_SMALL, "--no-db", "--scale", "1,2,4,8,16")
    expect(table.returncode == 0, "table output", table)
    body = [line.split() for line in table.stdout.splitlines()[2:]]
    expect(len(body) == 5 and body[0][0] == "1" and body[0][-1] == "1.000", "table rows, efficiency 1.000 first",
           table)
    csv = hpcsim("run", SCALE_SMALL, "--no-db", "--scale", "8,16", "--format", "csv")
    expect(csv.stdout.splitlines()[0] == "gpus,nodes,step_time_s,samples_per_s,tokens_per_s,speedup,efficiency",
           "CSV header", csv)
    expect(len(csv.stdout.splitlines()) == 3, "CSV: a row per count", csv)
    # A sequence model reports tokens/s; the quickstart's GPT at 16 and 32 GPUs (two and four nodes).
    rows, proc = scale_json(QUICKSTART, "--no-db", "--scale", "16,32")
    expect(all(r["tokens_per_s"] > 0 for r in rows), "tokens_per_s for a sequence model", proc)
    expect(rows[1]["efficiency"] < 1, "the GPT all-reduce over InfiniBand costs some efficiency", proc)


def check_run_scale_store():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "results.db")
        proc = hpcsim("run", SCALE_SMALL, "--db", db, "--scale", "4,8")
        expect(proc.returncode == 0, "run --scale stores", proc)
        shown = hpcsim("show", db)
        expect(shown.returncode == 0, "show should succeed", shown)
        for n in (4, 8):
            expect(f"scale-small-resnet50 @{n} gpus" in shown.stdout, f"the {n}-GPU point is its own run", shown)


def check_run_scale_study():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "results.db")
        proc = hpcsim("run", SCALE_SMALL, "--db", db, "--scale", "4,8,16")
        expect(proc.returncode == 0, "run --scale stores", proc)
        with sqlite3.connect(db) as conn:
            studies = conn.execute("SELECT id, name, base_scenario_hash, parameters FROM studies").fetchall()
            expect(len(studies) == 1, f"one study per --scale sweep: {studies}")
            study_id, name, base_hash, parameters = studies[0]
            expect("scale-small-resnet50" in name and "4,8,16" in name, f"the study is named for the sweep: {name}")
            expect(json.loads(parameters)["parallelism.dp"] == ["4", "8", "16"], f"dp varies: {parameters}")
            expect(json.loads(parameters)["cluster.nodes"] == ["1", "1", "2"], f"nodes vary: {parameters}")
            points = conn.execute("SELECT p.point_index, p.status, p.parameter_values, r.scenario_name, r.kind "
                                  "FROM study_points p JOIN runs r ON r.id = p.run_id "
                                  "WHERE p.study_id = ? ORDER BY p.point_index", (study_id,)).fetchall()
            expect([p[0] for p in points] == [0, 1, 2], f"every point is linked to its run: {points}")
            for (index, status, values, run_name, kind), gpus in zip(points, (4, 8, 16)):
                expect(status == "ok", f"point {index} completed: {status}")
                expect(run_name == f"scale-small-resnet50 @{gpus} gpus", f"point {index} is the {gpus}-GPU run")
                expect(json.loads(values)["parallelism.dp"] == str(gpus), f"point {index} values: {values}")
                expect(kind == "training", f"the runs are training runs: {kind}")
            hashes = conn.execute("SELECT count(DISTINCT scenario_hash) FROM runs").fetchone()[0]
            expect(hashes == 3 and base_hash, "each point stores its own scenario; the study its base's hash")
        shown = hpcsim("show", db)
        expect(shown.returncode == 0 and "1 study" in shown.stdout, "show lists the study", shown)
        expect("4,8,16" in shown.stdout and "pending" not in shown.stdout, "show lists its completed points", shown)
        # An OOM point is stored as such: Llama 3 70B data parallel on one DGX A100 does not fit.
        oom = hpcsim("run", os.path.join(DATA, "oom.yaml"), "--db", db, "--scale", "8", "--format", "csv")
        expect(oom.returncode == 0, "an OOM sweep still completes", oom)
        with sqlite3.connect(db) as conn:
            last = conn.execute("SELECT status FROM study_points WHERE study_id = "
                                "(SELECT max(id) FROM studies)").fetchall()
            expect(last == [("oom",)], f"the OOM point's status is oom: {last}", oom)


def check_run_kinds():
    # No kind: training; an explicit training kind is the same run.
    plain = hpcsim("run", SCALE_SMALL, "--no-db", "--format", "csv")
    explicit = hpcsim("run", SCALE_SMALL, "--no-db", "--format", "csv", "--set", "kind=training")
    expect(plain.returncode == 0 and explicit.returncode == 0, "training runs", explicit)
    strip = lambda text: [l for l in text.splitlines() if not l.startswith("sim_wall_s,")]
    expect(strip(plain.stdout) == strip(explicit.stdout), "kind: training is the default", explicit)
    # A serve scenario runs as hpcsim serve runs it: this one lacks its workload (an error naming the key);
    # --scale is for training (an error at the kind key). Exit 2, nothing printed.
    for args, where in (((), "workload"), (("--scale", "8,16"), "hpcsim serve")):
        proc = hpcsim("run", os.path.join(DATA, "kind_serve.yaml"), "--no-db", *args)
        expect_bad_input(proc, "kind_serve.yaml:", where)
        expect(proc.stdout == "", "nothing is printed", proc)
    expect_bad_input(hpcsim("run", QUICKSTART, "--no-db", "--set", "kind=schedule"), "--set kind=schedule",
                     "'schedule'", "not built yet")
    expect_bad_input(hpcsim("run", QUICKSTART, "--no-db", "--set", "kind=plan"), "--set kind=plan", "hpcsim plan")
    expect_bad_input(hpcsim("run", os.path.join(DATA, "kind_unknown.yaml"), "--no-db"), "kind_unknown.yaml:5:9:",
                     "did you mean 'training'")


def check_run_scale_weak():
    # 8 GPUs x 64 x 2 microbatches: the fixed global batch is dropped and each replica keeps 2 x 64.
    base = ["--no-db", "--set", "workload.global_batch=1024"]
    rows, proc = scale_json(SCALE_SMALL, *base, "--scale", "8,16")
    expect("global_batch" in proc.stderr and "weak scaling" in proc.stderr, "a note says the batch is weak-scaled",
           proc)
    single = hpcsim("run", SCALE_SMALL, *base, "--format", "json")
    expect(single.returncode == 0, "the base run", single)
    step = json.loads(single.stdout)["step_time_s"]
    expect(abs(rows[0]["step_time_s"] - step) <= 1e-9 * step, "the first point is the scenario's own run", proc)
    expect(rows[1]["samples_per_s"] > rows[0]["samples_per_s"], "twice the replicas, more samples per second", proc)


def check_run_scale_errors():
    for bad in ("0", "x", "", "4,,8", "-2", "2.5"):
        expect_bad_input(hpcsim("run", SCALE_SMALL, "--no-db", "--scale", bad), "--scale")
    # tp 2: 9 GPUs cannot hold whole tensor-parallel groups.
    expect_bad_input(hpcsim("run", QUICKSTART, "--no-db", "--set", "parallelism.tp=2", "--set", "parallelism.dp=8",
                            "--scale", "8,9"), "--scale", "tp x pp x cp")
    # No cluster.network: 16 GPUs need two nodes.
    expect_bad_input(hpcsim("run", os.path.join(DATA, "resnet50.yaml"), "--no-db", "--scale", "8,16"), "--scale",
                     "cluster.network")


def check_run_gpu_hpl():
    """GPU HPL (accelerator: gpu): a run reports the GPUs' Rpeak and its new metrics; hostile input exits 2
    at file:line:column and stores nothing."""
    with tempfile.TemporaryDirectory() as tmp:
        good = os.path.join(tmp, "gpu-hpl.yaml")
        with open(good, "w") as f:
            f.write("kind: mpi\ncluster: {node: dgx-a100-80gb, nodes: 2, network: ib-hdr}\n"
                    "workload: {app: hpl, accelerator: gpu, n: 200000, nb: 1024}\n")
        proc = hpcsim("run", good, "--no-db", "--format", "json")
        expect(proc.returncode == 0, "a GPU HPL run succeeds", proc)
        doc = json.loads(proc.stdout)
        expect(doc["placement"]["gpus"] == 16 and doc["placement"]["ranks"] == 16, "one rank per GPU", proc)
        expect(abs(doc["rpeak_tflops"] - 16 * 19.49) < 0.1, "Rpeak: 16 A100 at 19.5 TFLOP/s FP64", proc)
        expect(doc["rpeak_host_tflops"] > 0 and doc["breakdown"]["host_copy_s"] == 0, "host peak beside; no copies", proc)
        expect(doc["hpl"]["panel_on_host"] is False, "the panel on the GPU by default", proc)
        bad = os.path.join(tmp, "bad.yaml")
        db = os.path.join(tmp, "runs.db")
        with open(bad, "w") as f:
            f.write("kind: mpi\ncluster: {node: dgx-a100-80gb, nodes: 2, network: ib-hdr}\nmpi: {ranks_per_node: 9}\n"
                    "workload: {app: hpl, accelerator: gpu}\n")
        expect_bad_input(hpcsim("run", bad, "--db", db), "bad.yaml:3:", "one rank per GPU")
        if os.path.exists(db):
            with sqlite3.connect(db) as con:
                tables = [r[0] for r in con.execute("select name from sqlite_master where type='table'")]
                for t in tables:
                    if t == "runs":
                        expect(con.execute("select count(*) from runs").fetchone()[0] == 0, "nothing stored")
        with open(bad, "w") as f:
            f.write("kind: mpi\ncluster: {node: epyc-7763-2s, nodes: 2, network: ib-hdr}\n"
                    "workload: {app: hpl, accelerator: gpu}\n")
        expect_bad_input(hpcsim("run", bad, "--no-db"), "bad.yaml:3:", "needs GPUs")


def check_run_input():
    """The input pipeline's metrics (input.*) from a file system described as hardware: 16 DGX A100 nodes of
    ResNet-50 on ImageNet read 32,768 small files per step from a disk Lustre (examples/storage), bound by the
    disks' positionings; the step waits for the storage stage beyond its compute."""
    storage = os.path.join(SOURCE, "examples", "storage", "resnet50-imagenet-64dgx-lustre-hdd.yaml")
    proc = hpcsim("run", storage, "--set", "cluster.nodes=16", "--no-db", "--format", "json")
    expect(proc.returncode == 0, "run of the storage example should succeed", proc)
    doc = json.loads(proc.stdout)
    inp = doc["input"]
    expect(inp["bound"] == {"storage": True, "decode": False, "h2d": False}, f"storage binds: {inp['bound']}")
    expect(abs(inp["storage_use"]["device_iops"] - 1) < 0.01, f"the disks' positionings are full: {inp['storage_use']}")
    expect(inp["storage_use"]["server_ports"] < 0.5, f"the ports are not: {inp['storage_use']}")
    expect(inp["seconds_per_batch"] == inp["storage_s"] > inp["decode_s"], f"the slowest stage sets the batch: {inp}")
    stall = doc["breakdown_s"]["io_stall"]
    expect(stall > 0 and abs(doc["step_time_s"] - inp["seconds_per_batch"]) < 1e-9, f"the step waits for it: {doc}")
    # Synthetic data has no input section.
    plain = hpcsim("run", QUICKSTART, "--no-db", "--format", "json")
    expect(plain.returncode == 0 and "input" not in json.loads(plain.stdout), "no dataset, no input metrics", plain)


run_check({"run_input": check_run_input, "run_gpu_hpl": check_run_gpu_hpl, "run_trace": check_run_trace, "run_trace_errors": check_run_trace_errors, "run_scale": check_run_scale,
           "run_scale_store": check_run_scale_store, "run_scale_weak": check_run_scale_weak,
           "run_scale_errors": check_run_scale_errors, "run_scale_study": check_run_scale_study,
           "run_kinds": check_run_kinds})
