#!/usr/bin/env python3
"""End-to-end checks of `hpcsim validate`: the public validation table with MAPE, its formats, errors.
Usage: validate_checks.py HPCSIM SOURCE_DIR CHECK"""
import csv
import json
import io
import os
import shutil
import tempfile

from cli_support import SOURCE, expect, expect_bad_input, hpcsim, run_check

VALIDATION = os.path.join(SOURCE, "configs", "validation")
# The format and cross-validation checks run on a few fast cases of two families (the whole set is checked
# by the C++ tests and check_validate_table).
SUBSET = ["cnn-rn50-dle-pyt-a100-80g-1gpu-amp", "cnn-rn50-dle-pyt-a100-80g-8gpu-tf32", "cnn-rn50-dle-pyt-v100-16gb-1gpu-fp32",
          "rnn-gnmt-dle-pyt-dgxa100-1gpu-amp", "rnn-gnmt-dle-pyt-dgx-1-1gpu-fp32", "rnn-gnmt-dle-pyt-dgxa100-8gpu-tf32",
          "microbenchmarks"]


def subset_folder(folder):
    for name in SUBSET:
        shutil.copy(os.path.join(VALIDATION, name + ".yaml"), folder)
    return folder


def check_validate_table():
    proc = hpcsim("validate")
    expect(proc.returncode == 0, "hpcsim validate should succeed", proc)
    expect("MAPE" in proc.stdout, "the table ends with the MAPE", proc)
    expect("worst" in proc.stdout, "and names the worst case", proc)
    for case in ["cnn-rn50-dle-pyt-a100-80g-1gpu-amp", "micro-gemm-mamf-a100-bf16", "micro-allreduce-8xa100-nvlink3-16gib"]:
        expect(case in proc.stdout, f"the table lists {case}", proc)
    same = hpcsim("validate", VALIDATION)
    expect(same.stdout == proc.stdout, "the default folder is configs/validation", same)
    # The HPC section scores the NPB cases (hpc/npb-*) and the OSU rows (p2p/) in their own categories.
    for case in ["npb-mg-d-grace", "hbv2-hpcx-0B", "efa-c5n-bibw-4MiB"]:
        expect(case in proc.stdout, f"the HPC cases list {case}", proc)
    for category in ["npb ", "p2p "]:
        expect(any(line.startswith(category) and "MAPE" in line for line in proc.stdout.splitlines()),
               f"the HPC cases score the {category.strip()} category", proc)
    # The serving section gives each category's interval coverage, in-sample and family-out (issue 37).
    for category in ["cpu-infer", "gpu-infer", "llm-serve", "all"]:
        expect(any(line.startswith(category + " ") and "interval coverage: in-sample" in line and "family-out" in line
                   for line in proc.stdout.splitlines()), f"the serving cases give {category}'s interval coverage", proc)


def check_validate_formats():
    with tempfile.TemporaryDirectory() as folder:
        check_formats_on(subset_folder(folder))


def check_formats_on(folder):
    proc = hpcsim("validate", folder, "--format", "csv")
    expect(proc.returncode == 0, "csv output", proc)
    rows = list(csv.DictReader(io.StringIO("".join(l for l in proc.stdout.splitlines(True) if not l.startswith("#")))))
    expect(len(rows) >= 10, "one CSV row per case", proc)
    for row in rows:
        measured, predicted, error = float(row["measured"]), float(row["predicted"]), float(row["error"])
        expect(abs(error - (predicted - measured) / measured) < 1e-5, f"error of {row['id']} is relative", proc)
    expect(proc.stdout.splitlines()[-1].startswith("# MAPE"), "the summary closes the CSV as a comment", proc)
    md = hpcsim("validate", folder, "--format", "markdown")
    expect(md.returncode == 0 and md.stdout.startswith("| case | metric |"), "a Markdown table", md)
    expect("MAPE" in md.stdout, "with the MAPE", md)


