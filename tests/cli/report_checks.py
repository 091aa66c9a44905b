#!/usr/bin/env python3
"""hpcsim report: the files it writes, their numbers against the store, the HTML in headless Chromium.
Usage: report_checks.py HPCSIM SOURCE_DIR CHECK"""
import base64
import csv
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

from cli_support import DATA, SOURCE, expect, expect_bad_input, hpcsim, run_check

QUICKSTART = os.path.join(SOURCE, "examples", "quickstart.yaml")
JOBS = os.path.join(DATA, "schedule", "four-jobs.yaml")
NETWORKS = ["ib-hdr", "eth-100g-tcp"]
FIGURES = ["throughput.png", "scaling_efficiency.png", "step_breakdown.png", "pareto.png"]
# ctest's SKIP_RETURN_CODE for the Chromium check (tests/cli/CMakeLists.txt).
SKIP = 77


def build_store(db, nodes="1,2,4"):
    """A quickstart sweep (both networks), a schedule run, and the capacity-plan example's plan run."""
    proc = hpcsim("sweep", QUICKSTART, "--vary", "cluster.network=" + ",".join(NETWORKS), "--vary",
                  "cluster.nodes=" + nodes, "--db", db, "--format", "json")
    expect(proc.returncode == 0, "sweep should succeed", proc)
    proc = hpcsim("schedule", JOBS, "--nodes", "4", "--policy", "easy", "--db", db)
    expect(proc.returncode == 0, "schedule should store its run", proc)
    proc = hpcsim("plan", os.path.join(SOURCE, "examples", "capacity-plan", "plan.yaml"), "--db", db)
    expect(proc.returncode == 0, "plan should store its run", proc)


def report(db, out, env=None, listed=()):
    """Runs hpcsim report; each file of `listed` must be among the files stdout lists."""
    proc = hpcsim("report", db, "--out", out, env=env)
    expect(proc.returncode == 0, "report should succeed", proc)
    for name in listed:
        expect(os.path.join(out, name) in proc.stdout, f"{name} listed on stdout", proc)
    return proc


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def store_metrics(db):
    con = sqlite3.connect(db)
    try:
        metrics = {}
        for run_id, name, value in con.execute("SELECT run_id, name, value FROM metrics"):
            metrics.setdefault(run_id, {})[name] = value
        runs = {r[0]: {"kind": r[1], "status": r[2], "text": r[3]}
                for r in con.execute("SELECT id, kind, status, scenario_text FROM runs")}
        return runs, metrics
    finally:
        con.close()


