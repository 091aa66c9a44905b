"""hpcsim sweep: resumable cross-product studies in the store (issue 14)."""
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import time

from cli_support import HPCSIM, SOURCE, expect, expect_bad_input, hpcsim, run_check

QUICKSTART = os.path.join(SOURCE, "examples", "quickstart.yaml")
# 5 x 8 = 40 points of the quickstart: batch per GPU 1..5, nodes 1..8.
VARY = ["--vary", "workload.batch_per_gpu=1..5", "--vary", "cluster.nodes=1..8"]


def sweep(db, *extra):
    proc = hpcsim("sweep", QUICKSTART, *VARY, "--db", db, "--format", "json", *extra)
    expect(proc.returncode == 0, "sweep should succeed", proc)
    return json.loads(proc.stdout), proc


def stored(db):
    """(points per status, run ids of the study's points, runs in the file, integrity)."""
    con = sqlite3.connect(db)
    try:
        statuses = dict(con.execute("SELECT status, count(*) FROM study_points GROUP BY status").fetchall())
        run_ids = [r[0] for r in con.execute("SELECT run_id FROM study_points WHERE run_id IS NOT NULL")]
        runs = con.execute("SELECT count(*) FROM runs").fetchone()[0]
        integrity = con.execute("PRAGMA integrity_check").fetchone()[0]
        return statuses, run_ids, runs, integrity
    finally:
        con.close()


