#!/usr/bin/env bash
# Rewrites docs/reference.md from `hpcsim schema`, the schemas the loader validates with; the test
# "cli: schema_reference" fails until it is rerun after a schema changes. Builds nothing.
#
#   scripts/update-reference.sh [HPCSIM]     HPCSIM: the binary to ask (default: build/cli/hpcsim)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-"$root/build/cli/hpcsim"}
if [ ! -x "$bin" ]; then
  echo "update-reference: no hpcsim at $bin; build it (scripts/build.sh --target hpcsim) or name one" >&2
  exit 2
fi
# Written beside the target and moved into place, so a failing hpcsim leaves the old file whole.
tmp=$(mktemp "$root/docs/reference.md.XXXXXX")
trap 'rm -f "$tmp"' EXIT
"$bin" schema >"$tmp"
chmod 644 "$tmp"  # mktemp makes it private; the docs are not
mv "$tmp" "$root/docs/reference.md"
trap - EXIT
echo "update-reference: wrote $root/docs/reference.md"
