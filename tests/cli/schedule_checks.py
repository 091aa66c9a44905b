#!/usr/bin/env python3
"""End-to-end checks of `hpcsim schedule`: the JSON contract, the policies' schedules, the store, errors.
Usage: schedule_checks.py HPCSIM SOURCE_DIR CHECK"""
import json
import os
import tempfile

from cli_support import DATA, SOURCE, expect, expect_bad_input, hpcsim, run_check

JOBS = os.path.join(DATA, "schedule", "four-jobs.yaml")
KTH = os.path.join(SOURCE, "tests", "data", "traces", "KTH-SP2-1996-2.1-cln-first5000.swf")


def schedule(*args):
    proc = hpcsim("schedule", *args, "--no-db", "--format", "json")
    expect(proc.returncode == 0, "schedule should succeed", proc)
    return json.loads(proc.stdout), proc


def check_schedule_json():
    doc, proc = schedule(JOBS, "--nodes", "4", "--policy", "easy")
    for job in doc["jobs"]:
        expect(set(job) == {"id", "submit_s", "start_s", "end_s", "wait_s", "nodes", "partition", "killed",
                           "preemptions", "cancelled"}, "job keys", proc)
        expect(job["partition"] == "all", "without a partitions table every job runs in partition all", proc)
    expect(set(doc["summary"]) == {"jobs", "skipped", "mean_wait_s", "p95_wait_s", "mean_bounded_slowdown",
                                   "utilization", "makespan_s"}, "summary keys", proc)
    expect(doc["summary"]["jobs"] == 4 and doc["summary"]["skipped"] == 1, "job 5 needs 9 of 4 nodes: skipped", proc)
    expect("job 5 needs 9 nodes" in proc.stderr, "the skipped job is named", proc)
    starts = {j["id"]: j["start_s"] for j in doc["jobs"]}
    expect(starts == {1: 0, 2: 10, 3: 101, 4: 1}, f"EASY backfills job 4 at 1: {starts}", proc)
    conservative, proc = schedule(JOBS, "--nodes", "4", "--policy", "conservative")
    starts = {j["id"]: j["start_s"] for j in conservative["jobs"]}
    expect(starts == {1: 0, 2: 10, 3: 20, 4: 30}, f"conservative keeps job 3's reservation: {starts}", proc)
    summary = conservative["summary"]
    # Busy node-seconds 3*10 + 2*10 + 4*10 + 1*100 = 190 over 4 nodes x 130 s.
    expect(summary["makespan_s"] == 130 and abs(summary["utilization"] - 190 / 520) < 1e-9, "summary", proc)


def check_schedule_trace():
    fcfs, _ = schedule(KTH, "--nodes", "100", "--policy", "fcfs", "--max-jobs", "500")
    easy, proc = schedule(KTH, "--nodes", "100", "--policy", "easy", "--max-jobs", "500")
    expect(fcfs["summary"]["jobs"] == 500 == easy["summary"]["jobs"], "--max-jobs 500", proc)
    expect(easy["summary"]["mean_wait_s"] <= fcfs["summary"]["mean_wait_s"], "EASY waits no longer on average", proc)
    again, _ = schedule(KTH, "--nodes", "100", "--policy", "easy", "--max-jobs", "500")
    expect(again == easy, "the same inputs give the same schedule", proc)


def check_schedule_gpus():
    jobs = os.path.join(DATA, "schedule", "gpu-jobs.yaml")
    cluster = os.path.join(DATA, "schedule", "cluster-4dgx.yaml")
    doc, proc = schedule(jobs, "--cluster", cluster, "--policy", "fcfs")
    by_id = {j["id"]: j for j in doc["jobs"]}
    expect(by_id[1]["nodes"] == 2 and by_id[2]["nodes"] == 3, "12 and 24 GPUs take 2 and 3 nodes of 8 GPUs", proc)
    expect(by_id[2]["start_s"] == 10, "the 3-node job waits for the 2-node one", proc)
    expect(doc["summary"]["skipped"] == 1 and "job 4 asks for 8.796093022208 TB per node; a node has 2.199023255552 TB" in proc.stderr,
           "a job asking for more memory than a node has is skipped with its reason", proc)
    plain = hpcsim("schedule", jobs, "--nodes", "4", "--policy", "fcfs", "--no-db", "--format", "json")
    expect(plain.returncode == 0 and "asks for GPUs; give the machine as a cluster" in plain.stderr,
           "GPU requests need a cluster with GPUs", plain)


