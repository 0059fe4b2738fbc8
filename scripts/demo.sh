#!/usr/bin/env bash
# Installs dependencies, builds the release binary and runs the main job on a local sample graph:
# creates ./demo.omni from examples/org.pg, loads examples/org.ndjson (1,121 records) in one
# commit, applies a merge load, shows that an invalid load is rejected whole, and prints the
# snapshot and the commit history. See docs/quickstart.md for the same steps by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake --preset release >/dev/null
cmake --build build/release -j"$(nproc)" --target omnigraph
og=build/release/src/cli/omnigraph
graph=./demo.omni
rm -rf "$graph"

step() { printf '\n== %s\n$ %s\n' "$1" "${*:2}"; "${@:2}"; }

step "version" "$og" version
step "check the example schema and queries offline" "$og" lint --schema examples/org.pg --query examples/org.gq
step "create the graph" "$og" init --schema examples/org.pg "$graph"
step "load the organization (one atomic commit)" "$og" load --data examples/org.ndjson --mode append --store "$graph" --as demo
step "merge updates (upsert by key)" "$og" load --data examples/org_updates.ndjson --mode merge --store "$graph" --as demo
printf '\n== an invalid load is rejected whole: nothing is written\n'
bad=$(mktemp)
printf '%s\n' '{"type":"Person","data":{"handle":"new.person","name":"New","role":"intern","joined":"2026-12-02","active":true}}' \
              '{"edge":"MemberOf","from":"nobody","to":"storage"}' > "$bad"
if "$og" load --data "$bad" --mode append --store "$graph"; then echo "unexpected: accepted"; exit 1; fi
rm -f "$bad"
step "snapshot of main" "$og" snapshot "$graph"
step "commit history" "$og" commit list --store "$graph"
printf '\n== export (first 3 of %s lines)\n' "$("$og" export "$graph" | wc -l)"
"$og" export "$graph" --type Team | head -3
printf '\nDone. The graph is in %s. Queries (omnigraph query) are not implemented yet: see docs/status.md.\n' "$graph"
