"""The fuzz cases: one generator per input kind, each making a Case (files, a command line, an optional spec
file for the config root) from a random.Random. Seeds are the repository's own examples and test data."""
import glob
import os
import re

from mutate import HOSTILE_NUMBERS, hostile_flag, hostile_for, mutate_bytes, mutate_fields, mutate_yaml


class Case:
    def __init__(self, kind, argv, files=None, spec=None, store=None):
        self.kind = kind          # the input kind, for the summary
        self.argv = argv          # hpcsim's arguments; "{d}" stands for the case's folder
        self.files = files or {}  # name in the case folder -> text
        self.spec = spec          # (folder under the config root, name, text): installed before the run
        self.store = store        # a store to corrupt: (file name in the case folder, corruption)
        # A run documented to take long with a progress line on a terminal (`run --exact`: the 16,384-GPU
        # seeds simulate every data-parallel group, a few seconds in a release build, more under a mutation;
        # docs/limits.md): ten times the time limit, so that only a hang fails it.
        self.long = False
        self.number = None


class Seeds:
    """The seed files of each kind and the keys each file kind's schema knows."""

    def __init__(self, source, schema_keys):
        def files(*patterns):
            out = []
            for p in patterns:
                out += sorted(glob.glob(os.path.join(source, p), recursive=True))
            return out
        self.source = source
        self.training = files("examples/*.yaml", "examples/parallelism/*.yaml", "examples/roberta/*.yaml",
                              "examples/scaling-paper/*.yaml", "tests/data/scenarios/*.yaml", "tests/data/cli/resnet50.yaml",
                              "tests/data/cli/oom.yaml")
        # Validation cases are scenarios too; the small ones (the large weak-scaling runs take seconds each).
        self.validation = [f for f in files("configs/validation/*.yaml")
                           if not re.search(r"(\d{4,}gpu|\d{4,}h100|64node|96node|32node)", f)]
        self.serve = files("examples/serving/*.yaml", "tests/data/cli/kind_serve.yaml", "configs/validation/llm-serve/*.yaml",
                           "configs/validation/inference/*.yaml")
        self.plan = files("examples/capacity-plan/plan.yaml")
        self.campaign = files("examples/campaign/*.yaml")
        self.jobs = files("examples/scheduling/jobs.yaml", "tests/data/cli/schedule/*.yaml")
        self.clusters = files("examples/scheduling/cluster-*.yaml", "tests/data/cli/schedule/cluster-4dgx.yaml")
        self.swf = files("tests/data/traces/*.swf", "tests/data/cli/schedule/*.swf")
        self.arrivals = files("tests/data/serving/arrivals.csv")
        self.measured = files("tests/data/cli/device-bench-*.csv")
        self.warp = files("examples/warp-sim/*.yaml")
        self.specs = {kind: files(f"configs/{kind}/*.yaml") for kind in ("gpus", "nodes", "networks", "storage", "filesystems")}
        # HPC (issue 35): MPI scenarios (HPL, HPCG, NPB, stencils, OSU rows) and SimGrid time-independent traces.
        self.mpi = files("examples/hpc/*.yaml", "configs/validation/hpc/*.yaml", "configs/validation/p2p/*.yaml")
        self.traces = files("examples/hpc/halo-16ranks.txt", "tests/data/simgrid-ti/replay/actions*.txt",
                            "tests/data/simgrid-ti/smpi_replay.txt")
        self.platforms = files("examples/hpc/stencil-3d-epyc.yaml", "tests/data/simgrid-ti/small_platform.xml",
                               "tests/fuzz/corpus/simgrid-floyd.xml", "tests/fuzz/corpus/simgrid-torus.xml")
        # Storage (issue 39): the IO500 and MLPerf Storage case files `io --validate --cases` reads.
        self.io_cases = files("tests/data/io500-cases.yaml")
        self.mlperf_cases = files("tests/data/mlperf-storage-cases.yaml")
        self.keys = schema_keys
        self._text = {}

    def text(self, path):
        if path not in self._text:
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                self._text[path] = f.read()
        return self._text[path]


def rel(seeds, path):
    return os.path.relpath(path, seeds.source)


def pick_format(rng, formats):
    return ["--format", rng.choice(formats)] if rng.random() < 0.3 else []


