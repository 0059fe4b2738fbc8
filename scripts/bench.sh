#!/usr/bin/env bash
# The one command that runs every benchmark (docs/benchmarks.md):
#   scripts/bench.sh [--large] [--reps R]
# 1. installs dependencies, including the npm peers (OG_BENCH_PEERS=1 scripts/setup.sh);
# 2. builds the release preset (benchmarks are on in it) under the machine-wide build lock;
# 3. generates the social graph (bench/peers/gen.js): 100k persons / 1M Knows edges by default,
#    1M / 10M with --large; kept in build/bench/data/ and reused while gen.js is unchanged;
# 4. runs the peers side by side (bench/peers/run.js: Kuzu, DuckDB, SQLite; load + 22 queries,
#    answers cross-checked) -> build/bench/peers.json, and their loads again with the databases
#    on disk (--disk, durable like ours) -> build/bench/peers_disk.json;
# 5. runs ours on the same data and alone: the CLI bulk load of that graph, query_bench (when
#    built), load_bench.sh, table_bench, merge_bench, io_bench, compiler_bench_query,
#    compiler_bench_schema;
# 6. prints a summary. Every output is kept in build/bench/<name>.txt.
# Environment:
#   BENCH_SKIP_BUILD=1   use the binaries already built (no cmake)
#   BENCH_PRESET=ci      take the binaries from build/ci instead of build/release
#   BENCH_OUT=DIR        where outputs go (default build/bench)
#   BENCH_PERSONS=N BENCH_EDGES=M   another graph size for the peers and the CLI load
#   BENCH_SHAPE=uniform  the second graph shape (gen.js --shape: uniform endpoints, parallel edges and
#                        self-loops kept); default skewed
# Exit status: non-zero when any step failed (the others still run and are summarized).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

large=0
reps=5
while [ "$#" -gt 0 ]; do
  case "$1" in
    --large) large=1 ;;
    --reps) reps="$2"; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "bench.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
if [ "$large" = 1 ]; then persons=1000000; edges=10000000; table_rows=10000000
else persons=100000; edges=1000000; table_rows=1000000; fi
persons="${BENCH_PERSONS:-$persons}"; edges="${BENCH_EDGES:-$edges}"

preset="${BENCH_PRESET:-release}"
bin="build/$preset"
out="${BENCH_OUT:-build/bench}"
mkdir -p "$out"
out=$(cd "$out" && pwd)
failed=()
summary=()
t_all=$(date +%s)

now() { date +%s.%N; }
secs() { awk -v s="$1" -v e="$(now)" 'BEGIN { printf "%.1f", e - s }'; }

# run NAME CMD...: runs one benchmark, output to $out/NAME.txt (shown live), records the status.
run() {
  local name="$1"; shift
  local start; start=$(now)
  printf '\n== %s\n$ %s\n' "$name" "$*"
  if "$@" 2>&1 | tee "$out/$name.txt"; then
    summary+=("$(printf '%-22s ok      %6ss' "$name" "$(secs "$start")")")
  else
    summary+=("$(printf '%-22s FAILED  %6ss  (see %s)' "$name" "$(secs "$start")" "$out/$name.txt")")
    failed+=("$name")
  fi
}
# skip NAME WHY
skip() { summary+=("$(printf '%-22s skipped  %s' "$1" "$2")"); }

# 1. Dependencies, including the npm peers.
OG_BENCH_PEERS=1 ./scripts/setup.sh
(cd bench/peers && node -e "require('kuzu'); require('@duckdb/node-api'); require('better-sqlite3')") || {
  echo "bench.sh: the npm peers do not load; remove bench/peers/node_modules and re-run" >&2; exit 1; }

# 2. Build.
if [ "${BENCH_SKIP_BUILD:-0}" = 1 ]; then
  echo "bench.sh: BENCH_SKIP_BUILD=1: using the binaries in $bin"
else
  start=$(date +%s)
  scripts/locked.sh cmake --preset "$preset" >/dev/null
  scripts/locked.sh cmake --build "$bin" -j2
  echo "bench.sh: build took $(( $(date +%s) - start ))s"
fi

# 3. Data (deterministic; regenerated only when missing or older than gen.js).
shape="${BENCH_SHAPE:-skewed}"
data="$out/data/social-$persons-$edges"
[ "$shape" = skewed ] || data="$data-$shape"
if [ ! -f "$data/meta.json" ] || [ bench/peers/gen.js -nt "$data/meta.json" ]; then
  rm -rf "$data"
  node bench/peers/gen.js --persons "$persons" --edges "$edges" --shape "$shape" --out "$data"
else
  echo "bench.sh: reusing $data"