def check_validate_errors():
    expect_bad_input(hpcsim("validate", "/nonexistent/validation"), "validation folder not found")
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "bad.yaml"), "w") as f:
            f.write("cluster: {node: dgx-a100-80gb, gpus_per_node: 1}\n"
                    "workload: {model: resnet50, batch_per_gpu: 8, precision: fp16, optimizer: momentum}\n"
                    "measured: {metric: images_per_s, value: 1, unit: x, source: s}\n")
        expect_bad_input(hpcsim("validate", folder), "bad.yaml:3:20:", "images_per_s")
    with tempfile.TemporaryDirectory() as folder:
        os.mkdir(os.path.join(folder, "p2p"))
        with open(os.path.join(folder, "p2p", "bad.yaml"), "w") as f:
            f.write("cluster: {node: cpu-2s-generic, nodes: 2, network: ib-hdr}\n"
                    "osu: {benchmark: latency, bytes: 0}\n"
                    "measured: {metric: bandwidth_MBps, value: 1, unit: x, source: s, category: p2p, family: f}\n")
        expect_bad_input(hpcsim("validate", folder), "bad.yaml:3:20:", "latency_us")
    expect_bad_input(hpcsim("validate", "--format", "html"), "--format")


def check_validate_measured():
    # A CSV in the format of bench/cuda's hpcsim-cuda-bench (a fixture: the occupancy rows are the CUDA Best
    # Practices Guide's CC 7.0 example, the timed values arbitrary).
    csv_file = os.path.join(SOURCE, "tests", "data", "cli", "device-bench-v100.csv")
    proc = hpcsim("validate", "--measured", csv_file, "--gpu", "v100-sxm2-16gb")
    expect(proc.returncode == 0, "a measured CSV is compared with the GPU model", proc)
    expect("MAPE" in proc.stdout and "over 2 timed cases" in proc.stdout, "MAPE over the copy and GEMM rows", proc)
    expect("occupancy 2 of 2 exact" in proc.stdout, "occupancy rows match exactly", proc)
    csv_out = hpcsim("validate", "--measured", csv_file, "--gpu", "v100-sxm2-16gb", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO("".join(l for l in csv_out.stdout.splitlines(True) if not l.startswith("#")))))
    expect(len(rows) == 5, "one CSV row per measurement", csv_out)
    # The suite's first run on a real GPU (bench/cuda/measurements/2026-12-04-h200): the occupancy model gives the
    # driver's own answer for every launch the suite asked about.
    h200 = os.path.join(SOURCE, "bench", "cuda", "measurements", "2026-12-04-h200", "cuda-bench-20261204T063148Z.csv")
    proc = hpcsim("validate", "--measured", h200, "--gpu", "h200-sxm-141gb")
    expect(proc.returncode == 0, "the H200 run is compared with the GPU model", proc)
    expect("occupancy 66 of 66 exact" in proc.stdout,
           "every occupancy row and occupancy-sweep launch (39 and 27) matches the H200's driver", proc)
    expect("\nby benchmark: launch " in proc.stdout and "fma-ilp " in proc.stdout, "the MAPE per benchmark", proc)
    expect("launch-work spin_cycles=16000" in proc.stdout, "the launch-work rows are predicted", proc)
    expect_bad_input(hpcsim("validate", "--measured", csv_file), "--gpu")
    expect_bad_input(hpcsim("validate", "--gpu", "v100-sxm2-16gb"), "--measured")
    expect_bad_input(hpcsim("validate", "--measured", csv_file, "--gpu", "a100-sxm4-80gb"), "--gpu a100-sxm4-80gb",
                     "compute capability")
    expect_bad_input(hpcsim("validate", "--measured", "/nonexistent/x.csv", "--gpu", "v100-sxm2-16gb"), "cannot open")
    expect_bad_input(hpcsim("validate", "--measured", csv_file, "--gpu", "no-such-gpu"), "no-such-gpu")
    with tempfile.TemporaryDirectory() as folder:
        bad = os.path.join(folder, "bad.csv")
        columns = "# hpcsim-cuda-bench 1\nbenchmark,params,metric,value,unit\n"
        # Each malformed file: exit 2 and the message at its file:line:column, never a crash or a silent skip.
        for text, where in [(columns + "copy,bytes=1,gbps,x,GB/s\n", "bad.csv:3:19:"),
                            ("", "bad.csv:1:1: empty file"),
                            ("# hpcsim-cuda-bench 9\n" + columns[22:], "bad.csv:1:1: not a hpcsim-cuda-bench CSV"),
                            ("# hpcsim-cuda-bench 1\n# gpu: x\n", "bad.csv:2:1: no column line"),
                            (columns + "copy,bytes=1,gbps,1\n", "bad.csv:3:1: a row has 5 fields"),
                            (columns + "copy,bytes=1,gbps,1,GB/sec\n", "bad.csv:3:21: unknown unit 'GB/sec'"),
                            (columns + "pointer-chase,footprint_bytes,latency,30,cycles\n", "bad.csv:3:15: a param is key=value")]:
            with open(bad, "w") as f:
                f.write(text)
            expect_bad_input(hpcsim("validate", "--measured", bad, "--gpu", "v100-sxm2-16gb"), where)


