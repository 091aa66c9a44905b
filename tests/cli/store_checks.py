"""The results store through the hpcsim command (issue 34): an unusable store is refused with exit 2 and its
reason before anything is simulated, and left as it was; readers never create or initialise a file; sweeps
of one study on one store at once share its points."""
import json
import os
import sqlite3
import subprocess
import tempfile
import threading

from cli_support import HPCSIM, SOURCE, expect, expect_bad_input, hpcsim, run_check

EXAMPLES = os.path.join(SOURCE, "examples")
QUICKSTART = os.path.join(EXAMPLES, "quickstart.yaml")
JOBS = os.path.join(SOURCE, "tests", "data", "cli", "schedule", "four-jobs.yaml")
# Every command that stores, with what it runs.
STORING = {
    "run": ["run", QUICKSTART],
    "run --scale": ["run", QUICKSTART, "--scale", "8,16"],
    "sweep": ["sweep", QUICKSTART, "--vary", "cluster.nodes=1,2"],
    "plan": ["plan", os.path.join(EXAMPLES, "capacity-plan", "plan.yaml")],
    "serve": ["serve", os.path.join(EXAMPLES, "serving", "roberta-g5.yaml")],
    "campaign": ["campaign", os.path.join(EXAMPLES, "campaign", "resnet50-asha.yaml")],
    "schedule": ["schedule", JOBS, "--nodes", "4", "--policy", "easy"],
}
VARY = ["--vary", "workload.batch_per_gpu=1..5", "--vary", "cluster.nodes=1..8"]  # 40 points


def unusable_stores(tmp):
    """(path, what stderr says) of files no command may use as a store."""
    text = os.path.join(tmp, "notes.db")
    with open(text, "w") as f:
        f.write("these are notes, not a database\n")
    foreign = os.path.join(tmp, "foreign.db")
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE t(x)")
    con.commit()
    con.close()
    folder = os.path.join(tmp, "folder.db")
    os.mkdir(folder)
    return [(text, "not a database"), (foreign, "not an hpcsim results store"), (folder, "is a directory")]


def file_bytes(path):
    if os.path.isdir(path):
        return sorted(os.listdir(path))
    with open(path, "rb") as f:
        return f.read()


def check_store_unusable():
    with tempfile.TemporaryDirectory() as tmp:
        for path, reason in unusable_stores(tmp):
            before = file_bytes(path)
            for name, args in STORING.items():
                proc = hpcsim(*args, "--db", path)
                expect_bad_input(proc, f"hpcsim {args[0]}: {path}: ", reason)
                expect(proc.stdout == "", f"{name}: nothing simulated before the store is refused", proc)
                expect(file_bytes(path) == before, f"{name}: the file is left as it was", proc)
            for args in (["show", path], ["report", path, "--out", os.path.join(tmp, "out")]):
                expect_bad_input(hpcsim(*args), f"{path}: ", reason)
                expect(file_bytes(path) == before, f"{args[0]}: the file is left as it was")


def check_store_readers():
    with tempfile.TemporaryDirectory() as tmp:
        empty = os.path.join(tmp, "empty.db")
        open(empty, "w").close()
        missing = os.path.join(tmp, "missing.db")
        for args in (["show"], ["report", "--out", os.path.join(tmp, "out")]):
            expect_bad_input(hpcsim(args[0], empty, *args[1:]), f"{empty}: is empty")
            expect(os.path.getsize(empty) == 0, f"{args[0]} writes nothing into an empty file")
            expect_bad_input(hpcsim(args[0], missing, *args[1:]), f"{missing}: no such file")
            expect(not os.path.exists(missing), f"{args[0]} creates no file")
        # A writer takes an empty file as a new store.
        proc = hpcsim("run", QUICKSTART, "--db", empty, "--format", "csv")
        expect(proc.returncode == 0, "run stores into an empty file", proc)
        expect(hpcsim("show", empty).returncode == 0, "show reads it")


def stored(db):
    con = sqlite3.connect(db)
    try:
        statuses = dict(con.execute("SELECT status, count(*) FROM study_points GROUP BY status").fetchall())
        run_ids = [r[0] for r in con.execute("SELECT run_id FROM study_points WHERE run_id IS NOT NULL")]
        runs = con.execute("SELECT count(*) FROM runs").fetchone()[0]
        studies = con.execute("SELECT count(*) FROM studies").fetchone()[0]
        return statuses, run_ids, runs, studies
    finally:
        con.close()


def check_store_concurrent_sweeps():
    """Two sweeps of one study on one (new) store at once: both exit 0, every point is stored exactly once."""
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "shared.db")
        env = dict(os.environ)
        env.pop("HPCSIM_CONFIG_DIR", None)
        cmd = [HPCSIM, "sweep", QUICKSTART, *VARY, "--db", db, "--format", "json"]
        procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
                 for _ in range(2)]
        outs = [p.communicate(timeout=300) for p in procs]
        for p, (out, err) in zip(procs, outs):
            expect(p.returncode == 0, f"both sweeps exit 0 (got {p.returncode}):\n{err}")
            doc = json.loads(out)
            expect([p["status"] for p in doc["points"]] == ["ok"] * 40,
                   "each waits for the other's points and prints all 40 stored")
        statuses, run_ids, runs, studies = stored(db)
        expect(studies == 1, f"one study, shared: {studies}")
        expect(statuses == {"ok": 40}, f"every point completed: {statuses}")
        expect(len(run_ids) == 40 and len(set(run_ids)) == 40 and runs == 40,
               f"every point stored exactly once: {runs} runs for {len(set(run_ids))} points")
        # Resumed once more: nothing left to run, nothing stored again.
        proc = hpcsim("sweep", QUICKSTART, *VARY, "--db", db, "--format", "json")
        expect(proc.returncode == 0 and json.loads(proc.stdout)["summary"]["already_stored"] == 40,
               "a third sweep finds every point stored", proc)
        expect(stored(db)[2] == 40, "and stores nothing")


def check_store_waits_for_reader():
    """A reader holding the store past SQLite's usual busy timeout (10 s): the run waits, says so, and stores."""
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "held.db")
        expect(hpcsim("run", QUICKSTART, "--db", db).returncode == 0, "a first run makes the store")
        reader = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM runs").fetchone()  # a shared lock until COMMIT
        release = threading.Timer(12, lambda: reader.execute("COMMIT"))
        release.start()
        try:
            proc = hpcsim("run", QUICKSTART, "--set", "cluster.nodes=2", "--db", db, "--format", "csv")
        finally:
            release.join()
            reader.close()
        expect(proc.returncode == 0, "the run waits for the reader and stores", proc)
        expect(f"note: {db}: waiting for another process that holds this store (10 s so far" in proc.stderr,
               "and says that it waits", proc)
        expect(stored(db)[2] == 2, "both runs are stored")


run_check({"store_unusable": check_store_unusable, "store_readers": check_store_readers,
           "store_concurrent_sweeps": check_store_concurrent_sweeps,
           "store_waits_for_reader": check_store_waits_for_reader})
