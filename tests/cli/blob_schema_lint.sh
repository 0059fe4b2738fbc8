#!/usr/bin/env bash
# Blob cells, the schema source and graph-backed lint through the CLI (the Rust CLI's shapes):
# `blob get` (whole, node and edge, empty, --offset/--length, --out written only once the bytes are
# read), `blob stat` (--json shape, human lines, targets), range and selector errors (exit codes,
# nothing on stdout, --out untouched); `schema show`/`get` (the init source, JSON, a round trip);
# `schema plan` (steps, codes) and `schema apply` (one commit; refusals change nothing); `lint` against a graph's schema (ok, an error
# exits 1) and offline lint with --schema.
#   tests/cli/blob_schema_lint.sh path/to/omnigraph
set -euo pipefail
og="$1"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
export OMNIGRAPH_HOME="$dir/home" OMNIGRAPH_FSYNC=0
unset OMNIGRAPH_PROFILE OMNIGRAPH_ACTOR
fail() { echo "FAIL: $*" >&2; exit 1; }
# run CMD...: runs without stopping on failure; sets rc, and the output in $dir/out and $dir/err.
run() {
  set +e
  "$@" > "$dir/out" 2> "$dir/err"
  rc=$?
  set -e
}
# The bytes of a file as decimal numbers, space-separated.
bytes() { od -An -v -tu1 "$1" | tr -s ' \n' '  ' | sed -E 's/^ +//; s/ +$//'; }

printf 'node Document { title: String @key, content: Blob?, note: String? }\nedge Attachment: Document -> Document { payload: Blob? }\n' > "$dir/s.pg"
"$og" init --schema "$dir/s.pg" "$dir/g" > /dev/null
cat > "$dir/d.ndjson" << 'EOF'
{"type":"Document","data":{"title":"readme","content":"base64:AAECAwT/","note":"n"}}
{"type":"Document","data":{"title":"empty","content":"base64:"}}
{"type":"Document","data":{"title":"none"}}
{"edge":"Attachment","from":"readme","to":"empty","data":{"id":"attachment-1","payload":"base64:CQgH"}}
EOF
"$og" load "$dir/g" --data "$dir/d.ndjson" --mode append --quiet > /dev/null
g=(--store "$dir/g")
readme=(node Document readme content)

# ---- blob get -----------------------------------------------------------------------------------
get() {
  run "$og" blob get "$@" "${g[@]}"
  [[ $rc == 0 ]] || fail "blob get $*: exit $rc: $(cat "$dir/err")"
  bytes "$dir/out"
}
[[ "$(get "${readme[@]}")" == "0 1 2 3 4 255" ]] || fail "whole node Blob"
[[ "$(get edge Attachment attachment-1 payload)" == "9 8 7" ]] || fail "whole edge Blob"
get node Document empty content > /dev/null
[[ ! -s "$dir/out" ]] || fail "an empty Blob prints nothing"
[[ "$(get "${readme[@]}" --offset 1 --length 3)" == "1 2 3" ]] || fail "--offset 1 --length 3"
[[ "$(get "${readme[@]}" --offset 3)" == "3 4 255" ]] || fail "--offset 3"
[[ "$(get "${readme[@]}" --length 2)" == "0 1" ]] || fail "--length 2"
[[ "$(get "${readme[@]}" --length 7)" == "0 1 2 3 4 255" ]] || fail "--length past the end clamps"
[[ "$(get "${readme[@]}" --offset 5 --length 18446744073709551610)" == "255" ]] || fail "largest length"

run "$og" blob get "${readme[@]}" --offset 2 --length 3 --out "$dir/b.bin" "${g[@]}"
[[ $rc == 0 && ! -s "$dir/out" ]] || fail "--out: exit $rc, stdout $(cat "$dir/out")"
[[ "$(bytes "$dir/b.bin")" == "2 3 4" ]] || fail "--out bytes: $(bytes "$dir/b.bin")"
printf 'old bytes' > "$dir/e.bin"
run "$og" blob get node Document empty content --out "$dir/e.bin" "${g[@]}"
[[ $rc == 0 && -f "$dir/e.bin" && ! -s "$dir/e.bin" ]] || fail "an empty Blob truncates --out"

