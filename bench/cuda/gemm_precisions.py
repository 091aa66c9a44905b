#!/usr/bin/env python3
"""Matrix-product speed by precision through PyTorch: fp16 and bf16 (torch.matmul), int8 with int32 results
(torch._int_mm) and fp8 e4m3 with bf16 results (torch._scaled_mm), at BERT-large's layer shapes over a range of
token counts (the GEMMs `hpcsim serve` times for BERT inference: 1,024 hidden, 4,096 feed-forward) and at a
square 8,192 for the peak. Writes hpcsim-cuda-bench's CSV (benchmark `gemm-precisions`, metrics `time_us` and
`tflops`, counting 2*M*N*K operations); `hpcsim kernel gemm` predicts the same products.

Each row is the median over trials of CUDA-event time per call over a replayed CUDA graph of calls.

Usage: gemm_precisions.py [--out FILE] [--quick]"""
import argparse
import sys

from suite_csv import write_suite_csv

try:
    import torch
except ImportError:
    sys.exit("gemm_precisions.py: PyTorch is not installed")
from suite_torch import gpu_fields, graph_us


def product(precision, m, n, k):
    """A zero-argument function computing one (m x k) by (k x n) product in `precision`."""
    dev = "cuda"
    if precision in ("fp16", "bf16"):
        dtype = torch.float16 if precision == "fp16" else torch.bfloat16
        a, b = torch.randn(m, k, device=dev, dtype=dtype), torch.randn(k, n, device=dev, dtype=dtype)
        return lambda: torch.matmul(a, b)
    if precision == "int8":
        a = torch.randint(-64, 64, (m, k), device=dev, dtype=torch.int8)
        b = torch.randint(-64, 64, (n, k), device=dev, dtype=torch.int8).t()  # column-major, as cuBLASLt takes it
        return lambda: torch._int_mm(a, b)
    if precision == "fp8":
        a = torch.randn(m, k, device=dev).to(torch.float8_e4m3fn)
        b = torch.randn(n, k, device=dev).to(torch.float8_e4m3fn).t()
        one = torch.tensor(1.0, device=dev)
        return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    raise ValueError(precision)


def kernel_names(run):
    """The GPU kernels one call of `run()` launches, by PyTorch's profiler (cuBLAS's names carry the tile and
    whether K is split)."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        run()
        torch.cuda.synchronize()
    return [e.key for e in prof.key_averages() if e.device_type.name == "CUDA"] or ["(none recorded)"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="-", help="CSV file (default: standard output)")
    parser.add_argument("--quick", action="store_true", help="fewer shapes and trials")
    parser.add_argument("--small", action="store_true",
                        help="instead: small products (64-512 rows, K 256-8192, fp16 and bf16), each with the names of "
                             "the kernels cuBLAS ran for it (PyTorch's profiler) on standard error")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("gemm_precisions.py: no CUDA device")
    tokens = [384, 3072] if args.quick else [128, 384, 1536, 3072, 12288, 49152]
    layer = [(3072, 1024), (1024, 1024), (4096, 1024), (1024, 4096)]  # (n, k): QKV, output, FFN up, FFN down
    shapes = [(m, n, k) for m in tokens for n, k in layer] + [(8192, 8192, 8192)]
    precisions = ("fp16", "bf16", "int8", "fp8")
    if args.small:  # rows of a serving batch: where each product is a few microseconds
        shapes = [(m, n, k) for m in (64, 128, 256, 512) for n in (1024, 4096) for k in (256, 1024, 4096, 8192)]
        precisions = ("fp16", "bf16")
    # K swept under a fixed 16,384 x 4,096 output: time against K is the main loop's slope plus what each
    # output tile costs whatever K is (its first operands' wait, storing it), the intercept.
    shapes += [] if args.quick or args.small else [(16384, 4096, k) for k in (128, 256, 512, 2048, 4096)]
    trials = 3 if args.quick else 5
    rows = []
    for precision in precisions:
        for m, n, k in shapes:
            params = f"precision={precision};m={m};n={n};k={k}"
            try:
                run = product(precision, m, n, k)
                flops = 2.0 * m * n * k
                calls = int(min(200, max(5, 2e11 / flops)))
                us = graph_us(run, calls, trials)
            except (RuntimeError, ValueError) as error:
                print(f"gemm_precisions.py: {params}: {str(error).splitlines()[0]}", file=sys.stderr)
                continue
            print(f"{params}: {us:.2f} us, {flops / us / 1e6:.1f} TFLOP/s", file=sys.stderr, flush=True)
            if args.small:
                try:
                    names = "; ".join(kernel_names(run))
                except Exception as error:  # the profiler is a report, not the measurement
                    names = f"(profiler failed: {error})"
                print(f"  kernels: {names}", file=sys.stderr, flush=True)
            rows.append(("gemm-precisions", params, "time_us", us, "us"))
            rows.append(("gemm-precisions", params, "tflops", flops / us / 1e6, "TFLOP/s"))

    fields = gpu_fields(("blas", str(torch.backends.cuda.preferred_blas_library())))
    write_suite_csv(args.out, fields, rows)


if __name__ == "__main__":
    main()
