#!/usr/bin/env python3
"""End-to-end checks of `hpcsim import kineto|chakra`: the report keys, replay as recorded, another GPU, bad input.
Usage: import_checks.py HPCSIM SOURCE_DIR CHECK"""
import copy
import gzip
import json
import os
import tempfile

from cli_support import SOURCE, expect, expect_bad_input, hpcsim, run_check

KINETO = os.path.join(SOURCE, "tests", "data", "traces", "kineto")
A100 = os.path.join(KINETO, "benchmark_result_493459_1694039959_trace.json.gz")
CHAKRA = os.path.join(SOURCE, "tests", "data", "traces", "chakra", "chakra.0.et.gz")


def check_import_kineto():
    proc = hpcsim("import", "kineto", A100, "--format", "json")
    expect(proc.returncode == 0, "the A100 fixture imports", proc)
    doc = json.loads(proc.stdout)
    for key in ["step_time_s", "breakdown_s", "gpus", "parallelism", "sim_wall_s", "events", "trace", "recorded",
                "as_recorded", "occupancy"]:
        expect(key in doc, f"missing JSON key {key}", proc)
    expect(doc["trace"]["kernels"] == 79 and doc["trace"]["memcpys"] == 16, "every kernel and copy read", proc)
    expect(abs(doc["as_recorded"]["gpu_busy_error"]) < 0.02, "busy time reproduced within 2 %", proc)
    expect(doc["occupancy"]["kernels_equal"] == 73, "73 of 79 stated occupancies equal hpcsim's", proc)
    again = hpcsim("import", "kineto", A100, "--format", "json")
    strip = lambda d: {k: v for k, v in d.items() if k != "sim_wall_s"}
    expect(strip(json.loads(again.stdout)) == strip(doc), "two imports give the same report", again)
    occ = hpcsim("import", "kineto", A100, "--occupancy")
    expect(occ.returncode == 0 and "73 of 79 kernels equal" in occ.stdout and "opting in" in occ.stdout,
           "the occupancy table explains the differences", occ)


def check_import_kineto_gpu():
    proc = hpcsim("import", "kineto", A100, "--gpu", "h100-sxm5-80gb", "--recorded-gpu", "a100-sxm4-40gb",
                  "--format", "json")
    expect(proc.returncode == 0, "the A100 fixture replays on an H100", proc)
    doc = json.loads(proc.stdout)
    expect(doc["predicted"]["gpu_busy_s"] < doc["recorded"]["gpu_busy_s"], "the H100 is busy for less time", proc)
    expect(doc["predicted"]["speedup"] >= 1.0, "and the step is no slower", proc)
    same = json.loads(hpcsim("import", "kineto", A100, "--gpu", "a100-sxm4-40gb", "--recorded-gpu", "a100-sxm4-40gb",
                             "--format", "json").stdout)
    expect(abs(same["predicted"]["gpu_busy_s"] - same["as_recorded"]["gpu_busy_s"]) < 1e-12,
           "the recording GPU as the target changes nothing", proc)


def check_import_kineto_errors():
    expect_bad_input(hpcsim("import", "kineto", A100, "--gpu", "h100-sxm5-80gb"), "--gpu", "--recorded-gpu")
    expect_bad_input(hpcsim("import", "kineto", A100, "--gpu", "h100", "--recorded-gpu", "a100-sxm4-40gb"), "--gpu h100")
    with tempfile.TemporaryDirectory() as d:
        with gzip.open(A100, "rb") as f:
            text = f.read()
        cut = os.path.join(d, "cut.json")
        with open(cut, "wb") as f:
            f.write(text[: len(text) // 3])
        expect_bad_input(hpcsim("import", "kineto", cut), cut + ":", "malformed JSON at byte", "truncated?")
        with open(A100, "rb") as f:
            raw = f.read()
        short = os.path.join(d, "short.json.gz")
        with open(short, "wb") as f:
            f.write(raw[: len(raw) // 2])
        expect_bad_input(hpcsim("import", "kineto", short), short + ": truncated gzip stream")
        cpu = os.path.join(d, "cpu.json")
        with open(cpu, "w") as f:
            json.dump({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "ts": 1, "dur": 1}]}, f)
        expect_bad_input(hpcsim("import", "kineto", cpu), cpu + ": the trace has no GPU kernel")


DDP = {"deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB", "computeMajor": 8, "computeMinor": 0,
                              "numSms": 108}],
       "traceEvents": [
           {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "ts": 90, "dur": 20,
            "args": {"External id": 10, "Collective name": "allreduce", "dtype": "BFloat16", "In msg nelems": 50000000,
                     "Group size": 16}},
           {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 80, "dur": 5, "args": {"correlation": 1}},
           {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 95, "dur": 5, "args": {"correlation": 2}},
           {"ph": "X", "cat": "kernel", "name": "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_nn", "ts": 100,
            "dur": 2000, "args": {"device": 0, "stream": 7, "correlation": 1, "External id": 9}},
           {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
            "ts": 2100, "dur": 4000, "args": {"device": 0, "stream": 20, "correlation": 2, "External id": 10}}]}


