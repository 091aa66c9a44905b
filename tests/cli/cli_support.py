"""Shared by the CLI check scripts: run hpcsim with a clean environment and assert on the outcome."""
import os
import subprocess
import sys

HPCSIM, SOURCE, CHECK = sys.argv[1], sys.argv[2], sys.argv[3]
DATA = os.path.join(SOURCE, "tests", "data", "cli")
TEST_CONFIGS = os.path.join(DATA, "configs")


def hpcsim(*args, env=None):
    full_env = dict(os.environ)
    full_env.pop("HPCSIM_CONFIG_DIR", None)
    full_env.update(env or {})
    return subprocess.run([HPCSIM, *args], capture_output=True, text=True, env=full_env, timeout=300)


def set_flags(*assignments):
    """`--set KEY=VALUE` for each assignment, as hpcsim's arguments."""
    return [a for s in assignments for a in ("--set", s)]


def expect(condition, message, proc=None):
    if not condition:
        detail = f"\n--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}" if proc else ""
        sys.exit(f"FAILED: {message}{detail}")


def expect_bad_input(proc, *fragments):
    expect(proc.returncode == 2, f"exit code 2 expected, got {proc.returncode}", proc)
    for f in fragments:
        expect(f in proc.stderr, f"stderr should mention {f!r}", proc)


def run_check(checks):
    """Runs the check named on the command line and prints the closing line CTest logs show."""
    checks[CHECK]()
    print("1 passed, 0 failed")
