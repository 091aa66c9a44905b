#!/usr/bin/env python3
"""Fuzz harness of the hpcsim command (issue 34): seeded mutations of every input kind (training and serve
scenarios, plans, job lists, campaigns, GPU/node/network/storage specs, SWF traces, serving arrival traces,
CSV device measurements, WarpSim kernels, flags, corrupt results stores), each run under a time and memory
limit. A case fails on a signal, a timeout, an exit code other than 0 or 2, `internal error`, a sanitizer
report, or inf/NaN printed in stdout. The corpus in tests/fuzz/corpus/ (the known hostile inputs) runs first,
every time.

Usage: fuzz_inputs.py HPCSIM SOURCE_DIR [--cases N] [--seed S] [--jobs J] [--timeout SEC] [--mem-gib G]
                      [--sanitized] [--corpus-only] [--start I]
The number of cases may also come from $HPCSIM_FUZZ_CASES (the long variant: HPCSIM_FUZZ_CASES=100000).
Exit 0 when no case failed, 1 otherwise; failures are grouped by class, each with a saved reproducer."""
import argparse
import collections
import multiprocessing
import os
import random
import re
import resource
import shlex
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as fuzz_cases  # noqa: E402
from corpus import load_corpus  # noqa: E402

# A printed value that is not a number: nan, -nan, inf, -inf, infinity (not inside a word: "inference"; not
# the user's own value echoed back, quoted or after '=': a sweep point `workload.steps=inf` refused by name).
NOT_A_NUMBER = re.compile(r"(?<![A-Za-z0-9_.\"'=])[-+]?(nan|inf|infinity)(?![A-Za-z0-9_\"'])", re.I)
SANITIZER = re.compile(r"ERROR: (Address|Leak|Memory|Thread)Sanitizer|runtime error:|UndefinedBehaviorSanitizer")
SCHEMA_KINDS = {"scenario": "scenario", "serve": "serve", "plan": "plan", "campaign": "campaign", "jobs": "jobs",
                "gpu": "gpu", "node": "node", "network": "network", "storage": "storage",
                "filesystem": "filesystem", "mpi": "mpi"}

# Set in each worker by init_worker.
W = {}


def schema_keys(hpcsim):
    """Every key of each file kind with a sample value of its type, from `hpcsim schema KIND`."""
    keys = {}
    for kind in SCHEMA_KINDS:
        out = subprocess.run([hpcsim, "schema", kind], capture_output=True, text=True, timeout=60).stdout
        rows = []
        for m in re.finditer(r"^\| `([^`]+)` \| ([^|]*) \|", out, re.M):
            key, typ = m.group(1), m.group(2)
            if key in ("extends", "kind"):
                continue
            if "quantity" in typ:
                unit = {"time": "s", "bandwidth": "GB/s", "size": "GiB", "rate": "Gb/s", "frequency": "MHz",
                        "power": "W", "money": "USD"}
                sample = "1 " + next((u for w, u in unit.items() if w in typ), "s")
            elif "integer" in typ or "number" in typ:
                sample = "1"
            elif "bool" in typ:
                sample = "true"
            else:
                sample = "x"
            rows.append((key, sample))
        keys[kind] = rows
    return keys


def limits(mem_bytes):
    def apply():
        os.setsid()
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if mem_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (mem_bytes, mem_bytes))
    return apply


def run_hpcsim(argv, cwd, env, timeout, mem_bytes):
    """(returncode or 'timeout', stdout, stderr, seconds) of one hpcsim run; the process group is killed on timeout."""
    start = time.monotonic()
    proc = subprocess.Popen([W["hpcsim"], *argv], cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=limits(mem_bytes))
    try:
        out, err = proc.communicate(timeout=timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        code = "timeout"
    return code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), time.monotonic() - start


