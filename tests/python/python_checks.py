#!/usr/bin/env python3
"""Checks of the Python module `hpcsim` against the hpcsim command: its results equal the CLI's JSON, and
bad input raises hpcsim.InputError with the place. Run by CTest with the interpreter CMake found and
PYTHONPATH=build/python. Usage: python_checks.py HPCSIM SOURCE_DIR CHECK"""
import glob
import json
import os
import subprocess
import sys
import tempfile
import warnings

HPCSIM, SOURCE, CHECK = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
import hpcsim  # noqa: E402 (after the arguments, so a usage error says so first)

# Metrics that time the simulator itself on the host (wall clock), not the simulated system: they differ
# between any two runs, CLI or Python.
HOST_TIME_KEYS = ("sim_wall_s", "wall_s")


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def expect(condition, message):
    if not condition:
        fail(message)


def cli(*args):
    return subprocess.run([HPCSIM, *args], capture_output=True, text=True, cwd=SOURCE)


def cli_json(*args):
    proc = cli(*args, "--format", "json")
    expect(proc.returncode == 0, f"hpcsim {' '.join(args)} failed ({proc.returncode}): {proc.stderr}")
    return json.loads(proc.stdout)


def without_host_time(value):
    if isinstance(value, dict):
        return {k: without_host_time(v) for k, v in value.items() if k not in HOST_TIME_KEYS}
    if isinstance(value, list):
        return [without_host_time(v) for v in value]
    return value


def expect_equal(python, cli_result, what):
    a, b = without_host_time(python), without_host_time(cli_result)
    if a != b:
        keys = sorted(set(a) | set(b)) if isinstance(a, dict) and isinstance(b, dict) else []
        differ = [k for k in keys if a.get(k) != b.get(k)][:5]
        fail(f"{what}: Python and CLI differ (keys {differ}): python {str(a)[:300]} cli {str(b)[:300]}")


def check_import_readme():
    """The README's one-liner: import hpcsim from the build tree and print the quickstart's step time."""
    proc = subprocess.run([sys.executable, "-c",
                           "import hpcsim; print(hpcsim.run('examples/quickstart.yaml')['step_time_s'])"],
                          capture_output=True, text=True, cwd=SOURCE)
    expect(proc.returncode == 0, f"the one-liner failed: {proc.stderr}")
    expected = cli_json("run", "examples/quickstart.yaml", "--no-db")["step_time_s"]
    expect(float(proc.stdout) == expected, f"printed {proc.stdout.strip()}, the CLI says {expected}")


def check_run_examples():
    """Every example scenario `hpcsim run` accepts gives the same report from Python; every one it refuses
    (exit 2) raises hpcsim.InputError."""
    files = sorted(glob.glob(os.path.join(SOURCE, "examples", "**", "*.yaml"), recursive=True))
    expect(len(files) >= 10, f"the examples: found only {len(files)}")
    compared, refused = [], []
    for path in files:
        rel = os.path.relpath(path, SOURCE)
        proc = cli("run", rel, "--format", "json", "--no-db")
        if proc.returncode == 2:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    hpcsim.run(path)
            except hpcsim.InputError:
                refused.append(rel)
                continue
            fail(f"{rel}: the CLI refuses it (exit 2: {proc.stderr.strip()}) but Python ran it")
        expect(proc.returncode == 0, f"{rel}: hpcsim run exits {proc.returncode}: {proc.stderr}")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            python = hpcsim.run(rel if os.getcwd() == SOURCE else path)
        expect_equal(python, json.loads(proc.stdout), rel)
        # The CLI's notes and warnings on stderr are the Python warnings, in order.
        said = [line.split(": ", 1)[1] for line in proc.stderr.splitlines() if line.startswith(("note: ", "warning: "))]
        heard = [str(w.message) for w in caught if issubclass(w.category, hpcsim.SimulationWarning)]
        expect(said == heard, f"{rel}: the CLI's notes {said} are not Python's warnings {heard}")
        compared.append(rel)
    expect(len(compared) >= 10, f"only {len(compared)} examples ran: {compared}")
    print(f"Python equals the CLI on {len(compared)} example scenarios: {', '.join(compared)}")
    print(f"refused by both ({len(refused)}): {', '.join(refused)}")


