"""Every example's README shows commands and their output in ```console blocks: run each command (from a
scratch folder where `examples/` is the source tree's) and require exactly the output the README shows."""
import difflib
import os
import shlex
import subprocess
import sys
import tempfile

from cli_support import CHECK, HPCSIM, SOURCE, expect, run_check


def console_blocks(readme):
    """[(command, expected output lines)] in README order."""
    steps, inside = [], False
    with open(readme) as f:
        for line in f.read().splitlines():
            if line.strip() == "```console":
                inside = True
            elif inside and line.strip() == "```":
                inside = False
            elif inside and line.startswith("$ "):
                steps.append((line[2:], []))
            elif inside and steps:
                steps[-1][1].append(line.rstrip())
    return steps


def check_example(folder):
    readme = os.path.join(SOURCE, "examples", folder, "README.md")
    steps = console_blocks(readme)
    expect(steps, f"{readme} shows no ```console block")
    with tempfile.TemporaryDirectory() as tmp:
        os.symlink(os.path.join(SOURCE, "examples"), os.path.join(tmp, "examples"))
        env = dict(os.environ)
        env.pop("HPCSIM_CONFIG_DIR", None)
        for command, expected in steps:
            args = shlex.split(command)
            expect(args[0] == "hpcsim", f"{readme}: only hpcsim commands run here: {command}")
            proc = subprocess.run([HPCSIM, *args[1:]], cwd=tmp, capture_output=True, text=True, env=env, timeout=600)
            expect(proc.returncode == 0, f"{readme}: `{command}` failed", proc)
            got = [line.rstrip() for line in proc.stdout.splitlines()]
            if got != expected:
                diff = "\n".join(difflib.unified_diff(expected, got, "README", "output", lineterm=""))
                sys.exit(f"FAILED: {readme}: `{command}` printed something else than the README shows:\n{diff}")


run_check({CHECK: lambda: check_example(CHECK.removeprefix("example_").replace("_", "-"))})