def verdict(code, out, err, timeout):
    """None when the outcome is acceptable, else the failure's reason."""
    if code == "timeout":
        return f"timeout (> {timeout:g} s)"
    if code < 0:
        return f"signal {signal.Signals(-code).name}"
    if SANITIZER.search(err):
        return "sanitizer report"
    if "internal error" in out or "internal error" in err:
        return "internal error"
    # Exit 1 is a documented answer of the searches (`serve --target-p99` and `--max-rate-within`: no replica
    # count or rate meets the bound, with the reason on stderr), not a failure of the input's handling.
    if code == 1 and err.startswith("cannot meet the target:"):
        return None
    if code not in (0, 2):
        return f"exit {code}"
    # A point that failed is listed with the value it was given ("NaN  error", the message below it): an echo of
    # the input, not a result.
    shown, in_error = [], False
    for line in out.splitlines():
        in_error = bool(re.search(r"\serror\s*$", line)) or (in_error and line.startswith("      "))
        if not in_error:
            shown.append(line)
    shown = "\n".join(shown)
    m = NOT_A_NUMBER.search(shown)
    if m:
        return f"'{m.group(0).strip()}' printed in stdout"
    return None


def failure_class(command, reason, err):
    """Failures that differ only in numbers, paths or quoted names share a class."""
    line = next((l for l in reversed(err.splitlines()) if l.strip()), "")
    line = re.sub(r"(/[\w.+-]+)+/?", "PATH", line)
    line = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", line)
    line = re.sub(r"[-+]?\d[\d.,e+-]*", "N", line)
    line = line[:110]
    return f"{command}: {reason}" + (f": {line}" if reason in ("internal error", "sanitizer report") or
                                     reason.startswith("exit") else "")


