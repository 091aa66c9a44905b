#!/usr/bin/env python3
"""GPU time of one ResNet-50 forward pass (torchvision, random weights, eval, channels-last) at several
batches, eager and replayed from a CUDA graph: the batch-latency curve `hpcsim serve` predicts for a GPU
replica (workloads/inference), small batches included, where each kernel is short. Writes hpcsim-cuda-bench's
CSV format (benchmark `resnet50-inference`, metric `batch_us`), so `hpcsim validate --measured` reads it.

Each row is the median over trials of CUDA-event time per forward pass of a loop of passes on one input.

Usage: resnet50_inference.py [--out FILE] [--quick]"""
import argparse
import sys

from suite_csv import write_suite_csv

try:
    import torch
    import torchvision
except ImportError:
    sys.exit("resnet50_inference.py: PyTorch with torchvision is not installed")
from suite_torch import gpu_fields, loop_us


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="-", help="CSV file (default: standard output)")
    parser.add_argument("--quick", action="store_true", help="fewer batches and trials")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("resnet50_inference.py: no CUDA device")
    torch.backends.cudnn.benchmark = True  # cuDNN picks each convolution's algorithm for the shape, as serving does
    model = torchvision.models.resnet50().cuda().half().eval().to(memory_format=torch.channels_last)
    batches = [1, 8, 64] if args.quick else [1, 2, 4, 8, 16, 32, 64, 128]
    trials = 3 if args.quick else 7
    rows = []
    with torch.inference_mode():
        for batch in batches:
            x = torch.randn(batch, 3, 224, 224, device="cuda", dtype=torch.half).to(memory_format=torch.channels_last)
            passes = max(5, 2000 // batch)
            rows.append((f"batch={batch};mode=eager;dtype=fp16", loop_us(lambda: model(x), passes, trials)))
            graph = torch.cuda.CUDAGraph()
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):  # warm-up on a side stream before capture, as the CUDA graphs docs ask
                for _ in range(3):
                    model(x)
            torch.cuda.current_stream().wait_stream(side)
            with torch.cuda.graph(graph):
                model(x)
            rows.append((f"batch={batch};mode=graph;dtype=fp16", loop_us(graph.replay, passes, trials)))

    fields = gpu_fields(("torchvision", torchvision.__version__))
    write_suite_csv(args.out, fields, [("resnet50-inference", params, "batch_us", value, "us") for params, value in rows])


if __name__ == "__main__":
    main()
