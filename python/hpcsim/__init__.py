"""hpcsim: a discrete-event simulator of HPC clusters and GPUs, from Python.

Each function is the `hpcsim` command of the same name with ``--format json``: it calls the same driver
functions and returns the same JSON, parsed (a dict, or a pandas DataFrame for a sweep). So

    >>> import hpcsim
    >>> hpcsim.run("examples/quickstart.yaml")["step_time_s"]

equals the ``step_time_s`` of ``hpcsim run examples/quickstart.yaml --format json --no-db``.

A scenario is a file path, YAML text or a dict (the YAML's tree). ``--set KEY=VALUE`` overrides are keyword
arguments: ``hpcsim.run(s, **{"cluster.nodes": 4})``, or with ``__`` for the dots: ``cluster__nodes=4``.

Bad input raises ``hpcsim.InputError`` (a subclass of ``hpcsim.Error``) whose message starts with
``file:line:column`` where the input has a place, as the CLI prints it (exit code 2); ``e.file``, ``e.line``
and ``e.column`` hold the place. Simulations release the GIL, so threads can run several at once.
Notes and warnings the CLI prints on stderr are issued as ``hpcsim.SimulationWarning`` (warnings module).

docs/python.md has the whole API with examples; examples/notebooks/ has teaching notebooks.
"""

import contextlib
import json as _json
import os
import tempfile
import warnings as _warnings

from . import _hpcsim

Error = _hpcsim.Error
InputError = _hpcsim.InputError
StoreError = _hpcsim.StoreError
__version__ = _hpcsim.version

__all__ = ["run", "sweep", "serve", "schedule", "plan", "replay", "read_dataset", "io500", "checkpoint", "file_reads",
           "mlperf_storage", "kernel", "occupancy", "collective", "microbench", "list", "Error", "InputError", "StoreError", "SimulationWarning"]

_TEXT_LABEL = "<scenario text>"
_list = list  # `list` below is hpcsim.list


class SimulationWarning(UserWarning):
    """A note or warning the CLI prints on stderr (a layout that leaves GPUs idle, a step out of memory)."""


