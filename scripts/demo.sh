#!/usr/bin/env bash
# Installs dependencies, builds the release binary and runs the main job on a local sample graph.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake --preset release >/dev/null
cmake --build build/release -j"$(nproc)" --target omnigraph
bin=build/release/src/cli/omnigraph
echo
echo "== omnigraph version"
"$bin" version
echo
echo "== store self-check on ./demo.omni (write, read back, range read, list, conditional create, delete)"
"$bin" selfcheck --store ./demo.omni
echo
echo "The graph engine (init, load, query) is not built yet: see docs/status.md."
