#!/usr/bin/env bash
# Configures and builds hpcsim (Release) in build/ with both cores. `--target NAME` builds only that target
# (the demo builds only hpcsim); other arguments go to cmake's configure step.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
targets=()
configure=()
while (($#)); do
  if [ "$1" = "--target" ] && (($# > 1)); then
    targets+=(--target "$2")
    shift 2
  else
    configure+=("$1")
    shift
  fi
done
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${configure[@]}" >/dev/null
cmake --build "$root/build" -j "$jobs" "${targets[@]}"
