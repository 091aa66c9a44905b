#!/usr/bin/env bash
# Compares two builds' benchmark programs: each bench command runs ROUNDS times from each build, the builds
# alternating, and the median user+system CPU seconds of each is printed with their ratio (after / before).
# CPU time, not wall time, so that a busy machine disturbs the comparison less.
#   bench/compare_builds.sh BEFORE_BUILD_DIR AFTER_BUILD_DIR [ROUNDS]
set -euo pipefail
before=$(cd "$1" && pwd) after=$(cd "$2" && pwd) rounds=${3:-5}
benches=(
  "engine        engine_phold_bench --benchmark_filter=1000000"
  "fair_share    fair_share_bench 5000"
  "training_step model_training_step_bench"
  "scale_ladder  scale_ladder_bench --max-gpus 4096"
  "serving       serving_bench"
  "batch_queue   batch_queue_bench --no-kth --policy easy"
)
cpu_s() {  # cpu_s BUILD ARGS...: user+system seconds of one run
  local build=$1; shift
  local prog=$1; shift
  (cd "$build/bench" && /usr/bin/time -f '%U %S' "./$prog" "$@" >/dev/null 2>/tmp/compare_builds.$$) || true
  tail -1 /tmp/compare_builds.$$ | awk '{print $1 + $2}'
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
printf '%-14s %10s %10s %8s\n' bench before_s after_s ratio
for line in "${benches[@]}"; do
  read -r name cmd <<<"$line"
  b=() a=()
  for ((r = 0; r < rounds; ++r)); do
    b+=("$(cpu_s "$before" $cmd)")
    a+=("$(cpu_s "$after" $cmd)")
  done
  mb=$(printf '%s\n' "${b[@]}" | median) ma=$(printf '%s\n' "${a[@]}" | median)
  printf '%-14s %10.3f %10.3f %8.3f\n' "$name" "$mb" "$ma" "$(awk -v x="$ma" -v y="$mb" 'BEGIN {print x / y}')"
done
rm -f /tmp/compare_builds.$$
