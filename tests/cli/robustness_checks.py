#!/usr/bin/env python3
"""Hostile and degenerate inputs through the hpcsim command: each is refused with exit 2 and its place
(file:line:column, or the flag), never a crash, an `internal error` or inf/NaN printed as a result.
Usage: robustness_checks.py HPCSIM SOURCE_DIR CHECK"""
import os
import re
import shutil
import tempfile
import time

from cli_support import SOURCE, expect, expect_bad_input, hpcsim, run_check

EXAMPLES = os.path.join(SOURCE, "examples")
QUICKSTART = os.path.join(EXAMPLES, "quickstart.yaml")
SERVE = os.path.join(EXAMPLES, "serving", "roberta-g5.yaml")
CLUSTER = os.path.join(EXAMPLES, "scheduling", "cluster-ib.yaml")
LLM_SERVE = os.path.join(SOURCE, "configs", "validation", "llm-serve", "llm-trtllm-llama31-8b-h100-tp1-fp8-128-128.yaml")
PLAN = os.path.join(EXAMPLES, "capacity-plan", "plan.yaml")
SWF_LINE = "    1     10    0   100  4  -1  -1  4  200  -1  1  1  1  -1  1  -1  -1  -1\n"


def write(folder, name, text):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def refused(proc, *fragments):
    expect_bad_input(proc, *fragments)
    expect("internal error" not in proc.stderr, "no internal error", proc)


def alias_bomb(levels):
    text = "a0: &a0 [lol]\n"
    for level in range(1, levels + 1):
        text += f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 10) + "]\n"
    return text


def check_yaml_aliases():
    with tempfile.TemporaryDirectory() as tmp:
        cycle_list = write(tmp, "cycle-list.yaml", "name: x\ncluster: &c [*c]\n")
        cycle_map = write(tmp, "cycle-map.yaml", "jobs: &m\n  a: 1\n  b: *m\n")
        bomb = write(tmp, "bomb.yaml", alias_bomb(9))
        deep = write(tmp, "deep.yaml", "a: " + "[" * 5000 + "]" * 5000 + "\n")
        # Every command that reads YAML goes through the one loader; a few of them, each kind of file.
        refused(hpcsim("run", cycle_list, "--no-db"), "cycle-list.yaml:2:14: alias *c stands inside the value it names")
        refused(hpcsim("serve", cycle_list, "--no-db"), "cycle-list.yaml:2:14:")
        refused(hpcsim("schedule", cycle_map, "--nodes", "4", "--policy", "easy"),
                "cycle-map.yaml:3:6: alias *m stands inside the value it names")
        refused(hpcsim("run", QUICKSTART, "--no-db", "--set", "workload=&w {a: *w}"),
                "--set workload=&w {a: *w}: alias *w stands inside the value it names")
        start = time.monotonic()
        refused(hpcsim("run", bomb, "--no-db"), "bomb.yaml:6:", "aliases expand to more than 100000 values")
        refused(hpcsim("schedule", deep, "--nodes", "4", "--policy", "easy"), "deep.yaml:1:", "nested deeper than 64 levels")
        expect(time.monotonic() - start < 20, "the bomb and the deep nesting are refused at once")
        refused(hpcsim("run", write(tmp, "comma.yaml", ",\n"), "--no-db"), "comma.yaml:1:1: invalid YAML: unexpected ','")


