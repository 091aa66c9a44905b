#!/usr/bin/env python3
"""Fused attention's speed through PyTorch's scaled_dot_product_attention, for each fused backend PyTorch has
(flash, cuDNN, memory-efficient), fp16 and bf16, head dimension 64 and 128, 512 to 16,384 tokens, non-causal
and causal, forward and forward plus backward: the fused attention kernel hpcsim's GPU model times
(models/gpu/ops/attention). The shapes are FlashAttention-2's and -3's benchmark convention: 16,384 tokens in
all (batch = 16,384 / tokens) and 2,048 hidden (heads = 2,048 / head dimension). Writes hpcsim-cuda-bench's CSV
(benchmark `attention-sdpa`, metrics `time_us` and `tflops`; a causal pass counts half the FLOPs).

Each row is the median over trials of CUDA-event time per call of a loop of calls.

Usage: attention_sdpa.py [--out FILE] [--quick]"""
import argparse
import sys

from suite_csv import write_suite_csv

try:
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
except ImportError:
    sys.exit("attention_sdpa.py: PyTorch 2.3 or later is not installed")
from suite_torch import gpu_fields, loop_us

TOTAL_TOKENS = 16384
HIDDEN = 2048


def measure(backend, dtype, head_dim, seq, causal, backward, trials):
    batch, heads = TOTAL_TOKENS // seq, HIDDEN // head_dim
    shape = (batch, heads, seq, head_dim)
    q, k, v = (torch.randn(shape, device="cuda", dtype=dtype, requires_grad=backward) for _ in range(3))
    grad = torch.randn(shape, device="cuda", dtype=dtype) if backward else None

    def forward():
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

    def forward_backward():
        q.grad = k.grad = v.grad = None
        forward().backward(grad)

    run = forward_backward if backward else forward
    with sdpa_kernel([backend]):
        calls = max(4, 40960 // seq)  # about as long a loop at every length: the work grows with seq
        if backward:
            us = loop_us(run, max(2, calls // 2), trials)
        else:
            with torch.inference_mode():
                us = loop_us(run, calls, trials)
    flops = 4.0 * batch * heads * seq * seq * head_dim * (3.5 if backward else 1.0) * (0.5 if causal else 1.0)
    return us, flops / (us * 1e-6) / 1e12


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="-", help="CSV file (default: standard output)")
    parser.add_argument("--quick", action="store_true", help="fewer shapes and trials")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("attention_sdpa.py: no CUDA device")
    backends = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
                "efficient": SDPBackend.EFFICIENT_ATTENTION}
    dtypes = {"fp16": torch.float16, "bf16": torch.bfloat16}
    seqs = [1024, 4096] if args.quick else [512, 1024, 2048, 4096, 8192, 16384]
    trials = 3 if args.quick else 5
    rows = []
    for backward in (False, True):
        for causal in (False, True):
            for backend_name, backend in backends.items():
                for dtype_name, dtype in dtypes.items():
                    for head_dim in (64, 128):
                        for seq in seqs:
                            params = (f"backend={backend_name};dtype={dtype_name};head_dim={head_dim};seq={seq};"
                                      f"batch={TOTAL_TOKENS // seq};heads={HIDDEN // head_dim};"
                                      f"causal={int(causal)};pass={'fwd_bwd' if backward else 'fwd'}")
                            try:
                                us, tflops = measure(backend, dtype, head_dim, seq, causal, backward, trials)
                            except RuntimeError as error:  # a backend that does not take this shape or dtype
                                print(f"attention_sdpa.py: {params}: {str(error).splitlines()[0]}", file=sys.stderr)
                                continue
                            print(f"{params}: {us:.1f} us, {tflops:.1f} TFLOP/s", file=sys.stderr, flush=True)
                            rows.append(("attention-sdpa", params, "time_us", us, "us"))
                            rows.append(("attention-sdpa", params, "tflops", tflops, "TFLOP/s"))

    fields = gpu_fields()
    write_suite_csv(args.out, fields, rows)


if __name__ == "__main__":
    main()
