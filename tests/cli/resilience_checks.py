"""hpcsim run with a `resilience:` section: the whole run with failures (issue 40), and its hostile inputs."""
import json
import os

from cli_support import SOURCE, expect, expect_bad_input, hpcsim, run_check

SMALL = os.path.join(SOURCE, "tests", "data", "cli", "resilience", "small.yaml")


def run_json(*args):
    proc = hpcsim("run", SMALL, "--format", "json", *args)
    expect(proc.returncode == 0, "run with resilience should succeed", proc)
    return proc, json.loads(proc.stdout)


def check_resilience_run():
    proc, out = run_json()
    r = out["resilience"]
    expect(r["replicas"] == 200 and r["seed"] == 3, "replicas and seed reported", proc)
    t = r["time_to_train_s"]
    expect(t["p5"] <= t["p50"] <= t["p95"], "percentiles ordered", proc)
    expect(t["mean"] > r["work_s"] == 168 * 3600, "failures make the run longer than its compute", proc)
    expect(0 < r["ettr"] < 1, "ETTR in (0, 1)", proc)
    causes = r["interruptions"]["by_cause"]
    expect(set(causes) == {"gpu_recoverable", "gpu_host_replacement", "host_other", "infiniband_recoverable",
                           "infiniband_hardware", "infiniband_other"}, "every cause reported", proc)
    expect(abs(sum(causes.values()) - r["interruptions"]["total"]) < 1e-6, "causes add up", proc)
    expect(r["checkpoint"]["interval_s"] == 1800, "the given interval is used", proc)
    # Byte-identical with the same seed (apart from the wall-clock figures), different with another.
    again, _ = run_json()
    strip = lambda text: "\n".join(l for l in text.splitlines() if "sim_wall_s" not in l)
    expect(strip(again.stdout) == strip(proc.stdout), "same seed, same output", again)
    _, other = run_json("--set", "resilience.seed=4")
    expect(other["resilience"]["time_to_train_s"]["mean"] != t["mean"], "another seed, another draw")
    # Without the section the step's report is unchanged: no resilience keys.
    plain = hpcsim("run", os.path.join(SOURCE, "examples", "quickstart.yaml"), "--format", "json")
    expect(plain.returncode == 0 and "resilience" not in json.loads(plain.stdout), "no section, no resilience", plain)


def check_resilience_errors():
    bad = lambda *sets: hpcsim("run", SMALL, *[a for s in sets for a in ("--set", s)])
    expect_bad_input(bad("resilience.checkpoint.interval=1 s"), "--set", "shorter than the checkpoint's write")
    expect_bad_input(bad("resilience.spares=3"), "more than the job's 2 nodes")
    expect_bad_input(bad("resilience.detection=-5 min"), "detection")
    expect_bad_input(bad("resilience.replicas=0"), "replicas")
    expect_bad_input(bad("resilience.reliability=nope"), "reliability")
    expect_bad_input(bad("resilience.tokens=1e9"), "one of steps, tokens and compute_time")
    expect_bad_input(bad("resilience.checkpoint.snapshot=1 s"), "mode: async")
    # A reliability spec with a zero or negative rate, through $HPCSIM_CONFIG_DIR.
    import shutil
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        configs = os.path.join(root, "configs")
        shutil.copytree(os.path.join(SOURCE, "configs"), configs)
        path = os.path.join(configs, "reliability", "h200-crusoe.yaml")
        text = open(path).read()
        for value in ("0", "-8550"):
            open(path, "w").write(text.replace("fit: 8550", "fit: " + value))
            proc = hpcsim("run", SMALL, env={"HPCSIM_CONFIG_DIR": configs})
            expect_bad_input(proc, "h200-crusoe.yaml:", "must be > 0")


run_check({"resilience_run": check_resilience_run, "resilience_errors": check_resilience_errors})
