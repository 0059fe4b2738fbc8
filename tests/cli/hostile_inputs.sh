#!/usr/bin/env bash
# Hostile inputs (issue 15): a directory or a missing file as a source file, F32-overflowing
# vectors, unknown commands and other usage errors (exit 2), duplicate parameter names, library
# exception text, long and non-printable source lines in diagnostics, a corrupt table on export,
# 1e999 in a query, percent escapes in file:// URIs, and a full stdout. Every case must fail with
# a typed error and the documented exit code, never abort.
#   tests/cli/hostile_inputs.sh path/to/omnigraph
set -uo pipefail
og="$1"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# expect RC PATTERN CMD...: runs CMD, requires exit code RC and PATTERN (a grep -E) in its stderr.
expect() {
  local rc="$1" pattern="$2"
  shift 2
  "$@" > "$dir/out" 2> "$dir/err"
  local got=$?
  [[ "$got" == "$rc" ]] || fail "exit $got (want $rc): $* : $(cat "$dir/err")"
  grep -Eq -- "$pattern" "$dir/err" || fail "no /$pattern/ in stderr of $*: $(cat "$dir/err")"
  ! grep -q 'json.exception' "$dir/err" "$dir/out" || fail "library exception text from $*"
}

printf 'node Doc { name: String @key, v: Vector(2)?, f: F32? }\nedge Cites: Doc -> Doc\n' > "$dir/s.pg"
mkdir "$dir/adir"
"$og" init --schema "$dir/s.pg" "$dir/g" > /dev/null || fail "init"
printf '{"type":"Doc","data":{"name":"a","v":[1,2]}}\n{"type":"Doc","data":{"name":"b"}}\n{"edge":"Cites","from":"a","to":"b"}\n' > "$dir/d.ndjson"
"$og" load "$dir/g" --data "$dir/d.ndjson" --mode append > /dev/null 2>&1 || fail "load"
printf 'query q() { match { $d: Doc } return { $d.name } }\n' > "$dir/q.gq"

# --- a directory, or nothing, where a source file belongs ---
isdir='error\[invalid_argument\]: .*is a directory'
expect 1 "$isdir" "$og" init --schema "$dir/adir" "$dir/g2"
expect 1 "$isdir" "$og" query --store "$dir/g" --query "$dir/adir"
expect 1 "$isdir" "$og" mutate --store "$dir/g" --query "$dir/adir"
expect 1 "$isdir" "$og" lint --schema "$dir/adir" --query "$dir/q.gq"
expect 1 "$isdir" "$og" lint --schema "$dir/s.pg" --query "$dir/adir"
expect 1 "$isdir" "$og" query --store "$dir/g" --query "$dir/q.gq" --params-file "$dir/adir"
expect 1 "$isdir" "$og" load "$dir/g" --data "$dir/adir" --mode append
expect 1 "error\[not_found\]: .*$dir/nope.gq" "$og" query --store "$dir/g" --query "$dir/nope.gq"
expect 1 "error\[not_found\]: .*$dir/nope.ndjson" "$og" load "$dir/g" --data "$dir/nope.ndjson" --mode append
[[ ! -e "$dir/g2" ]] || fail "init with a directory as schema created a graph"

# --- F32 range: vector elements and scalars, load, mutate, parameters ---
printf '{"type":"Doc","data":{"name":"c","v":[1e39,0]}}\n' > "$dir/big.ndjson"
expect 1 'load_type_mismatch.*out of F32 range' "$og" load "$dir/g" --data "$dir/big.ndjson" --mode append
expect 1 'out of F32 range' "$og" mutate --store "$dir/g" -e 'query m() { insert Doc { name: "c", v: [1e39, 0] } }'
expect 1 'out of F32 range' "$og" mutate --store "$dir/g" -e 'query m($v: Vector(2)) { insert Doc { name: "c", v: $v } }' --params '{"v":[0,-1e39]}'
expect 1 'out of F32 range' "$og" mutate --store "$dir/g" -e 'query m($f: F32) { insert Doc { name: "c", f: $f } }' --params '{"f":1e39}'
"$og" export "$dir/g" > "$dir/export.ndjson" || fail "export"
[[ "$(grep -c '"c"' "$dir/export.ndjson")" == 0 ]] || fail "a rejected record was stored"

# --- usage errors exit 2 ---
expect 2 'unknown command `nosuchcmd`' "$og" nosuchcmd
expect 2 'unknown command `branch nosuch`' "$og" branch nosuch
expect 2 'error\[usage_error\]: no graph addressed — pass a positional URI, --store <uri>' "$og" snapshot
expect 2 'error\[usage_error\]: no graph addressed — pass a positional URI, --store <uri>' "$og" export
expect 2 'error\[usage_error\]: give the graph once' "$og" snapshot "$dir/g" --store "$dir/other"
expect 2 'error\[usage_error\]' "$og" mutate --store "$dir/g"
expect 2 'error\[usage_error\]' "$og" diff main main "$dir/g" --kind nope
expect 2 'error\[usage_error\]: unknown load mode' "$og" load "$dir/g" --data "$dir/d.ndjson" --mode nope
expect 2 'is not a size' "$og" load "$dir/g" --data "$dir/d.ndjson" --mode append --max-memory -5
expect 2 'is not a size' "$og" load "$dir/g" --data "$dir/d.ndjson" --mode append --chunk-size 0
expect 2 'is not a size' "$og" query --store "$dir/g" --max-memory 0 -e 'query q() { match { $a: P } return { $a } }'
expect 2 'error\[usage_error\]: unknown --format' "$og" query --store "$dir/g" --format nope -e 'query q() { match { $a: P } return { $a } }'
"$og" snapshot "$dir/g" --store "$dir/g" > /dev/null || fail "the same URI twice is fine"

