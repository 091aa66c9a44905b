#!/usr/bin/env python3
"""Clocks under sustained load: throughput, SM clock and power while each workload runs for seconds.

Each workload (8,192^3 products in bf16, fp16, fp8, tf32 and int8, a 4,096^3 bf16 product, a 1 GiB device
copy) runs back to back from a CUDA graph for --seconds while NVML (or nvidia-smi) samples
the SM clock, the board's power draw, the temperature and the clock-event reasons every 100 ms. Writes the
suite's CSV (benchmark `sustained`): per workload its first window and its steady state (medians over the
windows of the second half) of TFLOP/s (GB/s for the copy, bytes counted once), SM clock, power, temperature,
the share of samples with the software power cap active, and the clock-event reasons seen; with --trace FILE
also every window (benchmark `sustained-trace`). The GPU model's sustained clock (issue 38) is read from these.

Usage: sustained_load.py [--out FILE] [--trace FILE] [--seconds S] [--quick]"""
import argparse
import datetime
import statistics
import subprocess
import sys
import threading
import time

from suite_csv import write_suite_csv

# (metric, nvidia-smi field, older names of the same field); nounits values.
SAMPLED = [("sm_clock_mhz", "clocks.sm", ()), ("mem_clock_mhz", "clocks.mem", ()),
           ("power_w", "power.draw", ("power.draw.instant",)), ("temperature_c", "temperature.gpu", ()),
           ("reasons", "clocks_event_reasons.active", ("clocks_throttle_reasons.active",))]
SW_POWER_CAP = 0x4  # nvidia-smi's clocks_event_reasons bit: the software power cap holds the clock down


def parse_value(text):
    """One nvidia-smi nounits field: a number (the reasons field is hexadecimal), or None for [N/A] and the like."""
    text = text.strip()
    try:
        return float(int(text, 16)) if text.lower().startswith("0x") else float(text)
    except ValueError:
        return None


def parse_timestamp(text):
    """nvidia-smi's timestamp field ("2026/12/07 00:12:34.567", local time) as seconds since the epoch, or None."""
    try:
        return datetime.datetime.strptime(text.strip(), "%Y/%m/%d %H:%M:%S.%f").timestamp()
    except ValueError:
        return None


def parse_line(line, metrics, read_at):
    """A sample line of nvidia-smi's timestamp and then `metrics`, as (time, {metric: value}): the time the line
    gives (when nvidia-smi took the sample), else `read_at`. None for a line with another field count."""
    stamp, _, rest = line.partition(",")
    sample = parse_sample(rest, metrics)
    if sample is None:
        return None
    t = parse_timestamp(stamp)
    return (read_at if t is None else t), sample


def parse_sample(line, metrics):
    """A sample line of `metrics` in order, as {metric: value}, or None when the line has another field count."""
    values = line.split(",")
    if len(values) != len(metrics):
        return None
    return {m: v for m, v in zip(metrics, map(parse_value, values)) if v is not None}


def window_means(samples, begin, end):
    """The mean of each metric over the (time, {metric: value}) samples taken in [begin, end]."""
    inside = [s for t, s in samples if begin <= t <= end]
    metrics = sorted({m for s in inside for m in s if m != "reasons"})
    means = {m: statistics.fmean(s[m] for s in inside if m in s) for m in metrics}
    reasons = [int(s["reasons"]) for s in inside if "reasons" in s]
    if reasons:
        means["power_capped_fraction"] = sum(1 for r in reasons if r & SW_POWER_CAP) / len(reasons)
        means["reasons"] = 0
        for r in reasons:
            means["reasons"] |= r
    return means


def summarize(windows, samples, seconds):
    """{"first": ..., "steady": ...}: the first window's rate and sample means, and the steady state: the median
    of every value over the windows that began in the run's second half (the last window when none did)."""
    def one(w):
        return dict(window_means(samples, w["begin"], w["end"]), rate=w["rate"])
    t0 = windows[0]["begin"]
    late = [w for w in windows if w["begin"] - t0 >= seconds / 2] or windows[-1:]
    per = [one(w) for w in late]
    steady = {}
    for m in sorted({m for p in per for m in p}):
        values = [p[m] for p in per if m in p]
        if m == "reasons":
            steady[m] = 0
            for v in values:
                steady[m] |= int(v)
        else:
            steady[m] = statistics.median(values)
    steady["windows"] = len(late)
    return {"first": one(windows[0]), "steady": steady}


# A rate metric's scale from work per second, and its unit.
RATE_UNITS = {"tflops": (1e12, "TFLOP/s"), "gbps": (1e9, "GB/s")}
# The sampled values written beside a rate, with their units (units hpcsim's reader of the suite's CSV knows).
SAMPLE_UNITS = [("sm_clock_mhz", "MHz"), ("mem_clock_mhz", "MHz"), ("power_w", "W"), ("temperature_c", "degC"),
                ("power_capped_fraction", "fraction"), ("reasons", "bitmask")]


