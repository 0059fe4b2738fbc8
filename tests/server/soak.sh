#!/usr/bin/env bash
# omnigraph-server under load, through the real binaries, on one --store graph seeded with
# examples/org.pg + org.ndjson:
#  (a) 16 concurrent clients for ~15 s, alternating reads (POST /query, a count of Person) and
#      writes (POST /mutate, an insert of a Person with a unique handle). No 5xx (nor a dropped
#      connection) at all; every client's reads see its own acknowledged writes and never go back;
#      afterwards the Person rows are exactly the seed plus the acknowledged inserts, and
#      GET /commits is one linear chain holding one commit per acknowledged insert;
#  (b) 8 writers, the server killed with SIGKILL after ~3 s of load, restarted (on a new port):
#      every write acknowledged before the kill is there, nothing that was never sent is, the graph
#      answers /snapshot and takes new writes, and `omnigraph check` finds no damage.
# Usage: soak.sh <omnigraph binary> <omnigraph-server binary> <source dir>
set -euo pipefail
og="$1"
srv="$2"
src="$3"
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
unset OMNIGRAPH_SERVER_BEARER_TOKENS_FILE OMNIGRAPH_SERVER_BEARER_TOKENS_JSON OMNIGRAPH_SERVER_BEARER_TOKEN \
  OMNIGRAPH_CLUSTER OMNIGRAPH_BIND OMNIGRAPH_PER_ACTOR_INFLIGHT_MAX OMNIGRAPH_PER_ACTOR_BYTES_MAX
export OMNIGRAPH_FSYNC=0  # SIGKILL is not a power cut: what was written survives without fsync
g="$dir/g.omni"