def write_case(folder, trace, dgx_nodes):
    """The trace as JSON and a platform of DGX A100 nodes on HDR, in folder: their paths."""
    trace_path = os.path.join(folder, "trace%d.json" % dgx_nodes)
    with open(trace_path, "w") as f:
        json.dump(trace, f)
    platform = os.path.join(folder, "platform%d.yaml" % dgx_nodes)
    with open(platform, "w") as f:
        f.write("cluster:\n  node: dgx-a100-80gb\n  nodes: %d\n  network: ib-hdr\n" % dgx_nodes)
    return trace_path, platform


def check_import_kineto_dp():
    with tempfile.TemporaryDirectory() as d:
        trace, platform = write_case(d, DDP, 2)
        one = json.loads(hpcsim("import", "kineto", trace, "--format", "json").stdout)
        expect(one["trace"]["nccl_kernels"] == 1 and one["gpus"] == 1, "one GPU as recorded", None)
        proc = hpcsim("import", "kineto", trace, "--platform", platform, "--format", "json")
        expect(proc.returncode == 0, "the step replays data-parallel on two DGX A100", proc)
        doc = json.loads(proc.stdout)
        expect(doc["gpus"] == 16 and doc["parallelism"]["dp"] == 16, "every GPU of the cluster", proc)
        expect(doc["predicted"]["collectives_on_fabric"] == 1, "the all-reduce runs on the fabric", proc)
        eight = json.loads(hpcsim("import", "kineto", trace, "--platform", platform, "--dp", "8", "--format", "json").stdout)
        expect(eight["step_time_s"] < doc["step_time_s"], "inside one node (NVSwitch) the all-reduce is faster than over HDR",
               proc)
        expect_bad_input(hpcsim("import", "kineto", trace, "--platform", platform, "--dp", "17"), "--dp", "2..16")
        # An all-to-all (an MoE layer's) over 4,096 GPUs is 16.8 million distinct messages: refused at once, where
        # its replay took a minute and 9.5 GB.
        a2a = copy.deepcopy(DDP)
        a2a["traceEvents"][0]["args"]["Collective name"] = "all_to_all"
        a2a["traceEvents"][4]["name"] = "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)"
        moe, large = write_case(d, a2a, 512)
        expect_bad_input(hpcsim("import", "kineto", moe, "--platform", large), "--dp: alltoall over 4096 GPUs moves",
                         "16773120 distinct messages", "(fewer GPUs: --dp)")
        small = json.loads(hpcsim("import", "kineto", moe, "--platform", platform, "--format", "json").stdout)
        expect(small["predicted"]["collectives_on_fabric"] == 1, "the all-to-all over 16 GPUs runs", None)
        expect_bad_input(hpcsim("import", "kineto", A100, "--platform", platform), "data-parallel replay needs")


def check_import_chakra():
    with tempfile.TemporaryDirectory() as d:
        platform = os.path.join(d, "platform.yaml")
        with open(platform, "w") as f:
            f.write("cluster:\n  node: dgx-a100-80gb\n  nodes: 1\n")
        proc = hpcsim("import", "chakra", CHAKRA, "--platform", platform, "--format", "json")
        if proc.returncode == 2 and "without protobuf" in proc.stderr:
            return  # built without protobuf: the command says so
        expect(proc.returncode == 0, "the Chakra fixture replays", proc)
        doc = json.loads(proc.stdout)
        expect(doc["chakra"]["nodes"] == 3664 and doc["gpus"] == 8, "every node, on 8 GPUs", proc)
        expect(doc["step_time_s"] > 0 and "breakdown_s" in doc, "the run keys", proc)
        expect_bad_input(hpcsim("import", "chakra", CHAKRA, "--platform", platform, "--ranks", "9"), "--ranks")
        bad = os.path.join(d, "bad.et")
        with open(bad, "wb") as f:
            f.write(b"\x05abc")
        expect_bad_input(hpcsim("import", "chakra", bad, "--platform", platform), bad + ":")


run_check({"import_kineto": check_import_kineto, "import_kineto_gpu": check_import_kineto_gpu,
           "import_kineto_errors": check_import_kineto_errors, "import_kineto_dp": check_import_kineto_dp,
           "import_chakra": check_import_chakra})
