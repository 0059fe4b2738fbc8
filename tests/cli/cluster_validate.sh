#!/usr/bin/env bash
# `omnigraph cluster validate` through the binary: the cluster folder of tests/cluster/company-brain
# (laid out as in the existing implementation's how-to) is valid, with its resources, digests and
# dependencies; edits that break it exit 1 with typed diagnostics (cluster_lifecycle.sh covers the
# ledger commands).
# Usage: cluster_validate.sh <omnigraph binary> <tests/cluster folder>
set -euo pipefail
og="$1"
src="$2/company-brain"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cp -r "$src" "$dir/cb"
out=$("$og" cluster validate --config "$dir/cb" --json)
jq -e '.ok == true and (.diagnostics | length) == 0' <<< "$out" > /dev/null || fail "not valid: $out"
addresses=$(jq -r '[.resources[].address] | join(",")' <<< "$out")
want="graph.knowledge,policy.base,policy.server,query.knowledge.add_person,query.knowledge.colleagues,query.knowledge.find_person,schema.knowledge"
[ "$addresses" = "$want" ] || fail "resources: $addresses"
schema_digest=$(sha256sum "$dir/cb/people.pg" | cut -d' ' -f1)
jq -e --arg d "$schema_digest" '.resource_digests["schema.knowledge"] == $d' <<< "$out" > /dev/null ||
  fail "schema digest is not the file's SHA-256"
query_digest=$(sha256sum "$dir/cb/queries/people.gq" | cut -d' ' -f1)
jq -e --arg d "$query_digest" '[.resources[] | select(.kind == "query") | .digest] | all(. == $d)' <<< "$out" \
  > /dev/null || fail "query digests are not their file's SHA-256"
jq -e '.dependencies | index({"from":"policy.base","to":"graph.knowledge"}) != null' <<< "$out" > /dev/null ||
  fail "missing dependency: $out"
# Human output, and OMNIGRAPH_CONFIG as the default folder.
text=$(cd "$dir" && OMNIGRAPH_CONFIG=cb "$og" cluster validate)
[ "$text" = "cluster config valid: 7 resource(s), 8 dependency edge(s)" ] || fail "text: $text"

# A query that no longer type-checks, a dangling policy binding, a reserved key: exit 1, typed.
printf 'query broken() { match { $x: Robot } return { $x.name } }\n' > "$dir/cb/queries/robots.gq"
sed -i 's/applies_to: \[knowledge\]/applies_to: [knowledge, archive]/' "$dir/cb/cluster.yaml"
set +e
out=$("$og" cluster validate --config "$dir/cb" --json)
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "an invalid folder exited $rc"
jq -e '.ok == false' <<< "$out" > /dev/null || fail "ok on an invalid folder"
codes=$(jq -r '[.diagnostics[].code] | sort | join(",")' <<< "$out")
[ "$codes" = "dangling_graph_reference,query_typecheck_error" ] || fail "codes: $codes"
printf 'pipelines: {}\n' >> "$dir/cb/cluster.yaml"
set +e
text=$("$og" cluster validate --config "$dir/cb")
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "a reserved key exited $rc"
grep -q '^ERROR future_phase_field pipelines: ' <<< "$text" || fail "text: $text"

echo "ok: cluster validate"