def _yaml_value(value):
    """A --set value as text: booleans as YAML writes them, lists and dicts as flow YAML (JSON)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (_list, tuple, dict)):
        return _json.dumps(value)
    return str(value)


def _sets(overrides):
    """{"cluster.nodes": 4, "workload__batch_per_gpu": 8} -> ["cluster.nodes=4", "workload.batch_per_gpu=8"]."""
    return [f"{key.replace('__', '.')}={_yaml_value(value)}" for key, value in overrides.items()]


@contextlib.contextmanager
def _scenario_file(scenario, stem="scenario"):
    """The path of `scenario`: a path as given; YAML text or a dict written to a temporary file first (so a
    file it names, `extends:` or a model file, needs an absolute path). Errors in the text name it
    '<scenario text>' instead of the temporary file."""
    if isinstance(scenario, os.PathLike) or (isinstance(scenario, str) and "\n" not in scenario
                                              and not scenario.lstrip().startswith("{")
                                              and ": " not in scenario):
        yield os.fspath(scenario)
        return
    if isinstance(scenario, dict):
        text = _json.dumps(scenario, indent=1)  # JSON is YAML's flow style
    elif isinstance(scenario, str):
        text = scenario
    else:
        raise TypeError(f"a scenario is a path, YAML text or a dict, not {type(scenario).__name__}")
    with tempfile.TemporaryDirectory(prefix="hpcsim-") as d:
        path = os.path.join(d, stem + ".yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            yield path
        except Error as e:
            if path in str(e):
                relabelled = type(e)(str(e).replace(path, _TEXT_LABEL))
                relabelled.file = str(getattr(e, "file", "")).replace(path, _TEXT_LABEL)
                relabelled.line = getattr(e, "line", 0)
                relabelled.column = getattr(e, "column", 0)
                raise relabelled from None
            raise


def _warn(messages):
    for message in messages:
        _warnings.warn(message, SimulationWarning, stacklevel=4)  # the caller of run(), sweep(), ...


def _parsed(result):
    text, notes, warnings = result
    _warn(notes)
    value = _json.loads(text)
    _warn(warnings)
    return value


def run(scenario, *, exact=False, **set):
    """Simulate a scenario once, as ``hpcsim run SCENARIO --format json --no-db``; returns its report (dict).

    scenario: a path to a scenario YAML file (kind training, serve or mpi), YAML text, or a dict.
    exact: simulate every data-parallel group in full (``--exact``; same answer, slower).
    **set: overrides, as ``--set KEY=VALUE``: ``run(s, **{"cluster.nodes": 4})`` or ``run(s, cluster__nodes=4)``.

    The dict has the CLI's JSON keys, nested as the JSON is: for training ``scenario``, ``step_time_s``,
    ``throughput`` ({``samples_per_s``, ``tokens_per_s``, ...}), ``breakdown_s`` ({``compute``,
    ``communication_exposed``, ...}), ``memory_per_gpu_bytes``, ``fits_in_memory``, ...; a serve or mpi
    scenario's keys likewise. Raises hpcsim.InputError ('file:line:column: message') for a bad scenario.

    >>> r = run("examples/quickstart.yaml", **{"cluster.network": "eth-100g-tcp"})
    >>> r["step_time_s"], r["throughput"]["samples_per_s"]
    """
    with _scenario_file(scenario) as path:
        return _parsed(_hpcsim.run(path, _sets(set), exact))


def serve(scenario, *, sweep_load=None, target_p99=None, max_replicas=1024, max_rate_within=None, **set):
    """Simulate an inference endpoint (a kind: serve scenario), as ``hpcsim serve ... --format json --no-db``.

    sweep_load: request rates (per second) to run the endpoint at too (``--sweep-load``): the latency-vs-load curve.
    target_p99: seconds; find the fewest replicas (up to max_replicas) whose p99 latency meets it (``--target-p99``).
    max_rate_within: seconds; the highest rate whose p99 stays within it (``--max-rate-within p99=T``).
    **set: overrides as in run(). A target no count meets is a SimulationWarning ("cannot meet the target").

    >>> serve("examples/serving/roberta-g5.yaml", sweep_load=[50, 100, 200])
    """
    rates = [float(r) for r in (sweep_load or [])]
    with _scenario_file(scenario) as path:
        return _parsed(_hpcsim.serve(path, _sets(set), rates, float(target_p99 or 0), int(max_replicas),
                                     float(max_rate_within or 0)))


def _vary_text(key, values):
    if isinstance(values, str):  # "1..64x2", "ib-hdr,roce-100g"
        return f"{key}={values}"
    return f"{key}=" + ",".join(_yaml_value(v) for v in values)


def _number(text):
    for kind in (int, float):
        try:
            return kind(text)
        except (TypeError, ValueError):
            pass
    return text


def sweep(scenario, vary, db=None):
    """Run a training, serve or mpi scenario at every combination of the varied keys, as
    ``hpcsim sweep SCENARIO --vary ... --format json``.

    vary: {key: values}; values a list (``["ib-hdr", "roce-100g"]``, ``[1, 2, 4]``) or the CLI's text
          (``"1..64x2"``, ``"8..32+8"``, ``"a,b"``); the first key varies slowest.
    db: the SQLite results store to keep the points in (a sweep started again resumes); None: a temporary one.

    Returns a pandas DataFrame, one row per point: ``index``, one column per varied key (numbers where the
    values are numbers), ``status`` ("ok", "oom", "error"), ``run_id``, ``message`` and every metric as the
    store flattens it (``step_time_s``, ``throughput.samples_per_s``, ``breakdown_s.compute``, ...).

    >>> df = sweep("examples/quickstart.yaml", vary={"cluster.network": ["ib-hdr", "eth-100g-tcp"],
    ...                                               "cluster.nodes": "1..16x2"})
    >>> df.pivot(index="cluster.nodes", columns="cluster.network", values="throughput.samples_per_s")
    """
    import pandas

    axes = [_vary_text(key.replace("__", "."), values) for key, values in vary.items()]
    with contextlib.ExitStack() as stack:
        if db is None:
            d = stack.enter_context(tempfile.TemporaryDirectory(prefix="hpcsim-sweep-"))
            db = os.path.join(d, "sweep.db")
        path = stack.enter_context(_scenario_file(scenario))
        result = _parsed(_hpcsim.sweep(path, axes, os.fspath(db)))
    rows = []
    for point in result["points"]:
        row = {"index": point["index"]}
        row.update({key: _number(value) for key, value in point["values"].items()})
        row.update({key: point.get(key) for key in ("status", "run_id", "message")})
        row.update(point.get("metrics") or {})
        rows.append(row)
    frame = pandas.DataFrame(rows)
    frame.attrs["study_id"] = result.get("study_id")
    frame.attrs["summary"] = result.get("summary")
    return frame


def schedule(jobs, *, policy, cluster=None, nodes=None, max_jobs=0, cores_per_node=0):
    """Run a batch queue over a job list (YAML) or an SWF trace, as ``hpcsim schedule ... --format json --no-db``.

    policy: "fcfs", "easy", "conservative" or "priority". The machine: cluster (a YAML file with a cluster:
    section; its training jobs are timed on it) or nodes (a count). max_jobs, cores_per_node as the flags.
    Returns {"jobs": [...], "summary": {...}}.

    >>> schedule("examples/scheduling/jobs.yaml", cluster="examples/scheduling/cluster-ib.yaml", policy="easy")
    """
    with _scenario_file(jobs, "jobs") as path:
        result = _hpcsim.schedule(path, os.fspath(cluster) if cluster else "", nodes, policy, int(max_jobs),
                                  int(cores_per_node))
        return _parsed(result)


def plan(plan_file, *, screen_only=False, **set):
    """Capacity planning (a kind: plan file), as ``hpcsim plan PLAN --format json --no-db``.

    screen_only: rank by the analytical screen alone (``--screen-only``). **set: overrides as in run().
    Returns the plan's JSON: the cheapest configurations meeting the constraints and the Pareto front.

    >>> plan("examples/capacity-plan/plan.yaml", **{"constraints.budget": "5e6 USD"})
    """
    with _scenario_file(plan_file, "plan") as path:
        return _parsed(_hpcsim.plan(path, _sets(set), bool(screen_only)))


def replay(trace, *, platform, np=None, ranks_per_node=None, oversubscribe=False, hostfile=None, model=None,
           collectives=None, coll=None, eager=None, critical_path=False):
    """Replay a SimGrid time-independent MPI trace on a platform, as ``hpcsim replay TRACE --platform P --format json
    --no-db``.

    trace: a trace file (``<rank> <action> <args>`` lines) or a description file (one trace per rank).
    platform: a SimGrid XML platform, or an hpcsim YAML file with a cluster: section. np: the rank count (checked
    against the trace); ranks_per_node, oversubscribe: YAML clusters' placement; hostfile: SimGrid platforms' host
    order. model: "smpi" or "mpi"; collectives: "smpi" or "ompi" (Open MPI's rules); coll: forced algorithms,
    {"allreduce": "ring", ...}; eager: the mpi model's eager threshold (bytes, or text: "64KiB"); critical_path:
    follow the critical path. Returns the replay's JSON: "time_s", "ranks" (each rank's compute, communication
    and waiting), "critical_path" where followed, ...

    >>> replay("examples/hpc/halo-16ranks.txt", platform="examples/hpc/stencil-3d-epyc.yaml", ranks_per_node=4)["time_s"]
    """
    r = _hpcsim.ReplayRequest()
    r.trace = os.fspath(trace)
    r.platform = os.fspath(platform)
    r.hostfile = os.fspath(hostfile) if hostfile else ""
    r.ranks = np
    r.ranks_per_node = ranks_per_node
    r.oversubscribe = bool(oversubscribe)
    r.model = model or ""
    r.selector = collectives or ""
    r.coll = [f"{op}={algorithm}" for op, algorithm in (coll or {}).items()]
    r.critical_path = bool(critical_path)
    return _json.loads(_hpcsim.replay(r, "" if eager is None else str(eager)))


def _io_flags(**given):
    """hpcsim io's flags; counts checked as the CLI checks them (at least 1), texts passed as given."""
    f = _hpcsim.IoFlags()
    for key, value in given.items():
        if value is None:
            continue
        if key in ("samples", "readers", "nodes", "stripe_count", "clients", "procs", "accelerators", "read_threads",
                   "host_cores"):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InputError(f"{key}: must be a whole number of at least 1, got {value!r}")
        elif key == "op" and value not in ("read", "write"):
            raise InputError(f"op: must be read or write, got {value!r}")
        elif key == "workload" and value not in ("unet3d", "resnet50", "cosmoflow"):
            raise InputError(f"workload: must be unet3d, resnet50 or cosmoflow, got {value!r}")
        elif key == "accelerator" and value not in ("h100", "a100"):
            raise InputError(f"accelerator: must be h100 or a100, got {value!r}")
        else:
            value = str(value) if key in ("sample_size", "bytes_per_proc", "host_clock") else value
        setattr(f, key, value)
    return f