def check_report_files():
    with tempfile.TemporaryDirectory() as tmp:
        db, out = os.path.join(tmp, "results.db"), os.path.join(tmp, "report")
        build_store(db)
        proc = report(db, out)
        for name in ["report.html", "runs.csv", "scaling.csv", "step_breakdown.csv", "pareto.csv", *FIGURES]:
            path = os.path.join(out, name)
            expect(os.path.getsize(path) > 0, f"{name} written", proc)
            expect(path in proc.stdout, f"{name} listed on stdout", proc)
        for name in FIGURES:
            with open(os.path.join(out, name), "rb") as f:
                expect(f.read(8) == b"\x89PNG\r\n\x1a\n", f"{name} is a PNG")
        runs, metrics = store_metrics(db)

        # Scaling: one line per network, GPU counts 8, 16, 32, numbers exactly the stored ones.
        rows = read_csv(os.path.join(out, "scaling.csv"))
        lines = {}
        for r in rows:
            run_id = int(r["run_id"])
            m = metrics[run_id]
            expect(r["line_keys"] == "cluster.network", f"lines are told apart by network: {r}")
            expect(f"network: {r['line']}" in runs[run_id]["text"], f"run {run_id} is on the {r['line']} line")
            expect(float(r["gpus"]) == m["gpus"], f"gpus of run {run_id}")
            expect(float(r["samples_per_s"]) == m["throughput.samples_per_s"], f"samples/s of run {run_id}")
            expect(float(r["tokens_per_s"]) == m["throughput.tokens_per_s"], f"tokens/s of run {run_id}")
            lines.setdefault(r["line"], []).append(r)
        expect(sorted(lines) == sorted(NETWORKS), f"one line per network: {sorted(lines)}")
        for label, points in lines.items():
            expect([float(p["gpus"]) for p in points] == [8, 16, 32], f"{label}: 1, 2 and 4 nodes of 8 GPUs")
            base = metrics[int(points[0]["run_id"])]
            for p in points:
                m = metrics[int(p["run_id"])]
                expected = (m["throughput.samples_per_s"] / m["gpus"]) / (base["throughput.samples_per_s"] / base["gpus"])
                expect(abs(float(p["scaling_efficiency"]) - expected) < 1e-12, f"efficiency of run {p['run_id']}")
        ib = {float(p["gpus"]): float(p["samples_per_s"]) for p in lines["ib-hdr"]}
        eth = {float(p["gpus"]): float(p["samples_per_s"]) for p in lines["eth-100g-tcp"]}
        expect(ib[32] > eth[32], "InfiniBand out-scales 100G TCP Ethernet at 32 GPUs")

        # Breakdown: the sweep's six points, each matching its run.
        bars = read_csv(os.path.join(out, "step_breakdown.csv"))
        expect(len(bars) == 6, f"one bar per sweep point: {len(bars)}")
        expect(bars[0]["label"] == "network=ib-hdr, nodes=1", f"bars labelled by point values: {bars[0]['label']}")
        for b in bars:
            m = metrics[int(b["run_id"])]
            expect(float(b["step_time_s"]) == m["step_time_s"], f"step time of run {b['run_id']}")
            for part in ["compute", "communication_exposed", "optimizer", "pipeline_bubble", "io_stall", "other"]:
                expect(float(b[part + "_s"]) == m["breakdown_s." + part], f"{part} of run {b['run_id']}")

        # Pareto: the plan run's front.
        front = read_csv(os.path.join(out, "pareto.csv"))
        plan_id = next(i for i, r in runs.items() if r["kind"] == "plan")
        m = metrics[plan_id]
        stored = sum(1 for name in m if name.startswith("pareto.time_to_train_s["))
        expect(stored >= 1 and len(front) == stored, f"the plan's front ({stored} configurations) is drawn whole")
        for i, r in enumerate(front):
            for name in ["time_to_train_s", "cost_usd", "energy_kwh"]:
                expect(float(r[name]) == m[f"pareto.{name}[{i}]"], f"pareto.{name}[{i}]")

        # Runs: every run of every kind.
        table = read_csv(os.path.join(out, "runs.csv"))
        expect(sorted(int(r["id"]) for r in table) == sorted(runs), "every stored run in runs.csv")
        expect({r["kind"] for r in table} == {"training", "schedule", "plan"}, "all kinds listed")

        # The page embeds exactly these PNGs and lists every run.
        with open(os.path.join(out, "report.html")) as f:
            html = f.read()
        for name in FIGURES:
            with open(os.path.join(out, name), "rb") as f:
                expect("data:image/png;base64," + base64.b64encode(f.read()).decode() in html, f"{name} embedded")
        expect(len(re.findall(r"<img ", html)) == len(FIGURES), "one image per figure")
        expect(html.count("<tr") == len(runs) + 1, "a table row per run")

        # Same store, same bytes; a reused folder loses what this store does not produce.
        again = os.path.join(tmp, "again")
        report(db, again)
        for name in os.listdir(out):
            with open(os.path.join(out, name), "rb") as a, open(os.path.join(again, name), "rb") as b:
                expect(a.read() == b.read(), f"{name} is the same bytes on a second report")


def check_report_chromium():
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("SKIPPED: chromium is not installed (scripts/setup.sh installs Debian's chromium)")
        sys.exit(SKIP)
    with tempfile.TemporaryDirectory() as tmp:
        db, out = os.path.join(tmp, "results.db"), os.path.join(tmp, "report")
        build_store(db, nodes="1,2")
        report(db, out)
        page = "file://" + os.path.join(out, "report.html")
        proc = subprocess.run([browser, "--headless", "--disable-gpu", "--no-sandbox", "--user-data-dir=" +
                               os.path.join(tmp, "profile"), "--virtual-time-budget=5000", "--dump-dom", page],
                              capture_output=True, text=True, timeout=120)
        expect(proc.returncode == 0, "chromium renders the page", proc)
        loaded = re.search(r'<body[^>]*data-images-loaded="(\d+)/(\d+)"', proc.stdout)
        expect(loaded is not None, "the page's load script ran", proc)
        expect(loaded.group(2) == str(len(FIGURES)), f"{len(FIGURES)} images on the page: {loaded.group(0)}")
        expect(loaded.group(1) == loaded.group(2), f"every image decoded: {loaded.group(0)}")