# Errors: exit 1 (2 for a malformed command line), nothing on stdout, --out left as it was.
printf 'preserve me' > "$dir/keep.bin"
expect_error() {  # expect_error EXIT SUBSTRING ARGS...
  local want="$1" text="$2"
  shift 2
  run "$og" blob "$@" "${g[@]}"
  [[ $rc == "$want" ]] || fail "blob $*: exit $rc, want $want: $(cat "$dir/err")"
  [[ ! -s "$dir/out" ]] || fail "blob $*: stdout not empty: $(cat "$dir/out")"
  grep -qF -- "$text" "$dir/err" || fail "blob $*: stderr lacks '$text': $(cat "$dir/err")"
  [[ "$(cat "$dir/keep.bin")" == "preserve me" ]] || fail "blob $*: --out was touched"
}
out=(--out "$dir/keep.bin")
expect_error 1 "Blob range --length must be greater than zero" get "${readme[@]}" --length 0 "${out[@]}"
expect_error 1 "Blob range overflows u64: offset 18446744073709551615, length 2" \
  get "${readme[@]}" --offset 18446744073709551615 --length 2 "${out[@]}"
expect_error 1 "Blob range is not satisfiable" get "${readme[@]}" --offset 7 "${out[@]}"
expect_error 1 "Blob range is not satisfiable" get "${readme[@]}" --offset 6 --length 1 "${out[@]}"
expect_error 1 "Blob range is not satisfiable" get node Document empty content --offset 0 "${out[@]}"
expect_error 1 "range_out_of_bounds" get node Document empty content --length 1 "${out[@]}"
expect_error 1 "not_found" get node Document missing content "${out[@]}"
expect_error 1 "not_found" get node Document none content "${out[@]}"
expect_error 1 "not_found" get node Nope readme content "${out[@]}"
expect_error 1 "not_found" get edge Document readme content "${out[@]}"
expect_error 1 "not_found" get node Document readme nope "${out[@]}"
expect_error 1 "not a Blob" get node Document readme note "${out[@]}"
expect_error 2 "--offset" get "${readme[@]}" --offset abc "${out[@]}"
expect_error 2 "" get "${readme[@]}" --offset -1 "${out[@]}"
expect_error 2 "exclude" get "${readme[@]}" --branch main --snapshot x "${out[@]}"
expect_error 2 "" get thing Document readme content "${out[@]}"
expect_error 2 "" stat "${readme[@]}" "$dir/g"  # no positional graph URI
run "$og" --as someone blob stat "${readme[@]}" "${g[@]}"
[[ $rc == 1 && ! -s "$dir/out" ]] && grep -qF '`blob stat` is a data command; --as sets the actor' "$dir/err" ||
  fail "blob stat --as: exit $rc: $(cat "$dir/err")"
expect_error 1 "not_found" stat node Document none content --json
expect_error 1 "not_found" stat node Document missing content --json
expect_error 1 "invalid_argument" stat node Document readme note --json

