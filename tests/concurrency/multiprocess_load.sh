#!/usr/bin/env bash
# 4 processes x 50 appends of distinct keys to `main` of one local graph, through the real binary.
# Every acknowledged load must be present, and the history must be one linear chain holding every
# acknowledged commit (the automatic compaction commits between them, operation "optimize", change
# no entity and are not counted). Usage: multiprocess_load.sh <omnigraph binary>
set -euo pipefail
og="$1"
# The graph: a fresh local folder, or $OG_TEST_GRAPH (tests/s3/with_s3_server.sh runs this on s3://).
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
g="${OG_TEST_GRAPH:-$dir/g.omni}"
printf 'node Person { name: String @key }\n' > "$dir/schema.pg"
"$og" init --schema "$dir/schema.pg" "$g" >/dev/null
for p in 1 2 3 4; do
  (
    for i in $(seq 1 50); do
      printf '{"type":"Person","data":{"name":"p%s-%s"}}\n' "$p" "$i" > "$dir/row-$p.ndjson"
      out=$(OMNIGRAPH_FSYNC=0 "$og" load --data "$dir/row-$p.ndjson" --mode append --store "$g" --json)
      echo "$out" | jq -er '.commit.graph_commit_id' >> "$dir/acked-$p"
    done
  ) &
done
wait
acked=$(cat "$dir"/acked-* | sort -u | wc -l)
rows=$("$og" snapshot --store "$g" --json | jq -r '.datasets[].entity_count')
"$og" commit list --store "$g" --json | jq -r '.commits[] | select(.operation != "optimize") | .graph_commit_id' | sort > "$dir/chain"
chain=$(wc -l < "$dir/chain")
missing=$(cat "$dir"/acked-* | sort -u | comm -23 - "$dir/chain" | wc -l)
echo "acknowledged=$acked rows=$rows commits=$chain missing=$missing"
[ "$acked" = 200 ] && [ "$rows" = 200 ] && [ "$chain" = 201 ] && [ "$missing" = 0 ]
