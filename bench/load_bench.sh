#!/usr/bin/env bash
# Bulk-load throughput through the CLI: N person nodes + N knows edges, one append load.
#   bench/load_bench.sh <omnigraph binary> [N=500000]
set -euo pipefail
og="$1"; n="${2:-500000}"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cat > "$dir/s.pg" <<'PG'
node Person { handle: String @key, name: String, age: I32?, score: F64?, joined: Date? }
edge Knows: Person -> Person { since: I32? }
PG
awk -v n="$n" 'BEGIN {
  for (i = 0; i < n; i++) printf "{\"type\":\"Person\",\"data\":{\"handle\":\"p%d\",\"name\":\"Person %d\",\"age\":%d,\"score\":%d.5,\"joined\":\"2020-01-%02d\"}}\n", i, i, i % 90, i % 1000, i % 28 + 1
  for (i = 0; i < n; i++) printf "{\"edge\":\"Knows\",\"from\":\"p%d\",\"to\":\"p%d\",\"data\":{\"since\":%d}}\n", i, (i * 7 + 1) % n, 2000 + i % 25
}' > "$dir/data.ndjson"
bytes=$(stat -c %s "$dir/data.ndjson")
OMNIGRAPH_FSYNC=0 "$og" init --schema "$dir/s.pg" "$dir/g.omni" >/dev/null
start=$(date +%s.%N)
OMNIGRAPH_FSYNC=0 "$og" load --data "$dir/data.ndjson" --mode append --store "$dir/g.omni" --json >/dev/null
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" -v n="$n" -v b="$bytes" 'BEGIN {
  t = e - s; printf "load: %d records (%.1f MB) in %.2f s = %.0f records/s, %.1f MB/s\n", 2 * n, b / 1e6, t, 2 * n / t, b / 1e6 / t }'