def read_dataset(storage, *, samples, sample_size, readers=1, nodes=1, op="read", stripe_count=None):
    """Read (or write) a dataset of equal samples from a storage system, as ``hpcsim io --storage S --samples N
    --sample-size B ... --format json``.

    storage: a storage spec (configs/storage); sample_size: bytes, or text with a unit ("110KiB"); readers
    concurrent readers on nodes client nodes; stripe_count: a parallel file system's targets per file.
    Returns "time_s", "throughput" (samples and bytes per second), "bottleneck", "utilisation", ...

    >>> read_dataset("lustre-flash", samples=10000, sample_size="110KiB", readers=64)["throughput"]
    """
    flags = _io_flags(storage=storage, samples=samples, sample_size=sample_size, readers=readers, nodes=nodes, op=op,
                      stripe_count=stripe_count)
    return _json.loads(_hpcsim.io(flags, "dataset"))


def io500(filesystem, *, clients=1, procs=None):
    """The IO500 phases (ior easy and hard, mdtest easy and hard) on a file system described as hardware, as
    ``hpcsim io --io500 --filesystem F --clients C [--procs P] --format json``.

    filesystem: a spec in configs/filesystems; procs: processes in all, block-placed (default one per client).
    Returns "phases": [{"phase", "bytes_per_s" or "ops_per_s", "bottleneck", "utilisation"}, ...].

    >>> io500("lustre-hdd-edr", clients=10)["phases"][0]
    """
    return _json.loads(_hpcsim.io(_io_flags(filesystem=filesystem, clients=clients, procs=procs), "io500"))