def sets(seeds, kind, rng, clean=False):
    """--set KEY=VALUE flags with hostile values at keys the schema of `kind` knows (at least one on a clean seed)."""
    out = []
    for _ in range(rng.choice([1, 1, 2]) if clean else rng.choice([0, 0, 0, 1])):
        key, sample = rng.choice(seeds.keys[kind])
        out += ["--set", f"{key}={hostile_for(sample, rng)}"]
    return out


def training(seeds, rng):
    pool = seeds.training if rng.random() < 0.7 else seeds.validation
    seed = rng.choice(pool)
    # The seed unchanged (hostile values then come from --set alone) 40 % of the time.
    clean = rng.random() < 0.4
    text = seeds.text(seed) if clean else mutate_yaml(seeds.text(seed), rng, seeds.keys["scenario"])
    roll = rng.random()
    if roll < 0.1 and seed in seeds.validation:
        return Case("validation case", ["validate", "{d}/cases"] + pick_format(rng, ["table", "csv", "markdown"]),
                    {"cases/" + os.path.basename(seed): text})
    if roll < 0.2:
        key, sample = rng.choice(seeds.keys["scenario"])
        values = ",".join(hostile_for(sample, rng) for _ in range(rng.choice([1, 2])))
        if rng.random() < 0.3:
            values = rng.choice(["1..3", "1..1e9", "1..4x2", "0..0", "3..1", "1..2+0", "1..2+-1", "nan..1", "1,1,1"])
        return Case("training scenario (sweep)", ["sweep", "{d}/s.yaml", "--vary", f"{key}={values}", "--db", "{d}/r.db"]
                    + pick_format(rng, ["table", "json"]), {"s.yaml": text})
    argv = ["run", "{d}/s.yaml", "--no-db"] + sets(seeds, "scenario", rng, clean) + pick_format(rng, ["table", "json", "csv"])
    extra = rng.random()
    if extra < 0.1:
        argv += ["--scale", ",".join(rng.choice(["1", "2", "8", "16"] + HOSTILE_NUMBERS[:8]) for _ in range(rng.choice([1, 2, 3])))]
    elif extra < 0.15:
        argv += ["--exact"]
    elif extra < 0.2:
        argv += ["--trace", "{d}/trace.json"]
    case = Case("training scenario", argv, {"s.yaml": text})
    case.long = "--exact" in argv
    return case


def serve(seeds, rng):
    seed = rng.choice(seeds.serve)
    clean = rng.random() < 0.4
    text = seeds.text(seed) if clean else mutate_yaml(seeds.text(seed), rng, seeds.keys["serve"])
    files = {"s.yaml": text}
    if rng.random() < 0.15:  # swept: each point one endpoint run in a store
        key, sample = rng.choice(seeds.keys["serve"])
        values = ",".join(hostile_for(sample, rng) for _ in range(rng.choice([1, 2])))
        return Case("serve scenario (sweep)", ["sweep", "{d}/s.yaml", "--vary", f"{key}={values}", "--vary",
                                               "serving.requests=500", "--db", "{d}/r.db"] + pick_format(rng, ["table", "json"]),
                    files)
    argv = ["serve", "{d}/s.yaml", "--no-db"] + sets(seeds, "serve", rng, clean) + pick_format(rng, ["table", "json", "csv"])
    kind = "serve scenario"
    if rng.random() < 0.3:
        # An arrival trace: the test's own, or lines drawn at random, then mutated.
        base = seeds.text(seeds.arrivals[0]) if rng.random() < 0.5 else "".join(
            f"{rng.random() * 100:.3f}, {rng.choice([1, 64, 512])}, {rng.choice([1, 16, 128])}\n" for _ in range(rng.choice([1, 10, 300])))
        files["arrivals.csv"] = mutate_fields(base, rng, ",", "#") if rng.random() < 0.7 else base
        argv += ["--set", "serving.arrival=trace", "--set", "serving.trace=arrivals.csv"]
        kind = "serving arrival trace"
    roll = rng.random()
    if roll < 0.1:
        argv += ["--sweep-load", ",".join(hostile_flag("10", rng) for _ in range(rng.choice([1, 2])))]
    elif roll < 0.2:
        argv += ["--target-p99", hostile_flag("100 ms", rng)] + (["--max-replicas", hostile_flag("16", rng)] if rng.random() < 0.5 else [])
    return Case(kind, argv, files)