def check_sweep_resume():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "s.db")
        proc = subprocess.Popen([HPCSIM, "sweep", QUICKSTART, *VARY, "--db", db, "--format", "json"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # SIGKILL once a few points are stored, long before the 40th.
        deadline = time.time() + 120
        done = 0
        while time.time() < deadline and proc.poll() is None:
            try:
                done = stored(db)[0].get("ok", 0)
            except sqlite3.Error:
                done = 0
            if done >= 3:
                break
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        statuses, run_ids, runs, integrity = stored(db)
        expect(statuses.get("pending", 0) > 0, f"the sweep was killed partway (stored {statuses})")
        expect(integrity == "ok", f"the store survives SIGKILL: {integrity}")
        expect(runs == len(run_ids), "no run without its point")
        doc, proc = sweep(db)
        statuses, run_ids, runs, integrity = stored(db)
        expect(statuses == {"ok": 40}, f"every point completed after the restart: {statuses}", proc)
        expect(len(set(run_ids)) == 40 and runs == 40, "every point stored exactly once", proc)
        expect(integrity == "ok", "integrity after the restart", proc)
        expect(doc["summary"]["already_stored"] >= 3, "the restart kept what the first run stored", proc)
        again, proc = sweep(db)
        expect(again["summary"]["already_stored"] == 40 and stored(db)[2] == 40, "a third run stores nothing", proc)


def metrics_by_values(doc):
    return {json.dumps(p["values"], sort_keys=True): (p["status"], p["metrics"]) for p in doc["points"]}


def check_sweep_jobs():
    with tempfile.TemporaryDirectory() as tmp:
        one, _ = sweep(os.path.join(tmp, "one.db"))
        two, proc = sweep(os.path.join(tmp, "two.db"), "--jobs", "2")
        a, b = metrics_by_values(one), metrics_by_values(two)
        for m in list(a.values()) + list(b.values()):
            m[1].pop("sim_wall_s", None)
        expect(len(a) == 40 and a == b, "two processes store the same results as one", proc)


def check_sweep_mpi():
    """mpirun -np 2 shares the points between two ranks; rank 0 stores them all: the same results."""
    mpirun = shutil.which("mpirun")
    expect(mpirun is not None, "mpirun is missing: scripts/setup.sh installs openmpi-bin")
    env = dict(os.environ)
    env.pop("HPCSIM_CONFIG_DIR", None)
    # Containers and CI run as root; Open MPI's leak-ridden init is not ours to sanitize.
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "ASAN_OPTIONS": env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"})
    with tempfile.TemporaryDirectory() as tmp:
        one, _ = sweep(os.path.join(tmp, "one.db"))
        db = os.path.join(tmp, "mpi.db")
        proc = subprocess.run([mpirun, "-np", "2", "--oversubscribe", HPCSIM, "sweep", QUICKSTART, *VARY, "--db", db,
                               "--format", "json"], capture_output=True, text=True, env=env, timeout=300)
        expect(proc.returncode == 0, "mpirun -np 2 hpcsim sweep succeeds", proc)
        two = json.loads(proc.stdout)
        a, b = metrics_by_values(one), metrics_by_values(two)
        for m in list(a.values()) + list(b.values()):
            m[1].pop("sim_wall_s", None)
        expect(len(b) == 40 and a == b, "two MPI ranks store the same results as one process", proc)
        statuses, run_ids, runs, integrity = stored(db)
        expect(statuses == {"ok": 40} and runs == 40 and integrity == "ok", "one writer, every point once", proc)


def check_sweep_mpi_waits():
    """An MPI sweep waits for a point another live sweep of the study holds, as one process does: a sweep is
    stopped (SIGSTOP) while it holds a claim, mpirun -np 2 runs every other point and must not finish before
    the stopped sweep is let go and stores its point; then both print all 40 points, each stored once."""
    mpirun = shutil.which("mpirun")
    expect(mpirun is not None, "mpirun is missing: scripts/setup.sh installs openmpi-bin")
    env = dict(os.environ)
    env.pop("HPCSIM_CONFIG_DIR", None)
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                "ASAN_OPTIONS": env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"})
    cmd = ["sweep", QUICKSTART, *VARY, "--format", "json"]

    def claimed(db):
        if not os.path.exists(db):
            return 0
        con = sqlite3.connect(db, timeout=30)
        try:
            return con.execute("SELECT count(*) FROM study_points WHERE status = 'pending' "
                               "AND claimed_by IS NOT NULL").fetchone()[0]
        except sqlite3.OperationalError:  # the schema is not written yet
            return 0
        finally:
            con.close()

    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "shared.db")
        one = subprocess.Popen([HPCSIM, *cmd, "--db", db], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env)
        held = False
        deadline = time.time() + 120
        while not held and time.time() < deadline and one.poll() is None:
            if claimed(db) > 0:
                one.send_signal(signal.SIGSTOP)
                held = claimed(db) > 0  # still holding it once stopped (not between two points)
                if not held:
                    one.send_signal(signal.SIGCONT)
            time.sleep(0.01)
        expect(held, "the first sweep was stopped while it held a point")
        mpi = subprocess.Popen([mpirun, "-np", "2", "--oversubscribe", HPCSIM, *cmd, "--db", db],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        try:
            # Every point but the held one gets done; the MPI sweep must then still be waiting.
            deadline = time.time() + 240
            while time.time() < deadline and mpi.poll() is None:
                statuses = stored(db)[0]
                if sum(n for status, n in statuses.items() if status != "pending") >= 39:
                    break
                time.sleep(0.1)
            time.sleep(1.0)
            expect(mpi.poll() is None, "mpirun does not finish while another live sweep holds a point")
        finally:
            one.send_signal(signal.SIGCONT)
        outs = {name: p.communicate(timeout=300) for name, p in (("one", one), ("mpi", mpi))}
        for name, p in (("one", one), ("mpi", mpi)):
            out, err = outs[name]
            expect(p.returncode == 0, f"{name}: exit 0 (got {p.returncode}):\n{err}")
            doc = json.loads(out)
            expect([q["status"] for q in doc["points"]] == ["ok"] * 40, f"{name}: all 40 points printed ok:\n{err}")
        expect("waiting for 1 point(s) another sweep of this study is running" in outs["mpi"][1],
               "the MPI sweep says what it waits for:\n" + outs["mpi"][1])
        statuses, run_ids, runs, integrity = stored(db)
        expect(statuses == {"ok": 40} and len(set(run_ids)) == 40 and runs == 40 and integrity == "ok",
               f"every point stored once: {statuses}, {runs} runs")


def check_sweep_points():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "s.db")
        # tp 3 does not divide 8 GPUs: that point is stored as an error with its reason, the others run.
        proc = hpcsim("sweep", QUICKSTART, "--vary", "parallelism.tp=1,3", "--vary", "cluster.network=ib-hdr,eth-100g-tcp",
                      "--db", db, "--format", "json")
        expect(proc.returncode == 0, "a sweep with an invalid point completes", proc)
        doc = json.loads(proc.stdout)
        by = {(p["values"]["parallelism.tp"], p["values"]["cluster.network"]): p for p in doc["points"]}
        expect(len(by) == 4 and by[("1", "ib-hdr")]["status"] == "ok", "valid points run", proc)
        expect(by[("3", "ib-hdr")]["status"] == "error" and
               by[("3", "ib-hdr")]["message"].startswith("--vary parallelism.tp=3: "),
               "an invalid point is stored with its reason, at its --vary value", proc)
        ib = by[("1", "ib-hdr")]["metrics"]["step_time_s"]
        eth = by[("1", "eth-100g-tcp")]["metrics"]["step_time_s"]
        expect(eth > ib, "the network axis changes the prediction", proc)
        # A geometric range.
        r = hpcsim("sweep", QUICKSTART, "--vary", "cluster.nodes=1..8x2", "--db", os.path.join(tmp, "r.db"),
                   "--format", "json")
        nodes = [p["values"]["cluster.nodes"] for p in json.loads(r.stdout)["points"]]
        expect(nodes == ["1", "2", "4", "8"], f"1..8x2 is 1, 2, 4, 8: {nodes}", r)


def check_sweep_errors():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "s.db")
        expect_bad_input(hpcsim("sweep", QUICKSTART, "--vary", "cluster.nodes", "--db", db), "--vary cluster.nodes: expected")
        expect_bad_input(hpcsim("sweep", QUICKSTART, "--vary", "cluster.nodez=1,2", "--db", db), "unknown key 'nodez'")
        expect_bad_input(hpcsim("sweep", QUICKSTART, "--vary", "cluster.nodes=x,y", "--db", db),
                         "--vary cluster.nodes=x: expected an integer")
        expect_bad_input(hpcsim("sweep", QUICKSTART, "--vary", "cluster.nodes=4..1", "--db", db), "ends before it starts")
        # A key varied twice would label each row with a value that did not run: refused before anything runs.
        twice = hpcsim("sweep", QUICKSTART, "--vary", "cluster.nodes=1,2", "--vary", "cluster.nodes=2,4", "--db", db)
        expect_bad_input(twice, "--vary cluster.nodes=2,4: cluster.nodes is varied twice")
        expect(not os.path.exists(db), "nothing stored for a key varied twice", twice)
        expect_bad_input(hpcsim("sweep", QUICKSTART, "--vary", "cluster.nodes=1..8x1", "--db", db), "factor above 1")
        # A NaN end left the range empty: the sweep crashed (SIGSEGV).
        expect_bad_input(hpcsim("sweep", QUICKSTART, "--vary", "cluster.nodes=nan..1", "--db", db),
                         "--vary cluster.nodes=nan..1: 'nan' is not a finite number")
        expect_bad_input(hpcsim("sweep", QUICKSTART, "--vary", "cluster.nodes=1..inf", "--db", db), "'inf' is not a finite number")
        expect(not os.path.exists(db), "nothing stored for bad flags")


