#!/usr/bin/env bash
# Installs dependencies, builds the release binary and runs the main job on a local sample graph:
# creates ./demo.omni from examples/org.pg, loads examples/org.ndjson (1,121 records) in one
# commit, lets an agent work on its own branch while main takes a merge load, shows that an
# invalid load is rejected whole, merges the agent's branch back (three-way), and prints the
# snapshot, the history and a few queries. See docs/quickstart.md for the same steps by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cmake --preset release >/dev/null
cmake --build build/release -j"$(nproc)" --target omnigraph omnigraph-server
og=build/release/src/cli/omnigraph
graph=./demo.omni
rm -rf "$graph"

step() { printf '\n== %s\n$ %s\n' "$1" "${*:2}"; "${@:2}"; }

step "version" "$og" version
step "check the example schema and queries offline" "$og" lint --schema examples/org.pg --query examples/org.gq
step "create the graph" "$og" init --schema examples/org.pg "$graph"
step "load the organization (one atomic commit)" "$og" load --data examples/org.ndjson --mode append --store "$graph" --as demo
step "an agent starts a branch" "$og" branch create agent/onboarding --store "$graph"
step "meanwhile, main takes updates (upsert by key)" "$og" load --data examples/org_updates.ndjson --mode merge --store "$graph" --as demo
printf '\n== an invalid load is rejected whole: nothing is written\n'
bad=$(mktemp)
printf '%s\n' '{"type":"Person","data":{"handle":"new.person","name":"New","role":"intern","joined":"2026-12-02","active":true}}' \
              '{"edge":"MemberOf","from":"nobody","to":"storage"}' > "$bad"
if "$og" load --data "$bad" --mode append --store "$graph"; then echo "unexpected: accepted"; exit 1; fi
rm -f "$bad"
step "the agent adds a person on its branch" "$og" mutate add_person --query examples/org.gq --store "$graph" \
  --branch agent/onboarding --as agent-1 --params '{"handle":"ada.new","name":"Ada New","role":"engineer","joined":"2026-12-03"}'
step "... and puts them in a team" "$og" mutate --store "$graph" --branch agent/onboarding --as agent-1 -e \
  'query join() { insert MemberOf { from: "ada.new", to: "storage", since: date("2026-12-03") } }'
step "how the branch and main differ now (both moved since the fork)" "$og" diff main agent/onboarding "$graph"
step "review done: merge it (three-way, entity by entity) and delete the branch" \
  "$og" branch merge agent/onboarding --delete-branch --as demo --store "$graph"
step "snapshot of main" "$og" snapshot "$graph"
step "commit history" "$og" commit list --store "$graph"
step "store the read structures of main (later queries load them)" "$og" optimize "$graph"
step "who is in the storage team" "$og" query team_members --query examples/org.gq --params '{"team":"storage"}' --store "$graph"
step "the busiest projects" "$og" query busiest_projects --query examples/org.gq --store "$graph"
step "search inside a graph query: the storage team's documents on merge latency, by BM25" "$og" query team_docs \
  --query examples/org.gq --params '{"team":"storage","q":"merge latency"}' --store "$graph"
step "a shortest path: how one document leads to another through citations" "$og" query citation_path \
  --query examples/org.gq --params '{"from":"doc-009","to":"doc-131"}' --store "$graph"
step "an ad-hoc query: idle people per team (negation + aggregate)" "$og" query --store "$graph" -e \
  'query idle() { match { $p: Person $p memberOf $t not { $p worksOn $_ } } return { $t.name, count($p) as idle } order { idle desc } limit 5 }'
printf '\n== export (first 3 of %s lines)\n' "$("$og" export "$graph" | wc -l)"
"$og" export "$graph" --type Team | head -3
printf '\n== serve the graph over HTTP (omnigraph-server, bearer token) and query it remotely\n'
addr=$(mktemp)
OMNIGRAPH_SERVER_BEARER_TOKENS_JSON='{"demo":"demo-token"}' build/release/src/server/omnigraph-server \
  --store "$graph" --bind 127.0.0.1:0 --quiet > "$addr" &
server_pid=$!
trap 'kill $server_pid 2> /dev/null || true; rm -f "$addr"' EXIT
for _ in $(seq 100); do grep -q OMNIGRAPH_LISTEN_ADDR "$addr" && break; sleep 0.05; done
url="http://$(sed -n 's/^OMNIGRAPH_LISTEN_ADDR=//p' "$addr")"
echo "listening on $url (graph id: default)"
step "the same query through the server" env OMNIGRAPH_BEARER_TOKEN=demo-token "$og" query team_members \
  --query examples/org.gq --params '{"team":"storage"}' --server "$url" --graph default
step "the HTTP API directly" curl -s -H "Authorization: Bearer demo-token" "$url/graphs/default/branches"
echo
kill -TERM $server_pid && wait $server_pid
printf '\nDone. The graph is in %s. What works and what comes next: docs/status.md.\n' "$graph"
