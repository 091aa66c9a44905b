"""End-to-end checks of `hpcsim kernel ... --explain`: the binding occupancy limit, the roofline side, the WarpSim
twin's breakdown beside the analytical time, the JSON object, and determinism."""
import json

from cli_support import expect, hpcsim, run_check

CONV = ["conv", "--batch", "32", "--c", "64", "--h", "56", "--w", "56", "--k", "64", "--r", "3", "--s", "3", "--pad", "1"]


def explain(*args):
    proc = hpcsim("kernel", *args, "--explain")
    expect(proc.returncode == 0, "kernel --explain should succeed", proc)
    return proc


def explain_json(*args):
    proc = hpcsim("kernel", *args, "--explain", "--format", "json")
    expect(proc.returncode == 0, "kernel --explain --format json should succeed", proc)
    return json.loads(proc.stdout)


def check_kernel_explain_limits():
    # The implicit-GEMM convolution's 96 KiB pipeline stages fit twice in H100's shared memory while its registers
    # allow four blocks; the softmax's 1024-thread blocks of 40 registers fit once in the register file.
    conv = explain_json("--gpu", "h100-sxm5-80gb", *CONV)["explain"]["kernels"][0]["occupancy"]
    expect(conv["limiter"] == "shared_memory" and conv["blocks_by_smem"] < conv["blocks_by_registers"],
           f"conv is held by shared memory: {conv}")
    expect("The limit that binds: shared memory" in explain("--gpu", "h100-sxm5-80gb", *CONV).stdout,
           "the text names shared memory")
    softmax = ["softmax", "--rows", "4096", "--cols", "4096"]
    occ = explain_json("--gpu", "h100-sxm5-80gb", *softmax)["explain"]["kernels"][0]["occupancy"]
    expect(occ["limiter"] == "registers" and occ["blocks_by_registers"] < occ["blocks_by_warps"],
           f"softmax is held by registers: {occ}")
    proc = explain("--gpu", "h100-sxm5-80gb", *softmax)
    expect("The limit that binds: registers" in proc.stdout, "the text names registers", proc)
    expect("the breakdown needs WarpSim" in proc.stdout and "copy, elementwise, gemm have one" in proc.stdout,
           "an op without a twin says so and names those with one", proc)


def check_kernel_explain_roofline():
    proc = explain("--gpu", "h100-sxm5-80gb", "copy", "--bytes", "1GiB")
    expect("memory-bound" in proc.stdout and "compute-bound" not in proc.stdout, "a copy is memory-bound", proc)
    big = ["gemm", "--m", "8000", "--n", "8192", "--k", "8192"]  # off the tile program's grid: no twin, fast
    proc = explain("--gpu", "h100-sxm5-80gb", *big)
    expect("compute-bound" in proc.stdout and "right of the ridge" in proc.stdout, "a large GEMM is compute-bound", proc)
    roof = explain_json("--gpu", "h100-sxm5-80gb", *big)["explain"]["kernels"][0]["roofline"]
    expect(roof["bound"] == "compute" and roof["intensity"] > roof["machine_balance"], f"roofline: {roof}")
    expect(abs(roof["factor"] - roof["intensity"] / roof["machine_balance"]) < 1e-3 * roof["factor"], "the factor")


def check_kernel_explain_twins():
    gemm = ["gemm", "--m", "2048", "--n", "2048", "--k", "2048", "--dtype", "fp16"]
    doc = explain_json("--gpu", "v100-sxm2-16gb", *gemm)
    for key in ("gpu", "op", "time_s", "bound", "explain"):
        expect(key in doc, f"json has {key}")
    k = doc["explain"]["kernels"][0]
    for key in ("name", "count", "launch", "occupancy", "waves", "memory", "roofline", "time", "warp_sim"):
        expect(key in k, f"json explain kernel has {key}")
    for key in ("sectors_per_request", "l2_bytes", "hbm_bytes"):
        expect(key in k["memory"], f"json memory has {key}")
    ws = k["warp_sim"]
    expect(ws["available"] and ws["time_s"] > 0, f"the GEMM has its twin: {ws}")
    expect(abs(ws["ratio_to_analytical"] - ws["time_s"] / k["time"]["time_s"]) < 1e-3 * ws["ratio_to_analytical"],
           "the ratio is the twin's time over the analytical one")
    shares = ws["warp_cycle_shares"]
    expect(set(shares) == {"issuing", "memory_wait", "dependency", "pipe_busy", "barrier", "throttled", "not_selected"},
           f"every warp state: {shares}")
    expect(abs(sum(shares.values()) - 1) < 1e-6, f"the shares cover every warp-cycle: {shares}")
    expect(shares["barrier"] > 0, "a tile GEMM waits at its barriers")
    proc = explain("--gpu", "v100-sxm2-16gb", *gemm)
    expect("WarpSim twin" in proc.stdout and "x the analytical time" in proc.stdout, "twin time beside the model", proc)
    ew = explain("--gpu", "v100-sxm2-16gb", "elementwise", "--elements", "1e7", "--ops", "2", "--inputs", "2", "--dtype", "fp32")
    expect("WarpSim twin" in ew.stdout and "pointwise_memory share" in ew.stdout, "elementwise twin, calibration said", ew)
    none = explain_json("--gpu", "l40s", "copy", "--bytes", "1GiB")["explain"]["kernels"][0]["warp_sim"]
    expect(not none["available"] and "warp_sim" in none["reason"], f"no twin without a warp_sim: section: {none}")
    again = explain("--gpu", "v100-sxm2-16gb", *gemm)
    expect(again.stdout == proc.stdout, "same inputs, same bytes", again)


run_check({
    "kernel_explain_limits": check_kernel_explain_limits,
    "kernel_explain_roofline": check_kernel_explain_roofline,
    "kernel_explain_twins": check_kernel_explain_twins,
})