def check_sweep_mpi_apps():
    """An MPI application swept over ranks per node x threads per rank (issue 35: the hybrid question as a study)."""
    stencil = os.path.join(SOURCE, "examples", "hpc", "stencil-3d-epyc.yaml")
    small = ["--vary", "cluster.nodes=4", "--vary", "workload.grid=[256,256,256]"]
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "s.db")
        proc = hpcsim("sweep", stencil, *small, "--vary", "mpi.ranks_per_node=2,128", "--vary", "mpi.threads_per_rank=1,64",
                      "--db", db, "--format", "json")
        expect(proc.returncode == 0, "a sweep with an oversubscribed point completes", proc)
        doc = json.loads(proc.stdout)
        by = {(p["values"]["mpi.ranks_per_node"], p["values"]["mpi.threads_per_rank"]): p for p in doc["points"]}
        expect(by[("128", "64")]["status"] == "error" and
               by[("128", "64")]["message"].startswith("--vary mpi.threads_per_rank=64: 128 ranks x 64 threads"),
               "128 ranks x 64 threads on a 128-core node is an error point with its reason", proc)
        hybrid, flat = by[("2", "64")]["metrics"], by[("128", "1")]["metrics"]
        expect(by[("2", "64")]["status"] == "ok" and by[("128", "1")]["status"] == "ok", "the two full layouts run", proc)
        expect(hybrid["traffic.offnode_bytes_per_node"] < flat["traffic.offnode_bytes_per_node"],
               "fewer, larger boxes send fewer bytes off the node", proc)
        expect(by[("2", "1")]["metrics"]["time_s"] > hybrid["time_s"], "2 cores of 128 are slower than all of them", proc)
        con = sqlite3.connect(db)
        try:
            kinds = {k for (k,) in con.execute("SELECT kind FROM runs")}
            names = {n for (n,) in con.execute("SELECT scenario_name FROM runs")}
        finally:
            con.close()
        expect(kinds == {"mpi"}, f"the points are stored as mpi runs: {kinds}", proc)
        expect("stencil-3d-epyc [cluster.nodes=4, workload.grid=[256,256,256], mpi.ranks_per_node=2, mpi.threads_per_rank=64]"
               in names, f"a point's run is named with its values: {sorted(names)}", proc)
        table = hpcsim("sweep", stencil, *small, "--vary", "mpi.ranks_per_node=2,128", "--vary", "mpi.threads_per_rank=1,64",
                       "--db", db)
        expect("time_s" in table.stdout and "gflops" in table.stdout and "comm_share" in table.stdout and
               "4 points (4 stored before this run)" in table.stdout, "the table shows an MPI study's columns", table)
        plan = os.path.join(SOURCE, "examples", "capacity-plan", "plan.yaml")
        expect_bad_input(hpcsim("sweep", plan, "--vary", "name=a,b", "--db", os.path.join(tmp, "v.db")),
                         "hpcsim sweep runs training, serve and mpi scenarios")