def plan(seeds, rng):
    clean = rng.random() < 0.4
    text = seeds.text(seeds.plan[0]) if clean else mutate_yaml(seeds.text(seeds.plan[0]), rng, seeds.keys["plan"])
    # A full plan simulates 8 configurations in full; most cases screen only, to keep the run short.
    screen = ["--screen-only"] if rng.random() < 0.8 else []
    return Case("plan", ["plan", "{d}/p.yaml", "--no-db"] + screen + sets(seeds, "plan", rng, clean) + pick_format(rng, ["table", "json"]),
                {"p.yaml": text})


def campaign(seeds, rng):
    clean = rng.random() < 0.4
    seed = seeds.text(rng.choice(seeds.campaign))
    text = seed if clean else mutate_yaml(seed, rng, seeds.keys["campaign"])
    return Case("campaign", ["campaign", "{d}/c.yaml", "--no-db"] + sets(seeds, "campaign", rng, clean)
                + pick_format(rng, ["table", "json", "csv"]), {"c.yaml": text})


def queue_flags(seeds, rng, files, yaml_jobs):
    if yaml_jobs and rng.random() < 0.6:
        cluster = rng.choice(seeds.clusters)
        if rng.random() < 0.2:
            files["cluster.yaml"] = mutate_yaml(seeds.text(cluster), rng, seeds.keys["scenario"])
            flags = ["--cluster", "{d}/cluster.yaml"]
        else:
            flags = ["--cluster", rel(seeds, cluster)]
    else:
        flags = ["--nodes", rng.choice(["4", "100", "128"]) if rng.random() < 0.8 else hostile_flag("100", rng)]
    flags += ["--policy", rng.choice(["fcfs", "easy", "conservative", "priority"])]
    if rng.random() < 0.15:
        flags += ["--max-jobs", hostile_flag("10", rng)]
    if rng.random() < 0.15:
        flags += ["--cores-per-node", hostile_flag("1", rng)]
    if rng.random() < 0.1:
        flags += ["--gantt", "{d}/gantt.json"]
    return flags + ["--no-db"] + pick_format(rng, ["table", "json", "csv"])


def jobs(seeds, rng):
    files = {"j.yaml": mutate_yaml(seeds.text(rng.choice(seeds.jobs)), rng, seeds.keys["jobs"])}
    return Case("job list", ["schedule", "{d}/j.yaml"] + queue_flags(seeds, rng, files, True), files)


def swf(seeds, rng):
    seed = seeds.text(rng.choice(seeds.swf))
    lines = seed.splitlines(keepends=True)
    header = [l for l in lines if l.startswith(";")]
    body = [l for l in lines if not l.startswith(";")]
    if len(body) > 200:
        start = rng.randrange(len(body) - 200)
        body = body[start:start + rng.choice([5, 50, 200])]
    files = {"t.swf": mutate_fields("".join(header[:rng.choice([0, 5, len(header)])] + body), rng, None, ";")}
    return Case("SWF trace", ["schedule", "{d}/t.swf"] + queue_flags(seeds, rng, files, False), files)


