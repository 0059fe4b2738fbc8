#!/usr/bin/env bash
# Runs a command against a fresh S3 test server: starts omnigraph-s3-server on a free port with a
# bucket, exports the AWS_* variables a client needs and OG_TEST_GRAPH=s3://<bucket>/<prefix>, runs
# the command, stops the server. Extra server flags (e.g. --fault latency=20) go before `--`.
# Usage: with_s3_server.sh <omnigraph-s3-server> [server flags...] -- command [args...]
set -euo pipefail
server="$1"
shift
flags=()
while [ "$#" -gt 0 ] && [ "$1" != -- ]; do flags+=("$1"); shift; done
[ "${1:-}" = -- ] || { echo "usage: with_s3_server.sh SERVER [flags] -- command..." >&2; exit 2; }
shift
dir=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT
"$server" --listen 127.0.0.1:0 --root "$dir/root" --access-key-id ogkey --secret-access-key ogsecret \
  --bucket omnigraph "${flags[@]}" > "$dir/out" 2> "$dir/err" &
pid=$!
for _ in $(seq 1 500); do
  grep -q '^listening on' "$dir/out" 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || { echo "the S3 test server did not start: $(cat "$dir/err")" >&2; exit 1; }
  sleep 0.01
done
port=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$dir/out")
[ -n "$port" ] || { echo "the S3 test server did not report its port" >&2; exit 1; }
export AWS_ACCESS_KEY_ID=ogkey AWS_SECRET_ACCESS_KEY=ogsecret AWS_REGION=us-east-1
export AWS_ENDPOINT_URL="http://127.0.0.1:$port" AWS_ALLOW_HTTP=true
export OG_TEST_GRAPH="s3://omnigraph/g-$RANDOM$RANDOM"
"$@"
