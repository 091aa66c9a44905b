#!/usr/bin/env python3
"""End-to-end checks of the hpcsim command: output keys, determinism, exit codes and error messages.
Usage: cli_checks.py HPCSIM SOURCE_DIR CHECK"""
import json
import os
import tempfile


from cli_support import DATA, SOURCE, TEST_CONFIGS, expect, expect_bad_input, hpcsim, run_check
QUICKSTART = os.path.join(SOURCE, "examples", "quickstart.yaml")
FIXED_KEYS = ["step_time_s", "throughput.samples_per_s", "throughput.tokens_per_s", "tflops_per_gpu", "mfu",
              "breakdown_s.compute", "breakdown_s.communication_exposed", "breakdown_s.io_stall",
              "breakdown_s.pipeline_bubble", "breakdown_s.optimizer", "breakdown_s.other",
              "memory_per_gpu_bytes", "fits_in_memory", "gpus", "sim_wall_s", "events"]


def lookup(doc, dotted):
    for part in dotted.split("."):
        doc = doc[part]
    return doc


def check_json_keys():
    proc = hpcsim("run", QUICKSTART, "--no-db", "--format", "json")
    expect(proc.returncode == 0, "run should succeed", proc)
    doc = json.loads(proc.stdout)
    for key in FIXED_KEYS:
        try:
            lookup(doc, key)
        except KeyError:
            expect(False, f"missing JSON key {key}", proc)
    expect(doc["step_time_s"] > 0, "step time must be positive", proc)
    expect(doc["gpus"] == 16, "quickstart uses 16 GPUs", proc)
    expect(isinstance(doc["fits_in_memory"], bool), "fits_in_memory is a JSON boolean", proc)
    expect(doc["events"] > 0, "the engine processed events", proc)
    low, high = doc["step_time_interval_s"]
    expect(low <= doc["step_time_s"] * 1.5 and high >= doc["step_time_s"] * 0.5 and low < high,
           "step_time_interval_s is a band [low, high] around the prediction", proc)
    slow, fast = doc["throughput"]["samples_per_s_interval"]
    expect(abs(slow * high - fast * low) <= 1e-6 * slow * high, "the throughput band is the step-time band turned over", proc)
    parts = sum(v for v in doc["breakdown_s"].values())
    expect(abs(parts - doc["step_time_s"]) <= 1e-6 * doc["step_time_s"], "breakdown adds up to the step time", proc)


def check_deterministic():
    outputs = []
    for _ in range(2):
        proc = hpcsim("run", QUICKSTART, "--no-db", "--format", "json")
        expect(proc.returncode == 0, "run should succeed", proc)
        doc = json.loads(proc.stdout)
        doc.pop("sim_wall_s")
        outputs.append(proc.stdout.splitlines())
    strip = [[line for line in out if '"sim_wall_s"' not in line] for out in outputs]
    expect(strip[0] == strip[1], "two runs must be byte-identical apart from sim_wall_s")


def check_store():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "results.db")
        for _ in range(2):
            proc = hpcsim("run", QUICKSTART, "--db", db, "--format", "csv")
            expect(proc.returncode == 0, "run should succeed", proc)
        proc = hpcsim("show", db)
        expect(proc.returncode == 0, "show should succeed", proc)
        expect(proc.stdout.count("quickstart-gpt-1.3b-2x-dgx-a100") == 2, "show lists both runs", proc)
        expect("breakdown_s.communication_exposed" in proc.stdout, "show lists metrics", proc)