def check_report_errors():
    with tempfile.TemporaryDirectory() as tmp:
        missing = os.path.join(tmp, "missing.db")
        expect_bad_input(hpcsim("report", missing), f"{missing}: no such file")
        expect(not os.path.exists(missing), "no store created for a mistyped name")
        not_store = os.path.join(tmp, "other.db")
        con = sqlite3.connect(not_store)
        con.execute("CREATE TABLE t(x)")
        con.close()
        expect_bad_input(hpcsim("report", not_store), "not an hpcsim results store")
        db = os.path.join(tmp, "results.db")
        proc = hpcsim("schedule", JOBS, "--nodes", "4", "--policy", "easy", "--db", db)
        expect(proc.returncode == 0, "schedule stores a run", proc)
        a_file = os.path.join(tmp, "a-file")
        open(a_file, "w").close()
        expect_bad_input(hpcsim("report", db, "--out", a_file), f"--out {a_file}: exists and is not a folder")
        # No training runs: the report still writes the page and the runs table, and says why figures are missing.
        out = os.path.join(tmp, "r")
        proc = report(db, out)
        expect("0 figures, 1 run from" in proc.stdout, "no figures from a schedule run alone", proc)
        with open(os.path.join(out, "report.html")) as f:
            html = f.read()
        expect("No scaling figures" in html and "No Pareto front" in html, "missing figures explained")
        expect(not os.path.exists(os.path.join(out, "scaling.csv")), "no CSV for a missing figure")
        # Figures without matplotlib: exit 1 naming the set-up script.
        build_store(db, nodes="1,2")
        proc = hpcsim("report", db, "--out", out, env={"HPCSIM_PYTHON": os.path.join(tmp, "no-python3")})
        expect(proc.returncode == 1, f"exit 1 without python3, got {proc.returncode}", proc)
        expect("scripts/setup.sh" in proc.stderr and "python3-matplotlib" in proc.stderr, "names the fix", proc)


def check_report_interval():
    """A sweep of the checkpoint interval of a run with failures: checkpoint_interval.csv holds the stored
    resilience.* numbers of each interval, and the trade-off shows (the ends cost more than the middle)."""
    small = os.path.join(DATA, "resilience", "small.yaml")
    with tempfile.TemporaryDirectory() as tmp:
        db, out = os.path.join(tmp, "results.db"), os.path.join(tmp, "report")
        proc = hpcsim("sweep", small, "--vary", "resilience.checkpoint.interval=60 s,30 min,24 h", "--db", db,
                      "--format", "json")
        expect(proc.returncode == 0, "resilience sweep should succeed", proc)
        proc = hpcsim("run", small, "--db", db, "--set", "name=another-job")  # a different scenario: not a point
        expect(proc.returncode == 0, "run should succeed", proc)
        proc = report(db, out)
        for name in ["checkpoint_interval.csv", "checkpoint_interval.png"]:
            expect(os.path.join(out, name) in proc.stdout, f"{name} listed on stdout", proc)
        with open(os.path.join(out, "checkpoint_interval.png"), "rb") as f:
            expect(f.read(8) == b"\x89PNG\r\n\x1a\n", "checkpoint_interval.png is a PNG")
        runs, metrics = store_metrics(db)
        rows = read_csv(os.path.join(out, "checkpoint_interval.csv"))
        expect([float(r["interval_s"]) for r in rows] == [60, 1800, 86400], f"one row per interval: {rows}")
        for r in rows:
            m = metrics[int(r["run_id"])]
            expect(r["label"] == "resilience-small", f"the sweep's scenario: {r['label']}")
            expect(float(r["interval_s"]) == m["resilience.checkpoint.interval_s"], "interval")
            for column, name in [("time_to_train_s", "time_to_train_s.mean"), ("p5_s", "time_to_train_s.p5"),
                                 ("p95_s", "time_to_train_s.p95"), ("ettr", "ettr"),
                                 ("lost_checkpoint_s", "lost_s.checkpoint"), ("lost_recompute_s", "lost_s.recompute"),
                                 ("young_s", "checkpoint.young_interval_s"), ("daly_s", "checkpoint.daly_interval_s")]:
                expect(float(r[column]) == m["resilience." + name], f"{column} of run {r['run_id']}")
        t = [float(r["time_to_train_s"]) for r in rows]
        expect(t[1] < t[0] and t[1] < t[2], f"30 min beats checkpoints every minute and once a day: {t}")
        with open(os.path.join(out, "report.html")) as f:
            expect("Checkpoint interval" in f.read(), "the figure is on the page")