def check_schedule_preempt():
    jobs = os.path.join(DATA, "schedule", "preempt.yaml")
    doc, proc = schedule(jobs, "--nodes", "4", "--policy", "priority")
    by_id = {j["id"]: j for j in doc["jobs"]}
    expect(by_id[3]["start_s"] == 10 and by_id[2]["preemptions"] == 1 and by_id[2]["start_s"] == 30,
           "the high-QoS job preempts the last started normal job, which runs again after it", proc)
    expect(abs(doc["summary"]["utilization"] - (100 * 2 + 5 * 2 + 100 * 2 + 20 * 2) / (4 * 130)) < 1e-9,
           "the preempted run counts as busy time", proc)
    easy, proc = schedule(jobs, "--nodes", "4", "--policy", "easy")
    expect(all(j["preemptions"] == 0 for j in easy["jobs"]), "only the priority policy preempts", proc)
    with tempfile.TemporaryDirectory() as tmp:
        gantt = os.path.join(tmp, "g.json")
        doc, proc = schedule(jobs, "--nodes", "4", "--policy", "priority", "--gantt", gantt)
        with open(gantt) as f:
            spans = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X" and e["args"]["id"] == 2]
        cut = sorted((e["ts"], e["dur"]) for e in spans if e["cat"] == "preempted")
        expect(cut == [(5e6, 5e6), (5e6, 5e6)] and len(spans) == 4,
               "the gantt draws the preempted run (5-10 s) and the last run on each of the job's nodes", proc)


def check_schedule_training():
    """The what-if example: the same training jobs on InfiniBand and on Ethernet (examples/scheduling)."""
    example = os.path.join(SOURCE, "examples", "scheduling")
    jobs = os.path.join(example, "jobs.yaml")
    ib, proc = schedule(jobs, "--cluster", os.path.join(example, "cluster-ib.yaml"), "--policy", "easy")
    eth, proc = schedule(jobs, "--cluster", os.path.join(example, "cluster-eth.yaml"), "--policy", "easy")
    expect(ib["summary"]["jobs"] == eth["summary"]["jobs"] == 36, "every training job runs", proc)
    runs = lambda doc: sum(j["end_s"] - j["start_s"] for j in doc["jobs"])
    expect(runs(eth) > runs(ib), "Ethernet's training jobs run longer (the training model's prediction)", proc)
    expect(eth["summary"]["mean_wait_s"] > ib["summary"]["mean_wait_s"] and
           eth["summary"]["makespan_s"] > ib["summary"]["makespan_s"], "so the queue waits longer", proc)
    expect(not any(j["killed"] for j in ib["jobs"] + eth["jobs"]), "limits of twice the IB time kill nobody", proc)
    expect_bad_input(hpcsim("schedule", jobs, "--nodes", "32", "--policy", "easy", "--no-db"),
                     "jobs.yaml:", "training jobs run on a cluster: give it with --cluster FILE")


def check_schedule_mixed():
    """Mixed partitions: 24 DGX A100 and 8 DGX H100 nodes, each partition's jobs timed on its node type."""
    example = os.path.join(SOURCE, "examples", "scheduling")
    jobs = os.path.join(example, "jobs-mixed.yaml")
    doc, proc = schedule(jobs, "--cluster", os.path.join(example, "cluster-mixed.yaml"), "--policy", "easy")
    expect(doc["summary"]["jobs"] == 36 and doc["summary"]["skipped"] == 0, "every training job runs", proc)
    by_id = {j["id"]: j for j in doc["jobs"]}
    expect(by_id[1]["partition"] == "h100" and by_id[2]["partition"] == "a100", "each job in its partition", proc)
    run = lambda i: by_id[i]["end_s"] - by_id[i]["start_s"]
    # Jobs 3 and 6 are one ResNet-50 job on 4 nodes; 7 and 25 one GPT 6.7B job (tp 8) on 8 nodes.
    for h100, a100 in ((3, 6), (7, 25)):
        expect(by_id[h100]["partition"] == "h100" and by_id[a100]["partition"] == "a100", "the pair's partitions", proc)
        expect(run(h100) < 0.8 * run(a100), f"job {h100} on H100s runs shorter than job {a100} on A100s", proc)
    # The CSV and the table name the same partitions as the JSON.
    cluster = os.path.join(example, "cluster-mixed.yaml")
    csv_proc = hpcsim("schedule", jobs, "--cluster", cluster, "--policy", "easy", "--no-db", "--format", "csv")
    rows = [line.split(",") for line in csv_proc.stdout.splitlines()]
    expect(rows[0][-1] == "partition" and len(rows) == 37, "the CSV's last column is the partition", csv_proc)
    expect(all(by_id[int(r[0])]["partition"] == r[-1] for r in rows[1:]), "the CSV's partitions are the JSON's", csv_proc)
    table = hpcsim("schedule", jobs, "--cluster", cluster, "--policy", "easy", "--no-db")
    lines = table.stdout.splitlines()
    expect(lines[1].split()[-1] == "partition", "the table has a partition column", table)
    expect(lines[2].split()[0] == "1" and lines[2].split()[-1] == "h100", "job 1's row names h100", table)
    expect_bad_input(hpcsim("schedule", jobs, "--nodes", "32", "--policy", "easy", "--no-db"),
                     "jobs-mixed.yaml:9:", "needs a described cluster")
    with tempfile.TemporaryDirectory() as tmp:
        bad = os.path.join(tmp, "mixed.yaml")
        with open(bad, "w") as f:
            f.write("partitions: [{name: a, nodes: 2}, {name: b, nodes: 2, node: dgx-h1000}]\n"
                    "jobs:\n  - {submit: 0 s, nodes: 1, run: 1 s}\n")
        expect_bad_input(hpcsim("schedule", bad, "--cluster", os.path.join(example, "cluster-mixed.yaml"),
                                "--policy", "easy", "--no-db"), "mixed.yaml:1:", "dgx-h1000")