def check_values_at_key():
    with tempfile.TemporaryDirectory() as tmp:
        def jobs(name, job):
            return write(tmp, name, "jobs:\n  - " + job + "\n")
        schedule = ("--cluster", CLUSTER, "--policy", "easy")
        refused(hpcsim("schedule", jobs("neg.yaml", "{submit: -5 s, nodes: 1, run: 10 s}"), *schedule),
                "neg.yaml:2:14: must be >= 0 s")
        refused(hpcsim("schedule", jobs("far.yaml", "{submit: 1e308 s, nodes: 1, run: 10 s}"), *schedule),
                "far.yaml:2:14: a time may be at most 1e9 s")
        refused(hpcsim("schedule", jobs("steps.yaml", "{submit: 0 s, nodes: 1, training: {workload: {model: resnet50, "
                                        "batch_per_gpu: 256, precision: fp16, optimizer: momentum}, "
                                        "steps: 1000000000000000000}}"), *schedule),
                "steps.yaml:2:", "must be <= 1e+09")
        refused(hpcsim("schedule", write(tmp, "neg.swf", SWF_LINE.replace("  10  ", " -10  ", 1)), "--nodes", "100",
                       "--policy", "easy"),
                "neg.swf:1:10: field 2 of an SWF job line (submit time) is negative")
        refused(hpcsim("schedule", write(tmp, "far.swf", SWF_LINE.replace("  100  ", "  1e308  ", 1)), "--nodes", "100",
                       "--policy", "easy"),
                "far.swf:1:21: field 4 of an SWF job line is a time of more than 1e9 s")
        refused(hpcsim("serve", SERVE, "--no-db", "--set", "serving.rate_rps=1e-300"),
                "--set serving.rate_rps=1e-300: 20000 requests at 1e-300 per second arrive over more than 1e9 s")
        # A spec of the config root: a network's rate of 1e-300 Gb/s stalled the step, a GPU's HBM bandwidth
        # gave a time of NaN.
        root = os.path.join(tmp, "configs")
        shutil.copytree(os.path.join(SOURCE, "configs"), root)
        gpu = os.path.join(root, "gpus", "a100-sxm4-80gb.yaml")
        with open(gpu) as f:
            text = f.read()
        with open(gpu, "w") as f:
            f.write(text.replace("  bandwidth: 2039 GB/s", "  bandwidth: 1e-300 GB/s", 1))
        refused(hpcsim("run", QUICKSTART, "--no-db", env={"HPCSIM_CONFIG_DIR": root}),
                "a100-sxm4-80gb.yaml:25:14: a bandwidth above 0 may be no less than 1 B/s")


def check_no_nan_results():
    refused(hpcsim("collective", "--node", "dgx-a100-80gb", "--gpus", "1", "--op", "allreduce", "--size", "1GiB"),
            "--gpus must be 2..8 for this cluster (a collective needs at least 2 GPUs), got 1")
    refused(hpcsim("collective", "--node", "g5-2xlarge", "--op", "allreduce", "--size", "1GiB"),
            "a collective needs at least 2 GPUs; this cluster has 1")
    refused(hpcsim("collective", "--node", "dgx-a100-80gb", "--op", "allreduce", "--size", "1e30B"),
            "--size: a size may be at most 1 PiB")
    refused(hpcsim("io", "--storage", "nvme-p5500", "--samples", "10", "--sample-size", "1e30B"),
            "--sample-size 1e30B: a sample may be at most 1 PiB")
    proc = hpcsim("collective", "--node", "dgx-a100-80gb", "--gpus", "2", "--op", "allreduce", "--min", "1MiB",
                  "--max", "1PiB", "--format", "json")
    expect(proc.returncode == 0, "a sweep up to the largest size runs", proc)
    expect("inf" not in proc.stdout and "nan" not in proc.stdout, "no inf or NaN in the rows", proc)


def check_empty_inputs():
    with tempfile.TemporaryDirectory() as tmp:
        swf = ("--nodes", "100", "--policy", "easy")
        refused(hpcsim("schedule", write(tmp, "empty.swf", ""), *swf), "empty.swf: the trace is empty")
        refused(hpcsim("schedule", write(tmp, "comments.swf", "; MaxNodes: 100\n\n"), *swf),
                "comments.swf: no job lines")
        refused(hpcsim("schedule", write(tmp, "big.swf", SWF_LINE.replace("  4  -1  -1  4  ", "  400  -1  -1  400  ")),
                       *swf),
                "big.swf: no job to schedule: all 1 were skipped")
        refused(hpcsim("schedule", write(tmp, "none.yaml", "jobs: []\n"), *swf), "none.yaml:1:7: must not be empty")
        os.mkdir(os.path.join(tmp, "cases"))
        refused(hpcsim("validate", os.path.join(tmp, "cases")), "holds no validation case")


def check_integer_range():
    # Integer keys past 2^31-1 were cast to int: internal errors ("parallel degrees must be >= 1"), 0 GPUs, or
    # minutes of silence. Each is refused at the flag that gave it now.
    for key in ("workload.batch_per_gpu", "workload.hidden", "parallelism.dp", "parallelism.vp",
                "parallelism.microbatches", "cluster.gpus_per_node", "workload.global_batch", "workload.layers",
                "cluster.nodes"):
        for value in ("2147483648", "3000000000"):
            refused(hpcsim("run", QUICKSTART, "--no-db", "--set", f"{key}={value}"),
                    f"--set {key}={value}: an integer here may be at most 2147483647")
    refused(hpcsim("serve", SERVE, "--no-db", "--set", "serving.replicas=3000000000"),
            "--set serving.replicas=3000000000: an integer here may be at most 2147483647")
    # Seeds are 64-bit.
    proc = hpcsim("serve", SERVE, "--no-db", "--set", "serving.seed=9007199254740993", "--set", "serving.requests=100")
    expect(proc.returncode == 0, "a 64-bit seed is taken", proc)


