#!/usr/bin/env bash
# Golden outputs of the cluster commands on tests/cluster/company-brain: validate, plan, import,
# apply, a schema edit's plan (with its migration) and apply, a removed graph's blocked apply and its
# plan, status. Paths, timestamps, ids, CAS tokens and lock fields are replaced by placeholders;
# everything else (digests, changes, dispositions, counts, diagnostics) must match
# tests/cluster/golden/<step>.json byte for byte. UPDATE_GOLDEN=1 rewrites the files.
# Usage: cluster_golden.sh <omnigraph binary> <tests/cluster folder>
set -euo pipefail
og=$(realpath "$1")
golden=$(realpath "$2")/golden
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cp -r "$2/company-brain" "$dir/cb"
cd "$dir"
normalize() {
  jq --arg d "$dir" 'walk(
      if type == "string" then
        gsub($d; "DIR")
        | gsub("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z"; "TIME")
        | gsub("sha256:[0-9a-f]{64}"; "sha256:CAS")
        | gsub("[0-9A-HJKMNP-TV-Z]{26}"; "ULID")
      else . end)
    | if (.state_observations? // null) != null then .state_observations |= del(.lock_pid, .lock_host, .lock_age_seconds) else . end'
}
step() {  # step NAME CMD...: run, normalize, compare with (or write) the golden file
  local name="$1"
  shift
  set +e
  "$og" "$@" --json > "$dir/out.json"
  set -e
  normalize < "$dir/out.json" > "$dir/$name.json"
  if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
    cp "$dir/$name.json" "$golden/$name.json"
  elif ! diff -u "$golden/$name.json" "$dir/$name.json"; then
    fail "$name differs from $golden/$name.json"
  fi
}
step validate cluster validate --config cb
step plan_empty cluster plan --config cb
step import cluster import --config cb
step apply cluster apply --config cb --as andrew
step apply_again cluster apply --config cb
sed -i 's/  age: I32?/  age: I32?\n  email: String?/' cb/people.pg
step plan_schema_edit cluster plan --config cb
step apply_schema_edit cluster apply --config cb
sed -i 's/^graphs:$/graphs:\n  scratch:\n    schema: people.pg/' cb/cluster.yaml
"$og" cluster apply --config cb > /dev/null
sed -i '/^  scratch:$/,+1d' cb/cluster.yaml
step plan_delete cluster plan --config cb
step apply_delete_blocked cluster apply --config cb
step status cluster status --config cb
echo "ok: cluster golden outputs"
