#!/usr/bin/env bash
# `omnigraph query` output (docs/cli.md): the table fits $COLUMNS when stdout is not a terminal
# (no limit without it), cut cells end in "…"; JSON spells 64-bit integers beyond 2^53 (incl.
# INT64_MIN) as strings; ordering by an aggregate works end to end.
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

# piped with COLUMNS: every line within 50 columns, the long cell cut with an ellipsis
out="$(COLUMNS=50 "$og" query --store "$dir/g" -e "$q")"
while IFS= read -r line; do
  [ "$(printf '%s' "$line" | wc -m)" -le 50 ] || fail "line wider than 50: '$line'"
done <<< "$out"
[[ "$out" == *"…"* ]] || fail "no ellipsis: $out"
[[ "$out" == *"-9223372036854775808"* ]] || fail "the narrow column was cut: $out"
# piped without COLUMNS: no limit
out="$(env -u COLUMNS "$og" query --store "$dir/g" -e "$q")"
[[ "$out" == *"$long"* ]] || fail "cut without a limit: $out"

# JSON: beyond ±2^53 as strings, 2^53 itself a number
out="$("$og" query --store "$dir/g" --json -e 'query q() { match { $p: P } return { $p.n, $p.v } order { $p.n } }')"
[[ "$out" == *'"v": "-9223372036854775808"'* ]] || fail "INT64_MIN: $out"
[[ "$out" == *'"v": "9007199254740993"'* ]] || fail "2^53+1: $out"
[[ "$out" == *'"v": 9007199254740992'* ]] || fail "2^53: $out"

# ordering by an aggregate
out="$("$og" query --store "$dir/g" --format csv -e 'query q() { match { $p: P $p l $c } return { $c.n, count($p) as k } order { count($p) desc } }')"
[[ "$out" == $'n,k\ny,2\nx,1' ]] || fail "order by count: $out"
echo "query CLI checks passed"