def checkpoint(filesystem, *, bytes_per_proc, clients=1, procs=None, op="write"):
    """A checkpoint written (op="read": read back) by every process to a file system, as ``hpcsim io --checkpoint
    --filesystem F --bytes-per-proc B --clients C [--procs P] --format json``.

    bytes_per_proc: each process's file (bytes, or text: "5.54GB"). Returns "time_s", "bytes_per_s",
    "bottleneck" (the slowest stage sets the rate) and each stage's "utilisation".

    >>> checkpoint("lustre-hdd-edr", bytes_per_proc="5.54GB", clients=64, procs=512)["time_s"]
    """
    flags = _io_flags(filesystem=filesystem, bytes_per_proc=bytes_per_proc, clients=clients, procs=procs, op=op)
    return _json.loads(_hpcsim.io(flags, "checkpoint"))


def file_reads(filesystem, *, file_size, clients=1, procs=None):
    """Readers that each read whole files one after another (a data loader's workers), as ``hpcsim io --files
    --filesystem F --sample-size B --clients C [--procs P] --format json``.

    file_size: the bytes of one file (or text: "110KB"). Returns "bytes_per_s", "files_per_s", "bottleneck",
    "open_bytes_per_s" (what the metadata servers' opens allow) and each stage's "utilisation".

    >>> file_reads("lustre-hdd-edr", file_size="110KB", clients=8, procs=64)["files_per_s"]
    """
    flags = _io_flags(filesystem=filesystem, sample_size=file_size, clients=clients, procs=procs)
    return _json.loads(_hpcsim.io(flags, "files"))


def mlperf_storage(filesystem, *, workload, accelerator="h100", clients=1, accelerators=None, read_threads=None,
                   host_cores=None, host_clock=None):
    """An MLPerf Storage workload (DLIO's emulated accelerators) on a file system, as ``hpcsim io --mlperf
    --filesystem F --workload W --clients C ... --format json``.

    workload: unet3d, resnet50 or cosmoflow; accelerator: h100 or a100; clients: hosts; accelerators: the count
    to run (default the largest at the workload's AU threshold); read_threads per accelerator; host_cores and
    host_clock ("2.1GHz"): the hosts' reader cores. Returns "max_accelerators", "au", "throughput_MiBps",
    "bottleneck", ...

    >>> mlperf_storage("lustre-hdd-edr", workload="resnet50", clients=4)["max_accelerators"]
    """
    flags = _io_flags(filesystem=filesystem, workload=workload, accelerator=accelerator, clients=clients,
                      accelerators=accelerators, read_threads=read_threads, host_cores=host_cores, host_clock=host_clock)
    return _json.loads(_hpcsim.io(flags, "mlperf"))