# ---- blob stat ----------------------------------------------------------------------------------
snapshot_id() { "$og" snapshot "$dir/g" --json | sed -nE 's/^  "snapshot_id": "([^"]+)",?$/\1/p'; }
sid="$(snapshot_id)"
[[ -n "$sid" ]] || fail "no snapshot id"
stat_json() {
  run "$og" blob stat "$@" --json "${g[@]}"
  [[ $rc == 0 ]] || fail "blob stat $*: exit $rc: $(cat "$dir/err")"
  grep -qE '^  "etag": "\\"[0-9a-f]{32}\\"",$' "$dir/out" || fail "etag: $(cat "$dir/out")"
  sed -E 's/^(  "etag": ).*/\1E,/' "$dir/out"
}
expected=$'{\n  "selector": {\n    "entity": "node",\n    "type": "Document",\n    "id": "readme",\n    "property": "content"\n  },\n  "kind": "managed",\n  "size": 6,\n  "etag": E,\n  "target": {\n    "resolved_snapshot": "'"$sid"$'"\n  }\n}'
[[ "$(stat_json "${readme[@]}")" == "$expected" ]] || fail "stat --json: $(cat "$dir/out")"
etag="$(sed -nE 's/^  "etag": (.*),$/\1/p' "$dir/out")"
[[ "$(stat_json "${readme[@]}" --branch main)" == *$'"target": {\n    "branch": "main",\n    "resolved_snapshot": "'"$sid"'"'* ]] ||
  fail "stat --branch: $(cat "$dir/out")"
[[ "$(stat_json "${readme[@]}" --snapshot "$sid")" == *$'"target": {\n    "snapshot": "'"$sid"$'",\n    "resolved_snapshot": "'"$sid"'"'* ]] ||
  fail "stat --snapshot: $(cat "$dir/out")"
[[ "$(stat_json edge Attachment attachment-1 payload)" == *$'"entity": "edge"'*$'"size": 3,'* ]] || fail "edge stat"
run "$og" blob stat "${readme[@]}" "${g[@]}"
[[ $rc == 0 ]] || fail "human stat: exit $rc"
human="$(cat "$dir/out")"
etag_text="${etag:1:${#etag}-2}"  # the JSON string's text: outer quotes and escapes dropped
etag_text="${etag_text//\\/}"
[[ "$human" == $'entity: node\ntype: Document\nid: readme\nproperty: content\nkind: managed\nsize: 6\netag: '"${etag_text}"$'\nresolved_snapshot: '"$sid" ]] ||
  fail "human stat: $human"

# Time travel: a later load changes the cell; its old snapshot still reads the old bytes and tag.
printf '{"type":"Document","data":{"title":"readme","content":"base64:BgUEAw=="}}\n' > "$dir/m.ndjson"
"$og" load "$dir/g" --data "$dir/m.ndjson" --mode merge --quiet > /dev/null
[[ "$(get "${readme[@]}")" == "6 5 4 3" ]] || fail "head after the merge"
[[ "$(get "${readme[@]}" --snapshot "$sid")" == "0 1 2 3 4 255" ]] || fail "old snapshot"
[[ "$(stat_json "${readme[@]}" --snapshot "$sid")" == *'"size": 6,'* ]] || fail "old snapshot stat"
[[ "$(sed -nE 's/^  "etag": (.*),$/\1/p' "$dir/out")" == "$etag" ]] || fail "the old snapshot's etag changed"
[[ "$(stat_json "${readme[@]}")" == *'"size": 4,'* ]] || fail "head stat"
[[ "$(sed -nE 's/^  "etag": (.*),$/\1/p' "$dir/out")" != "$etag" ]] || fail "a changed cell kept its etag"

