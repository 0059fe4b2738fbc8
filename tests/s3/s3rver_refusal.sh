#!/usr/bin/env bash
# Omnigraph refuses to write to an S3 endpoint that ignores conditional writes. The endpoint is
# s3rver (npm, tools/node_modules: it accepts any SigV4 signature of its key S3RVER and ignores
# If-None-Match), so a second create-if-absent of one key succeeds there:
#  (a) `selfcheck --store` fails, naming store_no_conditional_writes at the conditional-create step;
#  (b) `init` is refused with store_no_conditional_writes and leaves no graph (snapshot: not_found);
#  (c) with --unsafe-single-writer (and with OMNIGRAPH_UNSAFE_SINGLE_WRITER=1) init and load succeed;
#  (d) reads need no flag (readers do not probe);
#  (e) a write without the flag is refused and changes nothing.
#   tests/s3/s3rver_refusal.sh path/to/omnigraph [path/to/node]
set -euo pipefail
og="$1"
node="${2:-${NODE:-node}}"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
dir="$(mktemp -d)"
pid=""
cleanup() {
  if [[ -n "$pid" ]]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM  # a killed test (ctest timeout) still stops its servers
fail() { echo "FAIL: $*" >&2; exit 1; }
s3rver="$repo/tools/node_modules/s3rver/bin/s3rver.js"
[[ -f "$s3rver" ]] || fail "s3rver is not installed ($s3rver; scripts/setup.sh installs tools/node_modules)"
command -v "$node" > /dev/null || fail "node not found ($node)"

"$node" "$s3rver" --directory "$dir/data" --address 127.0.0.1 --port 0 --silent --configure-bucket bkt \
  > "$dir/s3rver.out" 2> "$dir/s3rver.err" &
pid=$!
port=""
for _ in $(seq 1 200); do
  port="$(sed -n 's/^S3rver listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$dir/s3rver.out")"
  [[ -n "$port" ]] && break
  kill -0 "$pid" 2>/dev/null || fail "s3rver exited: $(cat "$dir/s3rver.err")"
  sleep 0.05
done
[[ -n "$port" ]] || fail "s3rver did not print its port"

unset OMNIGRAPH_UNSAFE_SINGLE_WRITER AWS_PROFILE AWS_SESSION_TOKEN
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1
export AWS_ENDPOINT_URL="http://127.0.0.1:$port"
export HOME="$dir/home"  # no operator config or profile of the user running the test
mkdir -p "$HOME"
schema="$repo/examples/org.pg"
data="$repo/examples/org.ndjson"
updates="$repo/examples/org_updates.ndjson"
rc=0
# run NAME cmd...: runs cmd, output (stdout+stderr) in $out, exit status in $rc
run() {
  local name="$1"; shift
  set +e; "$@" > "$dir/$name.out" 2>&1; rc=$?; set -e
  out="$(cat "$dir/$name.out")"
}
objects_under() { find "$dir/data/bkt/$1" -type f -name '*._S3rver_object' 2>/dev/null | wc -l; }
count() { awk -v t="$1" '$1 == t && $2 == "node" {print $3}' <<< "$2"; }

# the endpoint really ignores If-None-Match (else this test shows nothing)
printf 'x' > "$dir/x"
for i in 1 2; do
  code="$(curl -sS -o /dev/null -w '%{http_code}' --aws-sigv4 "aws:amz:us-east-1:s3" --user S3RVER:S3RVER \
    -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' -H 'If-None-Match: *' -T "$dir/x" "$AWS_ENDPOINT_URL/bkt/probe/k")"
  [[ "$code" == 200 ]] || fail "s3rver PUT If-None-Match #$i: status $code (expected s3rver to ignore the condition)"
done

# (a) selfcheck: the conditional create step fails with store_no_conditional_writes
run selfcheck "$og" selfcheck --store s3://bkt/sc
[[ $rc == 1 ]] || fail "selfcheck against s3rver: exit $rc, expected 1: $out"
grep -Eq '^ +put_if_absent\(new\) +ok' <<< "$out" || fail "selfcheck: the first create-if-absent did not pass: $out"
grep -Eq '^ +put_if_absent\(existing\) refused +FAILED' <<< "$out" || fail "selfcheck: no failed 'put_if_absent(existing) refused' step: $out"
[[ "$out" == *"store_no_conditional_writes"* ]] || fail "selfcheck does not name store_no_conditional_writes: $out"
[[ "$out" == *"self-check FAILED"* ]] || fail "selfcheck verdict: $out"
[[ "$(objects_under sc)" == 0 ]] || fail "the failed selfcheck left objects: $(find "$dir/data/bkt/sc" -type f)"

