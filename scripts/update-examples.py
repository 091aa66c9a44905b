#!/usr/bin/env python3
"""Rewrites the output in every example README's ```console blocks with what its command prints now
(tests/cli/example_checks.py requires the two to match). Run after a change that moves predictions:
    scripts/update-examples.py build/cli/hpcsim [example ...]
Commands run from a scratch folder where `examples/` is the source tree's, as the check runs them."""
import os
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(hpcsim, command, scratch):
    args = shlex.split(command)
    if args[0] != "hpcsim":
        sys.exit(f"only hpcsim commands run in examples: {command}")
    env = {k: v for k, v in os.environ.items() if k != "HPCSIM_CONFIG_DIR"}
    proc = subprocess.run([hpcsim, *args[1:]], cwd=scratch, capture_output=True, text=True, env=env, timeout=600)
    if proc.returncode != 0:
        sys.exit(f"`{command}` failed ({proc.returncode}):\n{proc.stderr}")
    return [line.rstrip() for line in proc.stdout.splitlines()]


def update(hpcsim, readme):
    with open(readme) as f:
        lines = f.read().splitlines()
    out, inside, skipping = [], False, False
    with tempfile.TemporaryDirectory() as scratch:
        os.symlink(os.path.join(ROOT, "examples"), os.path.join(scratch, "examples"))
        for line in lines:
            if line.strip() == "```console":
                inside = True
            elif inside and line.strip() == "```":
                inside = skipping = False
            elif inside and line.startswith("$ "):
                out.append(line)
                out.extend(run(hpcsim, line[2:], scratch))
                skipping = True
                continue
            if inside and skipping:
                continue
            out.append(line)
    with open(readme, "w") as f:
        f.write("\n".join(out) + "\n")


def checked_examples():
    """Every example whose README has a ```console block: the ones tests/cli runs."""
    found = []
    for name in sorted(os.listdir(os.path.join(ROOT, "examples"))):
        readme = os.path.join(ROOT, "examples", name, "README.md")
        if os.path.isfile(readme):
            with open(readme) as f:
                if any(line.strip() == "```console" for line in f):
                    found.append(name)
    return found


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    hpcsim = os.path.abspath(sys.argv[1])
    names = sys.argv[2:] or checked_examples()
    for name in names:
        update(hpcsim, os.path.join(ROOT, "examples", name, "README.md"))
        print(f"updated examples/{name}/README.md")


if __name__ == "__main__":
    main()