def check_count_limits():
    start = time.monotonic()
    limit = lambda name: f"(raise it with --limit {name}=N)"
    refused(hpcsim("run", QUICKSTART, "--no-db", "--set", "cluster.nodes=100000"),
            "--set cluster.nodes=100000: the cluster (100000 nodes x 8 GPUs) needs 800,000 GPUs", limit("gpus"))
    refused(hpcsim("run", QUICKSTART, "--no-db", "--set", "workload.layers=1000000000"),
            "--set workload.layers=1000000000: the model needs 1,000,000,000 layers", limit("layers"))
    refused(hpcsim("run", QUICKSTART, "--no-db", "--set", "workload.global_batch=2000000000"),
            "microbatches x pipeline stages per step", limit("microbatches"))
    # Every microbatch runs on every pipeline stage: 100,000 microbatches on 16 stages took 31 s and 2 GB.
    with tempfile.TemporaryDirectory() as tmp:
        pipelined = write(tmp, "pp.yaml", "cluster: {node: dgx-h100, nodes: 64, network: ib-ndr}\n"
                                          "workload: {model: gpt3-175b, seq_len: 2048, micro_batch: 1, "
                                          "global_batch: 1000000, precision: bf16, optimizer: adam, "
                                          "framework: megatron}\n"
                                          "parallelism: {tp: 4, pp: 16, dp: 8, zero: 1}\n")
        refused(hpcsim("run", pipelined, "--no-db"),
                "pp.yaml:2:75: the step (125000 microbatches x 16 pipeline stages) needs 2,000,000 microbatches x "
                "pipeline stages per step", limit("microbatches"))
    refused(hpcsim("run", QUICKSTART, "--no-db", "--scale", "8,1000000000"),
            "--scale 8,1000000000: a run at 1000000000 GPUs needs 1,000,000,000 GPUs", limit("gpus"))
    refused(hpcsim("sweep", QUICKSTART, "--vary", "workload.batch_per_gpu=1..1000", "--vary", "cluster.nodes=1..1000",
                   "--db", os.devnull), "the sweep (1000 x 1000 values) needs 1,000,000 sweep points",
            limit("sweep_points"))
    refused(hpcsim("sweep", QUICKSTART, "--vary", "workload.batch_per_gpu=1..1e9", "--db", os.devnull),
            "--vary workload.batch_per_gpu=1..1e9: the range needs 1,000,000,000 sweep points")
    refused(hpcsim("campaign", os.path.join(EXAMPLES, "campaign", "resnet50-asha.yaml"), "--no-db", "--set",
                   "search.trials=1000000000"), "needs 1,000,000,000 trials", limit("trials"))
    refused(hpcsim("serve", SERVE, "--no-db", "--set", "serving.requests=1000000000"),
            "--set serving.requests=1000000000: the load needs 1,000,000,000 requests", limit("requests"))
    # An LLM endpoint's work grows with its output tokens (an iteration per token of a batch).
    refused(hpcsim("serve", LLM_SERVE, "--no-db", "--set", "serving.requests=1000000", "--set",
                   "workload.output_len=1000"),
            "--set serving.requests=1000000: the LLM load (1000000 requests x 1000 output tokens) needs "
            "1,000,000,000 output tokens", limit("tokens"))
    with tempfile.TemporaryDirectory() as tmp:
        # A trace's own lengths count: 1,000 requests of 500,000 output tokens each.
        trace = write(tmp, "long.csv", "".join(f"{i * 0.01},100,500000\n" for i in range(1000)))
        refused(hpcsim("serve", LLM_SERVE, "--no-db", "--set", "serving.arrival=trace", "--set",
                       f"serving.trace={trace}", "--set", "serving.requests=1000"),
                "the LLM load (the trace's 1000 requests) needs 500,000,000 output tokens", limit("tokens"))
    io = ("io", "--storage", "lustre-flash", "--sample-size", "1KiB")
    refused(hpcsim(*io, "--samples", "1000000000000"), "--samples 1000000000000: the dataset needs", limit("samples"))
    refused(hpcsim(*io, "--samples", "1000", "--readers", "2000000000"), "--readers 2000000000:", limit("readers"))
    refused(hpcsim(*io, "--samples", "1000", "--nodes", "2000000000"), "--nodes 2000000000:", limit("nodes"))
    refused(hpcsim("schedule", os.path.join(SOURCE, "tests", "data", "traces", "KTH-SP2-1996-2.1-cln-first5000.swf"),
                   "--nodes", "2147483647", "--policy", "easy", "--no-db"), "--nodes 2147483647:", limit("nodes"))
    refused(hpcsim("collective", "--node", "dgx-a100-80gb", "--nodes", "1000000", "--network", "ib-hdr", "--op",
                   "allreduce", "--size", "1GiB"), "--nodes 1000000: 1000000 nodes of 8 GPUs needs 8,000,000 GPUs",
            limit("gpus"))
    refused(hpcsim("kernel", "--gpu", "a100-sxm4-80gb", "--explain", "copy", "--bytes", "1PiB"),
            "--explain: the WarpSim twin of copy --bytes 1PiB needs", limit("blocks"))
    # A GEMM's twin simulates every SM: 65536^3 is 262,144 blocks (within the blocks limit) but 933 M warp
    # instructions, an hour of WarpSim (it ran past 200 s silent before this check).
    refused(hpcsim("kernel", "--gpu", "h100-sxm5-80gb", "--explain", "gemm", "--m", "65536", "--n", "65536", "--k", "65536"),
            "--explain: the WarpSim twin of gemm --m 65536 --n 65536 --k 65536 needs 933,232,640 warp instructions",
            limit("warp_instructions"))
    with tempfile.TemporaryDirectory() as tmp:
        kernel = write(tmp, "k.yaml", "kernel: k\nlaunch: {blocks: 1000000000000, threads: 256}\n"
                                      "program:\n  - fp32: {dst: 1, src: [1, 1]}\n")
        refused(hpcsim("microbench", "--gpu", "v100-sxm2-16gb", "--kernel", kernel),
                "k.yaml:2:18: the kernel needs 1,000,000,000,000 thread blocks", limit("blocks"))
        # 640 blocks of 8 warps, each issuing 2^20 loop iterations of two instructions: counted, not simulated.
        loop = write(tmp, "loop.yaml", "kernel: k\nlaunch: {blocks: 640, threads: 256}\nprogram:\n"
                                       "  - loop: 1048576\n    body:\n      - fp32: {dst: 1, src: [1, 1]}\n"
                                       "      - fp32: {dst: 2, src: [2, 1]}\n")
        refused(hpcsim("microbench", "--gpu", "v100-sxm2-16gb", "--kernel", loop),
                "loop.yaml:4:3: the kernel (640 blocks of 256 threads) needs 10,737,423,360 warp instructions",
                limit("warp_instructions"))
        grid = write(tmp, "grid.yaml", open(os.path.join(SOURCE, "tests", "fuzz", "corpus", "campaign-grid-1e12.yaml")).read())
        refused(hpcsim("campaign", grid, "--no-db"), "the grid (1000000 x 1000000) needs 1,000,000,000,000 trials",
                limit("trials"))
        plan = open(os.path.join(EXAMPLES, "capacity-plan", "plan.yaml")).read()
        counts = ", ".join(str(64 * i) for i in range(1, 201))
        big = write(tmp, "plan.yaml", plan.replace("node_counts: [64, 128, 256]", f"node_counts: [{counts}]")
                    .replace("pp: [8, 16]", "pp: [1, 2, 4, 8, 16, 32]"))
        refused(hpcsim("plan", big, "--no-db"), "plan.yaml:26:3: the plan's combinations of nodes, networks, file "
                "systems, node counts and layouts needs 57,600 configurations", limit("configurations"))
        huge = write(tmp, "huge.yaml", plan.replace("node_counts: [64, 128, 256]", "node_counts: [64, 100000]"))
        refused(hpcsim("plan", huge, "--no-db"), "huge.yaml:20:21: 100000 nodes of 8 GPUs needs 800,000 GPUs",
                limit("gpus"))
    expect(time.monotonic() - start < 60, "every huge count is refused at once")
    # --limit raises a limit (and lowers one); a bad --limit is a bad flag.
    proc = hpcsim("run", QUICKSTART, "--no-db", "--set", "workload.layers=30", "--limit", "layers=20")
    refused(proc, "the model needs 30 layers; hpcsim simulates at most 20 (raise it with --limit layers=N)")
    proc = hpcsim("run", QUICKSTART, "--no-db", "--format", "json", "--limit", "layers=24", "--limit", "gpus=1000000")
    expect(proc.returncode == 0, "the quickstart runs inside lowered and raised limits", proc)
    refused(hpcsim("run", QUICKSTART, "--no-db", "--limit", "gpu=5"), "--limit", "unknown limit 'gpu'")
    refused(hpcsim("io", "--storage", "lustre-flash", "--samples", "10", "--sample-size", "1KiB", "--limit", "samples=0"),
            "a whole number >= 1")