def spec_commands(kind, rng):
    """A command that loads the spec named fuzz-<kind> (installed in the worker's config root)."""
    quickstart = "examples/quickstart.yaml"
    if kind == "gpus":
        return rng.choice([
            ["kernel", "--gpu", "fuzz-gpus", "gemm", "--m", "1024", "--n", "1024", "--k", "1024"],
            ["kernel", "--gpu", "fuzz-gpus", "--explain", "copy", "--bytes", "64MiB"],
            ["kernel", "--gpu", "fuzz-gpus", "attention", "--batch", "4", "--heads", "16", "--seq", "2048"],
            ["occupancy", "--gpu", "fuzz-gpus", "--threads", "256", "--regs", "32", "--smem", "16KiB"],
            ["microbench", "--gpu", "fuzz-gpus", "--bench", rng.choice(["copy", "pointer-chase", "fma-ilp"])],
            ["run", quickstart, "--no-db", "--set", "cluster.node=fuzz-gpu-node"],
        ])
    if kind == "nodes":
        return rng.choice([
            ["run", quickstart, "--no-db", "--set", "cluster.node=fuzz-nodes"],
            ["collective", "--node", "fuzz-nodes", "--op", "allreduce", "--size", "1GiB"],
            ["collective", "--node", "fuzz-nodes", "--nodes", "2", "--network", "ib-hdr", "--op", "alltoall", "--min", "1KiB", "--max", "1GiB"],
            ["serve", "examples/serving/roberta-g5.yaml", "--no-db", "--set", "cluster.node=fuzz-nodes"],
        ])
    if kind == "networks":
        return rng.choice([
            ["run", quickstart, "--no-db", "--set", "cluster.network=fuzz-networks"],
            ["collective", "--node", "dgx-a100-80gb", "--nodes", "4", "--network", "fuzz-networks", "--op",
             rng.choice(["allreduce", "allgather", "sendrecv"]), "--size", "256MiB"],
        ])
    if kind == "filesystems":
        return rng.choice([
            ["io", "--io500", "--filesystem", "fuzz-filesystems", "--clients", "10", "--procs", "160"],
            ["io", "--checkpoint", "--filesystem", "fuzz-filesystems", "--clients", "16", "--bytes-per-proc", "5GB"],
            ["io", "--files", "--filesystem", "fuzz-filesystems", "--clients", "4", "--procs", "64", "--samples", "10000",
             "--sample-size", "110KiB"],
            ["io", "--mlperf", "--filesystem", "fuzz-filesystems", "--workload", rng.choice(["unet3d", "resnet50", "cosmoflow"]),
             "--clients", "2", "--host-cores", "32"],
            ["run", "examples/storage/resnet50-imagenet-64dgx-lustre-hdd.yaml", "--no-db", "--set", "cluster.filesystem=fuzz-filesystems"],
        ])
    if kind == "nodes" and rng.random() < 0.3:
        return ["run", "examples/hpc/" + rng.choice(["hpl-epyc-32.yaml", "stencil-3d-epyc.yaml"]), "--no-db",
                "--set", "cluster.node=fuzz-nodes"]
    return ["io", "--storage", "fuzz-storage", "--samples", "1000", "--sample-size", "110KiB", "--readers", "8"]


def spec(seeds, rng):
    kind = rng.choice(["gpus", "nodes", "networks", "storage", "filesystems"])
    seed = rng.choice(seeds.specs[kind])
    text = seeds.text(seed)
    if rng.random() < 0.25:
        # Only a few keys, over the seed with extends: (the values that differ, as a user would write them).
        lines = text.splitlines(keepends=True)
        tops = [i for i, l in enumerate(lines) if l[:1].isalpha() and not l.startswith("extends")]
        keep = sorted(rng.sample(tops, min(len(tops), rng.choice([1, 2]))))
        from mutate import block_end
        body = "".join("".join(lines[i:block_end(lines, i)]) for i in keep)
        text = f"extends: {os.path.basename(seed)}\n" + body
    text = mutate_yaml(text, rng, seeds.keys.get(kind[:-1], ()))
    return Case(f"spec ({kind})", spec_commands(kind, rng), spec=(kind, f"fuzz-{kind}", text))


def measured(seeds, rng):
    files = {"m.csv": mutate_fields(seeds.text(rng.choice(seeds.measured)), rng, ",", "#")}
    gpu = "v100-sxm2-16gb" if rng.random() < 0.85 else rng.choice(["a100-sxm4-80gb", "", "nope", "t4"])
    return Case("CSV measurements", ["validate", "--measured", "{d}/m.csv", "--gpu", gpu]
                + pick_format(rng, ["table", "csv", "markdown"]), files)


def warp(seeds, rng):
    files = {"k.yaml": mutate_yaml(seeds.text(rng.choice(seeds.warp)), rng)}
    argv = ["microbench", "--gpu", rng.choice(["v100-sxm2-16gb", "a100-sxm4-80gb"]), "--kernel", "{d}/k.yaml"]
    if rng.random() < 0.3:
        argv += ["--explain"]
    return Case("WarpSim kernel", argv + pick_format(rng, ["table", "csv", "json"]), files)