def summary_rows(params, unit, summary):
    """The CSV rows of one workload's summary: per phase (first, steady) its rate and the sampled values."""
    scale, rate_unit = RATE_UNITS[unit]
    rows = []
    for phase in ("first", "steady"):
        values = summary[phase]
        rows.append(("sustained", f"{params};phase={phase}", unit, values["rate"] / scale, rate_unit))
        rows += [("sustained", f"{params};phase={phase}", metric, values[metric], metric_unit)
                 for metric, metric_unit in SAMPLE_UNITS if metric in values]
    return rows


def trace_rows(params, unit, windows, samples):
    """The trace CSV's rows of one workload: every window's start, rate and sampled clock, power, temperature."""
    scale, rate_unit = RATE_UNITS[unit]
    rows = []
    t0 = windows[0]["begin"]
    for i, w in enumerate(windows):
        means = window_means(samples, w["begin"], w["end"])
        wp = f"{params};window={i}"
        rows.append(("sustained-trace", wp, "t_s", w["begin"] - t0, "s"))
        rows.append(("sustained-trace", wp, unit, w["rate"] / scale, rate_unit))
        rows += [("sustained-trace", wp, metric, means[metric], metric_unit)
                 for metric, metric_unit in SAMPLE_UNITS[:4] if metric in means]
    return rows


class Sampler:
    """Samples GPU 0 every `period_s` on a thread of its own: through NVML (pynvml) where it is installed, else
    one nvidia-smi query per sample (a long-running `nvidia-smi -lms` writes to a pipe in blocks, so its last
    seconds would arrive after the workload's summary). Samples are (time.time(), {metric: value})."""

    def __init__(self, period_s=0.1):
        self.samples = []
        self.metrics = []
        self.source = None
        self._read = self._nvml_reader() or self._smi_reader()
        self._stop = threading.Event()
        if self._read:
            self.thread = threading.Thread(target=self._loop, args=(period_s,), daemon=True)
            self.thread.start()

    def _nvml_reader(self):
        try:
            import pynvml
            pynvml.nvmlInit()
            handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        except Exception:  # no pynvml, or no NVML library: nvidia-smi instead
            return None
        reasons = getattr(pynvml, "nvmlDeviceGetCurrentClocksEventReasons", None) or getattr(
            pynvml, "nvmlDeviceGetCurrentClocksThrottleReasons", None)
        readers = [("sm_clock_mhz", lambda: pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM)),
                   ("mem_clock_mhz", lambda: pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_MEM)),
                   ("power_w", lambda: pynvml.nvmlDeviceGetPowerUsage(handle) / 1000.0),
                   ("temperature_c", lambda: pynvml.nvmlDeviceGetTemperature(handle, pynvml.NVML_TEMPERATURE_GPU)),
                   ("reasons", lambda: reasons(handle))]

        def read():
            sample = {}
            for metric, get in readers:
                try:
                    sample[metric] = float(get())
                except Exception:  # a value this GPU or driver does not report
                    pass
            return time.time(), sample
        self.source = "nvml"
        self.metrics = [m for m, _ in readers]
        return read

    def _smi_reader(self):
        fields = []
        for metric, field, older in SAMPLED:
            for name in (field, *older):
                value = smi_query(name)
                if value is not None and parse_value(value) is not None:
                    self.metrics.append(metric)
                    fields.append(name)
                    break
        if not fields:
            return None
        query = ",".join(["timestamp", *fields])
        self.source = "nvidia-smi"

        def read():
            line = smi_query(query)
            return parse_line(line, self.metrics, time.time()) if line else None
        return read

    def _loop(self, period_s):
        while not self._stop.is_set():
            began = time.time()
            sample = self._read()
            if sample and sample[1]:
                self.samples.append(sample)
            self._stop.wait(max(0.0, period_s - (time.time() - began)))

    def stop(self):
        self._stop.set()
        if self._read:
            self.thread.join(timeout=10)


