#!/usr/bin/env bash
# Installs dependencies, configures, builds and runs every test (what CI runs).
#   ./scripts/test.sh            full run
#   OG_TEST_FILTER=regex ./scripts/test.sh   only matching ctest names
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
start=$(date +%s)
cmake --preset ci
cmake --build build/ci -j"$(nproc)"
echo "test.sh: build took $(( $(date +%s) - start ))s"
ctest_args=(--test-dir build/ci --output-on-failure -j"$(nproc)" --timeout 900)
if [ -n "${OG_TEST_FILTER:-}" ]; then ctest_args+=(-R "$OG_TEST_FILTER"); fi
ctest "${ctest_args[@]}"
echo "test.sh: total $(( $(date +%s) - start ))s"