def check_report_mpi_apps():
    """MPI applications (issue 35 item 5): a stencil's node sweep on two networks is two strong-scaling lines of
    stored numbers; HPCG over nodes (a box per rank) is weak scaling; a store of training runs only says so."""
    stencil = os.path.join(SOURCE, "examples", "hpc", "stencil-3d-epyc.yaml")
    with tempfile.TemporaryDirectory() as tmp:
        db, out = os.path.join(tmp, "results.db"), os.path.join(tmp, "report")
        proc = hpcsim("sweep", stencil, "--vary", "workload.grid=[256,256,256]", "--vary", "cluster.nodes=1,2,4",
                      "--vary", "cluster.network=" + ",".join(NETWORKS), "--db", db, "--format", "json")
        expect(proc.returncode == 0, "stencil sweep should succeed", proc)
        hpcg = os.path.join(tmp, "hpcg.yaml")
        with open(hpcg, "w") as f:
            f.write("kind: mpi\nname: hpcg-small\ncluster: {node: epyc-7763-2s, nodes: 1, network: ib-hdr}\n"
                    "workload: {app: hpcg, local: [32, 32, 32], iterations: 2}\n")
        proc = hpcsim("sweep", hpcg, "--vary", "cluster.nodes=1,4", "--db", db, "--format", "json")
        expect(proc.returncode == 0, "hpcg sweep should succeed", proc)
        proc = report(db, out)
        for name in ["app_scaling.csv", "app_time.png", "app_efficiency.png"]:
            expect(os.path.join(out, name) in proc.stdout, f"{name} listed on stdout", proc)
        for name in ["app_time.png", "app_efficiency.png"]:
            with open(os.path.join(out, name), "rb") as f:
                expect(f.read(8) == b"\x89PNG\r\n\x1a\n", f"{name} is a PNG")
        runs, metrics = store_metrics(db)
        rows = read_csv(os.path.join(out, "app_scaling.csv"))
        lines = {}
        for r in rows:
            m = metrics[int(r["run_id"])]
            expect(float(r["time_s"]) == m["time_s"] and float(r["gflops"]) == m["gflops"] and
                   float(r["nodes"]) == m["placement.nodes"], f"the stored numbers of run {r['run_id']}")
            lines.setdefault((r["app"], r["line"]), []).append(r)
        stencil_lines = {line: pts for (app, line), pts in lines.items() if app == "stencil"}
        expect(len(stencil_lines) == 2 and all(any(n in line for n in NETWORKS) for line in stencil_lines),
               f"one stencil line per network: {sorted(lines)}")
        for pts in stencil_lines.values():
            expect([p["scaling"] for p in pts] == ["strong"] * 3 and [float(p["nodes"]) for p in pts] == [1, 2, 4],
                   f"the stencil's fixed grid is strong scaling over 1, 2, 4 nodes: {pts}")
            base = pts[0]
            for p in pts:
                expected = (float(p["gflops"]) / float(p["nodes"])) / (float(base["gflops"]) / float(base["nodes"]))
                expect(abs(float(p["efficiency"]) - expected) < 1e-12, f"efficiency of run {p['run_id']}")
            expect(float(pts[-1]["efficiency"]) < 1, "4 nodes are less than ideal")
        hpcg_lines = [pts for (app, line), pts in lines.items() if app == "hpcg"]
        expect(len(hpcg_lines) == 1 and hpcg_lines[0][0]["scaling"] == "weak",
               f"HPCG's box per rank is weak scaling: {hpcg_lines}")
        with open(os.path.join(out, "report.html")) as f:
            expect("MPI applications: time against node count" in f.read(), "the figures are on the page")
        # A store without two mpi runs of one scenario says why there is no such figure.
        db2, out2 = os.path.join(tmp, "training.db"), os.path.join(tmp, "report2")
        proc = hpcsim("run", QUICKSTART, "--db", db2)
        expect(proc.returncode == 0, "run should succeed", proc)
        proc = report(db2, out2)
        expect(not os.path.exists(os.path.join(out2, "app_scaling.csv")), "no app_scaling.csv without mpi runs", proc)
        expect(not os.path.exists(os.path.join(out2, "replay_time.csv")), "no replay_time.csv without replays", proc)
        with open(os.path.join(out2, "report.html")) as f:
            page = f.read()
            expect("No MPI application scaling figures" in page, "the page says why the figure is missing")
            expect("No trace replay figure" in page, "the page says why the replay figure is missing")


