#!/usr/bin/env bash
# `omnigraph query` output (docs/cli.md): the table and the operator config's table settings,
# default format and store; JSON spells 64-bit integers beyond 2^53 (incl.
# INT64_MIN) as strings; ordering by an aggregate works end to end; hostile queries stay within
# --max-memory or fail with resource_limit.
#   tests/cli/query.sh path/to/omnigraph
set -euo pipefail
og="$1"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
printf 'node P { n: String @key, bio: String?, v: I64? }\nnode C { n: String @key }\nedge L: P -> C\n' > "$dir/s.pg"
"$og" init --schema "$dir/s.pg" "$dir/g" > /dev/null
long=$(printf 'lorem ipsum %.0s' $(seq 1 20))
cat > "$dir/d.ndjson" <<DATA
{"type":"P","data":{"n":"a","bio":"$long","v":-9223372036854775808}}
{"type":"P","data":{"n":"b","bio":"short","v":9007199254740993}}
{"type":"P","data":{"n":"c","v":9007199254740992}}
{"type":"C","data":{"n":"x"}}
{"type":"C","data":{"n":"y"}}
{"edge":"L","from":"a","to":"x"}
{"edge":"L","from":"b","to":"y"}
{"edge":"L","from":"c","to":"y"}
DATA
"$og" load "$dir/g" --data "$dir/d.ndjson" --mode append > /dev/null
q='query q() { match { $p: P } return { $p.n, $p.bio, $p.v } }'

# table (the Rust CLI's layout): the "N rows from branch B via Q" line, " | " between columns, a
# column at most 80 wide (defaults.table_max_column_width), the long cell cut with an ellipsis
out="$("$og" query --store "$dir/g" -e "$q")"
[[ "$(head -1 <<< "$out")" == "3 rows from branch main via q" ]] || fail "header line: $out"
[[ "$(sed -n 2p <<< "$out")" == "p.n | p.bio"*" | p.v"* ]] || fail "column line: $out"
while IFS= read -r line; do
  [ "$(printf '%s' "$line" | wc -m)" -le 115 ] || fail "line wider than 3+80+20+gaps: '$line'"
done <<< "$out"
[[ "$out" == *"…"* ]] || fail "no ellipsis: $out"
[[ "$out" == *"-9223372036854775808"* ]] || fail "the narrow column was cut: $out"
# the operator config: a 20-wide cap, wrapped cells, csv as the default format
mkdir -p "$dir/home"
printf 'defaults:\n  table_max_column_width: 20\n  table_cell_layout: wrap\n' > "$dir/home/config.yaml"
out="$(OMNIGRAPH_HOME="$dir/home" "$og" query --store "$dir/g" -e "$q")"
[[ "$out" != *"…"* && "$(wc -l <<< "$out")" -gt 10 ]] || fail "wrap: $out"
while IFS= read -r line; do
  [ "$(printf '%s' "$line" | wc -m)" -le 50 ] || fail "wrapped line wider than 3+20+20+gaps: '$line'"
done <<< "$out"
printf 'defaults:\n  output: csv\n  store: %s\noperator:\n  actor: someone\n  colour: red\n' "$dir/g" > "$dir/home/config.yaml"
out="$(OMNIGRAPH_HOME="$dir/home" "$og" query -e 'query q() { match { $c: C } return { $c.n } order { $c.n } }' 2> "$dir/err")"
[[ "$out" == $'c.n\nx\ny' ]] || fail "defaults.output/defaults.store: $out"
grep -q 'warning: unknown key `operator.colour`' "$dir/err" || fail "no unknown-key warning: $(cat "$dir/err")"
printf 'defaults:\n  output: [csv]\n' > "$dir/home/config.yaml"
if OMNIGRAPH_HOME="$dir/home" "$og" query --store "$dir/g" -e "$q" > /dev/null 2> "$dir/err"; then fail "bad config accepted"; fi
grep -q 'config.yaml' "$dir/err" || fail "config error does not name the file: $(cat "$dir/err")"

# JSON: beyond ±2^53 as strings, 2^53 itself a number
out="$("$og" query --store "$dir/g" --json -e 'query q() { match { $p: P } return { $p.n, $p.v } order { $p.n } }')"
[[ "$out" == *'"p.v": "-9223372036854775808"'* ]] || fail "INT64_MIN: $out"
[[ "$out" == *'"p.v": "9007199254740993"'* ]] || fail "2^53+1: $out"
[[ "$out" == *'"p.v": 9007199254740992'* ]] || fail "2^53: $out"

# ordering by an aggregate
out="$("$og" query --store "$dir/g" --format csv -e 'query q() { match { $p: P $p l $c } return { $c.n, count($p) as k } order { count($p) desc } }')"
[[ "$out" == $'c.n,k\ny,2\nx,1' ]] || fail "order by count: $out"
# Hostile queries (issue 15): a product under `limit` answers within a small budget; without a
# limit it is a resource_limit naming the budget (exit 1, no abort); a chain of 100 traversals
# under `limit 1` answers; too many clauses is Q000; a zero budget is a usage error.
awk 'BEGIN { for (i = 0; i < 2000; i++) printf "{\"type\":\"P\",\"data\":{\"n\":\"q%04d\"}}\n", i;
             for (i = 0; i < 2000; i++) printf "{\"edge\":\"K\",\"from\":\"q%04d\",\"to\":\"q%04d\"}\n", i, (i + 1) % 2000 }' > "$dir/h.ndjson"
printf 'node P { n: String @key }\nedge K: P -> P\n' > "$dir/h.pg"
"$og" init --schema "$dir/h.pg" "$dir/h" > /dev/null
"$og" load "$dir/h" --data "$dir/h.ndjson" --mode append > /dev/null
out="$("$og" query --store "$dir/h" --max-memory 4M --format csv -e 'query q() { match { $a: P $b: P $c: P } return { $a.n as a, $b.n as b, $c.n as c } limit 2 }')"
[[ "$out" == $'a,b,c\nq0000,q0000,q0000\nq0000,q0000,q0001' ]] || fail "product under limit: $out"
set +e
err="$("$og" query --store "$dir/h" --max-memory 4M -e 'query q() { match { $a: P $b: P $c: P } return { $a.n as a, $b.n as b } }' 2>&1 > /dev/null)"
rc=$?
set -e
[ "$rc" = 1 ] || fail "product without limit: exit $rc ($err)"
[[ "$err" == *"error[resource_limit]"*"4194304 bytes"* ]] || fail "product without limit: $err"
chain='query q() { match { $v0: P'
for i in $(seq 0 99); do chain="$chain \$v$i k \$v$((i + 1))"; done
chain="$chain } return { \$v100.n as last } limit 1 }"
out="$("$og" query --store "$dir/h" --max-memory 16M --format csv -e "$chain")"
[[ "$out" == $'last\nq0100' ]] || fail "chain of 100: $out"
many='query q() { match { $a: P'
for i in $(seq 1 1001); do many="$many not { \$a k \$a }"; done
many="$many } return { \$a.n } }"
set +e
err="$("$og" query --store "$dir/h" -e "$many" 2>&1)"; rc=$?
[ "$rc" = 1 ] && [[ "$err" == *"Q000"*"1000 clauses"* ]] || fail "too many clauses: exit $rc ${err:0:300}"
"$og" query --store "$dir/h" --max-memory 0 -e 'query q() { match { $a: P } return { $a.n } }' > /dev/null 2>&1; rc=$?
set -e
[ "$rc" = 2 ] || fail "--max-memory 0: exit $rc"
echo "query CLI checks passed"
