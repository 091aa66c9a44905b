#!/usr/bin/env python3
"""End-to-end checks of `hpcsim replay`: SimGrid's bcast fixture, JSON keys, a YAML cluster, bad input.
Usage: replay_checks.py HPCSIM SOURCE_DIR CHECK"""
import json
import os
import sqlite3
import tempfile

from cli_support import SOURCE, expect, expect_bad_input, hpcsim, run_check

TI = os.path.join(SOURCE, "tests", "data", "simgrid-ti")
PLATFORM = os.path.join(TI, "small_platform.xml")
HOSTFILE = os.path.join(TI, "hostfile")


def check_replay_fixture():
    proc = hpcsim("replay", "--no-db", os.path.join(TI, "replay", "actions_bcast.txt"), "--platform", PLATFORM,
                  "--hostfile", HOSTFILE, "--format", "json")
    expect(proc.returncode == 0, "the bcast fixture replays", proc)
    doc = json.loads(proc.stdout)
    for key in ["trace", "platform", "model", "collectives", "simulated_time_s", "actions", "messages", "ranks"]:
        expect(key in doc, f"missing JSON key {key}", proc)
    expect(abs(doc["simulated_time_s"] - 19.692506) <= 0.02 * 19.692506, "within 2 % of SimGrid's 19.692506 s", proc)
    expect([r["host"] for r in doc["ranks"]] == ["Tremblay", "Jupiter", "Fafard"], "ranks on the hostfile's hosts", proc)
    for r in doc["ranks"]:
        parts = r["compute_s"] + r["communication_s"] + r["waiting_s"]
        expect(abs(parts - r["end_s"]) < 1e-6, "a rank's parts add up to its end (it is never idle)", proc)
    table = hpcsim("replay", "--no-db", os.path.join(TI, "replay", "actions_bcast.txt"), "--platform", PLATFORM)
    expect(table.returncode == 0 and "simulated time: 19.69" in table.stdout, "the table states the time", table)
    again = hpcsim("replay", "--no-db", os.path.join(TI, "replay", "actions_bcast.txt"), "--platform", PLATFORM,
                   "--hostfile", HOSTFILE, "--format", "json")
    expect(again.stdout == proc.stdout, "two runs print the same bytes", again)


def check_replay_cluster():
    with tempfile.TemporaryDirectory() as d:
        cluster = os.path.join(d, "cluster.yaml")
        with open(cluster, "w") as f:
            f.write("cluster:\n  node: cpu-2s-generic\n  nodes: 2\n  network: ib-hdr\n")
        trace = os.path.join(d, "t.txt")
        with open(trace, "w") as f:
            f.write("0 compute 1e9\n1 compute 1e9\n0 allreduce 1e6 0\n1 allreduce 1e6 0\n")
        one = hpcsim("replay", "--no-db", trace, "--platform", cluster, "--format", "json")
        expect(one.returncode == 0, "a trace replays on a CPU cluster", one)
        apart = hpcsim("replay", "--no-db", trace, "--platform", cluster, "--ranks-per-node", "1", "--format", "json")
        a, b = json.loads(one.stdout), json.loads(apart.stdout)
        expect(a["ranks"][0]["host"] == a["ranks"][1]["host"], "ranks fill a node's cores first", one)
        expect(b["ranks"][0]["host"] != b["ranks"][1]["host"], "--ranks-per-node 1 spreads them", apart)
        expect(b["simulated_time_s"] > a["simulated_time_s"], "HDR is slower than shared memory for 1 MB", apart)
        forced = hpcsim("replay", "--no-db", trace, "--platform", cluster, "--ranks-per-node", "1", "--coll", "allreduce=ring",
                        "--format", "json")
        expect(forced.returncode == 0, "--coll forces an algorithm", forced)
        bad = hpcsim("replay", "--no-db", trace, "--platform", cluster, "--ranks-per-node", "200")
        expect_bad_input(bad, "--ranks-per-node", "128 cores")