# --- parameters: duplicate names, no library text ---
pq='query q($n: String) { match { $d: Doc { name: $n } } return { $d.name } }'
expect 1 'appears twice' "$og" query --store "$dir/g" -e "$pq" --params '{"n":"a","n":"b"}'
expect 1 'given twice' "$og" query --store "$dir/g" -e "$pq" --params '{"n":"a","$n":"b"}'
expect 1 'query parameters: parse error at line 1' "$og" query --store "$dir/g" -e "$pq" --params '{"n": '
printf '{"n":"a","n":"b"}' > "$dir/p.json"
expect 1 'appears twice' "$og" query --store "$dir/g" -e "$pq" --params-file "$dir/p.json"

# --- diagnostics: long lines are cut, control bytes escaped ---
{ printf 'node A { x: String }\nnode B { '; head -c 5000 /dev/zero | tr '\0' ' '; printf 'y: String \033[31m }\n'; } > "$dir/long.pg"
"$og" init --schema "$dir/long.pg" "$dir/g3" > /dev/null 2> "$dir/err" && fail "a bad schema was accepted"
awk '{ if (length($0) > 300) bad = 1 } END { exit bad }' "$dir/err" || fail "a diagnostic line is longer than 300 bytes"
! grep -q $'\033' "$dir/err" || fail "an escape byte was echoed raw"
grep -q '\\x1b' "$dir/err" || fail "the escape byte is not shown as \\x1b: $(cat "$dir/err")"

# --- 1e999 in a query ---
expect 1 'error\[Q000\]: number `1e999` is out of range' "$og" query --store "$dir/g" -e 'query q() { match { $d: Doc { f: 1e999 } } return { $d.name } }'
expect 1 'error\[Q000\]: number `1.0e999` is out of range' "$og" mutate --store "$dir/g" -e 'query m() { insert Doc { name: "z", f: 1.0e999 } }'
printf 'query q() { match { $d: Doc { f: 1.0e999 } } return { $d.name } }\n' > "$dir/huge.gq"
"$og" lint --schema "$dir/s.pg" --query "$dir/huge.gq" > "$dir/out" 2>&1 && fail "lint accepted 1.0e999"
grep -q 'error\[Q000\]: number `1.0e999` is out of range' "$dir/out" || fail "lint of 1.0e999: $(cat "$dir/out")"

# --- file:// URIs: %20 decoded, bad escapes rejected ---
"$og" init --schema "$dir/s.pg" "file://$dir/my%20graph" > /dev/null || fail "init at a file:// URI with %20"
[[ -d "$dir/my graph" ]] || fail "file://...my%20graph did not create 'my graph'"
"$og" snapshot "file://$dir/my%20graph" > /dev/null || fail "snapshot via %20"
expect 1 'error\[bad_uri\]' "$og" snapshot "file://$dir/bad%zz"
expect 1 'error\[bad_uri\]' "$og" snapshot "file://$dir/bad%2"

# --- export of a corrupt table: nothing printed, --out untouched ---
"$og" export "$dir/g" --out "$dir/good.ndjson" || fail "export --out"
cmp -s "$dir/good.ndjson" "$dir/export.ndjson" || fail "export --out differs from stdout"
cp -r "$dir/g" "$dir/gc"
doc_table="$("$og" snapshot "$dir/gc" --json | jq -r '.datasets[] | select(.entity_kind == "node" and .type_name == "Doc") | .table_id')"
[[ -n "$doc_table" && -d "$dir/gc/tables/$doc_table" ]] || fail "cannot find Doc's table ($doc_table)"
for f in $(find "$dir/gc/tables/$doc_table" -name '*.ogf'); do
  size=$(stat -c %s "$f")
  printf 'XXXXXXXXXXXXXXXX' | dd of="$f" bs=1 seek=$((size / 2)) conv=notrunc 2> /dev/null
done
"$og" export "$dir/gc" > "$dir/partial" 2> "$dir/err" && fail "export of a corrupt table succeeded"
[[ ! -s "$dir/partial" ]] || fail "export printed $(wc -l < "$dir/partial") line(s) before failing"
echo old > "$dir/keep.ndjson"
"$og" export "$dir/gc" --out "$dir/keep.ndjson" 2> /dev/null && fail "export --out of a corrupt table succeeded"
[[ "$(cat "$dir/keep.ndjson")" == old ]] || fail "export --out replaced its file on failure"
[[ -z "$(find "$dir" -maxdepth 1 -name '.keep.ndjson.og-tmp-*')" ]] || fail "export --out left its temp file"

# --- a full stdout is an error ---
if [[ -w /dev/full ]]; then
  "$og" version > /dev/full 2> "$dir/err" && fail "writing to a full stdout exited 0"
  grep -q 'error\[resource_limit\]: writing standard output' "$dir/err" || fail "full stdout: $(cat "$dir/err")"
  "$og" export "$dir/g" > /dev/full 2> "$dir/err" && fail "export to a full stdout exited 0"
  grep -q 'resource_limit' "$dir/err" || fail "export to a full stdout: $(cat "$dir/err")"
fi
echo "hostile_inputs: ok"
