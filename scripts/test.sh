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

# Fuzz smoke runs: the parser fuzz targets, built with clang + libFuzzer in their own tree. The same
# clang tree also compiles the engine and the CLI, so clang's lock-annotation check (-Wthread-safety,
# an error: cmake/warnings.cmake) runs over every mutex-guarded member on each test run.
if [ -z "${OG_TEST_FILTER:-}" ] || [[ "fuzz" =~ ${OG_TEST_FILTER} ]]; then
  cmake --preset fuzz >/dev/null
  fuzz_targets=$(cmake --build build/fuzz --target help | grep -oE '^[a-z_]+_fuzz' | sort -u || true)
  if [ -n "$fuzz_targets" ]; then
    # shellcheck disable=SC2086
    cmake --build build/fuzz -j"$(nproc)" --target omnigraph_cli omnigraph_engine_oracle $(printf -- '--target %s ' $fuzz_targets)
    ctest --test-dir build/fuzz --output-on-failure -R '^fuzz\.' --timeout 300
  fi
fi
echo "test.sh: total $(( $(date +%s) - start ))s"
