#!/usr/bin/env bash
# Development build of the CI configuration (optimized, asserts, -Werror) under the build lock:
#   scripts/build.sh [target...]     (no target = everything)
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${OG_PRESET:-ci}"
# Re-configure every time (cheap when cached): new layer folders are found at configure time.
scripts/locked.sh cmake --preset "$preset" >/dev/null
if [ "$#" -gt 0 ]; then
  targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  exec scripts/locked.sh cmake --build "build/$preset" -j2 "${targets[@]}"
fi
exec scripts/locked.sh cmake --build "build/$preset" -j2