def check_kernel_shapes():
    # A shape whose grid wrapped past int64 was reported as "a kernel needs at least one block".
    for op in (("gemm", "--m", "1000000000000", "--n", "1000000000000", "--k", "4"),
               ("elementwise", "--elements", "1e30")):
        proc = hpcsim("kernel", "--gpu", "a100-sxm4-80gb", *op)
        refused(proc, f"hpcsim kernel {op[0]} {op[1]} {op[2]}", "thread blocks, more than one launch can have")
        expect("at least one block" not in proc.stderr, "no wrapped grid", proc)
    # A training model's tensors, per sample and per micro-batch, are held to what a GPU holds before the step
    # forms 64-bit sizes from them: a 2^31-pixel image was "internal error: GEMM sizes must be at least 1", a
    # hidden size of 2^31-128 printed negative weights (its attention's weight count overflowed 64 bits).
    rn50 = os.path.join(EXAMPLES, "resnet50-4096-a100.yaml")
    refused(hpcsim("run", rn50, "--no-db", "--set", "workload.resolution=2147483647"),
            "--set workload.resolution=2147483647: workload.model 'resnet50': input 'image'",
            "more than 2^48 elements per sample")
    proc = hpcsim("run", QUICKSTART, "--no-db", "--set", "workload.hidden=2147483520")
    refused(proc, "--set workload.hidden=2147483520", "layer0.attn (attention): its weights are more than 2^48")
    expect("weights -" not in proc.stderr, "no negative weights", proc)
    refused(hpcsim("run", rn50, "--no-db", "--set", "workload.batch_per_gpu=2147483647"),
            "--set workload.batch_per_gpu=2147483647: a micro-batch of 2147483647 samples of resnet50 makes a tensor of "
            "802816 x 2147483647 elements, more than 2^48")
    # Inside the limits: a 100,000-pixel side runs (out of memory, said so) at the example's batch of 256.
    proc = hpcsim("run", rn50, "--no-db", "--set", "workload.resolution=100000")
    expect(proc.returncode == 0 and "out of memory" in proc.stderr, "a large image inside the limits runs", proc)


