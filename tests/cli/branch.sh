#!/usr/bin/env bash
# Branch commands end to end (docs/cli.md): `load --branch B --from A` (created only by a valid
# load, in the load's own ref entry; `--from` without `--branch` targets main, which exists, so it
# only echoes base_branch, as the Rust CLI; --json branch_created/base_branch/commit),
# branch create/list/delete/merge --delete-branch, and `commit list` / `changes poll` across a
# fast-forward. --json output is pretty-printed in the Rust key order; the checks normalize it
# with `jq -cS .` (compact, sorted keys). Usage: tests/cli/branch.sh path/to/omnigraph
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

# --from without --branch (a scratch graph, so the history below is unchanged): accepted, as in
# the Rust CLI -- the branch defaults to main, which exists, so nothing is forked or created and
# --from is only echoed as base_branch; the load itself lands on main
g0="$dir/g0"
"$og" init --schema "$dir/s.pg" "$g0" > /dev/null
set +e
raw="$("$og" load "$g0" --data "$dir/ok.ndjson" --mode merge --from main --json 2> /dev/null)"; rc=$?
set -e
[[ $rc == 0 ]] || fail "--from without --branch exit $rc: $raw"
out="$(jq -cS . <<< "$raw")"
[[ "$out" == *'"base_branch":"main","branch":"main","branch_created":false'* ]] || fail "--from without --branch json: $out"
[[ "$out" == *'"committed":true'* ]] || fail "--from without --branch did not load: $out"
out="$("$og" branch list "$g0" --json | jq -cS .)"
[[ "$out" == '{"branches":["main"]}' ]] || fail "--from without --branch created a branch: $out"

# an invalid load with --from leaves no branch behind, and writes nothing at all
objects=$(find "$g" -type f | wc -l)
set +e
"$og" load "$g" --data "$dir/bad.ndjson" --mode merge --branch feat --from main 2> /dev/null; rc=$?
set -e
[[ $rc == 1 ]] || fail "invalid load exit $rc"
out="$("$og" branch list "$g" --json | jq -cS .)"
[[ "$out" == '{"branches":["main"]}' ]] || fail "branch left behind: $out"
[[ $(find "$g" -type f | wc -l) == "$objects" ]] || fail "the rejected load wrote objects"

# a valid one creates it, once, in one commit point: the branch's only ref entry is its create
# entry, naming the load's commit (never "created at main's head, then loaded")
out="$("$og" load "$g" --data "$dir/ok.ndjson" --mode merge --branch feat --from main --json | jq -cS .)"
[[ "$out" == *'"base_branch":"main","branch":"feat","branch_created":true'* ]] || fail "created json: $out"
commit="$(jq -r '.commit.graph_commit_id' <<< "$out")"
[[ "$commit" =~ ^[0-9A-Z]{26}$ ]] || fail "created json has no commit: $out"
entries=("$g"/refs/66656174/0*)
[[ ${#entries[@]} == 1 ]] || fail "the branch-creating load wrote ${#entries[@]} ref entries"
[[ "$(cat "${entries[0]}")" == *'"commit":"'"$commit"'"'*'"op":"create"'* ]] || fail "create entry: $(cat "${entries[0]}")"
[[ "$out" == *'"version":1'* ]] || fail "created version: $out"
out="$("$og" load "$g" --data "$dir/ok.ndjson" --mode merge --branch feat --from main --json | jq -cS .)"
[[ "$out" == *'"base_branch":"main","branch":"feat","branch_created":false'* ]] || fail "existing json: $out"
# without --from there is no base_branch key at all (the Rust LoadOutput skips it)
out="$("$og" load "$g" --data "$dir/m.ndjson" --mode merge --json | jq -cS .)"
[[ "$out" != *'"base_branch"'* && "$out" == *'"branch":"main","branch_created":false'* ]] || fail "plain load json: $out"

# branch create / list / delete
out="$("$og" branch create tmp --from feat --store "$g" --json | jq -cS .)"
[[ "$out" == *'"from":"feat","name":"tmp"'* ]] || fail "create json: $out"
set +e
"$og" branch create tmp --store "$g" 2> /dev/null; rc=$?
set -e
[[ $rc == 1 ]] || fail "duplicate create exit $rc"
out="$("$og" branch list "$g")"
[[ "$out" == $'feat\nmain\ntmp' ]] || fail "list: $out"
"$og" branch delete tmp "$g" > /dev/null
# human output: the Rust CLI's lines (a deleted name may be created again), and the write-target
# line on stderr, which the global --quiet drops
out="$("$og" branch create tmp --from feat "$g" --quiet 2> "$dir/err")"
[[ "$out" == "created branch tmp from feat" ]] || fail "create text: $out"
[[ ! -s "$dir/err" ]] || fail "--quiet create wrote to stderr: $(cat "$dir/err")"
out="$("$og" branch delete tmp "$g" 2> "$dir/err")"
[[ "$out" == "deleted branch tmp" ]] || fail "delete text: $out"
[[ "$(cat "$dir/err")" == "omnigraph branch delete → $g (direct, local)" ]] || fail "delete stderr: $(cat "$dir/err")"
set +e
"$og" branch delete main "$g" 2> /dev/null; rc=$?
set -e
[[ $rc == 1 ]] || fail "delete main exit $rc"

# a cursor on main, then: feat merges main, and main fast-forwards to feat
cursor="$("$og" changes poll --store "$g" --json | jq -er .cursor)"
out="$("$og" branch merge main --into feat --store "$g" --json | jq -cS .)"
[[ "$out" == *'"outcome":"merged"'* ]] || fail "merge main into feat: $out"
out="$("$og" branch merge feat "$g" --delete-branch --json | jq -cS .)"
[[ "$out" == *'"branch_deleted":true'*'"outcome":"fast_forward"'* ]] || fail "fast-forward: $out"
# main's own commit is still in its history; one row per ref move
out="$("$og" commit list "$g" --json | jq -cS .)"
n=$(grep -o '"graph_commit_id"' <<< "$out" | wc -l)
[[ $n == 3 ]] || fail "commit list has $n rows: $out"
[[ "$out" == *'"graph_manifest_version":3'*'"graph_manifest_version":2'*'"graph_manifest_version":1'* ]] || fail "versions: $out"
# the cursor from before the fast-forward gets one block: the feature's row
out="$("$og" changes poll --store "$g" --cursor "$cursor" --json | jq -cS .)"
[[ $(grep -o '"cause"' <<< "$out" | wc -l) == 1 ]] || fail "poll after fast-forward: $out"
[[ "$out" == *'"id":"a"'* && "$out" != *'"id":"m"'* ]] || fail "poll content: $out"
[[ "$(jq -r ".blocks[0].cause.graph_commit_id" <<< "$out")" == "$("$og" snapshot "$g" --json | jq -r .graph_commit_id)" ]] || fail "poll block: $out"
echo "branch CLI checks passed"
