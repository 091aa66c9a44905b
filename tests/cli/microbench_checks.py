"""End-to-end checks of `hpcsim microbench`: the suite's CSV schema that `validate --measured` reads, the
teaching view, the trace, and bad input."""
import json
import os
import tempfile

from cli_support import expect, expect_bad_input, hpcsim, run_check


def check_microbench_csv():
    proc = hpcsim("microbench", "--gpu", "v100-sxm2-16gb", "--bench", "bank-conflicts")
    expect(proc.returncode == 0, "microbench should succeed", proc)
    lines = proc.stdout.splitlines()
    expect(lines[0] == "# hpcsim-cuda-bench 1", "first line is the suite's magic", proc)
    expect("# sm_count: 80" in lines and "benchmark,params,metric,value,unit" in lines, "suite header", proc)
    rows = [line.split(",") for line in lines if line.startswith("bank-conflicts,")]
    expect(len(rows) == 128 and all(len(r) == 5 for r in rows), "two five-field rows per stride and dtype", proc)
    suite_rows = [r for r in rows if r[1] == "stride=2" and r[2] == "cycles_per_access"]
    expect(len(suite_rows) == 1 and suite_rows[0][4] == "cycles", "the suite's params, metric and unit", proc)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "twin.csv")
        with open(path, "w", encoding="utf-8") as f:
            f.write(hpcsim("microbench", "--gpu", "v100-sxm2-16gb", "--bench", "triad").stdout)
        check = hpcsim("validate", "--measured", path, "--gpu", "v100-sxm2-16gb")
        expect(check.returncode == 0 and "triad n=16777216" in check.stdout, "validate --measured reads the twin", check)
        with open(path, "w", encoding="utf-8") as f:
            f.write(proc.stdout)
        check = hpcsim("validate", "--measured", path, "--gpu", "v100-sxm2-16gb")
        conflict = [line for line in check.stdout.splitlines() if "bank-conflicts" in line and "stride=32" in line
                    and "cycles_per_access" in line and "dtype" not in line]
        expect(check.returncode == 0 and len(conflict) == 1 and "not modelled" not in conflict[0],
               "validate --measured predicts the twin's cycles per access", check)
    again = hpcsim("microbench", "--gpu", "v100-sxm2-16gb", "--bench", "bank-conflicts")
    expect(again.stdout == proc.stdout, "same inputs, same bytes", again)


def check_microbench_explain_trace():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace.json")
        proc = hpcsim("microbench", "--gpu", "h100-sxm5-80gb", "--bench", "coalescing", "--point", "stride=32",
                      "--explain", "--trace", path)
        expect(proc.returncode == 0, "explain should succeed", proc)
        for words in ("Occupancy:", "limit that binds", "Where the resident warps' cycles went", "32.00 sectors per request",
                      "Roofline", "memory bandwidth bounds it"):
            expect(words in proc.stdout, f"explain mentions {words!r}", proc)
        with open(path, encoding="utf-8") as f:
            trace = json.load(f)
        spans = [e for e in trace["traceEvents"] if e["ph"] == "X"]
        expect(spans and {e["tid"] for e in spans} == {0, 1, 2, 3}, "issue spans on the four schedulers", proc)


def check_microbench_errors():
    expect_bad_input(hpcsim("microbench", "--gpu", "v100-sxm2-16g"), "--gpu", "did you mean")
    expect_bad_input(hpcsim("microbench", "--gpu", "l40s"), "--gpu l40s", "warp_sim")
    expect_bad_input(hpcsim("microbench", "--gpu", "v100-sxm2-16gb", "--bench", "stream"), "--bench stream", "pointer-chase")
    expect_bad_input(hpcsim("microbench", "--gpu", "v100-sxm2-16gb", "--explain"), "--explain", "--bench")
    expect_bad_input(hpcsim("microbench", "--gpu", "v100-sxm2-16gb", "--bench", "divergence", "--explain", "--point", "paths=99"),
                     "--point paths=99")
    expect_bad_input(hpcsim("microbench", "--gpu", "v100-sxm2-16gb", "--bench", ""), "--bench", "leave --bench out")
    # --point picks what --explain / --trace show: alone it was ignored (and the whole bench ran).
    expect_bad_input(hpcsim("microbench", "--gpu", "v100-sxm2-16gb", "--bench", "divergence", "--point", "paths=2"),
                     "--point paths=2", "--explain")
    expect_bad_input(hpcsim("microbench", "--gpu", "v100-sxm2-16gb", "--format", "xml"), "--format")


run_check({
    "microbench_csv": check_microbench_csv,
    "microbench_explain_trace": check_microbench_explain_trace,
    "microbench_errors": check_microbench_errors,
})