def check_errors():
    expect_bad_input(hpcsim("run", os.path.join(DATA, "malformed.yaml")), "malformed.yaml:4:")
    expect_bad_input(hpcsim("run", os.path.join(DATA, "unknown_key.yaml")),
                     "unknown_key.yaml:11:3:", "did you mean 'precision'")
    expect_bad_input(hpcsim("run", os.path.join(DATA, "missing.yaml")), "missing.yaml")
    bad_unit = hpcsim("run", QUICKSTART, "--set", "cluster.node=bad-unit-node", env={"HPCSIM_CONFIG_DIR": TEST_CONFIGS})
    expect_bad_input(bad_unit, "bad-unit-gpu.yaml:4:14:")
    expect_bad_input(hpcsim("run", QUICKSTART, "--set", "cluster.node=zero-gpu-node",
                            env={"HPCSIM_CONFIG_DIR": TEST_CONFIGS}), "zero-gpu-node.yaml:3:7:")
    expect_bad_input(hpcsim("run", QUICKSTART, "--set", "cluster.node=dgx-a100-80g"), "did you mean 'dgx-a100-80gb'")
    expect_bad_input(hpcsim("run", QUICKSTART, "--set", "workload.layers=-3"), "--set workload.layers=-3")
    expect_bad_input(hpcsim("run", QUICKSTART, "--set", "nonsense"), "--set nonsense")
    # A check over several keys points at the one the flag changed, not at the file.
    expect_bad_input(hpcsim("run", QUICKSTART, "--no-db", "--set", "parallelism.tp=3"),
                     "--set parallelism.tp=3: the cluster's 16 GPUs do not divide")
    expect_bad_input(hpcsim("run", QUICKSTART, "--no-db", "--set", "workload.heads=5"),
                     "--set workload.heads=5: workload.model 'gpt'")
    expect_bad_input(hpcsim("run", QUICKSTART, "--frobnicate"), "--frobnicate")
    expect_bad_input(hpcsim("run", QUICKSTART, "--format", "xml"), "xml")
    expect_bad_input(hpcsim("show", os.path.join(DATA, "no-such.db")), "no-such.db")
    expect_bad_input(hpcsim("show", QUICKSTART), "quickstart.yaml")


def check_run_zoo_model():
    proc = hpcsim("run", os.path.join(DATA, "resnet50.yaml"), "--no-db", "--format", "json")
    expect(proc.returncode == 0, "a zoo CNN runs", proc)
    doc = json.loads(proc.stdout)
    expect(doc["throughput"]["tokens_per_s"] is None, "tokens_per_s is null for a CNN", proc)
    expect(doc["gpus"] == 8 and doc["throughput"]["samples_per_s"] > 0, "8 GPUs, positive throughput", proc)
    expect(0 < doc["mfu"] < 1, "MFU is a fraction", proc)


def check_run_oom():
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "results.db")
        proc = hpcsim("run", os.path.join(DATA, "oom.yaml"), "--db", db, "--format", "json")
        expect(proc.returncode == 0, "an out-of-memory run still reports", proc)
        doc = json.loads(proc.stdout)
        expect(doc["fits_in_memory"] is False, "fits_in_memory is false", proc)
        parts = doc["memory_breakdown_bytes"]
        expect(set(parts) == {"weights", "gradients", "optimizer_state", "activations", "workspace"}, "memory components", proc)
        expect(all(v > 0 for v in parts.values()), "every memory component is counted", proc)
        expect(abs(sum(parts.values()) - doc["memory_per_gpu_bytes"]) <= 1e-9 * doc["memory_per_gpu_bytes"],
               "the components add up to memory_per_gpu_bytes", proc)
        for part in ("out of memory", "weights", "gradients", "optimizer state", "activations"):
            expect(part in proc.stderr, f"the warning names {part!r}", proc)
        shown = hpcsim("show", db)
        expect(" oom " in shown.stdout, "the stored run has status oom", shown)


def check_run_model_errors():
    expect_bad_input(hpcsim("run", QUICKSTART, "--set", "workload.model=resnet5"), "did you mean 'resnet50'")
    expect_bad_input(hpcsim("run", QUICKSTART, "--set", "workload.heads=15"), "--set workload.heads=15: workload.model", "heads")
    expect_bad_input(hpcsim("run", QUICKSTART, "--set", "parallelism.dp=17"), "--set parallelism.dp=17")
    expect_bad_input(hpcsim("run", QUICKSTART, "--set", "workload.optimizer_impl=turbo"), "optimizer_impl")


