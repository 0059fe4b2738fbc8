#!/usr/bin/env bash
# `omnigraph cleanup` end to end: a preview deletes nothing; --confirm deletes old versions,
# compacted-away fragments and a deleted branch's data; the head and the kept history answer the
# same; reclaimed history is `history_reclaimed` (exit 1), `commit list` lists the kept part and
# the history's commit objects and ref entries are gone with it; bad
# flags are usage errors (exit 2). Then `omnigraph check` on the result, and on a damaged copy.
#   tests/cli/cleanup.sh path/to/omnigraph
set -euo pipefail
og="$1"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
g="$dir/g"
printf 'node P { n: String @key, v: I32? }\n' > "$dir/s.pg"
"$og" init --schema "$dir/s.pg" "$g" > /dev/null
for i in $(seq 1 20); do
  printf '{"type":"P","data":{"n":"p%d","v":%d}}\n' "$i" "$i" > "$dir/d.ndjson"
  "$og" load "$g" --mode append --data "$dir/d.ndjson" > /dev/null 2>&1
done
"$og" mutate --store "$g" -e 'query m() { update P set { v: 0 } where n = "p3" }' > /dev/null 2>&1
"$og" branch create --from main scratch "$g" > /dev/null 2>&1
printf '{"type":"P","data":{"n":"s1"}}\n' > "$dir/s.ndjson"
"$og" load "$g" --branch scratch --mode append --data "$dir/s.ndjson" > /dev/null 2>&1
"$og" branch delete scratch "$g" > /dev/null 2>&1
q='query q() { match { $p: P } return { $p.n, $p.v } order { $p.n } }'
head_answer="$("$og" query --store "$g" -e "$q" --format csv)"
old="$("$og" commit list "$g" --json | jq -r '.commits[-3].graph_commit_id')"
old_answer="$("$og" query --store "$g" --snapshot "$old" -e "$q" --format csv)"
commits="$("$og" commit list "$g" --json | jq '.commits | length')"
files() { find "$g" -type f | wc -l; }
before="$(files)"

# Usage errors.
set +e
"$og" cleanup "$g" > /dev/null 2>&1; [[ $? -eq 2 ]] || fail "no policy: want exit 2"
"$og" cleanup "$g" --older-than 3x > /dev/null 2>&1; [[ $? -eq 2 ]] || fail "bad duration: want exit 2"
"$og" cleanup "$g" --keep 0 > /dev/null 2>&1; [[ $? -eq 2 ]] || fail "--keep 0: want exit 2"
set -e

# A preview: the Rust CLI's refusal on stderr, what would go on stdout, nothing deleted.
err="$("$og" cleanup "$g" --keep 1 --grace 0 2>&1 > "$dir/preview.txt")"
[[ "$err" == *"rerun with --confirm"* ]] || fail "preview stderr: $err"
grep -q "would remove" "$dir/preview.txt" || fail "preview: $(cat "$dir/preview.txt")"
preview="$("$og" cleanup "$g" --keep 1 --grace 0 --json 2> /dev/null)"
[[ "$(jq -r .confirmed <<< "$preview")" == false ]] || fail "preview json: $preview"
[[ "$(jq -r .objects_removed <<< "$preview")" -gt 0 ]] || fail "preview found nothing: $preview"
[[ "$(files)" == "$before" ]] || fail "a preview deleted files"

# The run.
run="$("$og" cleanup "$g" --keep 1 --grace 0 --confirm --json 2> /dev/null)"
[[ "$(jq -r .confirmed <<< "$run")" == true && "$(jq -r .completed <<< "$run")" == true ]] || fail "run: $run"
[[ "$(jq -r .objects_removed <<< "$run")" == "$(jq -r .objects_removed <<< "$preview")" ]] || fail "run != preview"
[[ "$(jq -r '.removed.fragment.objects' <<< "$run")" -gt 0 ]] || fail "compacted-away fragments not removed: $run"
[[ "$(jq -r '.datasets[0].type_key' <<< "$run")" == "node:P" ]] || fail "datasets: $run"
after="$(files)"
(( after < before )) || fail "files $before -> $after"
[[ "$("$og" query --store "$g" -e "$q" --format csv)" == "$head_answer" ]] || fail "head answer changed"
kept="$("$og" commit list "$g" --json | jq -r '[.commits[].graph_commit_id] | join(" ")')"
(( commits > 20 )) && [[ "$kept" != *" "* && -n "$kept" ]] || fail "commit list after --keep 1: '$kept' (was $commits)"
[[ "$(find "$g/commits" -type f | wc -l)" == 1 ]] || fail "commit objects left: $(ls "$g/commits")"
[[ "$(find "$g/refs/6d61696e" -name '0*' | wc -l)" == 2 ]] || fail "main's ref entries left: $(ls "$g/refs/6d61696e")"
set +e
out="$("$og" query --store "$g" --snapshot "$old" -e "$q" --json 2>&1)"; rc=$?
set -e
[[ $rc -eq 1 && "$out" == *history_reclaimed* ]] || fail "time travel into reclaimed history (rc $rc): $out"
# Nothing more to take; the kept history (the head) still reads.
again="$("$og" cleanup "$g" --keep 1 --grace 0 --confirm --json 2> /dev/null)"
[[ "$(jq -r .objects_removed <<< "$again")" == 0 ]] || fail "second run: $again"
[[ -n "$old_answer" ]] || fail "no old answer"

# `omnigraph check`: the graph after cleanup is intact (reclaimed history is not a problem); a
# damaged fragment is one problem naming it, exit 1; `check --query` is still the lint alias.
chk="$("$og" check "$g" --json)" || fail "check after cleanup: $chk"
[[ "$(jq -r .ok <<< "$chk")" == true && "$(jq -r .reclaimed_commits <<< "$chk")" -gt 0 ]] || fail "check: $chk"
frag="$(find "$g/tables" -name '*.ogf' | head -1)"
printf 'XX' | dd of="$frag" bs=1 seek=30 conv=notrunc 2> /dev/null
set +e
chk="$("$og" check "$g" --json 2> /dev/null)"; rc=$?
set -e
[[ $rc -eq 1 && "$(jq -r '.problems[0].code' <<< "$chk")" == corrupt ]] || fail "check of a damaged graph (rc $rc): $chk"
[[ "$(jq -r '.problems[0].object' <<< "$chk")" == *"${frag##*/}" ]] || fail "problem names another object: $chk"
# A graph whose main ref log lost its newest entry does not open, but check inspects it.
rm "$(ls "$g"/refs/6d61696e/0* | tail -1)"  # main (hex)
set +e
"$og" query --store "$g" -e 'query q() { match { $p: P } return { count($p) } }' > /dev/null 2>&1; rc=$?
chk="$("$og" check "$g" --json 2> /dev/null)"; crc=$?
set -e
[[ $rc -ne 0 && $crc -eq 1 ]] || fail "damaged ref log: query rc $rc, check rc $crc: $chk"
[[ "$(jq -r '[.problems[] | select(.object | startswith("refs/"))] | length' <<< "$chk")" -ge 1 ]] ||
  fail "check does not report the damaged ref log: $chk"
printf 'query q() { match { $p: P } return { $p.n } }\n' > "$dir/q.gq"
"$og" check --query "$dir/q.gq" --schema "$dir/s.pg" > /dev/null 2>&1 || fail "check --query (lint alias)"
echo "cli.cleanup: ok ($before -> $after files)"
