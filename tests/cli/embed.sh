#!/usr/bin/env bash
# `omnigraph embed` (docs/cli.md, "Embed"): offline JSONL -> JSONL with the mock provider. Default
# fill_missing keeps existing vectors; --reembed-all replaces them; --clean removes them; --select
# re-embeds only matching records; --type restricts; --seed paths resolve against the manifest's
# folder; vectors are deterministic (same text -> same vector); flag conflicts exit 2; a bad line
# exits non-zero naming the line and leaves no output file.
#   tests/cli/embed.sh path/to/omnigraph
set -euo pipefail
og="$1"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export OMNIGRAPH_EMBEDDINGS_MOCK=1
unset OMNIGRAPH_EMBED_MODEL OMNIGRAPH_EMBED_PROVIDER || true

mkdir -p "$dir/proj/data"
cat > "$dir/proj/data/seed.jsonl" <<'JSONL'
{"type":"Decision","data":{"slug":"dec-alpha","intent":"Alpha ship"}}
{"type":"Decision","data":{"slug":"dec-beta","intent":"Beta ship","embedding":[0.1,0.2]}}

{"edge":"Triggered","from":"sig-alpha","to":"dec-alpha"}
{"type":"Signal","data":{"slug":"sig-alpha","title":"Alarm"}}
{"type":"Person","data":{"slug":"p1"}}
JSONL
cat > "$dir/proj/seed.yaml" <<'YAML'
graph:
  slug: test-graph
sources:
  raw_seed: ./data/seed.jsonl
artifacts:
  embedded_seed: ./build/seed.embedded.jsonl
embeddings:
  model: ignored-by-embed
  dimension: 4
  types:
    Decision:
      target: embedding
      fields: [slug, intent]
    Signal:
      target: vec
      fields: [title]
YAML
printf '{"dimension": 4, "types": {"Decision": {"target": "embedding", "fields": ["slug", "intent"]}, "Signal": {"target": "vec", "fields": ["title"]}}}\n' > "$dir/spec.json"
out="$dir/proj/build/seed.embedded.jsonl"
row() { sed -n "${2}p" "$1"; }

# fill_missing via --seed, run from another folder: paths resolve against the manifest
(cd / && "$og" embed --seed "$dir/proj/seed.yaml" --json) > "$dir/out.json"
[[ "$(jq -c '[.mode, .records, .selected_records, .embedded_records, .cleaned_records, .dimension]' "$dir/out.json")" == '["fill_missing",5,4,2,0,4]' ]] ||
  fail "fill_missing summary: $(cat "$dir/out.json")"
[[ "$(jq -r 'keys_unsorted | join(",")' "$dir/out.json")" == "input,output,records,selected_records,embedded_records,cleaned_records,mode,dimension,model" ]] ||
  fail "summary keys: $(cat "$dir/out.json")"
[[ "$(jq -r .output "$dir/out.json")" == "$dir/proj/./build/seed.embedded.jsonl" ]] || fail "output path: $(jq -r .output "$dir/out.json")"
[[ -f "$out" ]] || fail "no output file"
[[ "$(wc -l < "$out")" == 5 ]] || fail "output lines: $(cat "$out")"
[[ "$(row "$out" 1 | jq '.data.embedding | length')" == 4 ]] || fail "alpha not embedded: $(row "$out" 1)"
[[ "$(row "$out" 2 | jq -c '.data.embedding')" == '[0.1,0.2]' ]] || fail "beta's vector replaced: $(row "$out" 2)"
[[ "$(row "$out" 3)" == '{"edge":"Triggered","from":"sig-alpha","to":"dec-alpha"}' ]] || fail "edge changed: $(row "$out" 3)"
[[ "$(row "$out" 4 | jq '.data.vec | length')" == 4 ]] || fail "signal not embedded: $(row "$out" 4)"
[[ "$(row "$out" 5)" == '{"type":"Person","data":{"slug":"p1"}}' ]] || fail "person changed: $(row "$out" 5)"
[[ "$(row "$out" 1 | jq -r 'keys_unsorted | join(",")')" == "type,data" ]] || fail "key order: $(row "$out" 1)"
alpha="$(row "$out" 1 | jq -c .data.embedding)"

# human summary
human="$("$og" embed --seed "$dir/proj/seed.yaml")"
[[ "$human" == "embedded 2 records (selected 4, cleaned 0) from $dir/proj/./data/seed.jsonl -> $dir/proj/./build/seed.embedded.jsonl [fill_missing 4d]" ]] ||
  fail "human summary: $human"