def check_quickstart_what_ifs():
    # Every what-if the quickstart's own comment suggests runs and changes the answer.
    text = open(QUICKSTART).read()
    base = hpcsim("run", QUICKSTART, "--no-db", "--format", "json")
    expect(base.returncode == 0 and base.stderr == "", "the quickstart runs quietly", base)
    base_doc = json.loads(base.stdout)
    for flag in ("cluster.network=eth-100g-tcp", "cluster.nodes=4", "workload.model=resnet50"):
        expect(f"--set {flag}" in text, f"the quickstart suggests --set {flag}", base)
        proc = hpcsim("run", QUICKSTART, "--no-db", "--format", "json", "--set", flag)
        expect(proc.returncode == 0, f"--set {flag} runs", proc)
        doc = json.loads(proc.stdout)
        expect(doc["step_time_s"] != base_doc["step_time_s"] or doc["gpus"] != base_doc["gpus"],
               f"--set {flag} changes the answer", proc)
        if flag == "cluster.nodes=4":
            expect(doc["gpus"] == 32, "four nodes train on all 32 GPUs", proc)
        if flag == "workload.model=resnet50":
            expect("seq_len" in proc.stderr and "dropped" in proc.stderr, "the dropped gpt sizes are named", proc)
            expect(doc["throughput"]["tokens_per_s"] is None, "resnet50 has no tokens", proc)
    # A layout smaller than the cluster is said on stderr.
    idle = hpcsim("run", QUICKSTART, "--no-db", "--set", "parallelism.dp=8")
    expect(idle.returncode == 0 and "uses 8 of the cluster's 16 GPUs" in idle.stderr, "idle GPUs are named", idle)
    # Keys the new model does not take, written on the command line, stay errors.
    expect_bad_input(hpcsim("run", QUICKSTART, "--set", "workload.model=resnet50", "--set", "workload.vocab=100"),
                     "--set workload.vocab=100", "takes no 'vocab'")
    expect_bad_input(hpcsim("run", QUICKSTART, "--set", "workload.memory_format=nhwc"), "has no convolutions")
    expect_bad_input(hpcsim("run", QUICKSTART, "--set", "workload.d_steps=1"), "d_steps needs a model with a generator")
    expect_bad_input(hpcsim("run", QUICKSTART, "--set", "workload.model=resnet50", "--set", "workload.attention=flash"),
                     "no self-attention layer")


def check_run_parallelism_errors():
    # Inconsistent layouts and batches are bad input that names where the value came from.
    expect_bad_input(hpcsim("run", QUICKSTART, "--set", "parallelism.tp=32"), "tp x pp x cp = 32")
    expect_bad_input(hpcsim("run", QUICKSTART, "--set", "parallelism.vp=2"), "needs pp > 1")
    expect_bad_input(hpcsim("run", QUICKSTART, "--set", "workload.global_batch=100"), "not a multiple of micro batch")
    expect_bad_input(hpcsim("run", QUICKSTART, "--set", "parallelism.pp=2", "--set", "parallelism.dp=8",
                            "--set", "parallelism.zero=2"), "zero: 1 with pp > 1")
    expect_bad_input(hpcsim("run", QUICKSTART, "--set", "parallelism.schedule=zigzag"), "schedule")
    expect_bad_input(hpcsim("run", QUICKSTART, "--set", "parallelism.sequence_parallel=true"), "needs tp > 1")
    expect_bad_input(hpcsim("run", QUICKSTART, "--set", "workload.dataset=imagenet-1k"), "cluster.storage")
    # A valid hybrid layout of the same model runs and reports it.
    proc = hpcsim("run", QUICKSTART, "--no-db", "--format", "json", "--set", "parallelism.tp=2",
                  "--set", "parallelism.pp=2", "--set", "parallelism.dp=4", "--set", "workload.global_batch=64")
    expect(proc.returncode == 0, "hybrid quickstart runs", proc)
    out = json.loads(proc.stdout)
    expect(out["parallelism"]["tp"] == 2 and out["parallelism"]["pp"] == 2 and out["parallelism"]["microbatches"] == 4,
           "layout reported", proc)
    expect(out["pipeline_bubble_fraction"] > 0, "a pipeline has a bubble", proc)


