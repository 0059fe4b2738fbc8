#!/usr/bin/env bash
# Change listing end to end, in the Rust CLI's shapes (docs/cli.md "Change listing"):
# `commit changes` (pretty {cause, changes}; --limit/--page-token pages that add up to the whole;
# repeatable --kind/--type/--op; tokens bound to commit and filter), `changes poll` (--limit =
# changes per page: a poll stops where a Rust page ends at a block boundary; the cursor then
# resumes exactly), `changes baseline --out` (the export of the head, installed atomically, and a
# cursor that resumes right after it), and the text rendering of causes and changes.
#   tests/cli/changes.sh path/to/omnigraph
set -euo pipefail
og="$1"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export OMNIGRAPH_FSYNC=0 HOME="$dir"  # no operator config, no actor
unset OMNIGRAPH_ACTOR OMNIGRAPH_PROFILE OMNIGRAPH_HOME || true
# field KEY: the first string value of KEY in the (pretty or compact) JSON on stdin.
field() { { grep -o "\"$1\": *\"[^\"]*\"" || true; } | head -n 1 | sed -E 's/.*"([^"]*)"$/\1/'; }
# count TEXT: how many times the fixed string TEXT occurs on stdin.
count() { { grep -oF -- "$1" || true; } | wc -l | tr -d ' '; }
# the change objects of a {cause, changes} document on stdin, one element's lines per change, with
# the separating comma dropped (so pages can be compared with the whole)
changes_of() { awk '/^  "changes": \[$/ {on = 1; next} /^  \]/ {on = 0} on' | sed -E 's/^    },$/    }/'; }
cause_of() { awk '/^  "cause": \{$/ {on = 1} on {print} /^  \},$/ {on = 0}'; }
# expect RC TEXT CMD...: CMD exits RC and TEXT occurs in its stdout + stderr
expect() {
  local rc="$1" text="$2"
  shift 2
  set +e
  "$@" > "$dir/out" 2>&1
  local got=$?
  set -e
  [[ "$got" == "$rc" ]] || fail "exit $got (want $rc): $* : $(cat "$dir/out")"
  grep -qF -- "$text" "$dir/out" || fail "no '$text' from $*: $(cat "$dir/out")"
}
head_commit() { "$og" snapshot --store "$g" --json | field graph_commit_id; }
mutate() { "$og" mutate --store "$g" -e "$1" > /dev/null; }

g="$dir/g"
printf 'node Person { name: String @key, age: I32? }\nedge Knows: Person -> Person\n' > "$dir/s.pg"
"$og" init --schema "$dir/s.pg" "$g" > /dev/null
c0="$(head_commit)"
printf '%s\n' '{"type":"Person","data":{"name":"a","age":1}}' '{"type":"Person","data":{"name":"b","age":2}}' \
  '{"type":"Person","data":{"name":"c","age":3}}' '{"edge":"Knows","from":"a","to":"b","data":{}}' > "$dir/d.ndjson"
"$og" load --data "$dir/d.ndjson" --mode append --store "$g" > /dev/null 2>&1
c1="$(head_commit)"
# a cursor at c1, before the mutations below
cursor1="$("$og" changes poll --store "$g" --json)"
[[ "$cursor1" == $'{\n  "blocks": [],\n  "cursor": "'*$'",\n  "caught_up": true\n}' ]] || fail "empty poll: $cursor1"
cursor1="$(field cursor <<< "$cursor1")"

# ---- commit changes: the Rust shape ----
all="$("$og" commit changes "$c1" --store "$g" --json)"
[[ "$all" == $'{\n  "cause": {\n    "graph_commit_id": "'"$c1"$'",\n    "parent_commit_id": "'"$c0"$'",\n    "authored_branch": "main",\n    "authored_at": '* ]] ||
  fail "cause: $all"
[[ "$all" != *operation* && "$all" != *from_commit_id* ]] || fail "extra keys: $all"
[[ $(count '"op": "insert"' <<< "$all") == 4 ]] || fail "four inserts: $all"
[[ "$all" == *$'\n    {\n      "kind": "node",\n      "type": {\n        "id": "'*$'",\n        "name": "Person"\n      },\n      "id": "a",\n      "op": "insert",\n      "after": {\n        "properties": {\n          "name": "a",\n          "age": 1\n        }\n      }\n    },'* ]] ||
  fail "node change shape: $all"
