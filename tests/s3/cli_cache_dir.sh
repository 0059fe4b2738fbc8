#!/usr/bin/env bash
# `--cache-dir` / OMNIGRAPH_CACHE_DIR through the real binary on an s3:// graph (run under
# tests/s3/with_s3_server.sh): answers are the same with and without the cache, the folder fills
# with entries, a later commit is seen through it (refs and manifests are never cached), a
# cleanup's reclaimed version still reads as history_reclaimed, a local graph leaves the folder
# alone, and a folder that cannot be created is a typed error.
# Usage: cli_cache_dir.sh <omnigraph binary>
set -euo pipefail
og="$1"
g="${OG_TEST_GRAPH:?run under with_s3_server.sh}"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cache="$dir/cache"
printf 'node P { n: String @key, v: I64? }\nedge K: P -> P\n' > "$dir/schema.pg"
"$og" init --schema "$dir/schema.pg" "$g" > /dev/null
for i in $(seq 1 200); do
  printf '{"type":"P","data":{"n":"p%d","v":%d}}\n' "$i" "$i"
  printf '{"edge":"K","from":"p%d","to":"p%d"}\n' "$i" $(( i % 200 + 1 ))
done > "$dir/data.jsonl"
"$og" load --store "$g" --mode merge --data "$dir/data.jsonl" > /dev/null
q='query q() { match { $a: P { n: "p7" } $a k $b } return { $b.n, $b.v } }'
plain=$("$og" query --store "$g" --json -e "$q" | jq -c '.rows')
[ "$plain" = '[{"b.n":"p8","b.v":8}]' ] || fail "unexpected answer $plain"
first=$("$og" query --store "$g" --cache-dir "$cache" --json -e "$q" | jq -c '.rows')
[ "$first" = "$plain" ] || fail "answer through an empty cache: $first"
entries=$(find "$cache" -type f -not -path "$cache/omnigraph-cache-v1/tmp/*" | wc -l)
[ "$entries" -gt 0 ] || fail "the cache folder has no entries"
again=$(OMNIGRAPH_CACHE_DIR="$cache" "$og" query --store "$g" --json -e "$q" | jq -c '.rows')
[ "$again" = "$plain" ] || fail "answer through the filled cache (env): $again"
# Nothing the cache holds names a ref, commit, schema or manifest.
if grep -rlaE 'refs/|commits/|schemas/|/versions/' "$cache" --exclude-dir=tmp > /dev/null; then
  fail "the cache holds a mutable or version-naming object"
fi

# A later commit (made without the cache) is seen through it.
"$og" mutate --store "$g" -e 'query u() { update P set { v: 80 } where n = "p8" }' > /dev/null
after=$("$og" query --store "$g" --cache-dir "$cache" --json -e "$q" | jq -c '.rows')
[ "$after" = '[{"b.n":"p8","b.v":80}]' ] || fail "the cache hid a later commit: $after"

# A version that a cleanup reclaimed still reads as reclaimed through the cache.
old=$("$og" commit list --store "$g" --json | jq -r '.commits[-1].graph_commit_id')
"$og" query --store "$g" --cache-dir "$cache" --snapshot "$old" --json -e "$q" > /dev/null 2>&1 || true
"$og" cleanup --store "$g" --keep 1 --grace 0 --confirm > /dev/null 2>&1
set +e
"$og" query --store "$g" --cache-dir "$cache" --snapshot "$old" --json -e "$q" > "$dir/reclaimed.json" 2> /dev/null
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "a reclaimed version answered through the cache"
jq -e '.code == "history_reclaimed"' "$dir/reclaimed.json" > /dev/null || fail "reclaimed: $(cat "$dir/reclaimed.json")"

# A local graph ignores the option; a folder that cannot be created is an error naming it.
"$og" init --schema "$dir/schema.pg" "$dir/local.omni" > /dev/null
"$og" query --store "$dir/local.omni" --cache-dir "$dir/unused" --json -e "$q" > /dev/null
[ ! -e "$dir/unused" ] || fail "a local graph created the cache folder"
set +e
out=$("$og" query --store "$g" --cache-dir /proc/og-no-cache --json -e "$q" 2> /dev/null)
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "an impossible cache folder was accepted"
jq -e '.code == "io_error" and (.error | contains("/proc/og-no-cache"))' <<< "$out" > /dev/null ||
  fail "impossible cache folder: $out"
echo "ok: answers equal with and without the cache ($entries entries), later commits seen, reclaimed stays reclaimed"
