#!/usr/bin/env bash
# 4 processes x 25 mutations each on `main` of one local graph, through the real binary.
#  (a) inserts of distinct keys: every acknowledged insert is present, the history is one linear
#      chain holding every acknowledged commit;
#  (b) read-modify-write increments of one node (`query`, then `mutate --if-commit`): a failure is
#      only precondition_failure (exit 4) or read_set_conflict (exit 1), and the final value is the
#      number of acknowledged increments (no lost update);
#  (c) plain strict updates of one node: a failure is only read_set_conflict (exit 1), and the
#      final value is the value written by the last acknowledged commit (the head).
# --json output (results and error bodies, on stdout) is pretty-printed; it is read with jq.
# Usage: multiprocess_mutate.sh <omnigraph binary>
set -euo pipefail
og="$1"
# The graph: a fresh local folder, or $OG_TEST_GRAPH (tests/s3/with_s3_server.sh runs this on s3://).
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export OMNIGRAPH_FSYNC=0
fail() { echo "FAIL: $*" >&2; exit 1; }
g="${OG_TEST_GRAPH:-$dir/g.omni}"
printf 'node P { n: String @key, v: I64? }\n' > "$dir/schema.pg"
"$og" init --schema "$dir/schema.pg" "$g" > /dev/null
commit_of() { jq -er '.commit.graph_commit_id'; }  # the commit a `mutate --json` published
code_of() { jq -r '.code // empty' 2> /dev/null || true; }  # the code of a --json error body
read_counter() {  # prints "<value> <head commit>"
  local out
  out=$("$og" query --store "$g" --json -e "query get() { match { \$p: P { n: \"$1\" } } return { \$p.v } }")
  echo "$(jq -er '.rows[0]["p.v"] | numbers' <<< "$out") $(jq -er '.graph_commit_id' <<< "$out")"
}
chain() { "$og" commit list --store "$g" --json | jq -r '.commits[] | select(.operation != "optimize") | .graph_commit_id'; }

# (a) inserts of distinct keys
for p in 1 2 3 4; do
  (
    for i in $(seq 1 25); do
      out=$("$og" mutate --store "$g" --json -e 'query add($n: String) { insert P { n: $n, v: 0 } }' \
            --params "{\"n\":\"p$p-$i\"}")
      echo "$out" | commit_of >> "$dir/ins-$p"
    done
  ) &
done
wait
acked=$(cat "$dir"/ins-* | grep -c . || true)
rows=$("$og" snapshot --store "$g" --json | jq -r '.datasets[].entity_count')
chain | sort > "$dir/chain-a"
missing=$(sort -u "$dir"/ins-* | comm -23 - "$dir/chain-a" | wc -l)
echo "(a) acknowledged=$acked rows=$rows commits=$(wc -l < "$dir/chain-a") missing=$missing"
[ "$acked" = 100 ] && [ "$rows" = 100 ] && [ "$(wc -l < "$dir/chain-a")" = 101 ] && [ "$missing" = 0 ] \
  || fail "inserts: a lost or duplicated acknowledged insert, or a non-linear history"

# (b) read-modify-write increments with --if-commit
"$og" mutate --store "$g" -e 'query c() { insert P { n: "counter", v: 0 } insert P { n: "last", v: 0 } }' > /dev/null
inc='query inc($v: I64) { update P set { v: $v } where n = "counter" }'
for p in 1 2 3 4; do
  (
    for i in $(seq 1 25); do
      read -r v head < <(read_counter counter)
      set +e
      out=$("$og" mutate --store "$g" --json --if-commit "$head" -e "$inc" --params "{\"v\":$((v + 1))}" 2> "$dir/err-$p")
      rc=$?
      set -e
      code=$(code_of <<< "$out")
      if [ $rc = 0 ]; then
        echo "$out" | commit_of >> "$dir/inc-$p"
      elif [ $rc = 4 ] && [ "$code" = precondition_failure ]; then
        echo x >> "$dir/stale-$p"
      elif [ $rc = 1 ] && [ "$code" = read_set_conflict ]; then
        echo x >> "$dir/conflict-$p"
      else
        echo "unexpected failure (exit $rc): $out $(cat "$dir/err-$p")" >> "$dir/bad"
      fi
    done
  ) &
done
wait
[ ! -s "$dir/bad" ] || fail "read-modify-write: $(head -3 "$dir/bad")"
incs=$(cat "$dir"/inc-* 2>/dev/null | grep -c . || true)
read -r final _ < <(read_counter counter)
chain | sort > "$dir/chain-b"
missing=$(sort -u "$dir"/inc-* | comm -23 - "$dir/chain-b" | wc -l)
echo "(b) acknowledged=$incs final=$final stale=$(cat "$dir"/stale-* 2>/dev/null | wc -l)" \
     "conflicts=$(cat "$dir"/conflict-* 2>/dev/null | wc -l) missing=$missing"
[ "$incs" -ge 1 ] && [ "$final" = "$incs" ] && [ "$missing" = 0 ] || fail "read-modify-write lost an update"

# (c) plain strict updates (no --if-commit): each writes its own value
set_last='query setv($v: I64) { update P set { v: $v } where n = "last" }'
for p in 1 2 3 4; do
  (
    for i in $(seq 1 25); do
      v=$((p * 1000 + i))
      set +e
      out=$("$og" mutate --store "$g" --json -e "$set_last" --params "{\"v\":$v}" 2> "$dir/err-$p")
      rc=$?
      set -e
      code=$(code_of <<< "$out")
      if [ $rc = 0 ]; then
        echo "$(echo "$out" | commit_of) $v" >> "$dir/upd-$p"
      elif [ $rc = 1 ] && [ "$code" = read_set_conflict ]; then
        echo x >> "$dir/uconflict-$p"
      else
        echo "unexpected failure (exit $rc): $out $(cat "$dir/err-$p")" >> "$dir/bad"
      fi
    done
  ) &
done
wait
[ ! -s "$dir/bad" ] || fail "strict updates: $(head -3 "$dir/bad")"
read -r final head < <(read_counter last)
acked_head_value=$(cat "$dir"/upd-* | awk -v h="$head" '$1 == h { print $2 }')
chain | sort > "$dir/chain-c"
missing=$(cat "$dir"/upd-* | cut -d' ' -f1 | sort -u | comm -23 - "$dir/chain-c" | wc -l)
echo "(c) acknowledged=$(cat "$dir"/upd-* | wc -l) conflicts=$(cat "$dir"/uconflict-* 2>/dev/null | wc -l)" \
     "final=$final head_value=$acked_head_value missing=$missing"
[ -n "$acked_head_value" ] && [ "$final" = "$acked_head_value" ] && [ "$missing" = 0 ] \
  || fail "strict updates: the final value is not the last acknowledged commit's"
echo "multiprocess mutate checks passed"