KERNEL_OPS = {
    "gemm": [("--m", "1024"), ("--n", "1024"), ("--k", "1024"), ("--batch", "1")],
    "copy": [("--bytes", "1GiB")],
    "lstm": [("--hidden", "1024"), ("--batch", "64"), ("--steps", "50"), ("--input", "512")],
    "gru": [("--hidden", "1024"), ("--batch", "64"), ("--steps", "50")],
    "conv": [("--batch", "32"), ("--c", "64"), ("--h", "56"), ("--w", "56"), ("--k", "64"), ("--r", "3"), ("--s", "3"),
             ("--stride", "1"), ("--pad", "1")],
    "softmax": [("--rows", "4096"), ("--cols", "4096")],
    "layernorm": [("--rows", "4096"), ("--cols", "4096")],
    "attention": [("--batch", "4"), ("--heads", "16"), ("--seq", "2048"), ("--head-dim", "64")],
    "optimizer": [("--params", "1e9"), ("--tensors", "100")],
    "embedding": [("--lookups", "65536"), ("--dim", "1024"), ("--vocab", "50257")],
    "elementwise": [("--elements", "1e8"), ("--ops", "4"), ("--inputs", "2")],
}
KERNEL_SWITCHES = {"lstm": ["--train"], "gru": ["--train"], "softmax": ["--backward"], "layernorm": ["--backward"],
                   "attention": ["--causal", "--unfused"], "embedding": ["--backward"], "elementwise": ["--fused"],
                   "optimizer": ["--kind=adam", "--impl=fused"], "conv": ["--pass=dgrad", "--pass=wgrad"]}
GPUS = ["a100-sxm4-80gb", "h100-sxm5-80gb", "v100-sxm2-16gb", "t4", "mi300x"]


def flag_list(pairs, rng):
    """Each flag kept, made hostile, dropped or given twice."""
    out = []
    hostile = rng.sample(range(len(pairs)), min(len(pairs), rng.choice([1, 1, 2]))) if pairs else []
    for i, (flag, value) in enumerate(pairs):
        roll = rng.random()
        if i in hostile:
            out += [flag, hostile_flag(value, rng)]
        elif roll < 0.05:
            continue
        elif roll < 0.08:
            out += [flag, value, flag, value]
        else:
            out += [flag, value]
    return out


