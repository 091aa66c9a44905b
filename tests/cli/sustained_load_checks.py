#!/usr/bin/env python3
"""Checks of bench/cuda/sustained_load.py's bookkeeping, which runs only on a lent GPU: nvidia-smi's sample
lines, the samples inside a window, the first and steady summaries, and that `hpcsim validate --measured` reads
the CSVs it writes. A mistake here would cost a device run.

Usage: sustained_load_checks.py SOURCE_DIR HPCSIM"""
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(sys.argv[1], "bench", "cuda"))
sys.dont_write_bytecode = True
import sustained_load as sl  # noqa: E402  (needs the path above; imports no torch)
from suite_csv import write_suite_csv  # noqa: E402


def check(condition, what):
    if not condition:
        sys.exit(f"FAILED: {what}")


def main():
    check(sl.parse_value(" 1980 ") == 1980.0, "a clock")
    check(sl.parse_value("0x0000000000000004") == 4.0, "the reasons field is hexadecimal")
    check(sl.parse_value("[N/A]") is None and sl.parse_value("[Not Supported]") is None, "missing values")
    metrics = ["sm_clock_mhz", "power_w", "reasons"]
    check(sl.parse_sample("1755, 699.52, 0x0000000000000004", metrics) ==
          {"sm_clock_mhz": 1755.0, "power_w": 699.52, "reasons": 4.0}, "a sample line")
    check(sl.parse_sample("1755, 699.52", metrics) is None, "a line with a field missing is dropped")
    check(sl.parse_sample("1755, [N/A], 0x0", metrics) == {"sm_clock_mhz": 1755.0, "reasons": 0.0},
          "an unavailable value is left out, the rest kept")

    stamp = "2026/12/07 00:12:34.567"
    t, sample = sl.parse_line(stamp + ", 1755, 699.52, 0x0000000000000004", metrics, 5.0)
    check(abs(t - sl.parse_timestamp(stamp)) < 1e-9 and sample["sm_clock_mhz"] == 1755.0,
          "a line's own timestamp is its time, not the time it was read")
    check(abs(sl.parse_timestamp("2026/12/07 00:12:35.067") - sl.parse_timestamp(stamp) - 0.5) < 1e-6,
          "timestamps are seconds with their milliseconds")
    check(sl.parse_line("[N/A], 1755, 699.52, 0x0", metrics, 5.0)[0] == 5.0, "no timestamp: the time it was read")
    check(sl.parse_line(stamp + ", 1755", metrics, 5.0) is None, "a short line is dropped")

    # Ten seconds of load: the clock falls from 1980 to 1700 MHz at 5 s, when the power cap starts to hold it.
    samples = [(t / 10, {"sm_clock_mhz": 1980.0 if t < 50 else 1700.0, "power_w": 500.0 if t < 50 else 700.0,
                         "reasons": 0.0 if t < 50 else 4.0}) for t in range(100)]
    means = sl.window_means(samples, 0.0, 0.45)
    check(means["sm_clock_mhz"] == 1980.0 and means["power_capped_fraction"] == 0.0 and means["reasons"] == 0,
          f"the first half second's samples: {means}")
    means = sl.window_means(samples, 4.55, 5.45)  # 4.6..4.9 at 1980, 5.0..5.4 at 1700
    check(abs(means["sm_clock_mhz"] - (4 * 1980 + 5 * 1700) / 9) < 1e-9, f"a window across the change: {means}")
    check(abs(means["power_capped_fraction"] - 5 / 9) < 1e-12 and means["reasons"] == 4, "the capped share")
    check(sl.window_means(samples, 20.0, 21.0) == {}, "a window with no samples has no means")

    windows = [{"begin": i * 0.5, "end": i * 0.5 + 0.5, "rate": 800e12 if i < 10 else 700e12} for i in range(20)]
    summary = sl.summarize(windows, samples, 10.0)
    first, steady = summary["first"], summary["steady"]
    check(first["rate"] == 800e12 and first["sm_clock_mhz"] == 1980.0, f"the first window: {first}")
    check(steady["windows"] == 10, "the steady state is the windows of the second half")
    check(steady["rate"] == 700e12 and steady["sm_clock_mhz"] == 1700.0 and steady["power_w"] == 700.0,
          f"the steady state: {steady}")
    check(steady["power_capped_fraction"] == 1.0 and steady["reasons"] == 4, "the steady state is power-capped")
    short = sl.summarize(windows[:1], samples, 10.0)
    check(short["steady"]["windows"] == 1 and short["steady"]["rate"] == 800e12,
          "a run of one window has that window as its steady state")

    # The CSVs as the script writes them, read by hpcsim: every unit known, the steady products predicted.
    params = "op=gemm;precision=bf16;m=8192;n=8192;k=8192"
    rows = sl.summary_rows(params, "tflops", summary) + sl.summary_rows(
        "op=copy;bytes=1073741824", "gbps", {"first": {"rate": 2.1e12}, "steady": {"rate": 2.0e12, "windows": 3}})
    check(rows[0] == ("sustained", params + ";phase=first", "tflops", 800.0, "TFLOP/s"), f"the first row: {rows[0]}")
    trace = sl.trace_rows(params, "tflops", windows, samples)
    check(len(trace) == 20 * 4 and trace[1] == ("sustained-trace", params + ";window=0", "tflops", 800.0, "TFLOP/s"),
          f"the trace rows: {trace[:6]}")
    header = [("gpu", "NVIDIA H200"), ("compute_capability", "9.0"), ("sm_count", 132)]
    with tempfile.TemporaryDirectory() as folder:
        for name, content in (("sustained.csv", rows), ("sustained-trace.csv", trace)):
            path = os.path.join(folder, name)
            write_suite_csv(path, header, content)
            run = subprocess.run([sys.argv[2], "validate", "--measured", path, "--gpu", "h200-sxm-141gb"],
                                 capture_output=True, text=True, timeout=120)
            check(run.returncode == 0, f"validate --measured {name}: exit {run.returncode}: {run.stderr}")
            if name == "sustained.csv":
                check("MAPE" in run.stdout and "over 2 timed cases" in run.stdout,
                      f"the steady product and copy are the timed cases: {run.stdout}")

    # The nvidia-smi sampler against a stand-in nvidia-smi of an older driver (no clocks_event_reasons, the
    # throttle-reasons name instead): the fields it knows, each sample at the time its line gives.
    fake = """#!/bin/sh
for a in "$@"; do case "$a" in --query-gpu=*) q="${a#--query-gpu=}";; esac; done
out=""
IFS=,
for f in $q; do
  case "$f" in
    timestamp) v="2026/12/07 00:12:34.567";;
    clocks.sm) v=1755;;
    clocks.mem) v=3201;;
    power.draw) v=699.50;;
    temperature.gpu) v=61;;
    clocks_throttle_reasons.active) v=0x0000000000000004;;
    *) echo "Field \\"$f\\" is not a valid field to query." >&2; exit 2;;
  esac
  out="${out:+$out, }$v"
done
echo "$out"
"""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "nvidia-smi")
        with open(path, "w") as f:
            f.write(fake)
        os.chmod(path, 0o755)
        saved = os.environ["PATH"]
        os.environ["PATH"] = folder + os.pathsep + saved
        try:
            sampler = sl.Sampler(period_s=0.05)
            time.sleep(0.5)
            sampler.stop()
        finally:
            os.environ["PATH"] = saved
    check(sampler.source == "nvidia-smi", f"the stand-in is found: {sampler.source}")
    check(sampler.metrics == ["sm_clock_mhz", "mem_clock_mhz", "power_w", "temperature_c", "reasons"],
          f"every field it knows, reasons under the older name: {sampler.metrics}")
    check(len(sampler.samples) >= 2, f"samples taken: {len(sampler.samples)}")
    t, sample = sampler.samples[0]
    check(t == sl.parse_timestamp("2026/12/07 00:12:34.567") and sample == {
        "sm_clock_mhz": 1755.0, "mem_clock_mhz": 3201.0, "power_w": 699.5, "temperature_c": 61.0, "reasons": 4.0},
        f"a sample: {sampler.samples[0]}")
    print("sustained_load.py bookkeeping: all checks passed")


if __name__ == "__main__":
    main()