def check_sweep_serve():
    """A serving endpoint swept over load and batching: each point an endpoint run in the store."""
    serve = os.path.join(SOURCE, "examples", "serving", "roberta-g5.yaml")
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "s.db")
        proc = hpcsim("sweep", serve, "--vary", "serving.rate_rps=200,1200", "--vary", "serving.max_batch=1,8",
                      "--vary", "serving.requests=4000", "--db", db, "--format", "json")
        expect(proc.returncode == 0, "a serve sweep should succeed", proc)
        by = {(p["values"]["serving.rate_rps"], p["values"]["serving.max_batch"]): p["metrics"]
              for p in json.loads(proc.stdout)["points"]}
        expect(by[("1200", "1")]["latency_s.p99"] > by[("200", "1")]["latency_s.p99"], "p99 grows with the load", proc)
        expect(by[("1200", "8")]["latency_s.p99"] < by[("1200", "1")]["latency_s.p99"],
               "dynamic batching of up to 8 cuts the p99 near saturation", proc)
        table = hpcsim("sweep", serve, "--vary", "serving.rate_rps=200,1200", "--vary", "serving.max_batch=1,8",
                       "--vary", "serving.requests=4000", "--db", db)
        expect("p99_ms" in table.stdout and "requests/s" in table.stdout and "USD/M_req" in table.stdout,
               "the table shows an endpoint's columns", table)
        con = sqlite3.connect(db)
        try:
            kinds = {k for (k,) in con.execute("SELECT kind FROM runs")}
        finally:
            con.close()
        expect(kinds == {"serve"}, f"the points are stored as serve runs: {kinds}")
        # A point whose run is refused as bad input (a max-rate search that 500 requests cannot settle) fails
        # alone: stored as an error with the reason, the other point runs, the sweep ends normally (fuzz seed
        # 1207103: an internal error that stopped the whole sweep).
        db2 = os.path.join(tmp, "s2.db")
        proc = hpcsim("sweep", serve, "--vary", "serving.max_rate_within.p99=1e9 ms,50 ms", "--vary", "serving.requests=500",
                      "--db", db2, "--format", "json")
        expect(proc.returncode == 0 and "internal error" not in proc.stderr, "a failed point is not a failed sweep", proc)
        points = {p["values"]["serving.max_rate_within.p99"]: p for p in json.loads(proc.stdout)["points"]}
        expect(points["1e9 ms"]["status"] == "error" and "too few to load the endpoint" in points["1e9 ms"]["message"],
               f"the point says why: {points['1e9 ms']}", proc)
        expect(points["50 ms"]["status"] == "ok", f"the other point ran: {points['50 ms']}", proc)


run_check({"sweep_mpi_apps": check_sweep_mpi_apps, "sweep_serve": check_sweep_serve, "sweep_resume": check_sweep_resume, "sweep_jobs": check_sweep_jobs, "sweep_points": check_sweep_points,
           "sweep_mpi": check_sweep_mpi, "sweep_mpi_waits": check_sweep_mpi_waits,
           "sweep_errors": check_sweep_errors})
