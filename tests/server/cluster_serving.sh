#!/usr/bin/env bash
# omnigraph-server over an applied cluster (docs/server.md), through the real binaries: a cluster of
# two graphs (one with stored queries and a graph policy) and a cluster-level policy granting
# graph_list, applied with `omnigraph cluster apply`, then served with bearer tokens.
#  - /healthz, /graphs (admin only, sorted), the stored-query catalog and its invocation, an unknown
#    stored query (404), a cluster-served schema apply (409), policy allow/deny on mutations, the
#    token's actor on the commit (an X-Actor-Id header changes nothing), default-deny on the graph
#    with no policy;
#  - graceful stop: a request in flight when SIGTERM arrives still finishes, new connections are
#    refused, exit 0 (SIGTERM and SIGINT);
#  - quarantine: a graph whose folder is gone is left out of /graphs and its routes answer 404;
#    --require-all-graphs (or no healthy graph at all) refuses to start;
#  - boot refusals: no tokens without --unauthenticated, a cluster never applied;
#  - `omnigraph alias` (the CLI): stored queries through operator-config aliases.
# Usage: cluster_serving.sh <omnigraph binary> <omnigraph-server binary>
set -euo pipefail
og="$1"
srv="$2"
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
# Nothing from the caller's environment may change how the server boots.
unset OMNIGRAPH_SERVER_BEARER_TOKENS_FILE OMNIGRAPH_SERVER_BEARER_TOKENS_JSON OMNIGRAPH_SERVER_BEARER_TOKEN \
  OMNIGRAPH_SERVER_BEARER_TOKENS_AWS_SECRET OMNIGRAPH_CLUSTER OMNIGRAPH_BIND OMNIGRAPH_UNAUTHENTICATED \
  OMNIGRAPH_REQUIRE_ALL_GRAPHS OMNIGRAPH_CACHE_DIR OMNIGRAPH_CONFIG
export OMNIGRAPH_FSYNC=0
tokens='{"alice":"tok-a","bob":"tok-b"}'

