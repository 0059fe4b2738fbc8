#!/usr/bin/env bash
# `omnigraph optimize` end to end: it builds and stores the derived read structures of a branch
# head (docs/format/adjacency.md), a second run finds them present, read-only queries then load
# them and answer the same, a write makes the next optimize build again, and damaged objects are
# ignored by queries (same answers) and repaired by the next optimize.
#   tests/cli/optimize.sh path/to/omnigraph
set -euo pipefail
og="$1"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
printf 'node P { n: String @key }\nedge K: P -> P\n' > "$dir/s.pg"
awk 'BEGIN { for (i = 0; i < 300; i++) printf "{\"type\":\"P\",\"data\":{\"n\":\"p%d\"}}\n", i;
             for (i = 0; i < 300; i++) printf "{\"edge\":\"K\",\"from\":\"p%d\",\"to\":\"p%d\"}\n", i, (i * 7) % 300 }' > "$dir/d.ndjson"
"$og" init --schema "$dir/s.pg" "$dir/g" > /dev/null
"$og" load "$dir/g" --data "$dir/d.ndjson" --mode overwrite > /dev/null 2>&1
q='query q() { match { $a: P { n: "p3" } $a k{1,3} $b } return { count($b) } }'
before="$("$og" query --store "$dir/g" -e "$q" --format csv)"
[[ -z "$(ls "$dir/g/derived" 2> /dev/null)" ]] || fail "a read-only query wrote derived objects"

out="$("$og" optimize "$dir/g" --json | jq -cS .)"
[[ "$out" == *'"built":2'* && "$out" == *'"present":0'* ]] || fail "first optimize: $out"
# The key P.n is indexed: its text segment is built (and published in an index commit).
[[ "$out" == *'"kind":"text","property":"n"'* && "$out" == *'"status":"built","type_name":"P"'* ]] || fail "no text segment: $out"
[[ "$out" == *'"indexed":true'* ]] || fail "no index commit: $out"
[[ -n "$(find "$dir/g/derived" -name '*.ogcsr')" ]] || fail "no adjacency object written"
[[ -n "$(find "$dir/g/derived" -name '*.ogord')" ]] || fail "no ordinals object written"
out="$("$og" optimize --store "$dir/g" --json | jq -cS .)"
[[ "$out" == *'"built":0'* && "$out" == *'"present":2'* ]] || fail "second optimize: $out"
[[ "$out" == *'"status":"present","type_name":"P"'* && "$out" == *'"indexed":false'* ]] || fail "second optimize rebuilt an index: $out"
[[ "$("$og" query --store "$dir/g" -e "$q" --format csv)" == "$before" ]] || fail "answer changed after optimize"

# A write: the node table's and edge table's versions move, so optimize builds again.
"$og" mutate --store "$dir/g" -e 'query m() { insert P { n: "p900" } }' > /dev/null
out="$("$og" optimize "$dir/g" --json | jq -cS .)"
[[ "$out" == *'"built":2'* ]] || fail "optimize after a write: $out"

# Damaged derived objects: queries warn, rebuild in memory and answer the same.
for f in $(find "$dir/g/derived" -type f); do printf 'garbage' | dd of="$f" bs=1 seek=20 conv=notrunc 2> /dev/null; done
[[ "$("$og" query --store "$dir/g" -e "$q" --format csv 2> /dev/null)" == "$before" ]] || fail "answer changed with damaged objects"
# optimize repairs them (overwrites what it cannot read), so the next run finds them intact.
out="$("$og" optimize "$dir/g" --json 2> /dev/null | jq -cS .)"
[[ "$out" == *'"built":2'* ]] || fail "optimize over damaged objects: $out"
# (--quiet drops only the write-target line `omnigraph optimize → URI (direct, local)`, so any
# warning about an unreadable object still lands in err)
out="$("$og" --quiet optimize "$dir/g" --json 2> "$dir/err" | jq -cS .)"
[[ "$out" == *'"present":2'* && ! -s "$dir/err" ]] || fail "damaged objects were not repaired: $out $(cat "$dir/err")"

# Unknown branch: a clear error, exit 1.
if "$og" optimize "$dir/g" --branch nope > /dev/null 2>&1; then fail "optimize of a missing branch succeeded"; fi
echo "optimize: ok"
