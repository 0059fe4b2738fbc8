#!/usr/bin/env bash
# Two processes merging different branches into `main` of one local graph at the same time, through
# the real binary, for 10 rounds (issue 7 "Concurrency"). Each merge either lands (fast-forward or
# three-way) or fails with a typed conflict (`read_set_conflict`) and is retried; anything else
# fails the test. Afterwards: main's history is a DAG that contains every branch head and every
# acknowledged merge commit (no lost commit), and main holds exactly the union of all the rows.
# --json output (results and error bodies, on stdout) is pretty-printed; it is read with jq.
# Usage: multiprocess_merge.sh <omnigraph binary>
set -euo pipefail
og="$1"
# The graph: a fresh local folder, or $OG_TEST_GRAPH (tests/s3/with_s3_server.sh runs this on s3://).
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export OMNIGRAPH_FSYNC=0
g="${OG_TEST_GRAPH:-$dir/g.omni}"
printf 'node Person { name: String @key, v: I64? }\n' > "$dir/schema.pg"
"$og" init --schema "$dir/schema.pg" "$g" > /dev/null
rows() {  # rows NAME... -> NDJSON
  for n in "$@"; do printf '{"type":"Person","data":{"name":"%s","v":1}}\n' "$n"; done
}
load() {  # load BRANCH NAME...
  local b="$1"; shift
  rows "$@" > "$dir/rows.ndjson"
  "$og" load --data "$dir/rows.ndjson" --mode merge --branch "$b" --store "$g" > /dev/null
  printf '%s\n' "$@" >> "$dir/expected"
}
commit_of() { jq -er '.commit | strings'; }  # the commit a `branch merge --json` left main at
head_of() { "$og" snapshot --branch "$1" --store "$g" --json | jq -er '.graph_commit_id'; }

# merger BRANCH ROUND: waits for the start signal, then merges BRANCH into main until it lands.
merger() {
  local b="$1" r="$2" out rc
  while [ ! -e "$dir/go-$r" ]; do sleep 0.005; done
  for attempt in $(seq 1 50); do
    set +e
    out=$("$og" branch merge "$b" --into main --store "$g" --json 2> "$dir/stderr-$b"); rc=$?
    set -e
    if [ "$rc" = 0 ]; then
      echo "$out" | commit_of >> "$dir/acked"
      echo "$out" | jq -er '.outcome' >> "$dir/outcomes"
      return 0
    fi
    [ "$(jq -r '.code // empty' <<< "$out" 2> /dev/null)" = read_set_conflict ] ||
      { echo "untyped failure merging $b: $out $(cat "$dir/stderr-$b")" > "$dir/error-$b"; return 1; }
    echo retry >> "$dir/retries"
  done
  echo "merge of $b never landed" > "$dir/error-$b"
  return 1
}

load main base
for r in $(seq 1 10); do
  "$og" branch create "a$r" --store "$g" > /dev/null
  "$og" branch create "b$r" --store "$g" > /dev/null
  load "a$r" "a$r-1" "a$r-2"
  load "b$r" "b$r-1"
  # Odd rounds: main moved too, so neither merge is a fast-forward.
  if [ $((r % 2)) = 1 ]; then load main "main$r"; fi
  head_of "a$r" >> "$dir/branch_heads"
  head_of "b$r" >> "$dir/branch_heads"
  merger "a$r" "$r" & pa=$!
  merger "b$r" "$r" & pb=$!
  touch "$dir/go-$r"
  wait "$pa" || fail "$(cat "$dir"/error-* 2>/dev/null)"
  wait "$pb" || fail "$(cat "$dir"/error-* 2>/dev/null)"
done

# Walk main's DAG from its head through every parent.
declare -A seen
todo=("$(head_of main)")
while [ "${#todo[@]}" -gt 0 ]; do
  id="${todo[-1]}"; unset 'todo[-1]'
  [ -n "${seen[$id]:-}" ] && continue
  seen[$id]=1
  parents=$("$og" commit show "$id" --store "$g" --json | jq -r '.parent_commit_id, .merged_parent_commit_id | strings')
  for p in $parents; do todo+=("$p"); done
done
while read -r id; do [ -n "${seen[$id]:-}" ] || fail "branch head $id is not in main's history"; done < "$dir/branch_heads"
while read -r id; do [ -n "${seen[$id]:-}" ] || fail "acknowledged merge $id is not in main's history"; done < "$dir/acked"
# Final state: exactly the union of every row loaded anywhere.
"$og" export --store "$g" | sed -E 's/.*"name":"([^"]*)".*/\1/' | sort > "$dir/actual"
sort "$dir/expected" > "$dir/expected.sorted"
diff "$dir/expected.sorted" "$dir/actual" > /dev/null || fail "main's rows differ from the union: $(diff "$dir/expected.sorted" "$dir/actual")"
acked=$(wc -l < "$dir/acked")
[ "$acked" = 20 ] || fail "$acked merges acknowledged, expected 20"
echo "merges=$acked retries=$(cat "$dir/retries" 2>/dev/null | wc -l) commits_in_dag=${#seen[@]}" \
     "outcomes: $(sort "$dir/outcomes" | uniq -c | tr '\n' ' ')"