def check_run_forms():
    """A path, YAML text and a dict give the same report; keyword overrides are --set."""
    path = os.path.join(SOURCE, "examples", "quickstart.yaml")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    by_path = hpcsim.run(path, **{"cluster.nodes": 4, "cluster.network": "eth-100g-tcp"})
    expected = cli_json("run", path, "--no-db", "--set", "cluster.nodes=4", "--set", "cluster.network=eth-100g-tcp")
    expect_equal(by_path, expected, "run with overrides")
    by_text = hpcsim.run(text, cluster__nodes=4, cluster__network="eth-100g-tcp")
    quickstart = {"name": "quickstart-gpt-1.3b-2x-dgx-a100",
                  "cluster": {"node": "dgx-a100-80gb", "nodes": 2, "network": "ib-hdr"},
                  "workload": {"model": "gpt", "layers": 24, "hidden": 2048, "heads": 16, "seq_len": 2048,
                               "vocab": 50257, "batch_per_gpu": 4, "precision": "bf16", "optimizer": "adamw"},
                  "parallelism": {}}
    by_dict = hpcsim.run(quickstart, **{"cluster.nodes": 4, "cluster.network": "eth-100g-tcp"})
    for other, what in ((by_text, "YAML text"), (by_dict, "a dict")):
        expect_equal(other, by_path, what)


def check_bad_scenario():
    """A bad scenario raises hpcsim.InputError with file:line:column, the CLI's message."""
    bad = os.path.join(SOURCE, "tests", "data", "python", "bad_batch.yaml")
    proc = cli("run", bad, "--no-db")
    expect(proc.returncode == 2, f"the CLI should refuse {bad}: {proc.returncode} {proc.stderr}")
    try:
        hpcsim.run(bad)
    except hpcsim.InputError as e:
        expect(isinstance(e, hpcsim.Error), "InputError is an hpcsim.Error")
        expect(str(e) == proc.stderr.strip(), f"the message {e!s} is not the CLI's {proc.stderr.strip()}")
        expect(e.file == bad and e.line > 0 and e.column > 0, f"the place: {e.file}:{e.line}:{e.column}")
        expect(str(e).startswith(f"{bad}:{e.line}:{e.column}: "), f"file:line:column leads: {e}")
    else:
        fail("a bad scenario ran")
    # YAML text: the place names the text, not a temporary file.
    with open(bad, encoding="utf-8") as f:
        text = f.read()
    try:
        hpcsim.run(text)
    except hpcsim.InputError as e:
        expect(str(e).startswith("<scenario text>:") and e.file == "<scenario text>" and e.line > 0,
               f"YAML text's error names it: {e} ({e.file})")
    else:
        fail("bad YAML text ran")
    # A --set override with an unknown key, and a file that is not there.
    for call in (lambda: hpcsim.run("examples/quickstart.yaml", **{"cluster.nodez": 4}),
                 lambda: hpcsim.run("examples/no-such-file.yaml"),
                 lambda: hpcsim.kernel("h100-sxm5-80gb", "gemm", m=0, n=1, k=1),
                 lambda: hpcsim.occupancy("h100-sxm5-80gb", threads=4096, regs=32),
                 lambda: hpcsim.collective("allreduce", node="no-such-node", size="1MiB"),
                 lambda: hpcsim.replay("examples/hpc/halo-16ranks.txt", platform="examples/hpc/stencil-3d-epyc.yaml",
                                       np=8),
                 lambda: hpcsim.replay("examples/hpc/halo-16ranks.txt", platform="examples/hpc/stencil-3d-epyc.yaml",
                                       ranks_per_node=4, coll={"allreduce": "no_such_algorithm"}),
                 lambda: hpcsim.replay("examples/hpc/halo-16ranks.txt", platform="examples/hpc/stencil-3d-epyc.yaml",
                                       ranks_per_node=4, eager="-1KiB"),
                 lambda: hpcsim.replay("examples/hpc/halo-16ranks.txt", platform="examples/hpc/stencil-3d-epyc.yaml",
                                       ranks_per_node=4, model="tcp"),
                 lambda: hpcsim.read_dataset("lustre-flash", samples=0, sample_size="1MiB"),
                 lambda: hpcsim.read_dataset("nfs-2x25g", samples=10, sample_size="1MiB", stripe_count=2),
                 lambda: hpcsim.io500("no-such-filesystem"),
                 lambda: hpcsim.checkpoint("lustre-hdd-edr", bytes_per_proc="0B"),
                 lambda: hpcsim.file_reads("lustre-hdd-edr", file_size="1MB", clients=4, procs=2),
                 lambda: hpcsim.mlperf_storage("lustre-hdd-edr", workload="unet3d", clients=4, accelerators=2)):
        try:
            call()
        except hpcsim.InputError:
            continue
        fail("bad input ran")


