# Shared by the server test scripts (sourced): a scratch folder, a cleanup that kills the server
# the script started ($pid) and removes the folder, and `fail`, which shows the server's stderr.
dir=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill -9 "$pid" 2> /dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  if [ -s "$dir/err" ]; then echo "--- server stderr (tail):" >&2; tail -5 "$dir/err" >&2; fi
  exit 1
}