# (b) init is refused and leaves no graph
run init_refused "$og" init --schema "$schema" s3://bkt/g
[[ $rc == 1 ]] || fail "init without the flag: exit $rc, expected 1: $out"
[[ "$out" == *"error[store_no_conditional_writes]"*"--unsafe-single-writer"* ]] || fail "init message: $out"
[[ "$out" != *"initialized"* ]] || fail "init claims success: $out"
[[ "$(objects_under g)" == 0 ]] || fail "the refused init left objects: $(find "$dir/data/bkt/g" -type f)"
run snap_none "$og" snapshot s3://bkt/g
[[ $rc == 1 && "$out" == *"error[not_found]"* ]] || fail "snapshot after the refused init: exit $rc: $out"
run load_refused_new "$og" load --mode overwrite --data "$data" s3://bkt/g
[[ $rc == 1 ]] || fail "load into the refused graph: exit $rc: $out"
[[ "$(objects_under g)" == 0 ]] || fail "a refused load left objects"

# (c) --unsafe-single-writer: init, load, snapshot
run init_unsafe "$og" --unsafe-single-writer init --schema "$schema" s3://bkt/g
[[ $rc == 0 && "$out" == *"initialized s3://bkt/g"* ]] ||
  fail "init --unsafe-single-writer: exit $rc (the flag must allow the init): $out"
run load_unsafe "$og" --unsafe-single-writer load --mode overwrite --data "$data" s3://bkt/g
[[ $rc == 0 && "$out" == *"loaded s3://bkt/g"* ]] || fail "load --unsafe-single-writer: exit $rc: $out"
run snap_unsafe "$og" --unsafe-single-writer snapshot s3://bkt/g
[[ $rc == 0 ]] || fail "snapshot --unsafe-single-writer: exit $rc: $out"
[[ "$(count Person "$out")" == 120 ]] || fail "Person count after load: $out"
[[ "$out" == *"branch main, version 2,"* ]] || fail "version after init + load: $out"
# ... and the environment variable does the same
run init_env env OMNIGRAPH_UNSAFE_SINGLE_WRITER=1 "$og" init --schema "$schema" s3://bkt/g2
[[ $rc == 0 && "$out" == *"initialized s3://bkt/g2"* ]] || fail "init with OMNIGRAPH_UNSAFE_SINGLE_WRITER=1: exit $rc: $out"
run load_env env OMNIGRAPH_UNSAFE_SINGLE_WRITER=1 "$og" load --mode overwrite --data "$data" s3://bkt/g2
[[ $rc == 0 ]] || fail "load with OMNIGRAPH_UNSAFE_SINGLE_WRITER=1: exit $rc: $out"

# (d) readers need no flag
run snap_plain "$og" snapshot s3://bkt/g
[[ $rc == 0 ]] || fail "snapshot without the flag (readers do not probe): exit $rc: $out"
[[ "$(count Person "$out")" == 120 && "$(count Team "$out")" == 12 ]] || fail "snapshot without the flag: $out"
before="$out"
run snap_plain2 "$og" snapshot s3://bkt/g2
[[ $rc == 0 && "$(count Person "$out")" == 120 ]] || fail "snapshot of g2: exit $rc: $out"

# (e) a write without the flag is refused and changes nothing
run merge_refused "$og" load --mode merge --data "$updates" s3://bkt/g
[[ $rc == 1 ]] || fail "load --mode merge without the flag: exit $rc, expected 1: $out"
[[ "$out" == *"error[store_no_conditional_writes]"* ]] || fail "load --mode merge message: $out"
[[ "$out" != *"loaded s3://"* ]] || fail "the refused load claims success: $out"
run snap_after "$og" snapshot s3://bkt/g
[[ $rc == 0 && "$out" == "$before" ]] || fail "the refused load changed the graph: before: $before; after: $out"

# the same merge with the flag does commit (so the refusal above was the flag, not the data)
run merge_unsafe "$og" --unsafe-single-writer load --mode merge --data "$updates" s3://bkt/g
[[ $rc == 0 ]] || fail "load --mode merge --unsafe-single-writer: exit $rc: $out"
run snap_merged "$og" snapshot s3://bkt/g
[[ $rc == 0 && "$out" == *"branch main, version 3,"* && "$out" != "$before" ]] || fail "after the merge: $out"
echo "PASS: s3rver_refusal"
