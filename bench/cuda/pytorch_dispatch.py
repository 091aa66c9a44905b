#!/usr/bin/env python3
"""Host-side cost of PyTorch eager calls, the number behind a framework profile's `eager.dispatch`
(configs/frameworks/pytorch*.yaml). Writes hpcsim-cuda-bench's CSV format (benchmark `dispatch`), so
`hpcsim validate --measured` reads it beside the suite's rows.

Each row is the median over trials of the host time per call of a loop of calls on tiny tensors (the GPU,
when there is one, keeps up, so the loop measures what the host spends per call). On CUDA this is the
whole dispatch (Python, dispatcher, autograd recording, the launch); with --device cpu it is everything but
the launch, a lower bound.

Usage: pytorch_dispatch.py [--device cuda|cpu] [--out FILE] [--quick]"""
import argparse
import platform
import statistics
import sys
import time

from suite_csv import write_suite_csv

try:
    import torch
except ImportError:
    sys.exit("pytorch_dispatch.py: PyTorch is not installed")


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def timed(run, calls, trials, sync):
    """Median host microseconds per call of `run(calls)` over `trials`, after a warm-up."""
    run(calls)
    sync()
    per_call = []
    for _ in range(trials):
        sync()
        start = time.perf_counter()
        run(calls)
        per_call.append((time.perf_counter() - start) / calls * 1e6)
    sync()
    return statistics.median(per_call)


class AddOne(torch.autograd.Function):
    """The smallest Python autograd Function: its cost over a plain add is the Function machinery."""

    @staticmethod
    def forward(ctx, x):
        return x + 1

    @staticmethod
    def backward(ctx, grad):
        return grad


class AddOneModule(torch.nn.Module):
    def forward(self, x):
        return x + 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--out", default="-")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("pytorch_dispatch.py: no CUDA device (use --device cpu for the host part alone)")
    dev = torch.device(args.device)
    sync = torch.cuda.synchronize if args.device == "cuda" else (lambda: None)
    calls, trials = (500, 5) if args.quick else (2000, 9)

    x = torch.ones(16, device=dev)
    xg = torch.ones(16, device=dev, requires_grad=True)
    z = torch.ones(16, device=dev)
    linear = torch.nn.Linear(16, 16).to(dev)
    module = AddOneModule().to(dev)
    rows = []

    def loop(f):
        def run(n):
            for _ in range(n):
                f()
        return run

    rows.append(("call=mul_scalar;grad=0", timed(loop(lambda: x * 2.0), calls, trials, sync)))
    rows.append(("call=mul_scalar;grad=1", timed(loop(lambda: xg * 2.0), calls, trials, sync)))
    rows.append(("call=add;grad=1", timed(loop(lambda: xg + z), calls, trials, sync)))
    rows.append(("call=view;grad=1", timed(loop(lambda: xg.view(4, 4)), calls, trials, sync)))
    rows.append(("call=nn_linear;grad=1", timed(loop(lambda: linear(xg)), calls, trials, sync)))
    rows.append(("call=module_add;grad=1", timed(loop(lambda: module(xg)), calls, trials, sync)))
    rows.append(("call=autograd_function;grad=1", timed(loop(lambda: AddOne.apply(xg)), calls, trials, sync)))

    def scoped():
        with torch.autograd.profiler.record_function("scope"):
            return xg + 1
    rows.append(("call=record_function_add;grad=1", timed(loop(scoped), calls, trials, sync)))

    # The autograd engine's cost per backward op: a chain of multiplies (one backward kernel each) timed with
    # and without its backward; the difference over the chain length.
    chain = 200 if args.quick else 500

    def backward_chain(n_chains):
        for _ in range(n_chains):
            y = xg
            for _ in range(chain):
                y = y * 1.0001
            y.sum().backward()

    def forward_chain(n_chains):
        for _ in range(n_chains):
            y = xg
            for _ in range(chain):
                y = y * 1.0001
            y.sum()
    reps = 4 if args.quick else 10
    with_backward = timed(backward_chain, reps, trials, sync) / chain  # timed() is per chain
    without = timed(forward_chain, reps, trials, sync) / chain
    rows.append((f"call=backward_op;ops={chain}", max(with_backward - without, 0.0)))

    def item():
        sync()
        return float(x[0].item())
    rows.append(("call=item_sync", timed(loop(item), calls // 10, trials, sync)))

    params = [torch.nn.Parameter(torch.ones(16, device=dev)) for _ in range(100)]
    for p in params:
        p.grad = torch.ones_like(p)
    adam = torch.optim.Adam(params, lr=1e-3)
    rows.append((f"call=adam_step_per_tensor;tensors={len(params)}",
                 timed(lambda n: [adam.step() for _ in range(n)], 20 if args.quick else 50, trials, sync) / len(params)))

    fields = []
    if args.device == "cuda":
        props = torch.cuda.get_device_properties(0)
        fields += [("gpu", props.name), ("compute_capability", f"{props.major}.{props.minor}"),
                   ("sm_count", props.multi_processor_count), ("cuda_runtime", torch.version.cuda)]
    fields += [("torch", torch.__version__), ("python", platform.python_version()), ("cpu", cpu_model()),
               ("device", args.device)]
    write_suite_csv(args.out, fields, [("dispatch", f"framework=pytorch;{params_text};device={args.device}", "host_us",
                                        value, "us") for params_text, value in rows])


if __name__ == "__main__":
    main()