def check_validate_cv():
    with tempfile.TemporaryDirectory() as folder:
        check_cv_on(subset_folder(folder))


def check_cv_on(folder):
    proc = hpcsim("validate", folder, "--cv", "--format", "json")
    expect(proc.returncode == 0, "validate --cv --format json should succeed", proc)
    doc = json.loads(proc.stdout)
    for part in ("in_sample", "cross_validated"):
        expect(set(doc[part]) >= {"mape", "worst"}, f"{part} has mape and worst", proc)
    expect(len(doc["rows"]) >= 10, "one row per case", proc)
    mape = sum(abs(r["cv_error"]) for r in doc["rows"]) / len(doc["rows"])
    expect(abs(mape - doc["cross_validated"]["mape"]) < 1e-3, "the cross-validated MAPE is the rows' mean, in percent", proc)
    for row in doc["rows"]:
        expect(row["family"] and row["category"], f"{row['id']} has a family and a category", proc)
    table = hpcsim("validate", folder, "--cv")
    expect(table.returncode == 0 and "cross-validated (leave one source family out): MAPE" in table.stdout,
           "the table closes with the cross-validated MAPE", table)
    expect_bad_input(hpcsim("validate", "--cv", "--fit"), "separate reports")
    expect_bad_input(hpcsim("validate", "--format", "json"), "--format json goes with --cv")
    derived = hpcsim("validate", folder, "--intervals")
    expect(derived.returncode == 0 and derived.stdout.startswith("# Prediction intervals"), "--intervals prints the table",
           derived)
    served = hpcsim("validate", "--serve-intervals")
    with open(os.path.join(VALIDATION, "..", "serving-intervals.yaml")) as shipped:
        expect(served.returncode == 0 and served.stdout == shipped.read(),
               "--serve-intervals prints configs/serving-intervals.yaml as shipped", served)
    hpc = hpcsim("validate", "--hpc-intervals")
    with open(os.path.join(VALIDATION, "..", "hpc-intervals.yaml")) as shipped:
        expect(hpc.returncode == 0 and hpc.stdout == shipped.read(),
               "--hpc-intervals prints configs/hpc-intervals.yaml as shipped", hpc)
    expect_bad_input(hpcsim("validate", "--hpc-intervals", "--serve-intervals"), "separate reports")
    expect_bad_input(hpcsim("validate", "--hpc-intervals", "--format", "json"), "--hpc-intervals prints YAML")
    expect_bad_input(hpcsim("validate", "--serve-intervals", "--intervals"), "separate reports")
    expect_bad_input(hpcsim("validate", "--serve-intervals", "--format", "csv"), "--serve-intervals prints YAML")


run_check({"validate_table": check_validate_table, "validate_formats": check_validate_formats,
           "validate_errors": check_validate_errors, "validate_measured": check_validate_measured,
           "validate_cv": check_validate_cv})
