#!/usr/bin/env bash
# The control plane through the binary, on tests/cluster/company-brain: import -> plan -> apply ->
# edit -> plan -> apply cycles, a delete that waits for a digest-bound approval, status, refresh of
# out-of-band drift, policy and queries tooling over the applied state, `--cluster DIR --graph ID`
# addressing, and two concurrent applies (one runs, the other is refused with state_lock_held).
# Usage: cluster_lifecycle.sh <omnigraph binary> <tests/cluster folder>
set -euo pipefail
og="$1"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cp -r "$2/company-brain" "$dir/cb"
cb="$dir/cb"
run() {  # run CMD... ; sets $out and $rc
  set +e
  out=$("$og" "$@")
  rc=$?
  set -e
}

# Before import: plan lists creates against no state, apply refuses.
run cluster plan --config "$cb" --json
[ "$rc" -eq 0 ] || fail "plan exited $rc: $out"
jq -e '[.changes[].operation] | all(. == "create") and length == 7' <<< "$out" > /dev/null || fail "plan: $out"
jq -e '.state_observations.state_found == false' <<< "$out" > /dev/null || fail "state found before import"
run cluster apply --config "$cb" --json
[ "$rc" -eq 1 ] || fail "apply without state exited $rc"
jq -e '[.diagnostics[].code] == ["state_missing"]' <<< "$out" > /dev/null || fail "apply without state: $out"
[ ! -e "$cb/__cluster/state" ] || fail "apply without state wrote state"

run cluster import --config "$cb" --json
[ "$rc" -eq 0 ] || fail "import exited $rc: $out"
jq -e '.state_observations.state_revision == 1' <<< "$out" > /dev/null || fail "import: $out"
run cluster import --config "$cb" --json
jq -e '[.diagnostics[].code] == ["state_already_exists"]' <<< "$out" > /dev/null || fail "second import: $out"

run cluster apply --config "$cb" --as andrew --json
[ "$rc" -eq 0 ] || fail "apply exited $rc: $out"
jq -e '.converged and .state_written and .applied_count == 7 and .state_observations.state_revision == 2' \
  <<< "$out" > /dev/null || fail "apply: $out"
[ -d "$cb/graphs/knowledge.omni" ] || fail "no graph root"
"$og" commit list "$cb/graphs/knowledge.omni" --json | jq -e '.commits[0].actor_id == "andrew"' > /dev/null ||
  fail "the create is not attributed to the actor"
run cluster apply --config "$cb" --json
jq -e '.converged and (.state_written | not) and (.changes | length) == 0' <<< "$out" > /dev/null ||
  fail "re-apply is not a no-op: $out"

# Data through the graph plane; the control plane only manages definitions.
printf '{"type":"Person","data":{"name":"Ada","age":36}}\n' > "$dir/seed.jsonl"
"$og" load --mode merge --data "$dir/seed.jsonl" --cluster "$cb" --graph knowledge > /dev/null

# A schema edit: the plan embeds the migration, apply runs it on the live graph.
sed -i 's/  age: I32?/  age: I32?\n  email: String?/' "$cb/people.pg"
run cluster plan --config "$cb" --json
jq -e '[.changes[] | select(.resource == "schema.knowledge") | .migration.steps[].kind] == ["add_property"]' \
  <<< "$out" > /dev/null || fail "schema plan: $out"
run cluster apply --config "$cb" --json
jq -e '.converged and ([.changes[] | {(.resource): .disposition}] | add) ==
  {"graph.knowledge": "derived", "schema.knowledge": "applied"}' <<< "$out" > /dev/null || fail "schema apply: $out"
"$og" schema show "$cb/graphs/knowledge.omni" | grep -q '^  email: String?$' || fail "the live schema did not change"

# A query edit and a policy binding edit.
printf '\nquery count_people() { match { $p: Person } return { count($p) as n } }\n' >> "$cb/queries/people.gq"
run cluster apply --config "$cb" --json
jq -e '.converged and ([.changes[] | select(.resource == "query.knowledge.count_people") | .operation] == ["create"])' \
  <<< "$out" > /dev/null || fail "query add: $out"
[ "$(ls "$cb/__cluster/resources/query/knowledge/find_person" | wc -l)" -eq 2 ] || fail "old catalog object not kept"

# status, queries and policy tooling on the applied state.
run cluster status --config "$cb" --json
jq -e '.ok and .state_observations.locked == false and .resource_statuses["graph.knowledge"].status == "applied"' \
  <<< "$out" > /dev/null || fail "status: $out"
"$og" queries list --cluster "$cb" --json | jq -e '[.queries[].name] | index("count_people") != null' > /dev/null ||
  fail "queries list misses the new query"