state_of() { sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | cut -d' ' -f1; }
gone() { [ ! -e "/proc/$1" ] || [ "$(state_of "$1")" = Z ]; }
start_server() {  # sets $pid and $base
  : > "$dir/out"
  "$srv" --store "$g" --unauthenticated --bind 127.0.0.1:0 --quiet > "$dir/out" 2> "$dir/err" &
  pid=$!
  local addr="" i
  for i in $(seq 100); do
    addr=$(sed -n 's/^OMNIGRAPH_LISTEN_ADDR=//p' "$dir/out")
    [ -n "$addr" ] && break
    gone "$pid" && fail "server exited before listening: $(cat "$dir/err")"
    sleep 0.1
  done
  [ -n "$addr" ] || fail "no OMNIGRAPH_LISTEN_ADDR line within 10 s"
  base="http://$addr"
}
stop_server() {  # SIGTERM: exit 0 within 5 s
  local i rc
  kill -TERM "$pid"
  for i in $(seq 50); do gone "$pid" && break; sleep 0.1; done
  gone "$pid" || fail "server still running 5 s after SIGTERM"
  set +e; wait "$pid"; rc=$?; set -e
  pid=""
  [ "$rc" -eq 0 ] || fail "server exited $rc after SIGTERM"
}
post() {  # post PATH JSON -> the body on stdout; fails unless 200
  local code
  code=$(curl -s -m 30 -o "$dir/body" -w '%{http_code}' -H 'Content-Type: application/json' \
    --data-binary "$2" "$base$1") || code=000
  [ "$code" = 200 ] || fail "POST $1: HTTP $code: $(cat "$dir/body")"
  cat "$dir/body"
}
count_q='{"query":"query n() { match { $p: Person } return { count($p) as n } }"}'
handles_q='{"query":"query h() { match { $p: Person } return { $p.handle } }"}'
count() { post /graphs/default/query "$count_q" | python3 -c 'import json, sys; print(json.load(sys.stdin)["rows"][0]["n"])'; }
handles() { post /graphs/default/query "$handles_q" | python3 -c 'import json, sys
for r in json.load(sys.stdin)["rows"]: print(r["p.handle"])' | sort; }
# The body of an insert of Person $h: ${ins//@KEY@/KEY}
ins=$(python3 -c 'import json
q = "query add($h: String, $j: Date) { insert Person { handle: $h, name: \"Soak Test\", role: \"engineer\", joined: $j, active: true } }"
print(json.dumps({"query": q, "params": {"h": "@KEY@", "j": "2024-01-01"}}))')

"$og" init --schema "$src/examples/org.pg" "$g" > /dev/null
"$og" load "$g" --data "$src/examples/org.ndjson" --mode merge > /dev/null 2>&1 || fail "seed load"
start_server
seed=$(count)
[ "$seed" -gt 0 ] || fail "no seed rows"

# --- (a) 16 clients, reads and writes, ~15 s ---------------------------------------------------------
body_of() {  # body_of STATUS FILE: " body=<the response, one line>" unless STATUS is 200
  [ "$1" = 200 ] || printf ' body=%s' "$(head -c 400 "$2" 2> /dev/null | tr '\n' ' ')"
}
client() {  # client ID END: log lines "W key status commit" and "R status count"
  local id="$1" end="$2" i=0 code key commit n resp="$dir/resp-$1"
  while [ "$(date +%s)" -lt "$end" ]; do
    i=$((i + 1))
    if [ $((i % 2)) -eq 1 ]; then
      key="s$id-$i"
      code=$(curl -s -m 30 -o "$resp" -w '%{http_code}' -H 'Content-Type: application/json' \
        --data-binary "${ins//@KEY@/$key}" "$base/graphs/default/mutate") || code=000
      commit=-
      [ "$code" != 200 ] || commit=$(sed -n 's/.*"graph_commit_id":"\([0-9A-Z]*\)".*/\1/p' "$resp")
      if [ "$code" = 200 ] && ! grep -q '"affected_nodes":1,' "$resp"; then code=bad-ack; fi
      echo "W $key $code ${commit:--}$(body_of "$code" "$resp")" >> "$dir/log-$id"
    else
      code=$(curl -s -m 30 -o "$resp" -w '%{http_code}' -H 'Content-Type: application/json' \
        --data-binary "$count_q" "$base/graphs/default/query") || code=000
      n=$(sed -n 's/.*"rows":\[{"n":\([0-9]*\)}\].*/\1/p' "$resp")
      echo "R $code ${n:--}$(body_of "$code" "$resp")" >> "$dir/log-$id"
    fi
  done
}
end=$(($(date +%s) + 15))
cpids=()
for c in $(seq 1 16); do
  client "$c" "$end" &
  cpids+=($!)
done
for c in "${cpids[@]}"; do wait "$c"; done
cat "$dir"/log-* > "$dir/all"
summary=$(awk '{ s = ($1 == "W") ? $3 : $2; n[$1 " " s]++ } END { for (k in n) printf "%s=%d ", k, n[k] }' "$dir/all")
echo "(a) seed=$seed statuses: $summary"
bad=$(awk '{ s = ($1 == "W") ? $3 : $2 } s != 200 && s != 409 && s != 429 { print }' "$dir/all" | head -5)
[ -z "$bad" ] || fail "(a) unexpected statuses (5xx, dropped connections or bad bodies): $bad"
awk '$1 == "R" && $2 == 200 && $3 == "-"' "$dir/all" | grep -q . && fail "(a) a 200 count read without a count"
awk '$1 == "W" && $3 == 200 { print $2 }' "$dir/all" | sort > "$dir/acked-keys"
awk '$1 == "W" && $3 == 200 { print $4 }' "$dir/all" | sort > "$dir/acked-commits"
acked=$(wc -l < "$dir/acked-keys")
[ "$acked" -gt 0 ] || fail "(a) no write was acknowledged"
[ "$(sort -u "$dir/acked-commits" | wc -l)" = "$acked" ] || fail "(a) two acknowledged inserts share a commit"
# Per client: reads never go back and see the client's own acknowledged writes.
for c in $(seq 1 16); do
  awk -v seed="$seed" -v c="$c" '
    $1 == "W" && $3 == 200 { own++ }
    $1 == "R" && $2 == 200 {
      if ($3 < last) { print "client " c ": count went back from " last " to " $3; exit 1 }
      if ($3 < seed + own) { print "client " c ": count " $3 " misses its own writes (seed " seed " + " own ")"; exit 1 }
      last = $3
    }' "$dir/log-$c" > "$dir/mono" || fail "(a) $(cat "$dir/mono")"
done
n=$(count)
[ "$n" = $((seed + acked)) ] || fail "(a) count $n != seed $seed + acknowledged $acked"
handles | grep '^s[0-9]*-' > "$dir/present-keys" || true
cmp -s "$dir/acked-keys" "$dir/present-keys" ||
  fail "(a) inserted rows differ from the acknowledged ones: $(diff "$dir/acked-keys" "$dir/present-keys" | head -5)"
curl -s -m 30 -o "$dir/commits.json" "$base/graphs/default/commits" || fail "(a) GET /commits"
python3 - "$dir/commits.json" "$dir/acked-commits" > "$dir/history" << 'EOF' || fail "(a) history"
import json, sys
commits = json.load(open(sys.argv[1]))["commits"]
acked = set(open(sys.argv[2]).read().split())
ids = [c["graph_commit_id"] for c in commits]
problems = []
missing = acked - set(ids)
if missing: problems.append(f"{len(missing)} acknowledged commits missing, e.g. {sorted(missing)[:3]}")
if len(set(ids)) != len(ids): problems.append("a commit listed twice")
for a, b in zip(commits, commits[1:]):
    if a["parent_commit_id"] != b["graph_commit_id"]:
        problems.append(f"not linear: {a['graph_commit_id']} has parent {a['parent_commit_id']}, next is {b['graph_commit_id']}")
        break
adds = [c for c in commits if c["operation"] == "mutate:add"]
if len(adds) != len(acked): problems.append(f"{len(adds)} insert commits for {len(acked)} acknowledged inserts")
if problems:
    print("; ".join(problems), file=sys.stderr)
    sys.exit(1)
others = {}
for c in commits:
    if c["operation"] != "mutate:add": others[c["operation"]] = others.get(c["operation"], 0) + 1
print(f"commits={len(commits)} others={others}")
EOF
echo "(a) acknowledged=$acked count=$n $(cat "$dir/history")"
stop_server

# --- (b) 8 writers, SIGKILL mid-load --------------------------------------------------------------
start_server
before=$(count)
writer() {  # writer ID: logs "A key" before sending and "K key status" after; stops at a dead server
  local id="$1" i=0 code key resp="$dir/kresp-$1" end=$(($(date +%s) + 30))
  while [ "$(date +%s)" -lt "$end" ]; do
    i=$((i + 1))
    key="k$id-$i"
    echo "A $key" >> "$dir/klog-$id"
    code=$(curl -s -m 30 -o "$resp" -w '%{http_code}' -H 'Content-Type: application/json' \
      --data-binary "${ins//@KEY@/$key}" "$base/graphs/default/mutate") || code=000
    echo "K $key $code" >> "$dir/klog-$id"
    [ "$code" != 000 ] || break
  done
}
wpids=()
for w in $(seq 1 8); do
  writer "$w" &
  wpids+=($!)
done
sleep 3
kill -9 "$pid"
{ wait "$pid"; } 2> /dev/null || true
pid=""
for w in "${wpids[@]}"; do wait "$w" || true; done
cat "$dir"/klog-* > "$dir/kall"
awk '$1 == "K" && $3 == 200 { print $2 }' "$dir/kall" | sort > "$dir/kacked"
awk '$1 == "A" { print $2 }' "$dir/kall" | sort > "$dir/kattempted"
kacked=$(wc -l < "$dir/kacked")
ksummary=$(awk '$1 == "K" { n[$3]++ } END { for (k in n) printf "%s=%d ", k, n[k] }' "$dir/kall")
echo "(b) before=$before attempted=$(wc -l < "$dir/kattempted") statuses: $ksummary"
[ "$kacked" -gt 0 ] || fail "(b) no write acknowledged in 3 s"
bad=$(awk '$1 == "K" && $3 != 200 && $3 != 000 && $3 != 409 && $3 != 429' "$dir/kall" | head -5)
[ -z "$bad" ] || fail "(b) unexpected statuses before the kill: $bad"

start_server
code=$(curl -s -m 30 -o "$dir/body" -w '%{http_code}' "$base/graphs/default/snapshot") || code=000
[ "$code" = 200 ] || fail "(b) /snapshot after the restart: HTTP $code: $(cat "$dir/body")"
handles | grep '^k[0-9]*-' > "$dir/kpresent" || true
lost=$(comm -23 "$dir/kacked" "$dir/kpresent")
[ -z "$lost" ] || fail "(b) acknowledged writes lost by SIGKILL: $(echo "$lost" | head -5 | tr '\n' ' ')"
phantom=$(comm -13 "$dir/kattempted" "$dir/kpresent")
[ -z "$phantom" ] || fail "(b) rows nobody sent: $phantom"
n=$(count)
[ "$n" = $((before + $(wc -l < "$dir/kpresent"))) ] || fail "(b) count $n != $before + $(wc -l < "$dir/kpresent") present"
post /graphs/default/mutate "${ins//@KEY@/after-restart}" > /dev/null
[ "$(count)" = $((n + 1)) ] || fail "(b) a write after the restart is not counted"
echo "(b) acknowledged=$kacked present=$(wc -l < "$dir/kpresent") (unacknowledged but committed: $(($(wc -l < "$dir/kpresent") - kacked)))"
stop_server

if ! "$og" check "$g" --json > "$dir/check.json" 2> "$dir/check.err"; then
  fail "(b) omnigraph check after SIGKILL: $(head -c 2000 "$dir/check.json") $(cat "$dir/check.err")"
fi
echo "ok: server soak"
