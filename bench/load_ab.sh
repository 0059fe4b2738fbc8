#!/usr/bin/env bash
# A/B of bulk loads: the whole CLI `load --mode overwrite` of one data directory (bench/peers/gen.js
# output: schema.pg + data.ndjson) with several omnigraph binaries, run by run in turn (this
# machine's speed drifts by tens of percent within minutes, so only interleaved runs compare), and
# optionally DuckDB's load of the same data in the same rounds (in memory, and on disk with --disk).
# Prints each binary's median wall time and median CPU (user + sys) over the rounds.
#   bench/load_ab.sh [--rounds N=7] [--fsync] [--duckdb] DATA_DIR BINARY...
# Copy a build's binary aside (cp build/ci/src/cli/omnigraph /tmp/og_a) before changing the code.
set -euo pipefail
rounds=7; fsync=0; duckdb=0
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --fsync) fsync=1; shift ;;
    --duckdb) duckdb=1; shift ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || { echo "usage: bench/load_ab.sh [--rounds N] [--fsync] [--duckdb] DATA_DIR BINARY..." >&2; exit 2; }
data="$1"; shift
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
results="$work/results.txt"
for ((r = 1; r <= rounds; r++)); do
  i=0
  for bin in "$@"; do
    i=$((i + 1))
    rm -rf "$work/g"
    "$bin" init --schema "$data/schema.pg" "$work/g" >/dev/null
    OMNIGRAPH_FSYNC=$fsync /usr/bin/time -o "$work/t" -f "%e %U %S" \
      "$bin" load --data "$data/data.ndjson" --mode overwrite --store "$work/g" >/dev/null 2>&1
    echo "$i $(cat "$work/t")" >> "$results"
  done
  if [ "$duckdb" = 1 ]; then
    for disk in "" "--disk $work/peer"; do
      # shellcheck disable=SC2086
      node "$root/bench/peers/run.js" --data "$data" --reps 1 --peers duckdb --no-reference $disk \
        --out "$work/p.json" >/dev/null 2>&1
      node -e "const j=require('$work/p.json'); console.log('duckdb${disk:+_disk}', j.peers[0].load_s, 0, 0)" >> "$results"
    done
  fi
done
python3 - "$results" "$@" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]).read().splitlines()]
names = {str(i + 1): b for i, b in enumerate(sys.argv[2:])}
for key in list(names) + sorted({r[0] for r in rows if r[0].startswith('duckdb')}):
    w = [float(r[1]) for r in rows if r[0] == key]
    c = [float(r[2]) + float(r[3]) for r in rows if r[0] == key]
    cpu = f"  cpu median {statistics.median(c):.3f} s" if not key.startswith('duckdb') else ""
    print(f"{names.get(key, key):40s} wall median {statistics.median(w):.3f} s (min {min(w):.3f}){cpu}  n={len(w)}")
PY