# --- helpers -------------------------------------------------------------------------------------
start_server() {  # start_server ARGS... (env from the caller); sets $pid and $base
  : > "$dir/out"
  : > "$dir/err"
  "$srv" "$@" > "$dir/out" 2> "$dir/err" &
  pid=$!
  local addr="" i
  for i in $(seq 100); do
    addr=$(sed -n 's/^OMNIGRAPH_LISTEN_ADDR=//p' "$dir/out")
    [ -n "$addr" ] && break
    if [ ! -e "/proc/$pid" ] || [ "$(state_of "$pid")" = Z ]; then
      set +e; wait "$pid"; local rc=$?; set -e
      pid=""
      fail "server exited ($rc) before listening: $(cat "$dir/err")"
    fi
    sleep 0.1
  done
  [ -n "$addr" ] || fail "no OMNIGRAPH_LISTEN_ADDR line within 10 s"
  base="http://$addr"
}
state_of() { sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | cut -d' ' -f1; }
stop_server() {  # stop_server SIGNAL: the server must exit 0 within 5 s
  kill "-$1" "$pid"
  await_exit "$1"
}
await_exit() {  # await_exit SIGNAL: the signalled server must exit 0 within 5 s
  local sig="$1" i rc
  for i in $(seq 50); do
    if [ ! -e "/proc/$pid" ] || [ "$(state_of "$pid")" = Z ]; then break; fi
    sleep 0.1
  done
  if [ -e "/proc/$pid" ] && [ "$(state_of "$pid")" != Z ]; then fail "SIG$sig: server still running after 5 s"; fi
  set +e; wait "$pid"; rc=$?; set -e
  pid=""
  [ "$rc" -eq 0 ] || fail "SIG$sig: server exited $rc, not 0"
}
refused_boot() {  # refused_boot WHAT GREP ARGS...: the server must exit non-zero with GREP on stderr
  local what="$1" pattern="$2" rc
  shift 2
  set +e
  timeout 20 "$srv" --bind 127.0.0.1:0 "$@" > "$dir/rout" 2> "$dir/rerr"
  rc=$?
  set -e
  [ "$rc" -ne 124 ] || fail "$what: the server started (and was killed after 20 s): $(cat "$dir/rout")"
  [ "$rc" -ne 0 ] || fail "$what: exit 0"
  grep -q "$pattern" "$dir/rerr" || fail "$what: exit $rc, stderr lacks '$pattern': $(cat "$dir/rerr")"
  ! grep -q OMNIGRAPH_LISTEN_ADDR "$dir/rout" || fail "$what: printed a listen address"
}
req() {  # req TOKEN METHOD PATH [JSON BODY]; sets $code and $body (token "" sends no header)
  local args=(-s -o "$dir/body" -w '%{http_code}' -X "$2")
  [ -z "$1" ] || args+=(-H "Authorization: Bearer $1")
  [ $# -lt 4 ] || args+=(-H 'Content-Type: application/json' --data-binary "$4")
  : > "$dir/body"
  code=$(curl "${args[@]}" "$base$3") || code=000
  body=$(cat "$dir/body")
}
expect() {  # expect STATUS WHAT [PYTHON EXPRESSION over the body d]
  [ "$code" = "$1" ] || fail "$2: expected HTTP $1, got $code: $body"
  if [ $# -ge 3 ]; then
    python3 -c 'import json, sys
d = json.loads(sys.argv[2])
sys.exit(0 if eval("(" + sys.argv[1] + ")") else 1)' "$3" "$body" || fail "$2: not ($3): $body"
  fi
}
field() { python3 -c 'import json, sys; print(eval(sys.argv[1], {"d": json.loads(sys.argv[2])}))' "$1" "$body"; }

# --- the cluster -----------------------------------------------------------------------------------
c="$dir/cl"
mkdir -p "$c/queries"
cat > "$c/people.pg" << 'EOF'
node Person {
  name: String @key
  age: I32?
}
node Company {
  name: String @key
}
edge WorksAt: Person -> Company
EOF
cat > "$c/queries/people.gq" << 'EOF'
query find_person($name: String) {
  match { $p: Person { name: $name } }
  return { $p.name, $p.age }
}

query add_person($name: String, $age: I32) {
  insert Person { name: $name, age: $age }
}
EOF
cat > "$c/base.policy.yaml" << 'EOF'
version: 1
groups:
  readers: [alice, bob]
  writers: [alice]
protected_branches: [main]
rules:
  - id: readers-read
    allow:
      actors: { group: readers }
      actions: [read]
      branch_scope: any
  - id: readers-invoke
    allow:
      actors: { group: readers }
      actions: [invoke_query]
  - id: writers-change
    allow:
      actors: { group: writers }
      actions: [change]
      branch_scope: any
  - id: writers-schema
    allow:
      actors: { group: writers }
      actions: [schema_apply]
      target_branch_scope: any
EOF
cat > "$c/server.policy.yaml" << 'EOF'
version: 1
groups:
  admins: [alice]
rules:
  - id: admins-list-graphs
    allow:
      actors: { group: admins }
      actions: [graph_list]
EOF
cat > "$c/cluster.yaml" << 'EOF'
version: 1
metadata:
  name: serving
graphs:
  knowledge:
    schema: people.pg
    queries: queries/
  archive:
    schema: people.pg
policies:
  base:
    file: base.policy.yaml
    applies_to: [knowledge]
  server:
    file: server.policy.yaml
    applies_to: [cluster]
EOF
cp -r "$c" "$dir/never-applied"       # a folder that is never imported nor applied
cp -r "$c" "$dir/imported-only"       # imported (revision 1) but never applied
"$og" cluster import --config "$dir/imported-only" > /dev/null || fail "import of imported-only"

"$og" cluster import --config "$c" > /dev/null || fail "cluster import"
out=$("$og" cluster apply --config "$c" --as operator --json) || fail "cluster apply: $out"
python3 -c 'import json, sys; d = json.loads(sys.argv[1]); sys.exit(0 if d["ok"] and d["converged"] else 1)' "$out" ||
  fail "apply did not converge: $out"
[ -d "$c/graphs/knowledge.omni" ] && [ -d "$c/graphs/archive.omni" ] || fail "apply created no graph roots"
printf '{"type":"Person","data":{"name":"Ada","age":36}}\n{"type":"Person","data":{"name":"Bo","age":30}}\n' > "$dir/seed.jsonl"
"$og" load --mode merge --data "$dir/seed.jsonl" --cluster "$c" --graph knowledge > /dev/null 2>&1 || fail "seed load"

# --- serving ---------------------------------------------------------------------------------------
OMNIGRAPH_SERVER_BEARER_TOKENS_JSON="$tokens" start_server --cluster "$c" --bind 127.0.0.1:0
req "" GET /healthz
expect 200 "healthz" 'd["status"] == "ok"'
req tok-a GET /graphs
expect 200 "graphs as admin" '[g["graph_id"] for g in d["graphs"]] == ["archive", "knowledge"]'
req tok-b GET /graphs
expect 403 "graphs as non-admin" 'd["code"] == "forbidden"'
req "" GET /graphs
expect 401 "graphs without a token" 'd["code"] == "unauthorized"'
req tok-zzz GET /graphs/knowledge/snapshot
expect 401 "unknown token"
req tok-b GET /graphs/nosuch/snapshot
expect 404 "unknown graph"

req tok-b GET /graphs/knowledge/queries
expect 200 "stored-query catalog" '[q["name"] for q in d["queries"]] == ["add_person", "find_person"]'
expect 200 "find_person entry" \
  '[q for q in d["queries"] if q["name"] == "find_person"][0]["params"] == [{"name": "name", "kind": "string", "nullable": False}]
   and not [q for q in d["queries"] if q["name"] == "find_person"][0]["mutation"]
   and [q for q in d["queries"] if q["name"] == "add_person"][0]["mutation"]
   and [p["name"] for p in [q for q in d["queries"] if q["name"] == "add_person"][0]["params"]] == ["name", "age"]'
req tok-b POST /graphs/knowledge/queries/find_person '{"params":{"name":"Ada"}}'
expect 200 "stored read" 'd["row_count"] == 1 and d["rows"][0]["p.age"] == 36'
req tok-b POST /graphs/knowledge/queries/no_such_query '{}'
expect 404 "unknown stored query" 'd["error"] == "stored query not found"'
req tok-b POST /graphs/archive/queries/find_person '{"params":{"name":"Ada"}}'
expect 404 "stored query of another graph" 'd["error"] == "stored query not found"'

schema='{"schema_source":"node Person {\n  name: String @key\n  age: I32?\n}\n"}'
req tok-a POST /graphs/knowledge/schema/apply "$schema"
expect 409 "schema apply on a cluster-served graph" 'd["code"] == "conflict"'
req tok-b POST /graphs/knowledge/schema/apply "$schema"
expect 403 "schema apply without schema_apply"

ins='{"query":"query ins($n: String) { insert Person { name: $n, age: 7 } }","params":{"n":"Cy"}}'
req tok-b POST /graphs/knowledge/mutate "$ins"
expect 403 "mutate by a reader" 'd["code"] == "forbidden"'
code=$(curl -s -o "$dir/body" -w '%{http_code}' -H 'Authorization: Bearer tok-b' -H 'X-Actor-Id: alice' \
  -H 'Content-Type: application/json' --data-binary "$ins" "$base/graphs/knowledge/mutate") || code=000
body=$(cat "$dir/body")
expect 403 "mutate by a reader claiming X-Actor-Id: alice"
req tok-a POST /graphs/knowledge/mutate "$ins"
expect 200 "mutate by a writer" \
  'd["actor_id"] == "alice" and d["affected_nodes"] == 1 and d["commit"]["actor_id"] == "alice"'
commit=$(field 'd["commit"]["graph_commit_id"]')
req tok-b GET "/graphs/knowledge/commits/$commit"
expect 200 "the mutation's commit" 'd["actor_id"] == "alice" and d["graph_commit_id"] == "'"$commit"'"'
req tok-b GET /graphs/knowledge/commits
expect 200 "history" 'd["commits"][0]["graph_commit_id"] == "'"$commit"'" and d["commits"][0]["actor_id"] == "alice"'

req tok-b POST /graphs/knowledge/queries/add_person '{"params":{"name":"Dee","age":5}}'
expect 403 "stored mutation by a reader"
req tok-a POST /graphs/knowledge/queries/add_person '{"params":{"name":"Dee","age":5}}'
expect 200 "stored mutation by a writer" 'd["commit"]["actor_id"] == "alice" and d["affected_nodes"] == 1'
for n in Cy Dee; do
  req tok-b POST /graphs/knowledge/queries/find_person "{\"params\":{\"name\":\"$n\"}}"
  expect 200 "read back $n" 'd["row_count"] == 1'
done
req tok-b POST /graphs/knowledge/queries/find_person '{"params":{"name":"Eve"}}'
expect 200 "a stored read with no match" 'd["row_count"] == 0'

# `omnigraph alias`: the stored query an operator-config alias binds, on its server (docs/cli.md,
# "Aliases"): positional args bound to the alias's args, --params over both, the alias's format;
# usage errors for too many args and an unknown alias; a stored mutation refused, nothing written.
mkdir -p "$dir/home"
cat > "$dir/home/config.yaml" << EOF
servers:
  s:
    url: $base
aliases:
  person:
    server: s
    graph: knowledge
    query: find_person
    args: [name]
    format: json
  person_csv:
    server: s
    graph: knowledge
    query: find_person
    args: [name]
    params: { name: Bo }
    format: csv
  add:
    server: s
    graph: knowledge
    query: add_person
    args: [name, age]
EOF
og_as() {  # og_as TOKEN ARGS...: the CLI with the operator config above and TOKEN for server s
  local token="$1"
  shift
  env -u OMNIGRAPH_PROFILE -u OMNIGRAPH_BEARER_TOKEN -u OMNIGRAPH_ACTOR OMNIGRAPH_HOME="$dir/home" \
    OMNIGRAPH_TOKEN_S="$token" "$og" "$@"
}
alias_json() {  # alias_json WHAT PYTHON-EXPRESSION ALIAS-ARGS...: exit 0 and the JSON answer satisfies it
  local what="$1" cond="$2" rc
  shift 2
  set +e
  body=$(og_as tok-b alias "$@" 2> "$dir/alias.err")
  rc=$?
  set -e
  [ "$rc" -eq 0 ] || fail "$what: exit $rc: $(cat "$dir/alias.err")"
  code=200
  expect 200 "$what" "$cond"
}
alias_fails() {  # alias_fails WHAT RC GREP TOKEN ALIAS-ARGS...: exit RC with GREP in the output
  local what="$1" want="$2" pattern="$3" token="$4" rc
  shift 4
  set +e
  og_as "$token" alias "$@" > "$dir/alias.out" 2> "$dir/alias.err"
  rc=$?
  set -e
  [ "$rc" -eq "$want" ] || fail "$what: exit $rc, not $want: $(cat "$dir/alias.out" "$dir/alias.err")"
  # A JSON-format alias reports its error as JSON on stdout; others on stderr.
  cat "$dir/alias.out" "$dir/alias.err" | grep -q "$pattern" || fail "$what: output lacks '$pattern': $(cat "$dir/alias.out" "$dir/alias.err")"
}
alias_json "alias with a positional arg" 'd["row_count"] == 1 and d["rows"][0] == {"p.name": "Ada", "p.age": 36}' \
  person Ada
alias_json "alias with a JSON string arg" 'd["row_count"] == 1 and d["rows"][0]["p.name"] == "Ada"' person '"Ada"'
alias_json "--params over the positional arg" 'd["row_count"] == 1 and d["rows"][0]["p.name"] == "Bo"' \
  person Ada --params '{"name":"Bo"}'
printf '{"name":"Bo"}' > "$dir/alias-params.json"
alias_json "--params-file" 'd["row_count"] == 1 and d["rows"][0]["p.age"] == 30' person --params-file "$dir/alias-params.json"
alias_json "--json over the alias's format" 'd["row_count"] == 1 and d["rows"][0]["p.name"] == "Bo"' person_csv --json
out=$(og_as tok-b alias person_csv) || fail "alias person_csv: exit $?"
[ "$out" = "$(printf 'p.name,p.age\nBo,30')" ] || fail "the alias's params and format (csv): $out"
out=$(og_as tok-b alias person_csv Ada) || fail "alias person_csv Ada: exit $?"
[ "$out" = "$(printf 'p.name,p.age\nAda,36')" ] || fail "a positional arg over the alias's params: $out"
out=$(og_as tok-b alias person Ada --format kv) || fail "alias person Ada --format kv: exit $?"
printf '%s\n' "$out" | grep -q "^p.age: 36$" || fail "--format kv over the alias's format: $out"
alias_fails "too many args" 2 "alias 'person' takes 1 argument(s) \[name\], got 2" tok-b person Ada Bo
alias_fails "unknown alias" 2 "unknown alias 'nope'" tok-b nope
req tok-b GET /graphs/knowledge/commits
head_before=$(field 'd["commits"][0]["graph_commit_id"]')
alias_fails "an alias of a stored mutation (by a writer)" 1 "is a mutation" tok-a add Zed 5
req tok-b GET /graphs/knowledge/commits
expect 200 "no commit after the refused alias" 'd["commits"][0]["graph_commit_id"] == "'"$head_before"'"'
req tok-b POST /graphs/knowledge/queries/find_person '{"params":{"name":"Zed"}}'
expect 200 "nothing written by the refused alias" 'd["row_count"] == 0'

# archive has no bound policy: default-deny (reads only), whoever asks.
req tok-a POST /graphs/archive/mutate "$ins"
expect 403 "mutate on the graph with no policy"
req tok-b POST /graphs/archive/query '{"query":"query n() { match { $p: Person } return { count($p) as n } }"}'
expect 200 "read on the graph with no policy" 'd["rows"][0]["n"] == 0'

# Graceful stop with a request in flight: its body arrives 1.5 s after SIGTERM; it still finishes,
# while new connections are refused.
slow=$'{"query":"query ins($n: String) { insert Person { name: $n, age: 9 } }",\n"params":{"n":"Slow"}}'
# (a Content-Length body sent in two parts: the server takes no chunked bodies)
python3 - "$base" "$slow" "$dir/slow-started" > "$dir/slow-code" 2> "$dir/slow-body" <<'PY' &
import socket, sys, time, urllib.parse
u = urllib.parse.urlparse(sys.argv[1]); body = sys.argv[2].encode()
head = ("POST /graphs/knowledge/mutate HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok-a\r\n"
        "Content-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body)).encode()
s = socket.create_connection((u.hostname, u.port))
cut = body.index(b"\n") + 1
s.sendall(head + body[:cut])
open(sys.argv[3], "w").close()  # connected and the request begun: the script may stop the server now
time.sleep(2); s.sendall(body[cut:])
out = b""
while True:
    c = s.recv(65536)
    if not c: break
    out += c
sys.stderr.write(out.decode(errors="replace"))
print(out.split(b" ")[1].decode() if out.startswith(b"HTTP/1.1 ") else "none", end="")
PY
slow_pid=$!
for _ in $(seq 200); do [ -e "$dir/slow-started" ] && break; sleep 0.05; done
[ -e "$dir/slow-started" ] || fail "the in-flight client did not connect: $(cat "$dir/slow-body")"
sleep 0.3  # the server accepts it and starts reading the request
kill -TERM "$pid"
refused=no
for i in $(seq 20); do
  if ! curl -s -o /dev/null -m 1 "$base/healthz"; then refused=yes; break; fi
  sleep 0.05
done
await_exit TERM
wait "$slow_pid" || true
[ "$refused" = yes ] || fail "new connections still accepted after SIGTERM"
[ "$(cat "$dir/slow-code")" = 200 ] || fail "in-flight request at SIGTERM: $(cat "$dir/slow-code") $(cat "$dir/slow-body")"

# SIGINT; the in-flight write above is durable.
OMNIGRAPH_SERVER_BEARER_TOKENS_JSON="$tokens" start_server --cluster "$c" --bind 127.0.0.1:0 --quiet
req tok-b POST /graphs/knowledge/queries/find_person '{"params":{"name":"Slow"}}'
expect 200 "the write in flight at SIGTERM" 'd["row_count"] == 1 and d["rows"][0]["p.age"] == 9'
stop_server INT

# --- quarantine --------------------------------------------------------------------------------------
mv "$c/graphs/archive.omni" "$dir/archive.moved"
OMNIGRAPH_SERVER_BEARER_TOKENS_JSON="$tokens" start_server --cluster "$c" --bind 127.0.0.1:0
grep -q "graph 'archive' quarantined" "$dir/err" || fail "no quarantine line on stderr: $(cat "$dir/err")"
req tok-a GET /graphs
expect 200 "graphs with archive quarantined" '[g["graph_id"] for g in d["graphs"]] == ["knowledge"]'
for route in snapshot commits queries; do
  req tok-a GET "/graphs/archive/$route"
  expect 404 "quarantined graph's /$route"
done
req tok-a POST /graphs/archive/query '{"query":"query n() { match { $p: Person } return { count($p) as n } }"}'
expect 404 "quarantined graph's /query"
req tok-b POST /graphs/knowledge/queries/find_person '{"params":{"name":"Ada"}}'
expect 200 "the healthy graph next to a quarantined one" 'd["row_count"] == 1'
stop_server TERM

OMNIGRAPH_SERVER_BEARER_TOKENS_JSON="$tokens" refused_boot "--require-all-graphs with a broken graph" archive \
  --cluster "$c" --require-all-graphs
OMNIGRAPH_SERVER_BEARER_TOKENS_JSON="$tokens" OMNIGRAPH_REQUIRE_ALL_GRAPHS=1 \
  refused_boot "OMNIGRAPH_REQUIRE_ALL_GRAPHS=1 with a broken graph" archive --cluster "$c"
mkdir "$c/graphs/archive.omni"  # a folder that holds no graph
echo junk > "$c/graphs/archive.omni/junk"
OMNIGRAPH_SERVER_BEARER_TOKENS_JSON="$tokens" refused_boot "--require-all-graphs with a junk graph folder" archive \
  --cluster "$c" --require-all-graphs
mv "$c/graphs/knowledge.omni" "$dir/knowledge.moved"
OMNIGRAPH_SERVER_BEARER_TOKENS_JSON="$tokens" refused_boot "no healthy graph" cluster_not_servable --cluster "$c"
mv "$dir/knowledge.moved" "$c/graphs/knowledge.omni"
rm -rf "$c/graphs/archive.omni"
mv "$dir/archive.moved" "$c/graphs/archive.omni"
OMNIGRAPH_SERVER_BEARER_TOKENS_JSON="$tokens" start_server --cluster "$c" --bind 127.0.0.1:0 --require-all-graphs --quiet
req tok-a GET /graphs
expect 200 "graphs after the repair" '[g["graph_id"] for g in d["graphs"]] == ["archive", "knowledge"]'
stop_server TERM

# --- boot refusals -----------------------------------------------------------------------------------
refused_boot "a policy-bound cluster without tokens" "error\[" --cluster "$c"
refused_boot "a policy-bound cluster with --unauthenticated" "error\[" --cluster "$c" --unauthenticated
OMNIGRAPH_SERVER_BEARER_TOKENS_JSON='{"alice":"tok-a","bob":"tok-a"}' \
  refused_boot "one token given twice" "error\[" --cluster "$c"
"$og" init --schema "$c/people.pg" "$dir/store.omni" > /dev/null
refused_boot "a --store graph without tokens nor --unauthenticated" "unauthenticated" --store "$dir/store.omni"
refused_boot "a cluster never imported" "cluster_not_servable" --cluster "$dir/never-applied" --unauthenticated
OMNIGRAPH_SERVER_BEARER_TOKENS_JSON="$tokens" \
  refused_boot "a cluster imported but never applied" "cluster_not_servable" --cluster "$dir/imported-only"
refused_boot "serving nothing" "error\[" --unauthenticated
echo "ok: server cluster serving"
