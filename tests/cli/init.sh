#!/usr/bin/env bash
# `omnigraph init` over damaged and partial roots (issue 15, docs/cli.md "init"): a graph whose ref
# log of main is gone is `corrupt` for every reader (advice: `omnigraph check`, never re-init) and
# init refuses it, writing nothing; the remains of an init that never published (stamp only) may be
# initialized again; a failed init removes the folder it created but never a folder that existed;
# `init memory://X` warns (on stderr) that the graph is gone when the command exits; stdout has the
# Rust CLI's `initialized URI` line (the URI as given), --json says persistent:false.
#   tests/cli/init.sh path/to/omnigraph
set -euo pipefail
og="$1"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export OMNIGRAPH_FSYNC=0
printf 'node P { n: String @key }\n' > "$dir/s.pg"
printf 'node P { n: String @key\n' > "$dir/bad.pg"
for i in $(seq 1 50); do printf '{"type":"P","data":{"n":"p%d"}}\n' "$i"; done > "$dir/d.ndjson"

# main's ref log deleted: snapshot points at check, init refuses and writes nothing
g="$dir/g"
out="$("$og" init --schema "$dir/s.pg" "$g")"
[[ "$out" == "initialized $g" ]] || fail "init output: $out"
"$og" load "$g" --data "$dir/d.ndjson" --mode append > /dev/null
rm -rf "$g/refs"
set +e
err="$("$og" snapshot "$g" 2>&1)"; rc=$?
set -e
[[ $rc == 1 ]] || fail "snapshot over a lost ref log: exit $rc"
[[ "$err" == *"error[corrupt]"*"omnigraph check"* ]] || fail "snapshot message: $err"
[[ "$err" != *"omnigraph init"* ]] || fail "snapshot advises re-init: $err"
before="$(find "$g" -type f | sort | xargs cksum)"
set +e
err="$("$og" init --schema "$dir/s.pg" "$g" 2>&1)"; rc=$?
set -e
[[ $rc == 1 ]] || fail "init over a damaged graph: exit $rc"
[[ "$err" == *"error[already_initialized]"*"omnigraph check"*"do not re-initialize"* ]] || fail "init message: $err"
[[ "$(find "$g" -type f | sort | xargs cksum)" == "$before" ]] || fail "the refused init changed the folder"
# ... and with only main's entries gone (its HEAD hint left)
g2="$dir/g2"
"$og" init --schema "$dir/s.pg" "$g2" > /dev/null
rm -f "$g2"/refs/*/0*
set +e
"$og" init --schema "$dir/s.pg" "$g2" > /dev/null 2>&1; rc=$?
set -e
[[ $rc == 1 ]] || fail "init over a ref folder without entries: exit $rc"

# an unfinished init (only the stamp, as a crash right after it leaves) is initialized again
g3="$dir/g3"
"$og" init --schema "$dir/s.pg" "$g3" > /dev/null
find "$g3" -mindepth 1 -maxdepth 1 ! -name _omnigraph.json -exec rm -rf {} +
set +e
err="$("$og" snapshot "$g3" 2>&1)"; rc=$?
set -e
[[ $rc == 1 && "$err" == *"error[not_found]"*"initialization did not complete"* ]] || fail "unfinished init: $err"
"$og" init --schema "$dir/s.pg" "$g3" > /dev/null || fail "re-init of an unfinished init"
"$og" snapshot "$g3" > /dev/null || fail "snapshot after re-init"

# a failed init removes what it created (a nested new folder: from its first new component)
set +e
"$og" init --schema "$dir/bad.pg" "$dir/new/a/b" > /dev/null 2>&1; rc=$?
set -e
[[ $rc == 1 ]] || fail "bad schema init: exit $rc"
[[ ! -e "$dir/new" ]] || fail "a failed init left $dir/new behind"
set +e
"$og" init --schema "$dir/nosuch.pg" "$dir/new2" > /dev/null 2>&1; rc=$?
set -e
[[ $rc == 1 && ! -e "$dir/new2" ]] || fail "missing schema file: exit $rc or folder left"
# ... but never a folder that existed before, empty or not
mkdir "$dir/empty"
set +e
"$og" init --schema "$dir/bad.pg" "$dir/empty" > /dev/null 2>&1; rc=$?
set -e
[[ $rc == 1 && -d "$dir/empty" ]] || fail "a failed init removed a pre-existing folder"
mkdir "$dir/mine"; echo keep > "$dir/mine/notes.txt"
set +e
"$og" init --schema "$dir/s.pg" "$dir/mine" > /dev/null 2>&1; rc=$?
set -e
[[ $rc == 1 && "$(cat "$dir/mine/notes.txt")" == keep ]] || fail "init into a foreign folder: exit $rc"
[[ "$(ls "$dir/mine")" == notes.txt ]] || fail "init into a foreign folder wrote: $(ls "$dir/mine")"
# an init that loses to an existing graph leaves it alone
set +e
"$og" init --schema "$dir/s.pg" "$g3" > /dev/null 2>&1; rc=$?
set -e
[[ $rc == 1 ]] && "$og" snapshot "$g3" > /dev/null || fail "second init over a graph"

# memory:// lives only in this process
out="$("$og" init --schema "$dir/s.pg" memory://x 2> "$dir/err")" || fail "init memory://"
[[ "$(cat "$dir/err")" == *"warning:"*"only in this process"*"gone when this command exits"* ]] || fail "memory warning: $(cat "$dir/err")"
[[ "$out" == "initialized memory://x" ]] || fail "memory output: $out"
out="$("$og" init --schema "$dir/s.pg" memory://x --json 2> /dev/null | jq -cS .)"
[[ "$out" == *'"persistent":false'* ]] || fail "memory json: $out"
echo "ok"