# ---- schema -------------------------------------------------------------------------------------
"$og" schema show "$dir/g" > "$dir/show.out"
{ cat "$dir/s.pg"; echo; } | cmp -s - "$dir/show.out" || fail "schema show: $(cat "$dir/show.out")"
"$og" schema get --store "$dir/g" > "$dir/get.out"
cmp -s "$dir/show.out" "$dir/get.out" || fail "schema get differs from schema show"
want=$'{\n  "schema_source": "node Document { title: String @key, content: Blob?, note: String? }\\nedge Attachment: Document -> Document { payload: Blob? }\\n"\n}'
[[ "$("$og" schema show "$dir/g" --json)" == "$want" ]] || fail "schema show --json: $("$og" schema show "$dir/g" --json)"
"$og" init --schema "$dir/show.out" "$dir/g2" > /dev/null  # the shown source is a schema
"$og" schema show "$dir/g2" > "$dir/show2.out"
{ cat "$dir/show.out"; echo; } | cmp -s - "$dir/show2.out" || fail "schema round trip"
# schema plan: no change; steps in the Rust envelope and layout; unsupported changes and drops of
# populated data carry their codes; compile errors exit 1.
run "$og" schema plan "$dir/g" --schema "$dir/s.pg" --json
[[ $rc == 0 && "$(jq -c '[.supported, .step_count]' "$dir/out")" == '[true,0]' ]] || fail "plan, no change: $(cat "$dir/out")"
printf 'node Document { title: String @key, content: Blob?, note: String?, tags: [String]? }\nnode Folder { path: String @key }\nedge Attachment: Document -> Document { payload: Blob? }\n' > "$dir/s2.pg"
run "$og" schema plan "$dir/g" --schema "$dir/s2.pg" --json
[[ $rc == 0 && "$(jq -c '[.supported, [.steps[] | .kind]]' "$dir/out")" == '[true,["add_type","add_property"]]' ]] ||
  fail "plan, additions: $(cat "$dir/out")"
run "$og" schema plan "$dir/g" --schema "$dir/s2.pg"
[[ "$(cat "$dir/out")" == *"- add node type 'Folder'"* && "$(cat "$dir/out")" == *"supported: yes"* ]] || fail "plan human: $(cat "$dir/out")"
printf 'node Document { title: I64 @key, content: Blob? }\nedge Attachment: Document -> Document { payload: Blob? }\n' > "$dir/s3.pg"
run "$og" schema plan "$dir/g" --schema "$dir/s3.pg" --json
[[ $rc == 0 && "$(jq -c '[.supported, [.steps[] | .code]]' "$dir/out")" == '[false,["OG-MF-106","OG-DS-104"]]' ]] ||
  fail "plan, unsupported: $(cat "$dir/out")"
printf 'node {\n' > "$dir/bad.pg"
run "$og" schema plan "$dir/g" --schema "$dir/bad.pg"
[[ $rc == 1 ]] || fail "plan of a broken schema: exit $rc"
# schema apply: refused (unsupported) changes nothing; the additions in one commit; again: no-op.
run "$og" schema apply "$dir/g" --schema "$dir/s3.pg"
[[ $rc == 1 ]] && grep -qF "OG-MF-106" "$dir/err" || fail "schema apply of an unsupported change: $(cat "$dir/err")"
commits_before="$("$og" commit list "$dir/g" --json | jq '.commits | length')"
run "$og" schema apply "$dir/g" --schema "$dir/s2.pg" --json
[[ $rc == 0 && "$(jq -c '[.applied, .step_count]' "$dir/out")" == '[true,2]' ]] || fail "schema apply: $(cat "$dir/out") $(cat "$dir/err")"
[[ "$("$og" commit list "$dir/g" --json | jq '.commits | length')" == $((commits_before + 1)) ]] || fail "apply is not one commit"
[[ "$("$og" commit list "$dir/g" --json | jq -r '.commits[0].operation')" == schema_apply ]] || fail "apply operation"
"$og" schema show "$dir/g" | grep -qF "node Folder" || fail "schema show after apply"
"$og" mutate --store "$dir/g" -e 'query m() { insert Folder { path: "/a" } }' > /dev/null 2>&1 || fail "insert into an added type"
run "$og" schema apply "$dir/g" --schema "$dir/s2.pg"
[[ $rc == 0 && "$(cat "$dir/out")" == *"applied: no"* ]] || fail "schema apply again: $(cat "$dir/out")"
for verb in plan apply; do
  run "$og" schema "$verb" "$dir/g"
  [[ $rc == 2 ]] || fail "schema $verb without --schema: exit $rc"
done