def check_list_and_version():
    proc = hpcsim("list")
    expect(proc.returncode == 0 and "a100-sxm4-80gb" in proc.stdout and "ib-hdr" in proc.stdout, "list", proc)
    # The current accelerators (issue 36): GPUs, the nodes they are sold in, and their links.
    proc = hpcsim("list", "gpus")
    gpus = proc.stdout.split()
    for name in ("b200", "gb200", "mi325x", "gaudi2", "h100-pcie-80gb",
                 "b300", "gb300", "h200-nvl", "mi350x", "mi355x", "gaudi3"):
        expect(proc.returncode == 0 and name in gpus, "list gpus: " + name, proc)
    proc = hpcsim("list", "nodes")
    for name in ("dgx-b200", "gb200-nvl72", "mi300x-8gpu", "mi325x-8gpu", "hls-gaudi2",
                 "dgx-b300", "gb300-nvl72", "mi350x-8gpu", "mi355x-8gpu", "hls-gaudi3"):
        expect(proc.returncode == 0 and name in proc.stdout.split(), "list nodes: " + name, proc)
    proc = hpcsim("list", "networks")
    for name in ("ib-xdr", "roce-200g", "xgmi-mi350"):
        expect(proc.returncode == 0 and name in proc.stdout.split(), "list networks: " + name, proc)
    proc = hpcsim("list", "sequence-lengths")
    expect(proc.returncode == 0 and "wikipedia-bert-512" in proc.stdout and "wmt16-en-de-gnmt-50" in proc.stdout,
           "list sequence-lengths", proc)
    proc = hpcsim("list", "storage")
    expect(proc.returncode == 0 and "lustre-hdd" in proc.stdout and "gpus:" not in proc.stdout, "list storage", proc)
    proc = hpcsim("list", "filesystems")
    expect(proc.returncode == 0 and proc.stdout.split() == ["filesystems:", "lustre-hdd-edr", "lustre-nvme-opa"],
           "list filesystems: the specs cluster.filesystem and hardware.filesystems name", proc)
    expect_bad_input(hpcsim("list", "toasters"), "toasters")
    proc = hpcsim("version")
    expect(proc.returncode == 0 and proc.stdout.startswith("hpcsim "), "version", proc)


def collective(*args):
    proc = hpcsim("collective", *args, "--format", "json")
    expect(proc.returncode == 0, "collective should succeed", proc)
    return json.loads(proc.stdout)["rows"]


def check_collective_busbw():
    # Published nccl-tests all_reduce_perf busbw at large sizes (figures copied from the reference notes):
    # 8x A100 SXM4 on NVSwitch ~230 GB/s (S. Jeaugey, NVIDIA/nccl-tests#149; 232.54 GB/s measured in
    # NVIDIA/nccl-tests#175); DGX A100 nodes over 8x HDR 200 Gb/s ~192 GB/s (NVIDIA measurement quoted
    # in NVIDIA/nccl#1576 and #812). The model must land within 10 %.
    row = collective("--node", "dgx-a100-80gb", "--op", "allreduce", "--size", "8GiB")[0]
    busbw = row["busbw_bytes_per_s"] / 1e9
    expect(abs(busbw / 230 - 1) <= 0.10, f"8x A100 busbw {busbw:.1f} GB/s should be within 10% of 230")
    for nodes in ["2", "4", "8", "16"]:
        row = collective("--node", "dgx-a100-80gb", "--nodes", nodes, "--network", "ib-hdr", "--op", "allreduce",
                         "--size", "8GiB")[0]
        busbw = row["busbw_bytes_per_s"] / 1e9
        expect(abs(busbw / 192 - 1) <= 0.10, f"{nodes} DGX A100 over HDR: busbw {busbw:.1f} GB/s vs 192")


def check_collective_rows():
    rows = collective("--node", "dgx-a100-80gb", "--nodes", "2", "--network", "ib-hdr", "--op", "allgather",
                      "--min", "8B", "--max", "1MiB")
    expect([r["size_bytes"] for r in rows] == [8 * 2 ** i for i in range(18)], "sizes double from --min to --max")
    for r in rows:
        expect(set(r) == {"size_bytes", "time_s", "algbw_bytes_per_s", "busbw_bytes_per_s", "algorithm"}, "row keys")
        expect(r["time_s"] > 0 and abs(r["algbw_bytes_per_s"] * r["time_s"] - r["size_bytes"]) < 1e-6 * r["size_bytes"],
               "algbw = size / time")
        expect(abs(r["busbw_bytes_per_s"] - r["algbw_bytes_per_s"] * 15 / 16) < 1e-6 * r["busbw_bytes_per_s"],
               "all-gather busbw factor (n-1)/n")
    nvls = collective("--node", "hgx-h200", "--op", "allreduce", "--size", "16GiB")[0]
    expect(nvls["algorithm"] == "nvls", "8 H200s on NVSwitch: NVLS for a large all-reduce, as NCCL picks")
    expect(abs(nvls["busbw_bytes_per_s"] / 482.26e9 - 1) < 0.10, "NVLS busbw within 10 % of 482 GB/s (ml-engineering)")
    forced = collective("--node", "dgx-a100-80gb", "--op", "broadcast", "--size", "64MiB", "--algo", "tree")
    expect(forced[0]["algorithm"] == "tree", "--algo forces the algorithm")
    for op in ["allreduce", "reducescatter", "allgather", "broadcast", "reduce", "alltoall", "sendrecv"]:
        collective("--node", "dgx-a100-80gb", "--nodes", "2", "--network", "ib-hdr", "--op", op, "--size", "4MiB")
    runs = [hpcsim("collective", "--node", "dgx-h100", "--nodes", "4", "--network", "ib-ndr", "--op", "allreduce",
                   "--min", "1KiB", "--max", "64MiB").stdout for _ in range(2)]
    expect(runs[0] == runs[1] and runs[0], "two runs print the same bytes")