[[ "$all" == *$'      "after": {\n        "properties": {},\n        "endpoints": {\n          "from": "a",\n          "to": "b"\n        }\n      }\n    }\n  ]\n}' ]] ||
  fail "edge change shape (last): $all"

# --limit 1 pages, followed by their tokens, add up to the whole; the cause is the same on each
page="$("$og" commit changes "$c1" --store "$g" --limit 1 --page-token '' --json)"
pages=1
joined="$(changes_of <<< "$page")"
[[ "$(cause_of <<< "$page")" == "$(cause_of <<< "$all")" ]] || fail "page cause: $page"
while token="$(field next_page_token <<< "$page")"; [[ -n "$token" ]]; do
  [[ $(count '"op":' <<< "$page") == 1 ]] || fail "a page of one: $page"
  first_token="${first_token:-$token}"
  page="$("$og" commit changes "$c1" --store "$g" --limit 1 --page-token "$token" --json)"
  joined+=$'\n'"$(changes_of <<< "$page")"
  pages=$((pages + 1))
  [[ $pages -le 4 ]] || fail "more than four pages"
done
[[ $pages == 4 ]] || fail "$pages pages of one change, not 4"
[[ "$page" != *next_page_token* ]] || fail "last page has a token: $page"
[[ "$joined" == "$(changes_of <<< "$all")" ]] || fail "pages differ from the whole:
$joined"
# the pages of --limit 3: 3 + 1
page="$("$og" commit changes "$c1" --store "$g" --limit 3 --page-token '' --json)"
[[ $(count '"op":' <<< "$page") == 3 && "$page" == *next_page_token* ]] || fail "page of three: $page"
# a token is bound to its commit and filter; malformed ones are refused
expect 1 'invalid page token' "$og" commit changes "$c1" --store "$g" --limit 1 --page-token "$first_token" --kind node
expect 1 'invalid page token' "$og" commit changes "$c1" --store "$g" --page-token nonsense
expect 2 'usage_error' "$og" commit changes "$c1" --store "$g" --limit 0
expect 2 'usage_error' "$og" commit changes "$c1" --store "$g" --limit 8193
expect 2 'usage_error' "$og" commit changes "$c1" --store "$g" --op upsert

# ---- repeatable filters ----
out="$("$og" commit changes "$c1" --store "$g" --kind node --kind edge --json)"
[[ "$out" == "$all" ]] || fail "both kinds = no kind filter: $out"
out="$("$og" commit changes "$c1" --kind edge --store "$g" --json)"
[[ $(count '"op":' <<< "$out") == 1 && "$out" == *'"kind": "edge"'* ]] || fail "--kind edge: $out"
out="$("$og" commit changes "$c1" --type Person --type Knows --store "$g" --json)"
[[ "$out" == "$all" ]] || fail "--type Person --type Knows: $out"
out="$("$og" commit changes "$c1" --type Knows --store "$g" --json)"
[[ $(count '"op":' <<< "$out") == 1 ]] || fail "--type Knows: $out"

mutate 'query q() { insert Person { name: "d", age: 4 } update Person set { age: 10 } where name = "a" }'
c2="$(head_commit)"
mutate 'query q() { delete Person where name = "c" }'
c3="$(head_commit)"
mutate 'query q() { insert Person { name: "e" } }'
c4="$(head_commit)"
mutate 'query q() { update Person set { age: 5 } where name = "e" }'
c5="$(head_commit)"
out="$("$og" commit changes "$c2" --store "$g" --op insert --op update --json)"
[[ $(count '"op":' <<< "$out") == 2 ]] || fail "--op insert --op update: $out"
out="$("$og" commit changes "$c2" --store "$g" --op update --json)"
[[ $(count '"op":' <<< "$out") == 1 && "$out" == *'"op": "update"'* ]] || fail "--op update: $out"
[[ "$out" == *$'"before": {\n        "properties": {\n          "name": "a",\n          "age": 1\n        }\n      },\n      "after": {\n        "properties": {\n          "name": "a",\n          "age": 10\n        }\n      }'* ]] ||
  fail "update images: $out"
