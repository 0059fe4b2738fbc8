#!/usr/bin/env bash
# Runs a command while holding the machine-wide build lock, so that builds and test runs of
# several people on this 2-core machine never overlap: scripts/locked.sh <command...>
set -euo pipefail
exec flock /tmp/omnigraph-build.lock "$@"