def smi_query(field):
    """GPU 0's value of one nvidia-smi field as text, or None (no nvidia-smi, or a field it does not know)."""
    try:
        r = subprocess.run(["nvidia-smi", "-i", "0", "--query-gpu=" + field, "--format=csv,noheader,nounits"],
                           capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = r.stdout.strip().splitlines()
    return lines[0].strip() if r.returncode == 0 and lines else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="-", help="CSV file (default: standard output)")
    parser.add_argument("--trace", help="also write every window to this CSV")
    parser.add_argument("--seconds", type=float, default=15.0, help="load per workload (default 15)")
    parser.add_argument("--quick", action="store_true", help="two workloads, 4 s each")
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        sys.exit("sustained_load.py: PyTorch is not installed")
    if not torch.cuda.is_available():
        sys.exit("sustained_load.py: no CUDA device")
    from suite_torch import gpu_fields

    torch.backends.cuda.matmul.allow_tf32 = True  # only the fp32 ("tf32") product uses it
    dev = "cuda"

    def product(precision, n):
        if precision in ("bf16", "fp16", "tf32"):
            dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "tf32": torch.float32}[precision]
            a, b = torch.randn(n, n, device=dev, dtype=dtype), torch.randn(n, n, device=dev, dtype=dtype)
            return lambda: torch.matmul(a, b)
        if precision == "int8":
            a = torch.randint(-64, 64, (n, n), device=dev, dtype=torch.int8)
            b = torch.randint(-64, 64, (n, n), device=dev, dtype=torch.int8).t()
            return lambda: torch._int_mm(a, b)
        a = torch.randn(n, n, device=dev).to(torch.float8_e4m3fn)
        b = torch.randn(n, n, device=dev).to(torch.float8_e4m3fn).t()
        one = torch.tensor(1.0, device=dev)
        return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)

    def copy(nbytes):
        src = torch.empty(nbytes // 4, device=dev, dtype=torch.float32).uniform_()
        dst = torch.empty_like(src)
        return lambda: dst.copy_(src)

    # (params, make, work per call, rate unit): work is FLOPs for products, bytes for the copy.
    n = 8192
    workloads = [(f"op=gemm;precision={p};m={n};n={n};k={n}", lambda p=p: product(p, n), 2.0 * n ** 3, "tflops")
                 for p in ("bf16", "fp16", "fp8", "tf32", "int8")]
    workloads.append(("op=gemm;precision=bf16;m=4096;n=4096;k=4096", lambda: product("bf16", 4096), 2.0 * 4096 ** 3,
                      "tflops"))
    workloads.append((f"op=copy;bytes={1 << 30}", lambda: copy(1 << 30), float(1 << 30), "gbps"))
    seconds = args.seconds
    if args.quick:
        workloads, seconds = [workloads[0], workloads[-1]], 4.0

    sampler = Sampler()
    time.sleep(1.0)  # idle samples first
    idle = window_means(sampler.samples, 0.0, time.time())
    rows, trace = [], []
    for params, make, work, unit in workloads:
        try:
            run = make()
            windows = run_windows(torch, run, work, seconds)
        except (RuntimeError, ValueError) as error:
            print(f"sustained_load.py: {params}: {str(error).splitlines()[0]}", file=sys.stderr)
            continue
        summary = summarize(windows, sampler.samples, seconds)
        rows += summary_rows(params, unit, summary)
        trace += trace_rows(params, unit, windows, sampler.samples)
        scale, rate_unit = RATE_UNITS[unit]
        steady = summary["steady"]
        print(f"{params}: first {summary['first']['rate'] / scale:.1f}, steady {steady['rate'] / scale:.1f} "
              f"{rate_unit} at {steady.get('sm_clock_mhz', float('nan')):.0f} MHz, "
              f"{steady.get('power_w', float('nan')):.0f} W", file=sys.stderr, flush=True)
        del run
        torch.cuda.empty_cache()
        time.sleep(2.0)  # a pause between workloads, so each starts from a cooler, idle GPU
    sampler.stop()

    fields = gpu_fields(*[(key, value) for key, value in (
        ("nvidia_driver", smi_query("driver_version")), ("power_limit_w", smi_query("enforced.power.limit")),
        ("power_default_limit_w", smi_query("power.default_limit")), ("sm_clock_max_mhz", smi_query("clocks.max.sm")),
        ("idle_sm_clock_mhz", f"{idle['sm_clock_mhz']:.0f}" if "sm_clock_mhz" in idle else None),
        ("idle_power_w", f"{idle['power_w']:.0f}" if "power_w" in idle else None),
        ("seconds_per_workload", f"{seconds:g}"), ("sampler", sampler.source)) if value is not None])
    write_suite_csv(args.out, fields, rows)
    if args.trace:
        write_suite_csv(args.trace, fields, trace)


def run_windows(torch, run, work, seconds, window_s=0.25):
    """Runs `run()` back to back for `seconds` in windows of about `window_s`, each a number of replays of a CUDA
    graph of calls, one window always queued behind the running one so that the GPU never idles. Returns the
    windows as {"begin", "end"} (time.time() when the window began and ended, seen from the host) and
    "rate" (work per second of the window's GPU time)."""
    from suite_torch import capture_graph
    # One call's time (after a warm-up) decides the calls per graph: about 10 ms of work per replay.
    for _ in range(3):
        run()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    run()
    stop.record()
    stop.synchronize()
    call_s = max(start.elapsed_time(stop) / 1000.0, 1e-6)
    calls = int(min(1000, max(1, round(0.01 / call_s))))
    graph = capture_graph(run, calls)
    replays = int(max(1, round(window_s / (call_s * calls))))

    def enqueue():
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        begin.record()
        for _ in range(replays):
            graph.replay()
        end.record()
        return begin, end

    windows = []
    t0 = time.time()
    host_begin = t0
    pending = enqueue()
    while True:
        following = enqueue() if time.time() - t0 < seconds else None
        pending[1].synchronize()
        now = time.time()
        gpu_s = pending[0].elapsed_time(pending[1]) / 1000.0
        windows.append({"begin": host_begin, "end": now, "rate": work * calls * replays / gpu_s})
        host_begin = now
        if following is None:
            break
        pending = following
    return windows


if __name__ == "__main__":
    main()