def check_schedule_gantt():
    with tempfile.TemporaryDirectory() as tmp:
        gantt = os.path.join(tmp, "gantt.json")
        doc, proc = schedule(JOBS, "--nodes", "4", "--policy", "easy", "--gantt", gantt)
        with open(gantt) as f:
            trace = json.load(f)
        events = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
        for job in doc["jobs"]:
            spans = [e for e in events if e["args"]["id"] == job["id"]]
            expect(len(spans) == job["nodes"], f"job {job['id']} is drawn on each of its nodes", proc)
            expect(all(abs(e["ts"] - job["start_s"] * 1e6) < 1e-3 and abs(e["dur"] - (job["end_s"] - job["start_s"]) * 1e6) < 1e-3
                       for e in spans), f"job {job['id']} is drawn at its times", proc)
        bad = hpcsim("schedule", JOBS, "--nodes", "4", "--policy", "easy", "--no-db", "--gantt", os.path.join(tmp, "no", "g.json"))
        expect(bad.returncode == 1 and "--gantt" in bad.stderr, "an unwritable --gantt file is an error", bad)


def check_schedule_store():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "s.db")
        proc = hpcsim("schedule", JOBS, "--nodes", "4", "--policy", "fcfs", "--db", db)
        expect(proc.returncode == 0, "stored", proc)
        shown = hpcsim("show", db)
        expect("schedule" in shown.stdout and "mean_wait_s" in shown.stdout, "show lists the schedule run", shown)


def check_schedule_errors():
    expect_bad_input(hpcsim("schedule", JOBS, "--policy", "easy", "--no-db"), "--nodes N or --cluster FILE")
    expect_bad_input(hpcsim("schedule", JOBS, "--nodes", "4", "--policy", "lottery", "--no-db"), "--policy")
    with tempfile.TemporaryDirectory() as tmp:
        bad = os.path.join(tmp, "partition.yaml")
        with open(bad, "w") as f:
            f.write("partitions: [{name: batch, nodes: 2}]\njobs:\n  - {submit: 0 s, nodes: 1, run: 1 s, partition: gpu}\n")
        db = os.path.join(tmp, "s.db")
        expect_bad_input(hpcsim("schedule", bad, "--nodes", "2", "--policy", "priority", "--db", db),
                         "partition.yaml:3:", "unknown partition 'gpu'")
        expect(not os.path.exists(db), "nothing stored for an unknown partition")
        with open(bad, "w") as f:
            f.write("partitions: [{name: batch, nodes: 3}]\njobs:\n  - {submit: 0 s, nodes: 1, run: 1 s}\n")
        expect_bad_input(hpcsim("schedule", bad, "--nodes", "2", "--policy", "easy", "--no-db"),
                         "partition.yaml:1:", "take 3 nodes; the machine has 2")
    short = os.path.join(DATA, "schedule", "short-line.swf")
    expect_bad_input(hpcsim("schedule", short, "--nodes", "4", "--policy", "easy", "--no-db"),
                     "short-line.swf:3:1:", "has 8")
    with tempfile.TemporaryDirectory() as tmp:
        bad = os.path.join(tmp, "bad.yaml")
        with open(bad, "w") as f:
            f.write("jobs:\n  - {submit: 0 s, nodes: 0, run: 1 s}\n")
        db = os.path.join(tmp, "s.db")
        expect_bad_input(hpcsim("schedule", bad, "--nodes", "2", "--policy", "fcfs", "--db", db), "bad.yaml:2:")
        expect(not os.path.exists(db), "nothing stored for bad input")


run_check({"schedule_json": check_schedule_json, "schedule_trace": check_schedule_trace,
           "schedule_store": check_schedule_store, "schedule_gpus": check_schedule_gpus,
           "schedule_preempt": check_schedule_preempt, "schedule_training": check_schedule_training,
           "schedule_gantt": check_schedule_gantt, "schedule_errors": check_schedule_errors,
           "schedule_mixed": check_schedule_mixed})
