#!/usr/bin/env bash
# Branch commands end to end (docs/cli.md): `load --branch B --from A` (created only by a valid
# load, in the load's own ref entry; `--from` without `--branch` is a usage error; --json
# branch_created/base_branch),
# branch create/list/delete/merge --delete-branch, and `commit list` / `changes poll` across a
# fast-forward. Usage: tests/cli/branch.sh path/to/omnigraph
set -euo pipefail
og="$1"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export OMNIGRAPH_FSYNC=0
g="$dir/g"
printf 'node P { n: String @key, v: I64? @range(v, 0..10) }\nedge K: P -> P\n' > "$dir/s.pg"
"$og" init --schema "$dir/s.pg" "$g" > /dev/null
echo '{"type":"P","data":{"n":"a","v":1}}' > "$dir/ok.ndjson"
echo '{"type":"P","data":{"n":"b","v":99}}' > "$dir/bad.ndjson"
echo '{"type":"P","data":{"n":"m","v":2}}' > "$dir/m.ndjson"

# --from without --branch: usage error
set +e
err="$("$og" load "$g" --data "$dir/ok.ndjson" --mode merge --from main 2>&1)"; rc=$?
set -e
[[ $rc == 2 ]] || fail "--from without --branch exit $rc"
[[ "$err" == *"--from requires --branch"* ]] || fail "usage message: $err"

# an invalid load with --from leaves no branch behind, and writes nothing at all
objects=$(find "$g" -type f | wc -l)
set +e
"$og" load "$g" --data "$dir/bad.ndjson" --mode merge --branch feat --from main 2> /dev/null; rc=$?
set -e
[[ $rc == 1 ]] || fail "invalid load exit $rc"
out="$("$og" branch list "$g" --json)"
[[ "$out" == '{"branches":["main"]}' ]] || fail "branch left behind: $out"
[[ $(find "$g" -type f | wc -l) == "$objects" ]] || fail "the rejected load wrote objects"

# a valid one creates it, once, in one commit point: the branch's only ref entry is its create
# entry, naming the load's commit (never "created at main's head, then loaded")
out="$("$og" load "$g" --data "$dir/ok.ndjson" --mode merge --branch feat --from main --json)"
[[ "$out" == *'"base_branch":"main","branch":"feat","branch_created":true'* ]] || fail "created json: $out"
commit="$(sed -E 's/.*"commit":"([^"]+)".*/\1/' <<< "$out")"
entries=("$g"/refs/66656174/0*)
[[ ${#entries[@]} == 1 ]] || fail "the branch-creating load wrote ${#entries[@]} ref entries"
[[ "$(cat "${entries[0]}")" == *'"commit":"'"$commit"'"'*'"op":"create"'* ]] || fail "create entry: $(cat "${entries[0]}")"
[[ "$out" == *'"version":1'* ]] || fail "created version: $out"
out="$("$og" load "$g" --data "$dir/ok.ndjson" --mode merge --branch feat --from main --json)"
[[ "$out" == *'"branch_created":false'* ]] || fail "existing json: $out"
out="$("$og" load "$g" --data "$dir/m.ndjson" --mode merge --json)"
[[ "$out" == *'"base_branch":null'*'"branch_created":false'* ]] || fail "plain load json: $out"

# branch create / list / delete
out="$("$og" branch create tmp --from feat --store "$g" --json)"
[[ "$out" == *'"from":"feat","name":"tmp"'* ]] || fail "create json: $out"
set +e
"$og" branch create tmp --store "$g" 2> /dev/null; rc=$?
set -e
[[ $rc == 1 ]] || fail "duplicate create exit $rc"
out="$("$og" branch list "$g")"
[[ "$out" == $'feat\nmain\ntmp' ]] || fail "list: $out"
"$og" branch delete tmp "$g" > /dev/null
set +e
"$og" branch delete main "$g" 2> /dev/null; rc=$?
set -e
[[ $rc == 1 ]] || fail "delete main exit $rc"

# a cursor on main, then: feat merges main, and main fast-forwards to feat
cursor="$("$og" changes poll --store "$g" --json | sed -E 's/.*"cursor":"([^"]+)".*/\1/')"
out="$("$og" branch merge main --into feat --store "$g" --json)"
[[ "$out" == *'"outcome":"merged"'* ]] || fail "merge main into feat: $out"
out="$("$og" branch merge feat "$g" --delete-branch --json)"
[[ "$out" == *'"branch_deleted":true'*'"outcome":"fast_forward"'* ]] || fail "fast-forward: $out"
# main's own commit is still in its history; one row per ref move
out="$("$og" commit list "$g" --json)"
n=$(grep -o '"graph_commit_id"' <<< "$out" | wc -l)
[[ $n == 3 ]] || fail "commit list has $n rows: $out"
[[ "$out" == *'"graph_manifest_version":3'*'"graph_manifest_version":2'*'"graph_manifest_version":1'* ]] || fail "versions: $out"
# the cursor from before the fast-forward gets one block: the feature's row
out="$("$og" changes poll --store "$g" --cursor "$cursor" --json)"
[[ $(grep -o '"cause"' <<< "$out" | wc -l) == 1 ]] || fail "poll after fast-forward: $out"
[[ "$out" == *'"id":"a"'* && "$out" != *'"id":"m"'* ]] || fail "poll content: $out"
[[ "$out" == *'"version":3'* ]] || fail "poll version: $out"
echo "branch CLI checks passed"