"$og" queries validate --cluster "$cb" > /dev/null || fail "queries validate"
text=$("$og" policy explain --cluster "$cb" --graph knowledge --actor act-alice --action read --branch main)
grep -q '^matched_rule: engineers-read$' <<< "$text" || fail "explain: $text"
run policy test --cluster "$cb" --graph knowledge --tests "$2/../fuzz/policy/cases.yaml"
[ "$rc" -eq 0 ] || fail "policy test exited $rc: $out"

# Out-of-band drift: refresh records it, plan proposes converging back, apply does.
printf 'node Person {\n  name: String @key\n  age: I32?\n}\nnode Company {\n  name: String @key\n}\nedge WorksAt: Person -> Company\n' \
  > "$dir/old.pg"
"$og" schema apply "$cb/graphs/knowledge.omni" --schema "$dir/old.pg" > /dev/null
run cluster refresh --config "$cb" --json
jq -e '.resource_statuses["schema.knowledge"].conditions == ["schema_mismatch"]' <<< "$out" > /dev/null ||
  fail "refresh did not record the drift: $out"
run cluster apply --config "$cb" --json
jq -e '.converged' <<< "$out" > /dev/null || fail "apply after drift: $out"

# A graph added, then removed: blocked until approved, then deleted.
sed -i 's/^graphs:$/graphs:\n  scratch:\n    schema: people.pg/' "$cb/cluster.yaml"
run cluster apply --config "$cb" --json
[ -d "$cb/graphs/scratch.omni" ] || fail "scratch not created: $out"
sed -i '/^  scratch:$/,+1d' "$cb/cluster.yaml"
run cluster plan --config "$cb" --json
jq -e '.approvals_required == [{"resource":"graph.scratch","reason":"delete may remove deployed graph or schema definition","satisfied":false}]' \
  <<< "$out" > /dev/null || fail "plan of the delete: $out"
run cluster apply --config "$cb" --json
[ "$rc" -eq 0 ] || fail "blocked apply exited $rc"
jq -e '(.converged | not) and ([.changes[].reason] | unique) == ["approval_required"]' <<< "$out" > /dev/null ||
  fail "unapproved delete: $out"
[ -d "$cb/graphs/scratch.omni" ] || fail "deleted without approval"
run cluster approve graph.scratch --config "$cb" --json
[ "$rc" -eq 2 ] || fail "approve without an actor exited $rc"
run cluster approve graph.knowledge --config "$cb" --as andrew --json
jq -e '[.diagnostics[].code] == ["approval_not_required"]' <<< "$out" > /dev/null || fail "approve knowledge: $out"
run cluster approve graph.scratch --config "$cb" --as andrew --json
[ "$rc" -eq 0 ] || fail "approve exited $rc: $out"
run cluster apply --config "$cb" --json
jq -e '.converged and .applied_count == 2' <<< "$out" > /dev/null || fail "approved delete: $out"
[ ! -e "$cb/graphs/scratch.omni" ] || fail "scratch still there"
jq -e '.consumed_at != null' "$cb"/__cluster/approvals/*.json > /dev/null || fail "approval not consumed"

# A held lock: refused with its id; force-unlock needs that id.
printf '{"version":1,"lock_id":"01TESTLOCK","operation":"apply","created_at":"2026-01-01T00:00:00Z","pid":1}' \
  > "$cb/__cluster/lock.json"
run cluster apply --config "$cb" --json
jq -e '[.diagnostics[].code] == ["state_lock_held"] and (.diagnostics[0].message | contains("01TESTLOCK"))' \
  <<< "$out" > /dev/null || fail "held lock: $out"
run cluster force-unlock WRONG --config "$cb" --json
jq -e '[.diagnostics[].code] == ["state_lock_id_mismatch"]' <<< "$out" > /dev/null || fail "wrong id: $out"
[ -e "$cb/__cluster/lock.json" ] || fail "a wrong id removed the lock"
run cluster force-unlock 01TESTLOCK --config "$cb" --json
jq -e '.lock_removed' <<< "$out" > /dev/null || fail "force-unlock: $out"

# Two applies at once (after an edit): every run either converges or is refused with
# state_lock_held, and afterwards the cluster is converged.
for round in 1 2 3; do
  printf '\nquery q%s() { match { $p: Person } return { $p.name } }\n' "$round" >> "$cb/queries/people.gq"
  "$og" cluster apply --config "$cb" --json > "$dir/a.json" || true &
  "$og" cluster apply --config "$cb" --json > "$dir/b.json" || true &
  wait
  for f in "$dir/a.json" "$dir/b.json"; do
    jq -e '.ok or ([.diagnostics[].code] == ["state_lock_held"])' "$f" > /dev/null || fail "concurrent apply: $(cat "$f")"
  done
  run cluster apply --config "$cb" --json
  jq -e '.converged and (.changes | length) == 0' <<< "$out" > /dev/null || fail "not converged after round $round: $out"
done
echo "ok: cluster lifecycle"