def check_report_serve_load():
    """Serving endpoints: a sweep of the offered rate at two batch sizes is two latency-vs-load lines of stored
    numbers, and a --sweep-load run a third."""
    serve = os.path.join(SOURCE, "examples", "serving", "roberta-g5.yaml")
    with tempfile.TemporaryDirectory() as tmp:
        db, out = os.path.join(tmp, "results.db"), os.path.join(tmp, "report")
        proc = hpcsim("sweep", serve, "--vary", "serving.rate_rps=200,800,1200", "--vary", "serving.max_batch=1,8",
                      "--vary", "serving.requests=4000", "--db", db, "--format", "json")
        expect(proc.returncode == 0, "serve sweep should succeed", proc)
        proc = hpcsim("serve", serve, "--sweep-load", "100,300", "--set", "serving.max_batch=4", "--set", "serving.requests=4000",
                      "--db", db)
        expect(proc.returncode == 0, "serve --sweep-load should store its run", proc)
        report(db, out, listed=["serve_load.csv", "serve_latency.png"])
        runs, metrics = store_metrics(db)
        rows = read_csv(os.path.join(out, "serve_load.csv"))
        lines = {}
        for r in rows:
            lines.setdefault(r["line"], []).append(r)
        expect(sorted(lines) == ["1", "4", "8"], f"one line per batch size: {sorted(lines)}")
        for r in lines["1"] + lines["8"]:
            m = metrics[int(r["run_id"])]
            expect(float(r["p99_s"]) == m["latency_s.p99"] and float(r["p50_s"]) == m["latency_s.p50"],
                   f"the stored latencies of run {r['run_id']}")
        one = [float(r["p99_s"]) for r in lines["1"]]
        expect(one == sorted(one), f"p99 rises with the load: {one}")
        expect([float(r["rate_rps"]) for r in lines["4"]] == [100, 300], "the --sweep-load run's rates")
        with open(os.path.join(out, "report.html")) as f:
            expect("Serving: latency against load" in f.read(), "the figure is on the page")


def check_report_replays():
    """Trace replays: each stored replay is a bar of its mean rank's compute, communication and waiting (the stored
    numbers), with its critical path's parts where the replay followed it; labelled by the setting that differs."""
    trace = os.path.join(SOURCE, "examples", "hpc", "halo-16ranks.txt")
    platform = os.path.join(SOURCE, "examples", "hpc", "stencil-3d-epyc.yaml")
    with tempfile.TemporaryDirectory() as tmp:
        db, out = os.path.join(tmp, "results.db"), os.path.join(tmp, "report")
        for rpn, path in [("4", True), ("16", False)]:
            proc = hpcsim("replay", trace, "--platform", platform, "--ranks-per-node", rpn, *(["--critical-path"] if path else []),
                          "--db", db)
            expect(proc.returncode == 0, "replay should store its run", proc)
        report(db, out, listed=["replay_time.csv", "replay_time.png"])
        runs, metrics = store_metrics(db)
        rows = read_csv(os.path.join(out, "replay_time.csv"))
        expect([r["label"] for r in rows] == ["4", "16"], f"labelled by ranks per node: {[r['label'] for r in rows]}")
        expect(rows[0]["label_keys"] == "replay.ranks_per_node", f"the label's key: {rows[0]['label_keys']}")
        for r in rows:
            m = metrics[int(r["run_id"])]
            for column, metric in [("time_s", "time_s"), ("compute_s", "mean_rank.compute_s"),
                                   ("communication_s", "mean_rank.communication_s"), ("waiting_s", "mean_rank.waiting_s")]:
                expect(float(r[column]) == m[metric], f"run {r['run_id']}: {column} is the stored {metric}")
        expect(float(rows[0]["path_communication_s"]) == metrics[int(rows[0]["run_id"])]["critical_path.communication_s"],
               "the critical path's stored communication")
        expect(rows[1]["path_compute_s"] == "", "a replay without --critical-path has no path parts")
        # On one node (16 ranks a node) nothing crosses the network: less waiting than on four.
        expect(float(rows[1]["waiting_s"]) < float(rows[0]["waiting_s"]), f"waiting: {rows[0]['waiting_s']} vs {rows[1]['waiting_s']}")
        with open(os.path.join(out, "report.html")) as f:
            expect("MPI trace replays: where the time went" in f.read(), "the figure is on the page")


run_check({"report_replays": check_report_replays, "report_serve_load": check_report_serve_load, "report_files": check_report_files, "report_interval": check_report_interval, "report_chromium": check_report_chromium,
           "report_errors": check_report_errors, "report_mpi_apps": check_report_mpi_apps})
