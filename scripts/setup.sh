#!/usr/bin/env bash
# Installs every build, library and test dependency of Omnigraph (docs/architecture.md,
# "Code conventions"). Idempotent; the only install step anywhere. Debian 12, as root or with sudo.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake ninja-build ccache mold pkg-config git
  clang libclang-rt-14-dev
  libzstd-dev liblz4-dev libroaring-dev libxxhash-dev
  libsimdjson-dev nlohmann-json3-dev libyaml-cpp-dev libcli11-dev
  libfmt-dev libspdlog-dev libre2-dev jq curl
  libcpp-httplib-dev libboost1.81-dev libcurl4-openssl-dev libssl-dev libtinyxml2-dev
  libhnswlib-dev libutf8proc-dev libstemmer-dev fortunes
  libgtest-dev libgmock-dev libbenchmark-dev
  nodejs npm
)

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# nodejs/npm may come from elsewhere on the machine; only install when absent.
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  filtered=()
  for p in "${missing[@]}"; do
    case "$p" in nodejs|npm) ;; *) filtered+=("$p") ;; esac
  done
  missing=("${filtered[@]}")
fi

if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all Debian packages present"
fi

# npm packages for test peers, project-local (tools/node_modules), pinned in tools/package.json.
if [ -f tools/package.json ]; then
  if [ ! -d tools/node_modules ] || [ tools/package.json -nt tools/node_modules ]; then
    echo "setup: installing npm test peers into tools/node_modules"
    (cd tools && npm install --no-audit --no-fund --loglevel=error)
    touch tools/node_modules
  fi
fi
# npm packages of the benchmark peers (Kuzu, DuckDB, SQLite), project-local in
# bench/peers/node_modules, pinned in bench/peers/package.json + package-lock.json. Opt-in:
# OG_BENCH_PEERS=1 (scripts/bench.sh sets it); tests never need them. better-sqlite3 compiles
# its addon with node-gyp against the installed Node headers (about 2 minutes, once).
if [ "${OG_BENCH_PEERS:-0}" = 1 ] && [ -f bench/peers/package.json ]; then
  stamp=bench/peers/node_modules/.og-installed
  if [ ! -f "$stamp" ] || [ bench/peers/package.json -nt "$stamp" ] || [ bench/peers/package-lock.json -nt "$stamp" ]; then
    echo "setup: installing benchmark peers into bench/peers/node_modules"
    npm install --prefix bench/peers --no-audit --no-fund --loglevel=error
    touch "$stamp"
  fi
fi
echo "setup: done"