def stderr_on_terminal(*args):
    """Runs hpcsim with stderr on a pseudo-terminal: (exit code, what it wrote there)."""
    import pty
    import subprocess
    from cli_support import HPCSIM
    leader, follower = pty.openpty()
    proc = subprocess.Popen([HPCSIM, *args], stdout=subprocess.DEVNULL, stderr=follower)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:  # the command closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    return proc.wait(timeout=300), b"".join(chunks).decode(errors="replace")


def check_progress():
    # One progress line on a terminal (done, rate, time left), none with --format json or off a terminal.
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "s.db")
        code, err = stderr_on_terminal("sweep", QUICKSTART, "--vary", "workload.batch_per_gpu=1,2", "--db", db)
        expect(code == 0, f"the sweep runs (exit {code}): {err}")
        expect("sweep: 2/2 points" in err and "/s" in err, f"a progress line with the rate on a terminal: {err!r}")
        code, err = stderr_on_terminal("sweep", QUICKSTART, "--vary", "workload.batch_per_gpu=1,3", "--db", db,
                                       "--format", "json")
        expect(code == 0 and "points" not in err, f"no progress line with --format json: {err!r}")
        proc = hpcsim("sweep", QUICKSTART, "--vary", "workload.batch_per_gpu=1,4", "--db", db)
        expect(proc.returncode == 0 and "points" not in proc.stderr, "no progress line off a terminal", proc)
        # The sweep's check of its axes (milliseconds a value, minutes for 100,000 values that all fail).
        # 2,001 values take about 2 s here, well past the half second before a first line (401 took ~0.6 s:
        # too close to it on a fast machine).
        code, err = stderr_on_terminal("sweep", QUICKSTART, "--vary", "workload.layers=20000..22000", "--db", db)
        expect(code == 2 and "sweep: 2001/2001 values checked" in err, f"the values checked on a terminal: {err!r}")
        # serve: an LLM endpoint's requests (minutes at the requests limit).
        # 10^6 requests (the limit) run ~3 s here, well past the half second before a first progress line.
        llm = ["serve", LLM_SERVE, "--no-db", "--set", "serving.requests=1000000"]
        code, err = stderr_on_terminal(*llm)
        expect(code == 0 and "serve: 1000000/1000000 requests" in err and "/s" in err, f"serve's progress line: {err!r}")
        code, err = stderr_on_terminal(*llm, "--format", "json")
        expect(code == 0 and "requests," not in err, f"no serve progress with --format json: {err!r}")
        proc = hpcsim(*llm)
        expect(proc.returncode == 0 and "requests," not in proc.stderr, "no serve progress off a terminal", proc)
        # serve --sweep-load: the runs of a request-level endpoint (0.6 s each at 10^6 requests; a long list of
        # rates ran silent for minutes).
        sweep_load = ["serve", SERVE, "--no-db", "--set", "serving.requests=1000000", "--sweep-load", "50,100,200"]
        code, err = stderr_on_terminal(*sweep_load)
        expect(code == 0 and "serve: 4/4 runs" in err, f"serve --sweep-load's progress line: {err!r}")
        code, err = stderr_on_terminal(*sweep_load, "--format", "json")
        expect(code == 0 and "runs," not in err, f"no sweep-load progress with --format json: {err!r}")
        # plan: the configurations screened, then the full simulations.
        # plan: the full simulations (seconds each; the screen is ~20,000 configurations a second, too short
        # for a line at the configurations limit).
        code, err = stderr_on_terminal("plan", PLAN, "--no-db", "--format", "json")
        expect(code == 0 and "simulations" not in err, f"no plan progress with --format json: {err!r}")
        # 64 full simulations run ~4 s here, well past the half second before a first progress line.
        code, err = stderr_on_terminal("plan", PLAN, "--no-db", "--set", "search.full_simulations=64")
        expect(code == 0 and "plan: 64/64 full simulations" in err, f"plan's simulation progress: {err!r}")
        # run --exact: every data-parallel group in full (the 16,384-GPU Llama 3.1 405B step ran 77 s silent).
        # At 16,384 GPUs it takes about 1.7 s here (4,096 took a few seconds while reduce-scatters and
        # all-gathers across nodes ran all-pairs; now half a second, under the first line's delay): its ops,
        # with the time so far (their costs are too uneven for a time left).
        exact = write(tmp, "exact.yaml",
                      "cluster: {node: dgx-h100, nodes: 2048, network: ib-ndr}\n"
                      "workload: {model: llama3.1-405b, seq_len: 8192, micro_batch: 1, global_batch: 2048,"
                      " precision: bf16, optimizer: adam, framework: megatron}\n"
                      "parallelism: {tp: 8, pp: 16, dp: 128, zero: 1, sequence_parallel: true}\n")
        code, err = stderr_on_terminal("run", exact, "--no-db", "--exact")
        expect(code == 0 and re.search(r"run: (\d+)/\1 ops of the step, \d+ s so far", err) is not None,
               f"run --exact's progress line, every op at its end: {err!r}")
        expect("left" not in err, f"no time left for ops of uneven cost: {err!r}")
        code, err = stderr_on_terminal("run", exact, "--no-db", "--exact", "--format", "json")
        expect(code == 0 and "ops of the step" not in err, f"no run progress with --format json: {err!r}")
        # replay: a trace's actions (a trace of collectives on 1,024 ranks replays ~30,000 actions a second: the
        # 20 M-action limit ran ten minutes silent). 256 ranks x 1,000 small allreduces take ~2 s here.
        trace = write(tmp, "allreduces.txt", "".join(
            f"{r} init\n" + f"{r} allreduce 1024 100\n" * 1000 + f"{r} finalize\n" for r in range(256)))
        platform = write(tmp, "cluster.xml",
                         "<?xml version='1.0'?>\n<platform version=\"4.1\"><cluster id=\"c\" prefix=\"n\" "
                         "radical=\"0-255\" speed=\"10Gf\" bw=\"12.5GBps\" lat=\"1us\" bb_bw=\"400GBps\" "
                         "bb_lat=\"0.5us\"/></platform>\n")
        replay = ["replay", trace, "--platform", platform, "--no-db"]
        code, err = stderr_on_terminal(*replay)
        expect(code == 0 and "replay: 256512/256512 actions" in err and "/s" in err, f"replay's progress line: {err!r}")
        code, err = stderr_on_terminal(*replay, "--format", "json")
        expect(code == 0 and "actions" not in err, f"no replay progress with --format json: {err!r}")
        # microbench --kernel --all-sms: every block of the kernel (3-4 us a warp instruction; a 6 M-block read ran
        # past five minutes silent). 16,000 blocks of a strided read take ~1.4 s here.
        with open(os.path.join(EXAMPLES, "warp-sim", "strided-read.yaml")) as f:
            kernel = write(tmp, "read.yaml", f.read().replace("blocks: 640", "blocks: 16000").replace("loop: 16", "loop: 1"))
        micro = ["microbench", "--gpu", "v100-sxm2-16gb", "--kernel", kernel, "--all-sms"]
        code, err = stderr_on_terminal(*micro)
        expect(code == 0 and "microbench: 16000/16000 blocks" in err, f"microbench's progress line: {err!r}")
        code, err = stderr_on_terminal(*micro, "--format", "json")
        expect(code == 0 and "blocks" not in err, f"no microbench progress with --format json: {err!r}")
        # io: a dataset's samples as they finish (10^8 samples by one reader ran 94 s silent; with 10^6 readers
        # every sample's end re-rates the others' flows, 17 us a sample). 3 M samples take ~1.4 s here.
        io = ["io", "--storage", "lustre-flash", "--samples", "3000000", "--sample-size", "110KiB", "--readers", "64"]
        code, err = stderr_on_terminal(*io)
        expect(code == 0 and "io: 3000000/3000000 samples" in err, f"io's progress line: {err!r}")
        code, err = stderr_on_terminal(*io, "--format", "json")
        expect(code == 0 and "samples" not in err, f"no io progress with --format json: {err!r}")
        # schedule: the queue's jobs as they end (a 2 M-job trace arriving faster than 2,000 nodes run it took
        # EASY past two minutes silent, the backfill scanning an ever longer queue). 24,000 such jobs take ~1.7 s.
        swf = write(tmp, "overloaded.swf", "".join(
            f"{i} {2 * i} 0 {100 + i * 7919 % 36000} {p} -1 -1 {p} {2 * (100 + i * 7919 % 36000)} -1 1 1 1 -1 1 -1 -1 -1\n"
            for i, p in ((i, (1, 2, 4, 8, 16, 32, 64, 128, 1024)[i % 9]) for i in range(1, 24001))))
        sched = ["schedule", swf, "--nodes", "2000", "--policy", "easy", "--no-db"]
        code, err = stderr_on_terminal(*sched)
        expect(code == 0 and "schedule: 24000/24000 jobs ended" in err, f"schedule's queue progress line: {err!r}")
        code, err = stderr_on_terminal(*sched, "--format", "json")
        expect(code == 0 and "jobs ended" not in err, f"no schedule progress with --format json: {err!r}")
        # collective: a sweep's sizes (a ring over 262,144 GPUs from 1 KiB to 1 GiB ran 62 s silent). Over 8,192
        # GPUs the 21 sizes take ~1.3 s here.
        coll = ["collective", "--node", "dgx-h100", "--nodes", "1024", "--network", "ib-ndr", "--op", "allreduce",
                "--algo", "ring", "--min", "1KiB", "--max", "1GiB"]
        code, err = stderr_on_terminal(*coll)
        expect(code == 0 and "collective: 21/21 sizes" in err, f"collective's progress line: {err!r}")
        code, err = stderr_on_terminal(*coll, "--format", "json")
        expect(code == 0 and "sizes" not in err, f"no collective progress with --format json: {err!r}")


run_check({
    "robust_yaml_aliases": check_yaml_aliases,
    "robust_values_at_key": check_values_at_key,
    "robust_no_nan_results": check_no_nan_results,
    "robust_empty_inputs": check_empty_inputs,
    "robust_integer_range": check_integer_range,
    "robust_count_limits": check_count_limits,
    "robust_kernel_shapes": check_kernel_shapes,
    "robust_progress": check_progress,
})
