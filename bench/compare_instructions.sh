#!/usr/bin/env bash
# Compares two builds' benchmark programs by instructions executed (valgrind's callgrind): exact and
# repeatable whatever else the machine runs, so small differences are real ones. Sizes are small (valgrind
# runs ~50x slower). Prints each bench's instruction count before and after and their ratio.
#   bench/compare_instructions.sh BEFORE_BUILD_DIR AFTER_BUILD_DIR
set -euo pipefail
before=$(cd "$1" && pwd) after=$(cd "$2" && pwd)
benches=(
  "fair_share    fair_share_bench 2000"
  "training_step model_training_step_bench"
  "scale_ladder  scale_ladder_bench --max-gpus 2048"
  "serving       serving_bench --requests 100000 --repeat 1"
  "batch_queue   batch_queue_bench --no-kth --policy easy --jobs 5000"
)
count() {  # count BUILD ARGS...: instructions of one run
  local build=$1 prog=$2; shift 2
  (cd "$build/bench" && valgrind --tool=callgrind --callgrind-out-file=/dev/null "./$prog" "$@" 2>&1 >/dev/null) |
    awk '/Collected :/ {print $NF}'
}
printf '%-14s %16s %16s %8s\n' bench before_instr after_instr ratio
for line in "${benches[@]}"; do
  read -r name cmd <<<"$line"
  b=$(count "$before" $cmd) a=$(count "$after" $cmd)
  printf '%-14s %16s %16s %8.4f\n' "$name" "$b" "$a" "$(awk -v x="$a" -v y="$b" 'BEGIN {print x / y}')"
done