fi

# 4. Peers.
run peers node bench/peers/run.js --data "$data" --reps "$reps" --out "$out/peers.json"
# The same peers with their databases on local disk, each load ending durable (CHECKPOINT), as
# ours does: the like-for-like load comparison (their in-memory loads above write no files).
peer_disk=$(mktemp -d "${TMPDIR:-/tmp}/og-peers-disk-XXXXXX")
run peers_disk node bench/peers/run.js --data "$data" --reps 1 --no-reference --disk "$peer_disk" --out "$out/peers_disk.json"
rm -rf "$peer_disk"

# 5. Ours.
og="$bin/src/cli/omnigraph"
if [ -x "$og" ]; then
  og_load() {
    local g; g=$(mktemp -d "${TMPDIR:-/tmp}/og-bench-XXXXXX")
    # (run's pipeline disables set -e in here: every step checks its own status)
    OMNIGRAPH_FSYNC=0 "$og" init --schema "$data/schema.pg" "$g/g.omni" >/dev/null || return 1
    local start; start=$(now)
    OMNIGRAPH_FSYNC=0 "$og" load --data "$data/data.ndjson" --mode append --store "$g/g.omni" --json >/dev/null ||
      { rm -rf "$g"; return 1; }
    local t; t=$(secs "$start")
    echo "omnigraph load: $persons persons + $edges edges ($(du -m "$data/data.ndjson" | cut -f1) MB NDJSON," \
         "one append, fsync off) in $t s; graph on disk $(du -sm "$g/g.omni" | cut -f1) MB"
    rm -rf "$g"
  }
  run omnigraph_load og_load
  run load_bench bench/load_bench.sh "$og" 500000
else
  skip omnigraph_load "no $og"; skip load_bench "no $og"
fi
# query_bench (Omnigraph's side of the peer queries): same data, checks its answers against
# the peers' (the "answers" key of peers.json).
if [ -x "$bin/bench/query_bench" ]; then
  run query_bench "$bin/bench/query_bench" --data "$data" --reps "$reps" --peers "$out/peers.json" --out "$out/query_bench.json"
else
  skip query_bench "not built ($bin/bench/query_bench)"
fi
if [ -x "$bin/bench/table_bench" ]; then
  run table_bench "$bin/bench/table_bench" --rows "$table_rows" --dim 128 --reps 3
else skip table_bench "not built"; fi
if [ -x "$bin/bench/merge_bench" ]; then
  if [ "$large" = 1 ]; then merge_sizes=100000,1000000; else merge_sizes=100000; fi
  run merge_bench "$bin/bench/merge_bench" --sizes "$merge_sizes" --reps 3
else skip merge_bench "not built"; fi
if [ -x "$bin/bench/io_bench" ]; then
  run io_bench "$bin/bench/io_bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
    --benchmark_min_time=0.2
else skip io_bench "not built"; fi
if [ -x "$bin/bench/compiler_bench_query" ]; then
  run compiler_bench_query "$bin/bench/compiler_bench_query"
else skip compiler_bench_query "not built"; fi
if [ -x "$bin/src/compiler/compiler_bench_schema" ]; then
  run compiler_bench_schema "$bin/src/compiler/compiler_bench_schema"
else skip compiler_bench_schema "not built"; fi

# 6. Summary.
printf '\n==================== summary (%s, %s persons / %s edges, %s reps; outputs in %s)\n' \
  "$preset" "$persons" "$edges" "$reps" "${out#"$root"/}"
printf '%s\n' "${summary[@]}"
show() { [ -f "$out/$1.txt" ] && { printf -- '-- %s\n' "$1"; grep -E "$2" "$out/$1.txt" || true; }; }
show peers '^(peers:|ms |load |rss |peak rss |q_|  )'
show peers_disk '^load '
show omnigraph_load '^omnigraph load'
[ -f "$out/query_bench.txt" ] && { echo "-- query_bench (last lines)"; tail -n 20 "$out/query_bench.txt"; }
show load_bench '^load:'
show table_bench '^(write|size|full scan|filtered scan \(|id index)'
[ -f "$out/io_bench.txt" ] && { echo "-- io_bench (median real time; /0 memory, /2 local fsync off, /1 local fsync on)"
  awk '/_median/ { sub(/\/real_time_median/, "", $1); printf "  %-28s %12s %s\n", $1, $2, $3 }' "$out/io_bench.txt"; }
show compiler_bench_query '^compile'
show compiler_bench_schema '^BM_'
echo "bench.sh: total $(( $(date +%s) - t_all ))s; load average now $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "bench.sh: FAILED: ${failed[*]}"
  exit 1
fi