def check_tools():
    """kernel, occupancy, collective, replay, io's modes, microbench, list: the CLI's JSON."""
    gpu = "h100-sxm5-80gb"
    expect_equal(hpcsim.kernel(gpu, "gemm", m=4096, n=4096, k=4096, dtype="fp16"),
                 cli_json("kernel", "--gpu", gpu, "--dtype", "fp16", "gemm", "--m", "4096", "--n", "4096", "--k", "4096"),
                 "kernel gemm")
    expect_equal(hpcsim.kernel(gpu, "copy", bytes="1GiB", explain=True),
                 cli_json("kernel", "--gpu", gpu, "--explain", "copy", "--bytes", "1GiB"), "kernel copy --explain")
    expect_equal(hpcsim.kernel(gpu, "attention", batch=8, heads=16, seq=2048, causal=True, unfused=True),
                 cli_json("kernel", "--gpu", gpu, "attention", "--batch", "8", "--heads", "16", "--seq", "2048",
                          "--causal", "--unfused"), "kernel attention")
    expect_equal(hpcsim.kernel(gpu, "conv", batch=32, c=64, h=56, w=56, k=64, r=3, s=3, pad=1, **{"pass": "wgrad"}),
                 cli_json("kernel", "--gpu", gpu, "conv", "--batch", "32", "--c", "64", "--h", "56", "--w", "56",
                          "--k", "64", "--r", "3", "--s", "3", "--pad", "1", "--pass", "wgrad"), "kernel conv")
    expect_equal(hpcsim.occupancy(gpu, threads=256, regs=64, smem="48KiB"),
                 cli_json("occupancy", "--gpu", gpu, "--threads", "256", "--regs", "64", "--smem", "48KiB"), "occupancy")
    expect_equal(hpcsim.occupancy(cc="8.0", threads=1024, regs=32),
                 cli_json("occupancy", "--cc", "8.0", "--threads", "1024", "--regs", "32"), "occupancy --cc")
    expect_equal(hpcsim.collective("allreduce", node="dgx-a100-80gb", nodes=2, network="ib-hdr", min="1MiB", max="64MiB"),
                 cli_json("collective", "--node", "dgx-a100-80gb", "--nodes", "2", "--network", "ib-hdr", "--op",
                          "allreduce", "--min", "1MiB", "--max", "64MiB"), "collective")
    halo, epyc = "examples/hpc/halo-16ranks.txt", "examples/hpc/stencil-3d-epyc.yaml"
    expect_equal(hpcsim.replay(halo, platform=epyc, ranks_per_node=4, critical_path=True),
                 cli_json("replay", halo, "--platform", epyc, "--ranks-per-node", "4", "--critical-path", "--no-db"),
                 "replay --critical-path")
    expect_equal(hpcsim.replay(halo, platform=epyc, ranks_per_node=4, collectives="smpi", coll={"allreduce": "ring"},
                               eager="16KiB", np=16),
                 cli_json("replay", halo, "--platform", epyc, "--ranks-per-node", "4", "--collectives", "smpi", "--coll",
                          "allreduce=ring", "--eager", "16KiB", "--np", "16", "--no-db"), "replay with its flags")
    fs = "lustre-hdd-edr"
    expect_equal(hpcsim.read_dataset("lustre-flash", samples=2000, sample_size="110KiB", readers=16, stripe_count=2),
                 cli_json("io", "--storage", "lustre-flash", "--samples", "2000", "--sample-size", "110KiB", "--readers",
                          "16", "--stripe-count", "2"), "io dataset read")
    expect_equal(hpcsim.io500(fs, clients=10, procs=40),
                 cli_json("io", "--io500", "--filesystem", fs, "--clients", "10", "--procs", "40"), "io --io500")
    expect_equal(hpcsim.checkpoint(fs, bytes_per_proc="5GB", clients=4, procs=32, op="read"),
                 cli_json("io", "--checkpoint", "--filesystem", fs, "--bytes-per-proc", "5GB", "--clients", "4", "--procs",
                          "32", "--op", "read"), "io --checkpoint")
    expect_equal(hpcsim.file_reads(fs, file_size="110KB", clients=4, procs=32),
                 cli_json("io", "--files", "--filesystem", fs, "--sample-size", "110KB", "--clients", "4", "--procs", "32"),
                 "io --files")
    expect_equal(hpcsim.mlperf_storage(fs, workload="unet3d", clients=4, host_cores=32, host_clock="2GHz"),
                 cli_json("io", "--mlperf", "--filesystem", fs, "--workload", "unet3d", "--clients", "4", "--host-cores",
                          "32", "--host-clock", "2GHz"), "io --mlperf")
    expect_equal(hpcsim.microbench("v100-sxm2-16gb", "coalescing"),
                 cli_json("microbench", "--gpu", "v100-sxm2-16gb", "--bench", "coalescing"), "microbench")
    listed = cli("list", "gpus").stdout.split()[1:]
    expect(hpcsim.list("gpus") == listed, f"list gpus: {hpcsim.list('gpus')} vs {listed}")
    expect(set(hpcsim.list()) >= {"gpus", "models", "networks"}, "list() gives every kind")