out="$("$og" commit changes "$c2" --store "$g" --op delete --json)"
[[ "$out" == *$'\n  "changes": []\n}' ]] || fail "no deletes: $out"

# ---- text ----
strip_time() { sed -E 's/^authored_at: [0-9]+$/authored_at: T/'; }
out="$("$og" commit changes "$c2" --store "$g" | strip_time)"
[[ "$out" == "commit: $c2
branch: main
parent: $c1
authored_at: T
update node Person a
  age: 1 -> 10
insert node Person d
  + name: d
  + age: 4" ]] || fail "text of an update and an insert: $out"
out="$("$og" commit changes "$c3" --store "$g" | strip_time)"
[[ "$out" == *$'authored_at: T\ndelete node Person c\n  - name: c\n  - age: 3' ]] || fail "text of a delete: $out"
out="$("$og" commit changes "$c4" --store "$g")"
[[ "$out" == *$'insert node Person e\n  + name: e\n  + age: <null>' ]] || fail "text of a null: $out"
out="$("$og" commit changes "$c5" --store "$g")"
[[ "$out" == *$'update node Person e\n  age: <null> -> 5' ]] || fail "text of an update from null: $out"
out="$("$og" commit changes "$c1" --store "$g" --type Knows)"
[[ "$out" == *$'\ninsert edge Knows '*$'\n  a -> b' ]] || fail "text of an edge: $out"
out="$("$og" commit changes "$c1" --store "$g" --limit 1 --page-token '')"
[[ "$out" == *$'\ninsert node Person a\n  + name: a\n  + age: 1\nnext_page_token: '* ]] || fail "text of a page: $out"

# ---- changes poll: --limit is changes per page ----
out="$("$og" changes poll --store "$g" --cursor "$cursor1" --json)"
[[ $(count '"cause":' <<< "$out") == 4 && "$out" == *$'\n  "caught_up": true\n}' ]] || fail "poll all: $out"
[[ "$out" == $'{\n  "blocks": [\n    {\n      "cause": {\n        "graph_commit_id": "'"$c2"'"'* ]] || fail "poll shape: $out"
[[ "$out" != *from_commit_id* && "$out" != *'"version"'* ]] || fail "our old block keys: $out"
# --limit 1: c2's two changes span two pages, whose second ends at a block boundary with its change
# budget spent: the poll stops there, caught_up false, and the cursor resumes at c3
polls=0
seen=()
cursor="$cursor1"
while :; do
  out="$("$og" changes poll --store "$g" --cursor "$cursor" --limit 1 --json)"
  polls=$((polls + 1))
  [[ $(count '"cause":' <<< "$out") == 1 ]] || fail "poll $polls of --limit 1: $out"
  seen+=("$(field graph_commit_id <<< "$out")")
  cursor="$(field cursor <<< "$out")"
  [[ "$out" == *'"caught_up": true'* ]] && break
  [[ "$out" == *'"caught_up": false'* && $polls -lt 5 ]] || fail "poll $polls: $out"
done
[[ "${seen[*]}" == "$c2 $c3 $c4 $c5" ]] || fail "--limit 1 polls saw ${seen[*]}"
[[ $(count '"op":' <<< "$("$og" changes poll --store "$g" --cursor "$cursor1" --limit 1 --json)") == 2 ]] ||
  fail "a split block is stitched whole"
# --limit 3: c2 (2) + c3 (1), then c4 + c5
out="$("$og" changes poll --store "$g" --cursor "$cursor1" --limit 3 --json)"
[[ $(count '"cause":' <<< "$out") == 2 && "$out" == *'"caught_up": false'* ]] || fail "--limit 3: $out"
out="$("$og" changes poll --store "$g" --cursor "$(field cursor <<< "$out")" --limit 3 --json)"
[[ $(count '"cause":' <<< "$out") == 2 && "$out" == *'"caught_up": true'* && "$out" == *"$c5"* ]] ||
  fail "--limit 3, second poll: $out"
expect 2 'usage_error' "$og" changes poll --store "$g" --limit 0
# text: blocks apart by a blank line, then the cursor
out="$("$og" changes poll --store "$g" --cursor "$cursor1" --limit 3 | strip_time)"
[[ "$out" == "commit: $c2"*$'\n  + age: 4\n\ncommit: '"$c3"$'\nbranch: main\nparent: '"$c2"$'\nauthored_at: T\ndelete node Person c\n  - name: c\n  - age: 3\n\ncursor: '*$'\ncaught_up: false' ]] ||
  fail "poll text: $out"
out="$("$og" changes poll --store "$g")"
[[ "$out" == $'(no new commits)\n\ncursor: '*$'\ncaught_up: true' ]] || fail "empty poll text: $out"
# filters repeat on the feed too, and bind the cursor; a block with no matching change stays
out="$("$og" changes poll --store "$g" --start "after:$c1" --op insert --op update --json)"
[[ $(count '"cause":' <<< "$out") == 4 && "$out" == *$'"graph_commit_id": "'"$c3"*$'"changes": []'* ]] ||
  fail "filtered poll: $out"
expect 1 'change cursor rejected' "$og" changes poll --store "$g" --cursor "$(field cursor <<< "$out")" --op insert

# ---- changes baseline ----
out="$("$og" changes baseline --store "$g" --out "$dir/base.jsonl" --json)"
[[ "$out" == $'{\n  "snapshot_commit_id": "'"$c5"$'",\n  "resume_cursor": "'*$'"\n}' ]] || fail "baseline: $out"
resume="$(field resume_cursor <<< "$out")"
[[ "$(cat "$dir/base.jsonl")" == "$("$og" export --store "$g")" ]] || fail "baseline is not the export"
[[ -e "$dir/base.jsonl.lock" ]] || fail "no lock file"
mutate 'query q() { insert Person { name: "f", age: 6 } }'
c6="$(head_commit)"
out="$("$og" changes poll --store "$g" --cursor "$resume" --json)"
[[ $(count '"cause":' <<< "$out") == 1 && $(count '"op":' <<< "$out") == 1 && "$out" == *"\"graph_commit_id\": \"$c6\""* &&
   "$out" == *'"id": "f"'* && "$out" == *'"caught_up": true'* ]] || fail "poll after the baseline: $out"
# --kind/--type restrict the snapshot; --op binds only the cursor
"$og" changes baseline --store "$g" --out "$dir/nodes.jsonl" --kind node --op insert --json > "$dir/b.json"
[[ $(count '"type":"Person"' < "$dir/nodes.jsonl") == 5 && $(count '"edge":' < "$dir/nodes.jsonl") == 0 ]] ||
  fail "--kind node baseline: $(cat "$dir/nodes.jsonl")"
resume="$(field resume_cursor < "$dir/b.json")"
expect 1 'change cursor rejected' "$og" changes poll --store "$g" --cursor "$resume"
out="$("$og" changes poll --store "$g" --cursor "$resume" --kind node --op insert --json)"
[[ "$out" == *'"blocks": []'* ]] || fail "filtered resume: $out"
"$og" changes baseline --store "$g" --out "$dir/edges.jsonl" --type Knows > /dev/null
[[ "$(cat "$dir/edges.jsonl")" == '{"edge":"Knows","from":"a","to":"b",'* && $(wc -l < "$dir/edges.jsonl") == 1 ]] ||
  fail "--type Knows baseline: $(cat "$dir/edges.jsonl")"
# text
out="$("$og" changes baseline --store "$g" --out "$dir/base.jsonl")"
[[ "$out" == "snapshot: $dir/base.jsonl"$'\nsnapshot_commit_id: '"$c6"$'\nresume_cursor: '* ]] || fail "baseline text: $out"
# a failed capture leaves PATH as it was and no temp file behind
echo 'previous good snapshot' > "$dir/keep.jsonl"
expect 1 'not_found' "$og" changes baseline --store "$g" --branch nope --out "$dir/keep.jsonl"
expect 1 'unknown export type' "$og" changes baseline --store "$g" --type Nope --out "$dir/keep.jsonl"
[[ "$(cat "$dir/keep.jsonl")" == 'previous good snapshot' ]] || fail "failed baseline replaced the file"
[[ -z "$(find "$dir" -maxdepth 1 -name '.*tmp*')" ]] || fail "temp residue: $(ls -a "$dir")"

echo "changes ok"
