#!/usr/bin/env bash
# Proves a change predicts nothing differently: runs every validation case and every example through two
# builds of hpcsim and compares their outputs byte for byte, apart from the simulator's own cost counters:
# sim_wall_s (wall clock) and events (simulator events processed, which a faster exact method lowers, as
# replaying measured steps does). Both lines are dropped from the dumps; every predicted number stays.
#
#   scripts/prediction-identity.sh BASE_REV        builds BASE_REV in a scratch worktree and compares it
#                                                  with this tree's build/ (built first if stale)
#   scripts/prediction-identity.sh --dump DIR [HPCSIM]   only writes the outputs of one binary into DIR
#
# Outputs compared: `run --format json` of each training case in configs/validation and each example,
# `run --scale` of the quickstart, `validate --format csv` (every row, microbenchmarks included) and
# `validate --cv --format json`. Exit 0 when identical, 1 with a diff otherwise.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

dump() {  # dump OUT_DIR HPCSIM
  local out=$1 bin=$2 f name
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  # Every case and example, each with the configs of its own tree (configs/ sits next to the binary's tree),
  # named relative to that tree so that error messages do not depend on where the tree is.
  local tree
  tree=$(cd "$(dirname "$bin")/../.." && pwd)
  cd "$tree"
  for f in configs/validation/*.yaml examples/*.yaml examples/*/*.yaml; do
    [ -f "$f" ] || continue
    case "$f" in */microbenchmarks.yaml) continue ;; esac
    name=${f//\//__}
    "$bin" run "$f" --no-db --format json 2>&1 | grep -v -E '"(sim_wall_s|events)"' >"$out/$name.json" || true
  done
  "$bin" run examples/quickstart.yaml --no-db --format json --scale 8,16,32,64 >"$out/quickstart-scale.json" 2>&1 || true
  "$bin" validate --format csv >"$out/validate.csv" 2>&1 || true
  "$bin" validate --cv --format json >"$out/validate-cv.json" 2>&1 || true
  cd - >/dev/null
}

if [ "${1:-}" = "--dump" ]; then
  dump "$2" "$(realpath "${3:-$root/build/cli/hpcsim}")"
  exit 0
fi

base=${1:?usage: scripts/prediction-identity.sh BASE_REV | --dump DIR [HPCSIM]}
scratch=$(mktemp -d /tmp/hpcsim-identity.XXXXXX)
trap 'git -C "$root" worktree remove --force "$scratch/base" >/dev/null 2>&1 || true; rm -rf "$scratch"' EXIT
git -C "$root" worktree add --detach "$scratch/base" "$base" >/dev/null
echo "identity: building $base in $scratch/base (hpcsim only)"
cmake -S "$scratch/base" -B "$scratch/base/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$scratch/base/build" -j "$(nproc)" --target hpcsim >/dev/null
echo "identity: building this tree"
cmake --build "$root/build" -j "$(nproc)" --target hpcsim >/dev/null
dump "$scratch/before" "$scratch/base/build/cli/hpcsim"
dump "$scratch/after" "$root/build/cli/hpcsim"
files=$(ls "$scratch/before" | wc -l)
if diff -r "$scratch/before" "$scratch/after"; then
  echo "identity: $files outputs byte-identical between $base ($(git -C "$root" rev-parse --short "$base")) and this tree"
else
  echo "identity: outputs differ (above)" >&2
  exit 1
fi