# ---- lint ---------------------------------------------------------------------------------------
printf 'query list_docs() {\n  match { $d: Document }\n  return { $d.title }\n}\n' > "$dir/ok.gq"
printf 'query bad($t: String) {\n  update Document set { missing: "x" } where title = $t\n}\n' > "$dir/bad.gq"
printf 'query upd($t: String, $n: String) {\n  update Document set { note: $n } where title = $t\n}\n' > "$dir/upd.gq"
run "$og" lint --query "$dir/ok.gq" "$dir/g" --json
[[ $rc == 0 ]] || fail "graph lint: exit $rc: $(cat "$dir/err")"
[[ "$(head -5 "$dir/out")" == $'{\n  "status": "ok",\n  "schema_source": {\n    "kind": "graph",\n    "uri": "'"$dir/g"'"' ]] ||
  fail "graph lint --json: $(cat "$dir/out")"
grep -qF '"queries_processed": 1,' "$dir/out" || fail "graph lint count: $(cat "$dir/out")"
run "$og" lint --query "$dir/ok.gq" --store "$dir/g"
[[ $rc == 0 && "$(cat "$dir/out")" == $'OK    query `list_docs` (read)\nINFO  Lint complete: 1 queries processed (0 error(s), 0 warning(s), 0 info item(s))' ]] ||
  fail "graph lint via --store: exit $rc: $(cat "$dir/out")"
run "$og" lint --query "$dir/bad.gq" --store "$dir/g"
[[ $rc == 1 ]] || fail "graph lint of a bad query: exit $rc"
grep -qF 'ERROR query `bad`:' "$dir/out" &&
  grep -qF 'INFO  Lint complete: 1 queries processed (1 error(s), 0 warning(s), 0 info item(s))' "$dir/out" ||
  fail "graph lint error lines: $(cat "$dir/out")"
run "$og" check --query "$dir/bad.gq" "$dir/g" --json
[[ $rc == 1 ]] && grep -qF '"status": "error"' "$dir/out" && grep -qF 'deprecated' "$dir/err" ||
  fail "check (deprecated) of a bad query: exit $rc: $(cat "$dir/out")"
run "$og" lint --query "$dir/ok.gq"
[[ $rc == 1 ]] && grep -qF "lint requires --schema <schema.pg> (offline) or a graph target" "$dir/err" ||
  fail "lint without a schema or graph: exit $rc: $(cat "$dir/err")"
run "$og" lint --query "$dir/ok.gq" "$dir/no-such-graph"
[[ $rc == 1 ]] || fail "lint of a missing graph: exit $rc"
# Offline: --schema wins over any graph address.
run "$og" lint --schema "$dir/s.pg" --query "$dir/ok.gq" "$dir/no-such-graph" --json
[[ $rc == 0 ]] || fail "offline lint: exit $rc: $(cat "$dir/err")"
[[ "$(head -5 "$dir/out")" == $'{\n  "status": "ok",\n  "schema_source": {\n    "kind": "file",\n    "path": "'"$dir/s.pg"'"' ]] ||
  fail "offline lint --json: $(cat "$dir/out")"
run "$og" lint --schema "$dir/s.pg" --query "$dir/upd.gq"
[[ $rc == 0 ]] || fail "offline lint with a warning: exit $rc"
grep -qF 'OK    query `upd` (mutation)' "$dir/out" &&
  grep -qF 'WARN  Document.content exists in schema but no update query sets it' "$dir/out" &&
  grep -qF '(0 error(s), 1 warning(s), 0 info item(s))' "$dir/out" || fail "offline lint lines: $(cat "$dir/out")"
run "$og" lint --schema "$dir/s.pg" --query "$dir/bad.gq" --json
[[ $rc == 1 ]] && grep -qF '"error_code": "T11"' "$dir/out" || fail "offline lint error: exit $rc: $(cat "$dir/out")"
echo "blob, schema and lint ok"