def kernel(gpu, op, *, dtype="bf16", explain=False, **shape):
    """Time one GPU op with the analytical kernel model, as ``hpcsim kernel --gpu GPU OP --FLAG V ... --format json``.

    op: gemm, copy, lstm, gru, conv, softmax, layernorm, attention, optimizer, embedding or elementwise.
    **shape: the op's flags without dashes ("-" as "_"): gemm m, n, k, batch; copy bytes ("1GiB");
    lstm/gru hidden, batch, steps, input, train; conv batch, c, h, w, k, r, s, stride, pad, pass;
    softmax/layernorm rows, cols, backward; attention batch, heads, seq, head_dim, causal, unfused;
    optimizer params, tensors, kind, impl; embedding lookups, dim, vocab, backward;
    elementwise elements, ops, inputs, fused.
    explain: add each kernel's explanation (occupancy, waves, traffic, roofline, WarpSim cycles).

    >>> kernel("h100-sxm5-80gb", "gemm", m=8192, n=8192, k=8192)["time_s"]
    """
    s = _hpcsim.KernelOpShape()
    if op not in _hpcsim.kernel_op_names():
        raise InputError(f"unknown op '{op}' (known: {' '.join(_hpcsim.kernel_op_names())})")
    for key, value in shape.items():
        if not isinstance(value, bool) and key not in ("bytes", "pass", "kind", "impl", "pad"):
            try:
                positive = float(value) > 0
            except (TypeError, ValueError):
                positive = False
            if not positive:
                raise InputError(f"kernel {op}: {key} must be a positive number, got {value!r}")
        s.set(op, key, value)
    return _json.loads(_hpcsim.kernel(gpu, op, dtype, bool(explain), s))


def occupancy(gpu=None, *, threads, regs, smem=0, cc=None):
    """Theoretical occupancy of a kernel launch (CUDA rules), as ``hpcsim occupancy ... --format json``.

    gpu: a GPU spec name, or cc: a compute capability ("8.0"); threads per block, regs per thread,
    smem: shared memory per block (bytes, or text with a unit: "48KiB").
    Returns {"active_blocks_per_sm", "active_warps_per_sm", "occupancy", "limiter"}.

    >>> occupancy("h100-sxm5-80gb", threads=256, regs=64, smem="48KiB")["occupancy"]
    """
    return _json.loads(_hpcsim.occupancy(gpu or "", cc or "", int(threads), int(regs), str(smem)))


def collective(op, *, node=None, nodes=None, network=None, cluster=None, gpus=None, size=None, min=None, max=None,
               algo=None):
    """Time a collective over a cluster, nccl-tests style, as ``hpcsim collective ... --format json``.

    op: allreduce, reducescatter, allgather, broadcast, reduce, alltoall or sendrecv.
    The cluster: node (a node spec), nodes and network, or cluster (a YAML file with a cluster: section).
    gpus: the first N GPUs take part (default all). size, or min and max (sizes double from min to max):
    bytes or text with a unit ("8GiB"). algo: force an algorithm (ring, tree, ...).
    Returns {"op", "gpus", "rows": [{"size_bytes", "time_s", "algbw_bytes_per_s", "busbw_bytes_per_s",
    "algorithm"}, ...]}.

    >>> collective("allreduce", node="dgx-a100-80gb", nodes=4, network="ib-hdr", min="8B", max="8GiB")
    """
    o = _hpcsim.CollectiveRunOptions()
    o.op = op
    o.node = node or ""
    o.network = network or ""
    o.cluster_file = os.fspath(cluster) if cluster else ""
    o.algo = algo or ""
    o.nodes = nodes
    o.gpus = gpus
    o.size = "" if size is None else str(size)
    o.min = "" if min is None else str(min)
    o.max = "" if max is None else str(max)
    return _json.loads(_hpcsim.collective(o))


def microbench(gpu, bench=None):
    """The CUDA suite's microbenchmarks run in WarpSim, the warp-level GPU model (``hpcsim microbench --format json``).

    bench: one of pointer-chase, coalescing, bank-conflicts, divergence, fma-ilp, occupancy-sweep, copy,
    triad, gemm (default: all). Returns {"gpu", "rows": [{"benchmark", "params", "metric", "value", "unit"}]}.

    >>> microbench("h100-sxm5-80gb", "coalescing")
    """
    return _json.loads(_hpcsim.microbench(gpu, bench or ""))


_KINDS = ("gpus", "nodes", "networks", "storage", "datasets", "sequence-lengths", "frameworks", "frontends", "models")


def list(kind="all"):  # noqa: A001 (the CLI's command name)
    """The known specs of one kind (a list of names), as ``hpcsim list KIND``; kind "all": a dict of every kind.

    kind: gpus, nodes, networks, storage, datasets, sequence-lengths, frameworks, frontends, models or all.

    >>> hpcsim.list("gpus")
    """
    if kind == "all":
        return {k: _hpcsim.list_names(k) for k in _KINDS}
    if kind not in _KINDS:
        raise InputError(f"list: unknown kind '{kind}' (known: {', '.join(_KINDS)}, all)")
    return _hpcsim.list_names(kind)