def flags(seeds, rng):
    what = rng.choice(["kernel", "kernel", "occupancy", "collective", "collective", "io", "io-fs", "microbench"])
    if what == "kernel":
        op = rng.choice(sorted(KERNEL_OPS))
        argv = ["kernel", "--gpu", rng.choice(GPUS)] + (["--explain"] if rng.random() < 0.3 else []) \
            + pick_format(rng, ["table", "json"]) + (["--dtype", rng.choice(["fp32", "tf32", "fp16", "bf16", "fp8"])]
                                                     if rng.random() < 0.3 else [])
        argv += [op] + flag_list(KERNEL_OPS[op], rng)
        if op in KERNEL_SWITCHES and rng.random() < 0.4:
            argv += [rng.choice(KERNEL_SWITCHES[op])]
        return Case("flags (kernel)", argv)
    if what == "occupancy":
        pairs = [("--gpu", rng.choice(GPUS)) if rng.random() < 0.8 else ("--cc", rng.choice(["7.0", "8.0", "9.0", "8.6"])),
                 ("--threads", "256"), ("--regs", "32"), ("--smem", "48KiB")]
        return Case("flags (occupancy)", ["occupancy"] + flag_list(pairs, rng) + pick_format(rng, ["table", "json"]))
    if what == "collective":
        if rng.random() < 0.2:
            base = [("--cluster", rel(seeds, rng.choice(seeds.clusters)))]
        else:
            base = [("--node", rng.choice(["dgx-a100-80gb", "dgx-h100", "dgx-1v-16gb", "g5-2xlarge"])), ("--nodes", "2"),
                    ("--network", rng.choice(["ib-hdr", "eth-100g-tcp", "roce-400g"]))]
        base += [("--op", rng.choice(["allreduce", "reducescatter", "allgather", "broadcast", "reduce", "alltoall", "sendrecv"]))]
        if rng.random() < 0.5:
            base += [("--size", "1GiB")]
        else:
            base += [("--min", "1KiB"), ("--max", "1GiB")]
        if rng.random() < 0.4:
            base += [("--gpus", "8")]
        if rng.random() < 0.2:
            base += [("--algo", rng.choice(["ring", "tree", "halving-doubling", "direct", "hierarchical", "pipeline"]))]
        return Case("flags (collective)", ["collective"] + flag_list(base, rng) + pick_format(rng, ["table", "json"]))
    if what == "io":
        pairs = [("--storage", rng.choice([os.path.splitext(os.path.basename(p))[0] for p in seeds.specs["storage"]])),
                 ("--samples", "10000"), ("--sample-size", "110KiB"), ("--readers", "16"), ("--nodes", "2")]
        if rng.random() < 0.3:
            pairs += [("--op", rng.choice(["read", "write"]))]
        if rng.random() < 0.3:
            pairs += [("--stripe-count", "4")]
        return Case("flags (io)", ["io"] + flag_list(pairs, rng) + pick_format(rng, ["table", "json"]))
    if what == "io-fs":
        # The file-system modes (issue 39): IO500 phases, checkpoints, whole-file reads, MLPerf Storage.
        mode = rng.choice(["--io500", "--checkpoint", "--files", "--mlperf"])
        pairs = [("--filesystem", rng.choice([os.path.splitext(os.path.basename(p))[0] for p in seeds.specs["filesystems"]])),
                 ("--clients", "10")]
        if mode == "--io500":
            pairs += [("--procs", "160")]
        elif mode == "--checkpoint":
            pairs += [("--procs", "16"), ("--bytes-per-proc", "5.54GB")] + ([("--op", "read")] if rng.random() < 0.3 else [])
        elif mode == "--files":
            pairs += [("--procs", "64"), ("--samples", "100000"), ("--sample-size", "110KiB")]
        else:
            pairs += [("--workload", rng.choice(["unet3d", "resnet50", "cosmoflow"])), ("--accelerator", rng.choice(["h100", "a100"]))]
            pairs += [(f, v) for f, v in [("--accelerators", "20"), ("--read-threads", "8"), ("--host-cores", "32"),
                                          ("--host-clock", "2.1GHz")] if rng.random() < 0.4]
        if rng.random() < 0.2:
            pairs += [("--stripe-count", "4")]
        return Case("flags (io, file system)", ["io", mode] + flag_list(pairs, rng) + pick_format(rng, ["table", "json"]))
    pairs = [("--gpu", rng.choice(["v100-sxm2-16gb", "a100-sxm4-80gb", "h100-sxm5-80gb"])),
             ("--bench", rng.choice(["pointer-chase", "coalescing", "bank-conflicts", "divergence", "fma-ilp", "copy", "triad", "gemm"]))]
    if rng.random() < 0.3:
        pairs += [("--point", rng.choice(["stride=1", "x", "blocks=1e12"]))]
    return Case("flags (microbench)", ["microbench"] + flag_list(pairs, rng) + (["--explain"] if rng.random() < 0.3 else [])
                + pick_format(rng, ["table", "csv", "json"]))


STORE_DAMAGE = ["empty", "truncate", "flip", "garbage", "foreign", "text", "folder", "header"]


def store(seeds, rng):
    damage = rng.choice(STORE_DAMAGE)
    command = rng.choice([
        ["show", "{d}/r.db"],
        ["report", "{d}/r.db", "--out", "{d}/report"],
        ["run", "examples/quickstart.yaml", "--db", "{d}/r.db"],
        ["serve", "examples/serving/roberta-g5.yaml", "--db", "{d}/r.db"],
        ["schedule", "tests/data/cli/schedule/four-jobs.yaml", "--nodes", "4", "--policy", "easy", "--db", "{d}/r.db"],
        ["sweep", "examples/quickstart.yaml", "--vary", "cluster.nodes=1,2", "--db", "{d}/r.db"],
        ["plan", "examples/capacity-plan/plan.yaml", "--screen-only", "--db", "{d}/r.db"],
        ["campaign", "examples/campaign/resnet50-asha.yaml", "--db", "{d}/r.db"],
    ])
    return Case(f"corrupt store ({command[0]})", command, store=("r.db", damage, rng.random(), rng.randrange(1 << 30)))