def load_known_open(path):
    """(why, compiled pattern) per line of known_open.txt."""
    out = []
    with open(path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                why, _, pattern = line.partition(" :: ")
                out.append((why.strip(), re.compile(pattern.strip(), re.M)))
    return out


def corrupt_store(path, damage, fraction, seed):
    base = W["base_store"]
    with open(base, "rb") as f:
        data = bytearray(f.read())
    rng = random.Random(seed)
    if damage == "folder":
        os.mkdir(path)
        return
    if damage == "foreign":
        con = sqlite3.connect(path)
        con.execute(rng.choice(["CREATE TABLE runs (id TEXT)", "CREATE TABLE metrics (a, b, c)", "CREATE TABLE t (x)"]))
        con.execute("PRAGMA user_version = %d" % rng.choice([0, 1, 99, -1]))
        con.commit()
        con.close()
        return
    if damage == "empty":
        data = b""
    elif damage == "truncate":
        data = data[:int(fraction * len(data))]
    elif damage == "flip":
        for _ in range(rng.choice([1, 4, 64])):
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
    elif damage == "garbage":
        data = bytes(rng.randrange(256) for _ in range(rng.choice([1, 100, 4096])))
    elif damage == "text":
        data = b"not a database\n"
    elif damage == "header":
        data = data[:100]
    with open(path, "wb") as f:
        f.write(data)


def init_worker(hpcsim, source, keys, timeout, mem_bytes, sanitized, work_root):
    W.update(hpcsim=hpcsim, source=source, timeout=timeout, mem_bytes=mem_bytes)
    W["seeds"] = fuzz_cases.Seeds(source, keys)
    W["tmp"] = tempfile.mkdtemp(prefix="worker-", dir=work_root)
    # A config root of this worker's own, where spec cases install their mutated spec as fuzz-<kind>.
    W["configs"] = os.path.join(W["tmp"], "configs")
    shutil.copytree(os.path.join(source, "configs"), W["configs"])
    with open(os.path.join(source, "configs", "nodes", "dgx-a100-80gb.yaml")) as f:
        node = re.sub(r"^gpu: \S+", "gpu: fuzz-gpus", f.read(), count=1, flags=re.M)
    with open(os.path.join(W["configs"], "nodes", "fuzz-gpu-node.yaml"), "w") as f:
        f.write(node)
    env = dict(os.environ)
    env.pop("HPCSIM_CONFIG_DIR", None)
    if sanitized:
        # The memory limit in ASan's terms (RLIMIT_AS cannot hold its shadow): a huge allocation throws
        # bad_alloc as in a release build, and past 4 GiB resident the run stops with a report.
        env.setdefault("ASAN_OPTIONS", "detect_leaks=0:allocator_may_return_null=1:max_allocation_size_mb=4096:"
                                       "hard_rss_limit_mb=4096")
        env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
    W["env"] = env
    W["base_store"] = os.path.join(W["tmp"], "base.db")
    subprocess.run([hpcsim, "run", os.path.join(source, "examples", "quickstart.yaml"), "--db", W["base_store"]],
                   capture_output=True, cwd=W["tmp"], env=env, timeout=120)


def absolute(arg, folder):
    arg = arg.replace("{d}", folder)
    # A source-relative path, alone or as KEY=PATH (an absolute one, e.g. the case's folder, is kept as it is).
    value = arg.split("=")[-1]
    if "/" in value and not value.startswith("/") and os.path.exists(os.path.join(W["source"], value)):
        return arg[:len(arg) - len(value)] + os.path.join(W["source"], value)
    return arg


def run_case(case, timeout=None):
    """Runs one case in a fresh folder; returns (number, kind, command, reason or None, class, record, seconds)."""
    folder = tempfile.mkdtemp(dir=W["tmp"], prefix="case-")
    try:
        for name, text in case.files.items():
            path = os.path.join(folder, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text)
        env = W["env"]
        spec_path = None
        if case.spec:
            kind, name, text = case.spec
            spec_path = os.path.join(W["configs"], kind, name + ".yaml")
            with open(spec_path, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text)
            env = dict(env, HPCSIM_CONFIG_DIR=W["configs"])
        store_bytes = None
        if case.store:
            name, damage, fraction, seed = case.store
            corrupt_store(os.path.join(folder, name), damage, fraction, seed)
            if os.path.isfile(os.path.join(folder, name)):
                with open(os.path.join(folder, name), "rb") as f:
                    store_bytes = f.read()
        argv = [absolute(a, folder) for a in case.argv]
        limit = timeout or W["timeout"]
        code, out, err, seconds = run_hpcsim(argv, folder, env, limit, W["mem_bytes"])
        reason = verdict(code, out, err, limit)
        record = None
        if reason:
            record = {"argv": case.argv, "files": case.files, "spec": case.spec, "store": case.store,
                      "stderr": err[-2000:], "stdout": out[-2000:], "code": code, "store_bytes": store_bytes}
        return (case.number, case.kind, case.argv[0], reason, failure_class(case.argv[0], reason, err) if reason else None,
                record, seconds, code)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if case.spec and spec_path and os.path.exists(spec_path):
            os.remove(spec_path)


def make_case(seed, number):
    rng = random.Random(f"{seed}:{number}")
    generators, weights = zip(*fuzz_cases.GENERATORS)
    case = rng.choices(generators, weights)[0](W["seeds"], rng)
    case.number = number
    return case


def random_case(args):
    seed, number = args
    case = make_case(seed, number)
    return run_case(case, W["timeout"] * 10 if case.long else None)


def corpus_case(case):
    result = run_case(case, case.timeout)
    number, kind, command, reason, cls, record, seconds, code = result
    if reason is None and case.expect_exit is not None and code != case.expect_exit:
        reason = f"exit {code}, the corpus expects {case.expect_exit}"
        cls = f"{command}: {reason}"
        record = {"argv": case.argv, "files": case.files, "spec": case.spec, "store": case.store, "stderr": "", "stdout": "",
                  "code": code}
    return number, kind, command, reason, cls, record, seconds, code


def save_reproducer(root, label, record, source):
    folder = os.path.join(root, label)
    os.makedirs(folder, exist_ok=True)
    for name, text in record["files"].items():
        path = os.path.join(folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
    lines = ["#!/bin/sh", "# Reproduces one fuzz failure: sh repro.sh PATH/TO/hpcsim", 'HPCSIM="${1:-hpcsim}"',
             f'D="$(cd "$(dirname "$0")" && pwd)"', f"SOURCE={shlex.quote(source)}", 'cd "$D"']
    if record["spec"]:
        kind, name, text = record["spec"]
        with open(os.path.join(folder, name + ".yaml"), "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        lines += ['rm -rf "$D/configs" && cp -r "$SOURCE/configs" "$D/configs"',
                  f'sed "s/^gpu: .*/gpu: fuzz-gpus/" "$SOURCE/configs/nodes/dgx-a100-80gb.yaml" > "$D/configs/nodes/fuzz-gpu-node.yaml"',
                  f'cp "$D/{name}.yaml" "$D/configs/{kind}/{name}.yaml"', 'export HPCSIM_CONFIG_DIR="$D/configs"']
    if record["store"]:
        name = record["store"][0]
        if record.get("store_bytes") is not None:
            with open(os.path.join(folder, name + ".corrupt"), "wb") as f:
                f.write(record["store_bytes"])
            lines += [f'cp "$D/{name}.corrupt" "$D/{name}"']
        else:
            lines += [f'rm -rf "$D/{name}" && mkdir "$D/{name}"']
    argv = []
    for a in record["argv"]:
        if "{d}" in a:
            argv.append('"' + a.replace("{d}", "$D") + '"')
        elif "/" in a and not a.startswith("/") and os.path.exists(os.path.join(source, a.split("=")[-1])):
            argv.append(f'"$SOURCE/{a}"')
        else:
            argv.append(shlex.quote(a))
    command = '"$HPCSIM" ' + " ".join(argv)
    lines.append(command)
    with open(os.path.join(folder, "repro.sh"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(folder, "outcome.txt"), "w") as f:
        f.write(f"exit: {record['code']}\n--- stderr (tail) ---\n{record['stderr']}\n--- stdout (tail) ---\n{record['stdout']}\n")
    return folder, command


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("hpcsim")
    parser.add_argument("source")
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--start", type=int, default=0, help="first case number (to rerun one: --start I --cases 1)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--mem-gib", type=float, default=4.0)
    parser.add_argument("--sanitized", action="store_true",
                        help="an ASan/UBSan build: no address-space limit (ASan reserves terabytes), longer timeouts")
    parser.add_argument("--corpus-only", action="store_true")
    parser.add_argument("--strict", action="store_true", help="fail on the known open classes (known_open.txt) too")
    args = parser.parse_args()
    if os.environ.get("HPCSIM_FUZZ_CASES"):
        args.cases = int(os.environ["HPCSIM_FUZZ_CASES"])
    hpcsim, source = os.path.abspath(args.hpcsim), os.path.abspath(args.source)
    mem_bytes = 0 if args.sanitized else int(args.mem_gib * (1 << 30))
    timeout = args.timeout * (3 if args.sanitized else 1)
    started = time.monotonic()
    keys = schema_keys(hpcsim)
    corpus = load_corpus(os.path.join(source, "tests", "fuzz", "corpus"), fuzz_cases.Case)
    for case in corpus:
        case.timeout = min(case.timeout or timeout, timeout) if not args.sanitized else (case.timeout or timeout) * 3
    results = []
    work_root = tempfile.mkdtemp(prefix="hpcsim-fuzz-")
    try:
        with multiprocessing.Pool(args.jobs, init_worker,
                                  (hpcsim, source, keys, timeout, mem_bytes, args.sanitized, work_root)) as pool:
            results += pool.map(corpus_case, corpus, chunksize=1)
            if not args.corpus_only:
                work = [(args.seed, n) for n in range(args.start, args.start + args.cases)]
                for i, result in enumerate(pool.imap_unordered(random_case, work, chunksize=4)):
                    results.append(result)
                    if sys.stderr.isatty() and (i + 1) % 100 == 0:
                        print(f"\r{i + 1}/{len(work)} cases", end="", file=sys.stderr, flush=True)
                    elif (i + 1) % 5000 == 0:  # a long run logged to a file: a line now and then
                        failing = sum(1 for r in results if r[3])
                        print(f"{i + 1}/{len(work)} cases, {time.monotonic() - started:.0f} s, {failing} failing "
                              "(known open included)", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(work_root, ignore_errors=True)
    elapsed = time.monotonic() - started

    known = {c.number: c for c in corpus}
    per_kind = collections.Counter()
    per_kind_codes = collections.defaultdict(collections.Counter)
    classes = collections.defaultdict(list)
    known_classes = collections.defaultdict(list)
    open_patterns = [] if args.strict else load_known_open(os.path.join(source, "tests", "fuzz", "known_open.txt"))
    known_open, known_fixed = [], []
    for number, kind, command, reason, cls, record, seconds, code in results:
        per_kind[kind] += 1
        per_kind_codes[kind][str(code)] += 1
        case = known.get(number)
        if case is not None and case.known_open:
            (known_open if reason else known_fixed).append((case, reason))
            continue
        if reason:
            text = "\n".join([kind, cls, record["stderr"], " ".join(record["argv"]), *record["files"].values(),
                              record["spec"][2] if record["spec"] else ""])
            why = next((w for w, p in open_patterns if p.search(text)), None)
            (known_classes[(why, cls)] if why else classes[cls]).append((number, record))
    repro_root = tempfile.mkdtemp(prefix="hpcsim-fuzz-failures-")
    print(f"hpcsim fuzz: {len(results)} cases ({len(corpus)} from the corpus, {len(results) - len(corpus)} mutated with seed "
          f"{args.seed}) in {elapsed:.0f} s, {args.jobs} processes, limits {timeout:g} s and "
          f"{'no' if not mem_bytes else f'{args.mem_gib:g} GiB'} address space")
    print(f"{'input kind':34} {'cases':>6}  exit codes")
    for kind in sorted(per_kind):
        codes = ", ".join(f"{c}: {n}" for c, n in sorted(per_kind_codes[kind].items()))
        print(f"{kind:34} {per_kind[kind]:6}  {codes}")
    for case, reason in known_open:
        print(f"known open (corpus {case.name}, {case.known_open}): still fails: {reason}")
    for case, _ in known_fixed:
        print(f"known open (corpus {case.name}) now passes: drop its 'known:' line")
    per_item = collections.defaultdict(list)
    for (why, cls), members in known_classes.items():
        per_item[why].append((cls, members))
    for why, groups in sorted(per_item.items()):
        print(f"known open, {why}: {sum(len(m) for _, m in groups)} cases in {len(groups)} classes, e.g.")
        for cls, members in sorted(groups, key=lambda g: -len(g[1]))[:3]:
            number, record = members[0]
            folder, command = save_reproducer(repro_root, f"known-case-{number}", record, source)
            print(f"  [{len(members)}x] {cls}\n    reproducer: sh {folder}/repro.sh {hpcsim}")
    failures = sum(len(v) for v in classes.values())
    print(f"{failures} failing cases in {len(classes)} classes" + (f"; reproducers under {repro_root}" if classes else ""))
    for cls, members in sorted(classes.items(), key=lambda kv: -len(kv[1])):
        number, record = members[0]
        label = f"case-{number}" if isinstance(number, int) else f"corpus-{number}"
        folder, command = save_reproducer(repro_root, label, record, source)
        print(f"\n[{len(members)}x] {cls}\n  reproducer: sh {folder}/repro.sh {hpcsim}\n  command: {command}")
        print("  stderr: " + (record["stderr"].strip().splitlines() or [""])[-1][:300])
        others = [str(n) for n, _ in members[1:6]]
        if others:
            print("  also cases: " + ", ".join(others))
    if not classes and not known_classes:
        shutil.rmtree(repro_root, ignore_errors=True)
    return 1 if classes else 0


if __name__ == "__main__":
    sys.exit(main())
