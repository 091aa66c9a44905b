#!/usr/bin/env bash
# Sets up, builds, and runs the demo scenario: a result table on stdout, the run stored in results.db.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh" --target hpcsim  # only the command: the demo needs no tests or benchmarks
cd "$root"
./build/cli/hpcsim run examples/quickstart.yaml --db results.db
echo
echo "Stored in $root/results.db; list every stored run with: ./build/cli/hpcsim show results.db"