def check_collective_errors():
    base = ["collective", "--node", "dgx-a100-80gb"]
    expect_bad_input(hpcsim(*base, "--op", "allreduse", "--size", "1GiB"), "--op")
    expect_bad_input(hpcsim(*base, "--op", "allreduce", "--size", "1GiB", "--algo", "rings"), "--algo")
    expect_bad_input(hpcsim(*base, "--op", "allreduce", "--size", "1GiB", "--algo", "hierarchical"), "--algo",
                     "two or more nodes")
    expect_bad_input(hpcsim(*base, "--op", "allreduce", "--size", "1GiB", "--algo", "nvls"), "--algo",
                     "NVSwitch fabric, Hopper or later")
    expect_bad_input(hpcsim(*base, "--op", "allreduce", "--size", "1GB/s"), "--size")
    expect_bad_input(hpcsim(*base, "--op", "allreduce", "--size", "1GiB", "--min", "8B"), "--size")
    expect_bad_input(hpcsim(*base, "--op", "allreduce", "--min", "8B"), "--max")
    expect_bad_input(hpcsim(*base, "--op", "allreduce", "--min", "8KiB", "--max", "8B"), "--min")
    expect_bad_input(hpcsim(*base, "--op", "allreduce"), "--size")
    expect_bad_input(hpcsim(*base, "--nodes", "2", "--op", "allreduce", "--size", "1GiB"), "--network")
    expect_bad_input(hpcsim(*base, "--gpus", "9", "--op", "allreduce", "--size", "1GiB", "--nodes", "1"), "--gpus")
    expect_bad_input(hpcsim("collective", "--node", "dgx-a100-80g", "--op", "allreduce", "--size", "1GiB"),
                     "--node", "did you mean 'dgx-a100-80gb'")
    expect_bad_input(hpcsim("collective", "--cluster", QUICKSTART, "--node", "dgx-h100", "--op", "allreduce",
                            "--size", "1GiB"), "--cluster")
    expect_bad_input(hpcsim("collective", "--cluster", os.path.join(DATA, "collective_bad_cluster.yaml"), "--op",
                            "allreduce", "--size", "1GiB"), "collective_bad_cluster.yaml:4:3:", "unknown key 'nodez'")
    proc = hpcsim("collective", "--cluster", QUICKSTART, "--op", "allreduce", "--size", "1GiB")
    expect(proc.returncode == 0 and "allreduce over 16 GPUs" in proc.stdout, "--cluster reads a scenario", proc)


def check_occupancy():
    # CC 9.0, 256 threads x 64 registers, 48 KiB: registers allow 32 warps / 8 = 4 blocks and shared memory
    # 233472 / (49152 + 1024) = 4 blocks (tests/models/occupancy_test.cpp); registers are reported first.
    expected = {"active_blocks_per_sm": 4, "active_warps_per_sm": 32, "occupancy": 0.5, "limiter": "registers"}
    for target in (["--gpu", "h100-sxm5-80gb"], ["--cc", "9.0"]):
        for smem in ("48KiB", "49152B", "48 KiB"):
            proc = hpcsim("occupancy", *target, "--threads", "256", "--regs", "64", "--smem", smem, "--format", "json")
            expect(proc.returncode == 0, "occupancy should succeed", proc)
            expect(json.loads(proc.stdout) == expected, f"occupancy JSON for {target} {smem}", proc)
    proc = hpcsim("occupancy", "--cc", "8.9", "--threads", "160", "--regs", "32", "--smem", "0")
    expect(proc.returncode == 0 and "limiter               warps" in proc.stdout and " 45\n" in proc.stdout,
           "table output", proc)
    base = ["--threads", "256", "--regs", "64"]
    expect_bad_input(hpcsim("occupancy", "--gpu", "h100-sxm5-80g", *base), "--gpu", "did you mean 'h100-sxm5-80gb'")
    expect_bad_input(hpcsim("occupancy", "--gpu", "h100-sxm5-80gb", "--cc", "9.0", *base), "exactly one of --gpu")
    expect_bad_input(hpcsim("occupancy", *base), "exactly one of --gpu")
    expect_bad_input(hpcsim("occupancy", "--cc", "99.0", *base), "--cc 99.0", "unsupported", "8.7")
    expect_bad_input(hpcsim("occupancy", "--cc", "9.0", *base, "--smem", "48 KiB/s"), "--smem")
    expect_bad_input(hpcsim("occupancy", "--cc", "9.0", *base, "--smem", "lots"), "--smem")
    expect_bad_input(hpcsim("occupancy", "--cc", "9.0", *base, "--smem", "228KiB"), "--smem", "232448")
    expect_bad_input(hpcsim("occupancy", "--cc", "9.0", "--threads", "1025", "--regs", "32"), "--threads", "1024")
    expect_bad_input(hpcsim("occupancy", "--cc", "9.0", "--threads", "256", "--regs", "300"), "--regs", "255")
    expect_bad_input(hpcsim("occupancy", "--cc", "9.0", *base, "--format", "xml"), "--format")