# deterministic: the same text (other fields and key order differ) gives the same vector; other text another
printf '{"data":{"other":1,"intent":"Alpha ship","slug":"dec-alpha"},"type":"Decision"}\n{"type":"Decision","data":{"slug":"dec-alpha","intent":"Alpha ships"}}\n' > "$dir/in2.jsonl"
"$og" embed --input "$dir/in2.jsonl" --output "$dir/out2.jsonl" --spec "$dir/spec.json" > /dev/null
[[ "$(row "$dir/out2.jsonl" 1 | jq -c .data.embedding)" == "$alpha" ]] || fail "same text, other vector"
[[ "$(row "$dir/out2.jsonl" 2 | jq -c .data.embedding)" != "$alpha" ]] || fail "other text, same vector"
[[ "$(row "$dir/out2.jsonl" 1 | jq -r 'keys_unsorted | join(",")')" == "data,type" ]] || fail "root key order not kept"
[[ "$(row "$dir/out2.jsonl" 1 | jq -r '.data | keys_unsorted | join(",")')" == "other,intent,slug,embedding" ]] ||
  fail "data key order not kept: $(row "$dir/out2.jsonl" 1)"
[[ "$(row "$dir/out2.jsonl" 1 | jq '[.data.embedding[] | . * .] | add | . > 0.999 and . < 1.001')" == true ]] ||
  fail "mock vector not normalised"

# --reembed-all replaces every vector
"$og" embed --seed "$dir/proj/seed.yaml" --reembed-all --json > "$dir/out.json"
[[ "$(jq -c '[.mode, .selected_records, .embedded_records]' "$dir/out.json")" == '["reembed_all",4,3]' ]] ||
  fail "reembed_all summary: $(cat "$dir/out.json")"
[[ "$(row "$out" 2 | jq '.data.embedding | length')" == 4 ]] || fail "beta not re-embedded: $(row "$out" 2)"
[[ "$(row "$out" 1 | jq -c .data.embedding)" == "$alpha" ]] || fail "alpha's re-embedding differs"

# --clean removes the targets (on a file that has them)
cp "$out" "$dir/full.jsonl"
"$og" embed --input "$dir/full.jsonl" --output "$dir/clean.jsonl" --spec "$dir/spec.json" --clean --json > "$dir/out.json"
[[ "$(jq -c '[.mode, .cleaned_records, .embedded_records, .model]' "$dir/out.json")" == '["clean",3,0,""]' ]] ||
  fail "clean summary: $(cat "$dir/out.json")"
[[ "$(jq -s -c '[.[] | .data // {} | has("embedding") or has("vec")] | any' "$dir/clean.jsonl")" == false ]] ||
  fail "clean left a vector: $(cat "$dir/clean.jsonl")"
# --clean --select: only the matching record
"$og" embed --input "$dir/full.jsonl" --output "$dir/clean.jsonl" --spec "$dir/spec.json" --clean --select Decision:slug=dec-beta --json > "$dir/out.json"
[[ "$(jq -c '[.cleaned_records, .selected_records]' "$dir/out.json")" == '[1,1]' ]] || fail "clean --select: $(cat "$dir/out.json")"
[[ "$(row "$dir/clean.jsonl" 1 | jq '.data | has("embedding")')" == true ]] || fail "clean --select removed alpha's"
[[ "$(row "$dir/clean.jsonl" 2 | jq '.data | has("embedding")')" == false ]] || fail "clean --select kept beta's"

# --select re-embeds only the matching record (reembed_selected)
"$og" embed --seed "$dir/proj/seed.yaml" --select 'Decision:slug=dec-beta' --json > "$dir/out.json"
[[ "$(jq -c '[.mode, .selected_records, .embedded_records]' "$dir/out.json")" == '["reembed_selected",1,1]' ]] ||
  fail "reembed_selected summary: $(cat "$dir/out.json")"
[[ "$(row "$out" 1 | jq '.data | has("embedding")')" == false ]] || fail "--select embedded alpha"
[[ "$(row "$out" 2 | jq '.data.embedding | length')" == 4 ]] || fail "--select did not re-embed beta"
# a selector without a type, over a value with spaces
"$og" embed --seed "$dir/proj/seed.yaml" --select ' title = Alarm ' --json > "$dir/out.json"
[[ "$(jq -c '[.selected_records, .embedded_records]' "$dir/out.json")" == '[1,1]' ]] || fail "untyped selector: $(cat "$dir/out.json")"

