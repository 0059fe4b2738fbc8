#!/usr/bin/env bash
# The CLI's remote mode against a real omnigraph-server (docs/cli.md, "Remote graphs"): the same
# commands with --server URL --graph ID give the answers the local commands give on the same graph
# (change listing byte for byte: `commit changes` with its pages followed, `changes poll`, and the
# file `changes baseline` writes);
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
c1="$("$og" snapshot --store "$g" --json | jq -r .graph_commit_id)"  # the load: 2 nodes and 1 edge

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
# Loader flags of a directly opened graph are refused on a served one (usage, exit 2), nothing loaded.
for flag in "--if-commit $head" "--max-memory 1G"; do
  set +e
  # shellcheck disable=SC2086
  "$og" load "${S[@]}" --data "$dir/e.ndjson" --mode merge $flag --quiet > "$dir/lf.out" 2>&1
  rc=$?
  set -e
  [[ $rc == 2 ]] || fail "load $flag on a served graph: exit $rc: $(cat "$dir/lf.out")"
  grep -q "applies to a graph opened directly" "$dir/lf.out" || fail "load $flag: $(cat "$dir/lf.out")"
done
"$og" branch merge "${S[@]}" feat --quiet | grep -q "merged feat into main: fast_forward" || fail "merge"
"$og" branch delete "${S[@]}" feat --quiet > /dev/null
[[ "$("$og" query --store "$g" -e 'query c() { match { $p: P } return { count($p) as n } }' --format json | jq .rows[0].n)" == 4 ]] ||
  fail "the served writes are not in the graph"

# Change listing over HTTP prints what the local commands print, byte for byte.
l="$("$og" commit changes "$c1" --store "$g" --json)"
r="$("$og" commit changes "$c1" "${S[@]}" --json)"
[[ "$l" == "$r" ]] || fail "commit changes --json: local [$l] remote [$r]"
[[ "$(jq '.changes | length' <<< "$r")" == 3 ]] || fail "commit changes: 3 changes expected: $r"
[[ "$("$og" commit changes "$c1" "${S[@]}")" == "$("$og" commit changes "$c1" --store "$g")" ]] ||
  fail "commit changes (text) differs"
for filter in "--kind edge" "--type P --op insert"; do
  # shellcheck disable=SC2086
  [[ "$("$og" commit changes "$c1" "${S[@]}" $filter --json)" == "$("$og" commit changes "$c1" --store "$g" $filter --json)" ]] ||
    fail "commit changes $filter differs"
done
# --limit 1: the pages are followed into the one document; --page-token prints one page and its token.
r="$("$og" commit changes "$c1" "${S[@]}" --limit 1 --json)"
[[ "$r" == "$l" ]] || fail "commit changes --limit 1 (pages followed): $r"
[[ "$("$og" commit changes "$c1" "${S[@]}" --limit 1)" == "$("$og" commit changes "$c1" --store "$g")" ]] ||
  fail "commit changes --limit 1 (text) differs"
p1="$("$og" commit changes "$c1" "${S[@]}" --limit 1 --page-token '' --json)"
[[ "$p1" == "$("$og" commit changes "$c1" --store "$g" --limit 1 --page-token '' --json)" ]] || fail "first page: $p1"
[[ "$(jq '.changes | length' <<< "$p1")" == 1 ]] || fail "first page: one change expected: $p1"
tok="$(jq -r '.next_page_token // empty' <<< "$p1")"
[[ -n "$tok" ]] || fail "first page: no next_page_token: $p1"
p2="$("$og" commit changes "$c1" "${S[@]}" --limit 1 --page-token "$tok" --json)"
[[ "$p2" == "$("$og" commit changes "$c1" --store "$g" --limit 1 --page-token "$tok" --json)" ]] ||
  fail "second page: $p2"
[[ "$(jq -c '.changes[0]' <<< "$p2")" == "$(jq -c '.changes[1]' <<< "$l")" ]] || fail "second page: $p2"
[[ "$("$og" commit changes "$c1" "${S[@]}" --limit 1 --page-token "$tok")" == *"next_page_token: "* ]] ||
  fail "a page in text names the next token"