KERNEL_KEYS = ["time_s", "flops_per_s", "bytes_per_s", "bound", "occupancy"]


def kernel(*args):
    proc = hpcsim("kernel", *args, "--format", "json")
    expect(proc.returncode == 0, "kernel should succeed: " + " ".join(args), proc)
    doc = json.loads(proc.stdout)
    for key in KERNEL_KEYS:
        expect(key in doc, f"missing JSON key {key}", proc)
    return doc


def check_kernel_reference():
    # Published measurements (sources in tests/models/kernel_ops_test.cpp): [H200] one H200 SXM machine,
    # PyTorch 2.11, driver 580, Oct-Nov 2026: 8192^3 bf16 matmul 769-798 TFLOP/s, large device-to-device copy
    # ~4.3 TB/s read+write; [MAMF] stas00/ml-engineering mamf-finder best shapes: A100 271.2, H100 794.5 TFLOP/s.
    gemm = ["gemm", "--dtype", "bf16"]
    tf = kernel("--gpu", "h200-sxm-141gb", *gemm, "--m", "8192", "--n", "8192", "--k", "8192")["flops_per_s"] / 1e12
    expect(769 * 0.9 <= tf <= 798 * 1.1, f"H200 8192^3 bf16: {tf:.1f} TFLOP/s")
    copy = kernel("--gpu", "h200-sxm-141gb", "copy", "--bytes", "4GiB")
    expect(abs(copy["bytes_per_s"] / 4.3e12 - 1) <= 0.10, f"H200 copy: {copy['bytes_per_s'] / 1e12:.2f} TB/s")
    expect(copy["bound"] == "memory", "a large copy is memory bound")
    tf = kernel("--gpu", "a100-sxm4-80gb", *gemm, "--m", "1024", "--n", "10240", "--k", "5120")["flops_per_s"] / 1e12
    expect(abs(tf / 271.2 - 1) <= 0.10, f"A100 best shape: {tf:.1f} TFLOP/s")
    tf = kernel("--gpu", "h100-sxm5-80gb", *gemm, "--m", "2048", "--n", "2048", "--k", "13312")["flops_per_s"] / 1e12
    expect(abs(tf / 794.5 - 1) <= 0.10, f"H100 best shape: {tf:.1f} TFLOP/s")
    lstm = kernel("--gpu", "h200-sxm-141gb", "lstm", "--hidden", "1024", "--batch", "128", "--steps", "25",
                  "--dtype", "fp16", "--train")
    expect(lstm["time_s"] > 0 and lstm["kernels"] > 75, "an LSTM launches kernels per time step")
    for op in (["conv", "--batch", "32", "--c", "64", "--h", "56", "--w", "56", "--k", "64", "--r", "3", "--s", "3",
                "--pad", "1"], ["softmax", "--rows", "4096", "--cols", "4096"], ["layernorm", "--rows", "8192", "--cols",
                "1024", "--backward"], ["attention", "--batch", "4", "--heads", "16", "--seq", "2048", "--causal"],
               ["optimizer", "--params", "1e8", "--tensors", "200", "--impl", "foreach"],
               ["embedding", "--lookups", "65536", "--dim", "1024", "--vocab", "50000", "--backward"],
               ["elementwise", "--elements", "1e8", "--ops", "3", "--fused"]):
        expect(kernel("--gpu", "a100-sxm4-80gb", *op)["time_s"] > 0, " ".join(op))
    first = hpcsim("kernel", "--gpu", "h100-sxm5-80gb", "gemm", "--m", "4000", "--n", "3000", "--k", "999")
    second = hpcsim("kernel", "--gpu", "h100-sxm5-80gb", "gemm", "--m", "4000", "--n", "3000", "--k", "999")
    expect(first.stdout == second.stdout and "bound" in first.stdout, "kernel output is deterministic", first)