def mpi(seeds, rng):
    seed = rng.choice(seeds.mpi)
    clean = rng.random() < 0.4
    text = seeds.text(seed) if clean else mutate_yaml(seeds.text(seed), rng, seeds.keys["mpi"])
    if rng.random() < 0.25:  # a sweep of it, then a report of the store (the MPI applications' figures)
        key, sample = rng.choice(seeds.keys["mpi"])
        values = ",".join(hostile_for(sample, rng) for _ in range(rng.choice([1, 2])))
        if rng.random() < 0.4:
            values = rng.choice(["1..4x2", "1,2", "[8,8,8],[16,16,16]", "[1,[2]],3", "[,]", "{a: 1},2", "1..3"])
        argv = ["sweep", "{d}/s.yaml", "--vary", f"{key}={values}", "--db", "{d}/r.db"] + pick_format(rng, ["table", "json"])
        return Case("MPI scenario (sweep)", argv, {"s.yaml": text})
    return Case("MPI scenario", ["run", "{d}/s.yaml", "--no-db"] + sets(seeds, "mpi", rng, clean)
                + pick_format(rng, ["table", "json", "csv"]), {"s.yaml": text})


def replay(seeds, rng):
    seed = rng.choice(seeds.traces)
    files = {"t.txt": mutate_fields(seeds.text(seed), rng, " ", "#") if rng.random() < 0.8 else seeds.text(seed)}
    platform = rng.choice(seeds.platforms)
    argv = ["replay", "{d}/t.txt"]
    xml = platform.endswith(".xml")
    if rng.random() < 0.2:  # the platform mutated too: SimGrid XML as bytes, a YAML cluster by its keys
        name = "p.xml" if xml else "p.yaml"
        text = seeds.text(platform)
        files[name] = mutate_bytes(text, rng) if xml else mutate_yaml(text, rng, seeds.keys["mpi"])
        argv += ["--platform", "{d}/" + name]
    else:
        argv += ["--platform", rel(seeds, platform)]
    if xml:
        argv += ["--hostfile", "tests/data/simgrid-ti/hostfile"] if rng.random() < 0.5 else []
    else:
        argv += flag_list([("--ranks-per-node", "4")], rng) + (["--oversubscribe"] if rng.random() < 0.2 else [])
    roll = rng.random()
    if roll < 0.15:
        argv += ["--np", hostile_flag("16", rng)]
    elif roll < 0.3:
        argv += ["--coll", rng.choice(["allreduce=ring", "bcast=binomial", "alltoall=bruck", "allreduce=nope", "x=y", "=", "bcast",
                                       "bcast=split_bintree", "bcast=pipeline", "reduce=binary", "reduce=pipeline",
                                       "allgather=neighbor_exchange", "allreduce=ring_segmented", "reduce=neighbor_exchange",
                                       "gather=linear_sync", "scatter=binomial", "reduce=basic_linear", "allreduce=nonoverlapping",
                                       "allgatherv=neighbor_exchange", "reducescatter=recursive_halving"])]
    elif roll < 0.4:
        argv += ["--eager", hostile_flag("64KiB", rng)]
    elif roll < 0.5:
        argv += ["--critical-path"]
    elif roll < 0.55:
        argv += ["--trace", "{d}/trace.json"] + (["--trace-ranks", hostile_flag("4", rng)] if rng.random() < 0.5 else [])
    if rng.random() < 0.3:
        argv += ["--model", rng.choice(["smpi", "mpi"])]
    if rng.random() < 0.3:
        argv += ["--collectives", rng.choice(["smpi", "ompi"])]
    return Case("MPI trace", argv + ["--no-db"] + pick_format(rng, ["table", "json"]), files)


def io_cases(seeds, rng):
    mlperf = rng.random() < 0.4
    text = seeds.text((seeds.mlperf_cases if mlperf else seeds.io_cases)[0])
    files = {"c.yaml": mutate_yaml(text, rng, seeds.keys["filesystem"])}
    return Case("storage validation cases", ["io", "--validate", "--cases", "{d}/c.yaml"] + (["--mlperf"] if mlperf else [])
                + pick_format(rng, ["table", "json"]), files)


# How often each kind is drawn (weights), one generator per input kind.
GENERATORS = [
    (training, 18), (serve, 12), (plan, 4), (campaign, 6), (jobs, 9), (swf, 8), (spec, 12), (measured, 6), (warp, 5),
    (flags, 14), (store, 6), (mpi, 8), (replay, 6), (io_cases, 4),
]
