#!/usr/bin/env bash
# Time travel and diffs through the CLI (docs/cli.md): `query --snapshot` with a snapshot id and
# with a commit id reads the past; `diff FROM TO` lists exactly the change between them, across
# branches too; a snapshot id of a deleted and re-created branch is rejected, not retargeted.
#   tests/cli/time_travel.sh path/to/omnigraph
set -euo pipefail
og="$1"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# one string field of a --json object (pretty-printed; jq -e fails when it is absent or null)
field() { jq -er ".$1 | strings"; }
printf 'node Person { name: String @key, age: I32? }\nedge Knows: Person -> Person\n' > "$dir/s.pg"
"$og" init --schema "$dir/s.pg" "$dir/g" > /dev/null
printf '{"type":"Person","data":{"name":"a","age":1}}\n{"type":"Person","data":{"name":"b","age":2}}\n' > "$dir/d.ndjson"
"$og" load --data "$dir/d.ndjson" --mode append --store "$dir/g" > /dev/null
snap="$("$og" snapshot "$dir/g" --json)"
sid="$(echo "$snap" | field snapshot_id)"
cid="$(echo "$snap" | field graph_commit_id)"
"$og" mutate --store "$dir/g" -e 'query q() { update Person set { age: 5 } where name = "a" }' > /dev/null

q='query q() { match { $p: Person { name: "a" } } return { $p.age } }'
[[ "$("$og" query -e "$q" --store "$dir/g" --format csv)" == $'p.age\n5' ]] || fail "head read"
[[ "$("$og" query -e "$q" --store "$dir/g" --snapshot "$sid" --format csv)" == $'p.age\n1' ]] || fail "snapshot id read"
[[ "$("$og" query -e "$q" --store "$dir/g" --commit "$cid" --format csv)" == $'p.age\n1' ]] || fail "commit id read"

out="$("$og" diff "$cid" main "$dir/g" --json | jq -cS .)"
[[ "$out" == *'"op":"update"'* && "$out" == *'"before":{"properties":{"age":1,"name":"a"}}'* &&
   "$out" == *'"after":{"properties":{"age":5,"name":"a"}}'* ]] || fail "diff: $out"
[[ "$(echo "$out" | grep -o '"op":' | wc -l)" == 1 ]] || fail "diff lists one change: $out"

# across branches: a branch's own insert shows up as an insert against main
"$og" branch create feat --store "$dir/g" > /dev/null
"$og" mutate --store "$dir/g" --branch feat -e 'query q() { insert Person { name: "c", age: 3 } }' > /dev/null
out="$("$og" diff main feat "$dir/g" --json | jq -cS .)"
[[ "$out" == *'"op":"insert"'* && "$out" == *'"id":"c"'* ]] || fail "cross-branch diff: $out"

# a snapshot id of an earlier incarnation of a branch is refused (never retargeted)
fsid="$("$og" snapshot "$dir/g" --branch feat --json | field snapshot_id)"
"$og" branch delete feat --store "$dir/g" > /dev/null
"$og" branch create feat --store "$dir/g" > /dev/null
if out="$("$og" query -e "$q" --store "$dir/g" --snapshot "$fsid" 2>&1)"; then fail "stale incarnation accepted: $out"; fi
[[ "$out" == *stale_incarnation* ]] || fail "stale incarnation error: $out"
echo "time travel ok"
