#!/usr/bin/env bash
# The CLI's remote mode against a real omnigraph-server (docs/cli.md, "Remote graphs"): the same
# commands with --server URL --graph ID give the answers the local commands give on the same graph;
# errors keep their codes and exit codes; bearer tokens come from OMNIGRAPH_TOKEN_<NAME> (a
# `servers:` entry), the credentials file (login/logout, mode 0600) and OMNIGRAPH_BEARER_TOKEN.
# Usage: tests/cli/remote.sh path/to/omnigraph path/to/omnigraph-server
set -euo pipefail
og="$1"
server="$2"
dir="$(mktemp -d)"
pid=""
cleanup() { [[ -n "$pid" ]] && kill "$pid" 2> /dev/null; rm -rf "$dir"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export OMNIGRAPH_FSYNC=0 OMNIGRAPH_HOME="$dir/home"
mkdir -p "$OMNIGRAPH_HOME"
g="$dir/g"
printf 'node P { n: String @key, v: I64? }\nedge K: P -> P\n' > "$dir/s.pg"
"$og" init --schema "$dir/s.pg" "$g" > /dev/null
printf '{"type":"P","data":{"n":"a","v":1}}\n{"type":"P","data":{"n":"b","v":2}}\n{"edge":"K","from":"a","to":"b"}\n' > "$dir/d.ndjson"
"$og" load "$g" --data "$dir/d.ndjson" --mode overwrite --quiet > /dev/null

start() {  # start [env...]: the server on a free port; sets $url
  env "$@" "$server" --store "$g" --bind 127.0.0.1:0 --quiet > "$dir/addr" 2> "$dir/server.err" &
  pid=$!
  for _ in $(seq 100); do grep -q OMNIGRAPH_LISTEN_ADDR "$dir/addr" 2> /dev/null && break; sleep 0.05; done
  url="http://$(sed -n 's/^OMNIGRAPH_LISTEN_ADDR=//p' "$dir/addr")"
  [[ "$url" != "http://" ]] || fail "server did not start: $(cat "$dir/server.err")"
}
stop() { kill "$pid"; wait "$pid" || fail "server exit $? on SIGTERM"; pid=""; }

q='query q() { match { $p: P } return { $p.n, $p.v } order { $p.n } }'
start OMNIGRAPH_UNAUTHENTICATED=1
S=(--server "$url" --graph default)

# Reads answer as they do locally.
local_json="$("$og" query --store "$g" -e "$q" --format json | jq -cS 'del(.graph_commit_id)')"
remote_json="$("$og" query "${S[@]}" -e "$q" --format json | jq -cS 'del(.graph_commit_id)')"
[[ "$local_json" == "$remote_json" ]] || fail "query json: local $local_json remote $remote_json"
for fmt in table csv kv jsonl; do
  l="$("$og" query --store "$g" -e "$q" --format $fmt)"
  r="$("$og" query "${S[@]}" -e "$q" --format $fmt)"
  [[ "$l" == "$r" ]] || fail "query --format $fmt differs: local [$l] remote [$r]"
done
[[ "$("$og" branch list "${S[@]}")" == "main" ]] || fail "branch list"
[[ "$("$og" schema show "${S[@]}")" == "$("$og" schema show --store "$g")" ]] || fail "schema show"
[[ "$("$og" export "${S[@]}" | sort)" == "$("$og" export --store "$g" | sort)" ]] || fail "export"

# Writes: mutate, load, branches; the server's answer is the local --json shape.
out="$("$og" mutate "${S[@]}" -e 'query m() { insert P { n: "c", v: 3 } }' --json)"
[[ "$(jq -r .affected_nodes <<< "$out")" == 1 ]] || fail "mutate: $out"
head="$(jq -r .commit.graph_commit_id <<< "$out")"
printf '{"type":"P","data":{"n":"d","v":4}}\n' > "$dir/e.ndjson"
out="$("$og" load "${S[@]}" --data "$dir/e.ndjson" --mode merge --branch feat --from main --json --quiet)"
[[ "$(jq -r .branch_created <<< "$out")" == true ]] || fail "load --from: $out"
"$og" branch merge "${S[@]}" feat --quiet | grep -q "merged feat into main: fast_forward" || fail "merge"
"$og" branch delete "${S[@]}" feat --quiet > /dev/null
[[ "$("$og" query --store "$g" -e 'query c() { match { $p: P } return { count($p) as n } }' --format json | jq .rows[0].n)" == 4 ]] ||
  fail "the served writes are not in the graph"

# Schema apply over HTTP (a --store server allows it; cluster-served graphs refuse it).
printf 'node P { n: String @key, v: I64?, w: String? }\nedge K: P -> P\n' > "$dir/s2.pg"
out="$("$og" schema apply "${S[@]}" --schema "$dir/s2.pg" --json --quiet)"
[[ "$(jq -r .applied <<< "$out")" == true ]] || fail "schema apply: $out"
"$og" schema show "${S[@]}" | grep -q "w: String?" || fail "schema show after apply"

# Errors keep their codes: a stale --if-commit is exit 4 with precondition_failure.
set +e
out="$("$og" mutate "${S[@]}" -e 'query m() { insert P { n: "x" } }' --if-commit "$head" --json 2> /dev/null)"; rc=$?
set -e
[[ $rc == 4 ]] || fail "stale --if-commit exit $rc: $out"
[[ "$(jq -r .precondition_failure.expected <<< "$out")" == "$head" ]] || fail "precondition body: $out"
set +e
"$og" query "${S[@]}" -e 'query q() { match { $p: Nope } return { $p.n } }' > /dev/null 2> "$dir/err"; rc=$?
set -e
[[ $rc == 1 ]] && grep -q 'error\[T' "$dir/err" || fail "type error over HTTP: exit $rc $(cat "$dir/err")"
set +e
"$og" query --server "$url" --graph nope -e "$q" > /dev/null 2> "$dir/err"; rc=$?
set -e
[[ $rc == 1 ]] && grep -q "graph 'nope' not found" "$dir/err" || fail "unknown graph: $(cat "$dir/err")"
set +e
"$og" mutate "${S[@]}" --as bob -e 'query m() { insert P { n: "y" } }' > /dev/null 2> "$dir/err"; rc=$?
set -e
[[ $rc == 2 ]] || fail "--as on a served write must be a usage error (exit $rc)"
stop

# Tokens: OMNIGRAPH_TOKEN_<NAME> for a `servers:` entry, the credentials file, OMNIGRAPH_BEARER_TOKEN.
start OMNIGRAPH_SERVER_BEARER_TOKENS_JSON='{"alice":"tok-a"}'
printf 'servers:\n  my-srv:\n    url: %s\n' "$url" > "$OMNIGRAPH_HOME/config.yaml"
set +e
"$og" branch list --server my-srv --graph default > /dev/null 2> "$dir/err"; rc=$?
set -e
[[ $rc == 1 ]] && grep -q "missing bearer token" "$dir/err" || fail "no token: exit $rc $(cat "$dir/err")"
OMNIGRAPH_TOKEN_MY_SRV=tok-a "$og" branch list --server my-srv --graph default > /dev/null || fail "OMNIGRAPH_TOKEN_MY_SRV"
echo tok-a | "$og" login my-srv > /dev/null
[[ "$(stat -c %a "$OMNIGRAPH_HOME/credentials")" == 600 ]] || fail "credentials mode"
"$og" branch list --server my-srv --graph default > /dev/null || fail "credentials file token"
"$og" logout my-srv > /dev/null
OMNIGRAPH_BEARER_TOKEN=tok-a "$og" branch list --server "$url" --graph default > /dev/null || fail "OMNIGRAPH_BEARER_TOKEN"
set +e
OMNIGRAPH_BEARER_TOKEN=wrong "$og" branch list --server "$url" --graph default > /dev/null 2> "$dir/err"; rc=$?
set -e
[[ $rc == 1 ]] && grep -q "invalid bearer token" "$dir/err" || fail "wrong token: $(cat "$dir/err")"
chmod 644 "$OMNIGRAPH_HOME/credentials"
set +e
"$og" branch list --server my-srv --graph default > /dev/null 2> "$dir/err"; rc=$?
set -e
[[ $rc != 0 ]] && grep -q "group/world-accessible" "$dir/err" || fail "a readable credentials file must be refused"
stop
echo "remote mode: ok"