def check_kernel_errors():
    gemm = ["gemm", "--m", "64", "--n", "64", "--k", "64"]
    expect_bad_input(hpcsim("kernel", "--gpu", "h200-sxm", *gemm), "--gpu h200-sxm", "h200-sxm-141gb")
    expect_bad_input(hpcsim("kernel", "--gpu", "a100-sxm4-80gb", *gemm, "--dtype", "fp8"), "--dtype fp8", "a100-sxm4-80gb")
    expect_bad_input(hpcsim("kernel", "--gpu", "a100-sxm4-80gb", *gemm, "--dtype", "int4"), "--dtype")
    expect_bad_input(hpcsim("kernel", "--gpu", "a100-sxm4-80gb", "gemm", "--m", "0", "--n", "64", "--k", "64"), "--m")
    expect_bad_input(hpcsim("kernel", "--gpu", "a100-sxm4-80gb", "gemm", "--m", "64", "--n", "64"), "--k")
    expect_bad_input(hpcsim("kernel", "--gpu", "a100-sxm4-80gb", "copy", "--bytes", "4 GB/s"), "--bytes")
    expect_bad_input(hpcsim("kernel", "--gpu", "a100-sxm4-80gb", "copy", "--bytes", "lots"), "--bytes")
    expect_bad_input(hpcsim("kernel", "--gpu", "a100-sxm4-80gb", "matmul"), "unknown op 'matmul'", "gemm")
    expect_bad_input(hpcsim("kernel", "--gpu", "a100-sxm4-80gb", *gemm, "--frob"), "--frob")
    expect_bad_input(hpcsim("kernel", "--gpu", "a100-sxm4-80gb", *gemm, "--format", "xml"), "--format")
    expect_bad_input(hpcsim("kernel", *gemm), "--gpu")
    expect_bad_input(hpcsim("kernel", "--gpu", "a100-sxm4-80gb", "conv", "--batch", "1", "--c", "3", "--h", "2", "--w",
                            "2", "--k", "8", "--r", "3", "--s", "3"), "--r")
    # Sizes past 32 bits, or tensors no GPU holds, are refused before the models multiply them (issue 34's
    # sanitizer run found the products overflowing 64 bits).
    conv = ["conv", "--batch", "32", "--c", "64", "--h", "56", "--w", "56", "--r", "3", "--s", "3", "--pad", "1"]
    expect_bad_input(hpcsim("kernel", "--gpu", "t4", "--dtype", "fp32", *conv, "--k", "9223372036854775807"), "--k: at most 2147483647")
    expect_bad_input(hpcsim("kernel", "--gpu", "t4", "--dtype", "fp32", "conv", "--batch", "128", *conv[3:], "--k", "2147483647"),
                     "--batch x --k x --h x --w", "2^48")
    expect_bad_input(hpcsim("kernel", "--gpu", "t4", "--dtype", "fp16", "lstm", "--hidden", "9223372036854775807", "--batch", "64",
                            "--steps", "50"), "--hidden: at most 2147483647")
    expect_bad_input(hpcsim("kernel", "--gpu", "t4", "--dtype", "fp16", "lstm", "--hidden", "2000000000", "--batch", "64",
                            "--steps", "50"), "2^48")


run_check({"json_keys": check_json_keys, "deterministic": check_deterministic, "store": check_store,
 "errors": check_errors, "list_version": check_list_and_version,
           "run_zoo_model": check_run_zoo_model, "run_oom": check_run_oom, "run_model_errors": check_run_model_errors,
           "run_parallelism_errors": check_run_parallelism_errors, "quickstart_what_ifs": check_quickstart_what_ifs,
 "collective_busbw": check_collective_busbw, "collective_rows": check_collective_rows,
 "collective_errors": check_collective_errors, "occupancy": check_occupancy,
 "kernel_reference": check_kernel_reference, "kernel_errors": check_kernel_errors})
