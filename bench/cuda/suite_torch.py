"""What the suite's PyTorch GPU scripts share: CUDA-event timing of a loop of calls or of a CUDA graph's replay,
and the header fields naming the GPU and the software that ran. Imported after the script has imported torch."""
import platform
import statistics

import torch


def loop_us(run, calls, trials):
    """Median microseconds per call of `run()` repeated `calls` times, over `trials`, after a warm-up. A call
    shorter than PyTorch's host cost per call (10-25 us) is measured at the host's rate: use graph_us."""
    for _ in range(3):
        run()
    torch.cuda.synchronize()
    return _median_per_call(lambda: [run() for _ in range(calls)], calls, trials)


def capture_graph(run, calls):
    """A CUDA graph holding `calls` calls of `run()`, captured after a warm-up on a side stream (as capture
    needs) and replayed once."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            run()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            run()
    graph.replay()
    torch.cuda.synchronize()
    return graph


def graph_us(run, calls, trials):
    """Median microseconds per call of `run()` over `trials` replays of a CUDA graph holding `calls` calls:
    the kernels' GPU time, no host cost."""
    return _median_per_call(capture_graph(run, calls).replay, calls, trials)


def _median_per_call(batch, calls, trials):
    times = []
    for _ in range(trials):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        batch()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1000.0 / calls)
    return statistics.median(times)


def gpu_fields(*extra):
    """Header fields: the GPU, CUDA runtime, cuDNN, PyTorch and Python versions, then `extra` (key, value) pairs."""
    props = torch.cuda.get_device_properties(0)
    return [("gpu", props.name), ("compute_capability", f"{props.major}.{props.minor}"),
            ("sm_count", props.multi_processor_count), ("cuda_runtime", torch.version.cuda),
            ("cudnn", torch.backends.cudnn.version()), ("torch", torch.__version__), *extra,
            ("python", platform.python_version())]