p3="$("$og" commit changes "$c1" "${S[@]}" --limit 2 --page-token "$(jq -r .next_page_token <<< "$p2")" --json)"
[[ "$(jq '.changes | length' <<< "$p3")" == 1 && "$(jq 'has("next_page_token")' <<< "$p3")" == false ]] ||
  fail "last page: $p3"
set +e
"$og" commit changes nope "${S[@]}" > /dev/null 2> "$dir/err"; rc=$?
set -e
[[ $rc == 1 ]] && grep -q "error\[" "$dir/err" || fail "commit changes of an unknown commit: exit $rc $(cat "$dir/err")"
set +e
"$og" commit changes "$c1" "${S[@]}" --kind vertex > /dev/null 2> "$dir/err"; rc=$?
set -e
[[ $rc == 2 ]] || fail "commit changes --kind vertex must be a usage error (exit $rc)"

l="$("$og" changes poll --start beginning --store "$g" --json)"
r="$("$og" changes poll --start beginning "${S[@]}" --json)"
[[ "$l" == "$r" ]] || fail "changes poll --json: local [$l] remote [$r]"
[[ "$(jq '.blocks | length' <<< "$r")" -ge 3 && "$(jq -r .caught_up <<< "$r")" == true ]] || fail "poll: $r"
[[ "$("$og" changes poll --start beginning "${S[@]}")" == "$("$og" changes poll --start beginning --store "$g")" ]] ||
  fail "changes poll (text) differs"
[[ "$("$og" changes poll --start beginning "${S[@]}" --kind edge --json)" == "$("$og" changes poll --start beginning --store "$g" --kind edge --json)" ]] ||
  fail "changes poll --kind edge differs"
after="$("$og" changes poll --start "after:$c1" "${S[@]}" --json)"
[[ "$after" == "$("$og" changes poll --start "after:$c1" --store "$g" --json)" ]] || fail "poll --start after: $after"
cursor="$(jq -r .cursor <<< "$r")"
[[ "$("$og" changes poll --cursor "$cursor" "${S[@]}" --json)" == "$("$og" changes poll --cursor "$cursor" --store "$g" --json)" ]] ||
  fail "poll --cursor differs"
"$og" changes poll --cursor "$cursor" "${S[@]}" > "$dir/out"
grep -q "(no new commits)" "$dir/out" || fail "poll from the last cursor: $(cat "$dir/out")"

# The baseline file is the local command's, and so is the handshake printed.
r="$("$og" changes baseline "${S[@]}" --out "$dir/remote.base" --json)"
l="$("$og" changes baseline --store "$g" --out "$dir/local.base" --json)"
cmp "$dir/remote.base" "$dir/local.base" || fail "baseline files differ"
[[ -s "$dir/remote.base" ]] || fail "empty baseline"
[[ "$r" == "$l" ]] || fail "changes baseline --json: local [$l] remote [$r]"
[[ "$(jq -r .snapshot_commit_id <<< "$r")" == "$("$og" snapshot --store "$g" --json | jq -r .graph_commit_id)" ]] ||
  fail "baseline snapshot_commit_id: $r"
[[ "$(jq -r .resume_cursor <<< "$r")" == ogc1.* ]] || fail "baseline resume_cursor: $r"
"$og" changes poll --cursor "$(jq -r .resume_cursor <<< "$r")" "${S[@]}" > "$dir/out"
grep -q "(no new commits)" "$dir/out" || fail "poll from the baseline's cursor: $(cat "$dir/out")"
"$og" changes baseline "${S[@]}" --out "$dir/remote.base" > "$dir/out"
grep -qx "snapshot: $dir/remote.base" "$dir/out" && grep -q "^snapshot_commit_id: " "$dir/out" &&
  grep -q "^resume_cursor: ogc1\." "$dir/out" || fail "changes baseline (text): $(cat "$dir/out")"
"$og" changes baseline "${S[@]}" --type K --out "$dir/remote-k.base" > /dev/null
"$og" changes baseline --store "$g" --type K --out "$dir/local-k.base" > /dev/null
cmp "$dir/remote-k.base" "$dir/local-k.base" || fail "baseline --type K files differ"
set +e
"$og" changes baseline "${S[@]}" --type Nope --out "$dir/none.base" > /dev/null 2> "$dir/err"; rc=$?
set -e
[[ $rc == 1 && ! -e "$dir/none.base" ]] || fail "baseline of an unknown type: exit $rc $(cat "$dir/err")"

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