def check_replay_errors():
    with tempfile.TemporaryDirectory() as d:
        trace = os.path.join(d, "bad.txt")
        with open(trace, "w") as f:
            f.write("0 init\n1 init\n1 frobnicate 3\n")
        expect_bad_input(hpcsim("replay", "--no-db", trace, "--platform", PLATFORM), f"{trace}:3:3: unknown action 'frobnicate'")
        with open(trace, "w") as f:
            f.write("0 init\n0 send 1 0 12x\n1 recv 0 0 10\n")
        expect_bad_input(hpcsim("replay", "--no-db", trace, "--platform", PLATFORM), f"{trace}:2:12: send: count must be a number")
        expect_bad_input(hpcsim("replay", "--no-db", os.path.join(TI, "replay", "actions_bcast.txt"), "--np", "4", "--platform",
                                PLATFORM), "the trace names 3 ranks, but 4 were asked for (--np)")
        expect_bad_input(hpcsim("replay", "--no-db", os.path.join(TI, "split_traces"), "--np", "3", "--platform", PLATFORM),
                         "split_traces:2:1: the description lists 2 trace files (one per rank), but 3")
        with open(trace, "w") as f:
            f.write("0 recv 1 0 10\n1 recv 0 0 10\n")
        expect_bad_input(hpcsim("replay", "--no-db", trace, "--platform", PLATFORM), f"{trace}:1:1: the trace deadlocks")
        with open(trace, "w") as f:
            f.write("0 init\n1 init\n9 init\n")
        expect_bad_input(hpcsim("replay", "--no-db", trace, "--platform", PLATFORM, "--limit", "ranks=4"),
                         f"{trace}:3:1: the trace (rank 9) needs 10 MPI ranks", "--limit ranks=N")
        expect_bad_input(hpcsim("replay", "--no-db", trace, "--platform", PLATFORM, "--np", "200000"), "--np 200000", "--limit ranks=N")
        with open(trace, "w") as f:
            f.write("0 init\n1 init\n0 compute 1\n1 compute 1\n")
        expect_bad_input(hpcsim("replay", "--no-db", trace, "--platform", PLATFORM, "--limit", "actions=3"),
                         f"{trace}:4:1: the trace needs 4 trace actions", "--limit actions=N")
        # A collective that expands into more point-to-point steps than the limit (Open MPI's pipeline bcast in
        # segments) is refused at its line, before its messages are made.
        with open(trace, "w") as f:
            f.write("".join(f"{r} bcast 100000000\n" for r in range(16)))
        expect_bad_input(hpcsim("replay", "--no-db", trace, "--platform", PLATFORM, "--collectives", "ompi", "--limit",
                                "actions=10000"), f"{trace}:", "this bcast (pipeline on 16 ranks", "--limit actions=N")
        xml = os.path.join(d, "p.xml")
        with open(xml, "w") as f:
            f.write("<platform version='4.1'>\n<host id='a' speed='1Gf'/>\n<host id='b' speed='1Gf'/>\n</platform>\n")
        expect_bad_input(hpcsim("replay", "--no-db", os.path.join(TI, "replay", "actions_bcast.txt"), "--platform", xml),
                         "no route from 'a' to 'b'")
        expect_bad_input(hpcsim("replay", "--no-db", os.path.join(TI, "replay", "actions_bcast.txt"), "--platform", PLATFORM,
                                "--coll", "bcast=ring"), "'ring' is not an algorithm of bcast")


def check_replay_views():
    """--trace (one lane per kept rank), --critical-path and the results store."""
    bcast = os.path.join(TI, "replay", "actions_bcast.txt")
    with tempfile.TemporaryDirectory() as d:
        out, db = os.path.join(d, "t.json"), os.path.join(d, "r.db")
        proc = hpcsim("replay", bcast, "--platform", PLATFORM, "--hostfile", HOSTFILE, "--critical-path",
                      "--trace", out, "--trace-ranks", "2", "--db", db, "--format", "json")
        expect(proc.returncode == 0, "the bcast fixture replays with its views", proc)
        doc = json.loads(proc.stdout)
        cp = doc["critical_path"]
        expect(abs(cp["compute_s"] + cp["communication_s"] + cp["other_s"] - doc["simulated_time_s"]) < 1e-6,
               "the critical path's parts add up to the simulated time", proc)
        expect(doc["ranks"][cp["end_rank"]]["end_s"] == doc["simulated_time_s"], "it ends on the last rank", proc)
        with open(out) as f:
            trace = json.load(f)
        lanes = [e["args"]["name"] for e in trace["traceEvents"] if e.get("name") == "thread_name"]
        expect(lanes == ["rank 0 (Tremblay)", "rank 2 (Fafard)"], "--trace-ranks 2 keeps the first and last rank", proc)
        events = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
        expect({e["name"] for e in events} <= {"compute", "communication", "waiting"}, "events are activities", proc)
        last = max(e["ts"] + e["dur"] for e in events)
        expect(abs(last - doc["simulated_time_s"] * 1e6) < 1.0, "the timeline ends at the simulated time", proc)
        again = os.path.join(d, "again.json")
        hpcsim("replay", bcast, "--platform", PLATFORM, "--hostfile", HOSTFILE, "--trace", again, "--trace-ranks", "2",
               "--no-db")
        with open(out) as f, open(again) as g:
            expect(f.read() == g.read(), "the same replay writes the same timeline bytes")
        shown = hpcsim("show", db)
        expect(shown.returncode == 0 and "replay" in shown.stdout and "actions_bcast.txt" in shown.stdout,
               "the replay is stored as a run of kind replay", shown)
        split = hpcsim("replay", os.path.join(TI, "split_traces"), "--platform", PLATFORM, "--db", db)
        expect(split.returncode == 0, "a description of per-rank traces replays and is stored", split)
        texts = [row[0] for row in sqlite3.connect(db).execute("SELECT scenario_text FROM runs ORDER BY id")]
        expect("trace_files_hash" not in texts[0] and "trace_files_hash" in texts[1],
               "a description's stored request hashes the per-rank files it lists, a single trace only itself")
        expect_bad_input(hpcsim("replay", bcast, "--platform", PLATFORM, "--trace", out, "--trace-ranks", "0", "--no-db"),
                         "--trace-ranks", "must be >= 1")
        expect_bad_input(hpcsim("replay", bcast, "--platform", PLATFORM, "--trace", os.path.join(d, "no", "t.json"),
                                "--no-db"), "cannot write the file")


run_check({"replay_fixture": check_replay_fixture, "replay_cluster": check_replay_cluster,
           "replay_errors": check_replay_errors, "replay_views": check_replay_views})
