#!/usr/bin/env bash
# `omnigraph mutate` end to end (docs/cli.md): argument forms, human output (the Rust CLI's
# `changed BRANCH via QUERY: N nodes, M edges`, `actor_id: A`, then ours: `commit: ID (version V)`
# or `nothing changed: no commit`) and --json output (pretty-printed in the Rust key order; the
# checks normalize it with `jq -cS .`), the no-op result (commit null), exit codes 0 / 1
# (validation error) / 4 (stale --if-commit, with --json the error body on stdout).
#   tests/cli/mutate.sh path/to/omnigraph
set -euo pipefail
og="$1"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
printf 'node P { n: String @key, v: I64? @range(v, 0..10) }\nedge K: P -> P\n' > "$dir/s.pg"
"$og" init --schema "$dir/s.pg" "$dir/g" > /dev/null
head="$("$og" snapshot "$dir/g" --json | jq -er .graph_commit_id)"
[[ "$head" =~ ^[0-9A-Z]{26}$ ]] || fail "snapshot head: $head"

# positional URI, human output
out="$("$og" mutate "$dir/g" -e 'query add($n: String) { insert P { n: $n, v: 1 } }' --params '{"n":"a"}')"
[[ "$out" =~ ^"changed main via add: 1 nodes, 0 edges"$'\n'"commit: "[0-9A-Z]{26}" (version 2)"$ ]] || fail "human output: $out"

# --store, --json, --as; the same image again publishes nothing
out="$("$og" mutate --store "$dir/g" --json --as alice -e 'query add($n: String) { insert P { n: $n, v: 1 } }' --params '{"n":"a"}' | jq -cS .)"
[[ "$out" == '{"actor_id":"alice","affected_edges":0,"affected_nodes":0,"branch":"main","commit":null,"query_name":"add"}' ]] || fail "no-op json: $out"
out="$("$og" mutate --store "$dir/g" --as alice -e 'query add($n: String) { insert P { n: $n, v: 1 } }' --params '{"n":"a"}')"
[[ "$out" == $'changed main via add: 0 nodes, 0 edges\nactor_id: alice\nnothing changed: no commit' ]] || fail "no-op human output: $out"

# NAME picks one query of several; --params-file; read-your-writes edge
echo '{"n":"b"}' > "$dir/p.json"
printf 'query add($n: String) { insert P { n: $n } insert K { from: "a", to: $n } }\nquery drop() { delete P where n = "a" }\n' > "$dir/q.gq"
out="$("$og" mutate add "$dir/g" --query "$dir/q.gq" --params-file "$dir/p.json" --json --as bob | jq -cS .)"
[[ "$out" == *'"affected_edges":1,"affected_nodes":1'* ]] || fail "named query: $out"
[[ "$out" == *'"commit":{"actor_id":"bob"'*'"operation":"mutate:add"'* ]] || fail "commit output: $out"

# a validation error: exit 1, code and statement named
set +e
err="$("$og" mutate "$dir/g" -e 'query bad() { insert P { n: "c" } insert P { n: "d", v: 99 } }' 2>&1)"; rc=$?
set -e
[[ $rc == 1 ]] || fail "validation error exit $rc"
[[ "$err" == *"error[load_range]"*"statement 2"* ]] || fail "validation message: $err"

# a stale --if-commit: exit 4
set +e
"$og" mutate drop "$dir/g" --query "$dir/q.gq" --if-commit "$head" 2> /dev/null; rc=$?
set -e
[[ $rc == 4 ]] || fail "stale --if-commit exit $rc"
# ... with --json the error body goes to stdout: {"error", "code", "precondition_failure", ...}
set +e
raw="$("$og" mutate drop "$dir/g" --query "$dir/q.gq" --if-commit "$head" --json 2> /dev/null)"; rc=$?
set -e
[[ $rc == 4 ]] || fail "stale --if-commit --json exit $rc"
out="$(jq -cS . <<< "$raw")"
[[ "$out" == *'"code":"precondition_failure","error":"precondition failed on branch '"'main'"': expected head '"'$head'"' but current is '* ]] || fail "stale --if-commit json: $out"
[[ "$out" == *'"precondition_failure":{"actual":"'[0-9A-Z]*'","expected":"'"$head"'"}'* ]] || fail "stale --if-commit json details: $out"

# delete cascades: a and its K edge
out="$("$og" mutate drop "$dir/g" --query "$dir/q.gq" --json | jq -cS .)"
[[ "$out" == *'"affected_edges":1,"affected_nodes":1'* ]] || fail "delete: $out"
echo "mutate CLI checks passed"
