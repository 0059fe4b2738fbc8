#!/usr/bin/env bash
# `omnigraph load` streaming end to end (docs/cli.md "Loading large files"): tiny --chunk-size
# reads give the same graph as one read, from a file and from a pipe (also with --from);
# a merge of unchanged rows publishes nothing;
# error line numbers across chunks; CRLF and a last line without newline; the --max-memory and
# --max-record-size ceilings (resource_limit, exit 1, nothing written).
#   tests/cli/load.sh path/to/omnigraph
set -euo pipefail
og="$1"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
printf 'node P { n: String @key, age: I64? }\nedge K: P -> P { since: I64? }\n' > "$dir/s.pg"
# 2000 persons and 1999 edges with explicit ids, CRLF on every third line, a blank line every 100th,
# and no newline at the end.
awk 'BEGIN {
  for (i = 0; i < 2000; i++) {
    eol = (i % 3 == 0) ? "\r\n" : "\n";
    printf "{\"type\":\"P\",\"data\":{\"n\":\"p%d\",\"age\":%d}}%s", i, i % 90, eol;
    if (i % 100 == 0) printf "  \n";
    if (i > 0) printf "{\"edge\":\"K\",\"from\":\"p%d\",\"to\":\"p%d\",\"data\":{\"id\":\"k%d\",\"since\":%d}}%s", i - 1, i, i, 1900 + i, (i == 1999 ? "" : "\n");
  }
}' > "$dir/d.ndjson"
fresh() { rm -rf "$dir/g"; "$og" init --schema "$dir/s.pg" "$dir/g" > /dev/null; }

fresh
"$og" load "$dir/g" --data "$dir/d.ndjson" --mode append > /dev/null
"$og" export "$dir/g" > "$dir/whole.out"
[[ "$(wc -l < "$dir/whole.out")" == 3999 ]] || fail "whole load: $(wc -l < "$dir/whole.out") rows"

fresh
"$og" load "$dir/g" --data "$dir/d.ndjson" --mode append --chunk-size 100 > /dev/null
"$og" export "$dir/g" | cmp -s - "$dir/whole.out" || fail "--chunk-size 100 differs from one read"

fresh
cat "$dir/d.ndjson" | "$og" load "$dir/g" --data /dev/stdin --mode append --chunk-size 1k > /dev/null
"$og" export "$dir/g" | cmp -s - "$dir/whole.out" || fail "a pipe differs from one read"

# --from with a pipe (read once: the branch is created by the load itself)
fresh
out="$(cat "$dir/d.ndjson" | "$og" load "$dir/g" --data /dev/stdin --mode append --branch b --from main --json 2> /dev/null | jq -cS .)"
[[ "$out" == *'"branch_created":true'* ]] || fail "pipe --from: $out"
"$og" export "$dir/g" --branch b | cmp -s - "$dir/whole.out" || fail "pipe --from differs"

# error line numbers across 1 KiB chunks (a blank line and CRLF lines before them count)
sed -e '1500s/.*/{"type":"Robot"}/' -e '3001s/"age":[0-9]*/"age":"old"/' "$dir/d.ndjson" > "$dir/bad.ndjson"
fresh
set +e
err="$("$og" load "$dir/g" --data "$dir/bad.ndjson" --mode append --chunk-size 1k 2>&1)"; rc=$?
set -e
[[ $rc == 1 ]] || fail "bad load exit $rc"
[[ "$err" == *"line 1500: [load_unknown_type]"* ]] || fail "line 1500 not reported: $err"
sed -n 3001p "$dir/bad.ndjson" | grep -q '"age":"old"' || fail "fixture: line 3001 is $(sed -n 3001p "$dir/bad.ndjson")"
[[ "$err" == *"line 3001: [load_type_mismatch]"* ]] || fail "line 3001 not reported: $err"

# a merge of rows equal to the stored ones publishes nothing (it reported updated: N and published
# an empty commit)
"$og" load "$dir/g" --data "$dir/d.ndjson" --mode append > /dev/null
out="$("$og" load "$dir/g" --data "$dir/d.ndjson" --mode merge --json | jq -cS .)"
[[ "$out" == *'"commit":null,"committed":false'* && "$out" != *'"updated":'[1-9]* ]] || fail "unchanged merge: $out"
[[ "$out" == *'"inserted":0,"name":"P","updated":0'* ]] || fail "unchanged merge counts: $out"
out="$("$og" load "$dir/g" --data "$dir/d.ndjson" --mode merge 2> /dev/null)"
[[ "$out" == "loaded "*" on branch main with merge: 3999 entities across 1 node types and 1 edge types"$'\n'"nothing to load: no commit" ]] || fail "unchanged merge text: $out"
[[ "$("$og" commit list "$dir/g" --json | grep -o '"graph_commit_id"' | wc -l)" == 2 ]] || fail "an unchanged merge wrote a commit"
fresh

# ceilings: resource_limit, exit 1, nothing written (the graph still has only its genesis commit)
set +e
err="$("$og" load "$dir/g" --data "$dir/d.ndjson" --mode append --chunk-size 4k --max-memory 16k 2>&1)"; rc=$?
set -e
[[ $rc == 1 ]] || fail "--max-memory exit $rc"
[[ "$err" == *"error[resource_limit]"*"memory limit of 16384 bytes"*"--max-memory"* ]] || fail "--max-memory message: $err"
printf '{"type":"P","data":{"n":"a"}}\n\n{"type":"P","data":{"n":"%0200d"}}\n' 0 > "$dir/long.ndjson"
set +e
err="$("$og" load "$dir/g" --data "$dir/long.ndjson" --mode append --max-record-size 100 2>&1)"; rc=$?
set -e
[[ $rc == 1 ]] || fail "--max-record-size exit $rc"
[[ "$err" == *"line 3: [resource_limit]"*"per-record limit of 100 bytes"* ]] || fail "--max-record-size message: $err"
[[ "$("$og" commit list "$dir/g" --json | grep -o '"graph_commit_id"' | wc -l)" == 1 ]] || fail "a rejected load wrote a commit"
echo "ok"