def check_studies():
    """sweep (a DataFrame), plan, schedule and serve: the CLI's JSON."""
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "cli.db")
        expected = cli_json("sweep", "examples/quickstart.yaml", "--vary", "cluster.network=ib-hdr,eth-100g-tcp",
                            "--vary", "cluster.nodes=1..4x2", "--db", db)
        frame = hpcsim.sweep("examples/quickstart.yaml",
                             vary={"cluster.network": ["ib-hdr", "eth-100g-tcp"], "cluster.nodes": "1..4x2"})
    expect(len(frame) == len(expected["points"]) == 6, f"sweep: {len(frame)} rows")
    for row, point in zip(frame.to_dict("records"), expected["points"]):
        expect(row["cluster.network"] == point["values"]["cluster.network"] and
               str(row["cluster.nodes"]) == point["values"]["cluster.nodes"] and row["status"] == point["status"],
               f"sweep point {point['index']}: {row}")
        for key, value in without_host_time(point["metrics"]).items():
            expect(row[key] == value, f"sweep point {point['index']} {key}: {row[key]} vs {value}")
    expect(frame["cluster.nodes"].dtype.kind == "i", "a numeric axis is a numeric column")
    # An MPI application, with a list-valued axis (commas inside brackets stay in the value).
    mpi = hpcsim.sweep("examples/hpc/stencil-3d-epyc.yaml",
                       vary={"cluster.nodes": [1, 2], "workload.grid": [[128, 128, 128], [256, 256, 256]]})
    expect(list(mpi["status"]) == ["ok"] * 4 and list(mpi["workload.grid"])[:2] == ["[128, 128, 128]", "[256, 256, 256]"],
           f"an mpi sweep over a list axis: {mpi[['cluster.nodes', 'workload.grid', 'status']]}")
    small = mpi[mpi["workload.grid"] == "[128, 128, 128]"]
    expect(small["time_s"].iloc[1] < small["time_s"].iloc[0], "two nodes solve the same grid faster")
    # A serving endpoint over its load.
    served = hpcsim.sweep("examples/serving/roberta-g5.yaml", vary={"serving.rate_rps": [200, 1200], "serving.requests": [4000]})
    expect(list(served["status"]) == ["ok", "ok"] and served["latency_s.p99"].iloc[1] > served["latency_s.p99"].iloc[0],
           f"a serve sweep: p99 rises with the load: {served[['serving.rate_rps', 'latency_s.p99']]}")

    expect_equal(hpcsim.plan("examples/capacity-plan/plan.yaml", screen_only=True),
                 cli_json("plan", "examples/capacity-plan/plan.yaml", "--screen-only", "--no-db"), "plan --screen-only")
    expect_equal(hpcsim.schedule("examples/scheduling/jobs.yaml", cluster="examples/scheduling/cluster-ib.yaml",
                                 policy="easy"),
                 cli_json("schedule", "examples/scheduling/jobs.yaml", "--cluster", "examples/scheduling/cluster-ib.yaml",
                          "--policy", "easy", "--no-db"), "schedule")
    expect_equal(hpcsim.serve("examples/serving/roberta-g5.yaml", sweep_load=[50, 100]),
                 cli_json("serve", "examples/serving/roberta-g5.yaml", "--sweep-load", "50,100", "--no-db"), "serve")


def check_gil_released():
    """While a simulation runs in another thread, Python code runs here (the GIL is released), and the
    thread's answer is the one a plain call gives."""
    import threading
    import time

    result = []
    thread = threading.Thread(target=lambda: result.append(hpcsim.run("examples/gpt3-175b-1024-a100.yaml")))
    start = time.monotonic()
    thread.start()
    spins = 0
    while thread.is_alive():
        spins += 1
    took = time.monotonic() - start
    thread.join()
    # With the GIL held by the simulation, this loop would stand still for all of it.
    expect(took > 0.05 and spins > 10000, f"the main thread ran {spins} times in {took:.3f} s of simulation")
    expect_equal(result[0], hpcsim.run("examples/gpt3-175b-1024-a100.yaml"), "the thread's report")


def check_docstrings():
    for name in ("run", "sweep", "serve", "schedule", "plan", "replay", "read_dataset", "io500", "checkpoint", "file_reads",
                 "mlperf_storage", "kernel", "occupancy", "collective", "list"):
        doc = getattr(hpcsim, name).__doc__ or ""
        expect(len(doc) > 100 and ">>>" in doc, f"hpcsim.{name} has a docstring with an example")


CHECKS = {name[len("check_"):]: f for name, f in globals().items() if name.startswith("check_")}
if __name__ == "__main__":
    os.chdir(SOURCE)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    if CHECK not in CHECKS:
        fail(f"unknown check {CHECK} (known: {', '.join(sorted(CHECKS))})")
    CHECKS[CHECK]()
    print(f"ok: {CHECK}")