# --type restricts
"$og" embed --seed "$dir/proj/seed.yaml" --type Signal --json > "$dir/out.json"
[[ "$(jq -c '[.selected_records, .embedded_records]' "$dir/out.json")" == '[1,1]' ]] || fail "--type: $(cat "$dir/out.json")"
[[ "$(row "$out" 1 | jq '.data | has("embedding")')" == false ]] || fail "--type Signal embedded a Decision"
[[ "$(row "$out" 4 | jq '.data.vec | length')" == 4 ]] || fail "--type Signal did not embed the Signal"

# --output overrides the manifest's artifact
"$og" embed --seed "$dir/proj/seed.yaml" --output "$dir/other.jsonl" > /dev/null
[[ -f "$dir/other.jsonl" ]] || fail "--output with --seed ignored"

# usage errors: exit 2
expect_usage() {
  set +e
  "$og" embed "$@" > /dev/null 2> "$dir/err"; local rc=$?
  set -e
  [[ $rc == 2 ]] || fail "embed $*: exit $rc ($(cat "$dir/err"))"
}
expect_usage --seed "$dir/proj/seed.yaml" --reembed-all --clean
expect_usage --seed "$dir/proj/seed.yaml" --input "$dir/in2.jsonl"
expect_usage --seed "$dir/proj/seed.yaml" --spec "$dir/spec.json"
expect_usage --input "$dir/in2.jsonl" --output "$dir/x.jsonl"
expect_usage --input "$dir/in2.jsonl" --spec "$dir/spec.json"
expect_usage --output "$dir/x.jsonl"
expect_usage
expect_usage --seed "$dir/proj/seed.yaml" --select 'no-equals-sign'
[[ ! -e "$dir/x.jsonl" ]] || fail "a usage error wrote output"

# a malformed line: non-zero exit naming the line, no output file, and an existing one untouched
printf '{"type":"Decision","data":{"slug":"a"}}\n\n{"type":"Decision","data":\n' > "$dir/bad.jsonl"
set +e
"$og" embed --input "$dir/bad.jsonl" --output "$dir/bad_out/out.jsonl" --spec "$dir/spec.json" 2> "$dir/err"; rc=$?
set -e
[[ $rc != 0 ]] || fail "malformed line accepted"
grep -q "line 3" "$dir/err" || fail "error does not name line 3: $(cat "$dir/err")"
[[ ! -e "$dir/bad_out/out.jsonl" ]] || fail "output created despite the error"
[[ -z "$(ls -A "$dir/bad_out" 2>/dev/null)" ]] || fail "temp file left behind: $(ls -A "$dir/bad_out")"
echo keep > "$dir/keep.jsonl"
for bad in '[1,2]' '{"type":"Decision"}' '{"type":"Decision","data":[]}'; do
  printf '{"edge":"E"}\n%s\n' "$bad" > "$dir/bad.jsonl"
  set +e
  "$og" embed --input "$dir/bad.jsonl" --output "$dir/keep.jsonl" --spec "$dir/spec.json" --json > "$dir/errj"; rc=$?
  set -e
  [[ $rc == 1 ]] || fail "bad line $bad: exit $rc"
  grep -q "line 2" "$dir/errj" || fail "bad line $bad: error does not name line 2: $(cat "$dir/errj")"
  [[ "$(cat "$dir/keep.jsonl")" == keep ]] || fail "bad line $bad replaced the output"
done
# a spec type without target; a missing input
printf '{"dimension": 4, "types": {"Decision": {"fields": ["slug"]}}}\n' > "$dir/bad_spec.json"
set +e
"$og" embed --input "$dir/in2.jsonl" --output "$dir/y.jsonl" --spec "$dir/bad_spec.json" 2> "$dir/err"; rc=$?
set -e
[[ $rc == 1 ]] && grep -q "target" "$dir/err" || fail "spec without target: exit $rc $(cat "$dir/err")"
set +e
"$og" embed --input "$dir/nope.jsonl" --output "$dir/y.jsonl" --spec "$dir/spec.json" 2> "$dir/err"; rc=$?
set -e
[[ $rc == 1 ]] && grep -q "not_found" "$dir/err" || fail "missing input: exit $rc $(cat "$dir/err")"
[[ ! -e "$dir/y.jsonl" ]] || fail "output written on error"
echo "embed: ok"
