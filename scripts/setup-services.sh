#!/usr/bin/env bash
# What `npm test` needs beyond `npm ci`, on Debian or Ubuntu: installs what is missing with apt
# (sudo when not root), then checks each piece and says what is still wrong. Safe to rerun.
#   Chromium          the e2e suite and the starter test drive it (never downloaded by npm)
#   redis-server      the store tests and the two-instance e2e start throwaway servers
#   PostgreSQL 15     initdb and postgres binaries for the store tests' throwaway clusters
#   the npm registry  test:packages installs the packed packages into fresh projects
set -euo pipefail

chromium="${PLAYWRIGHT_CHROMIUM_PATH:-/usr/bin/chromium}"
redis="${REDIS_SERVER_PATH:-/usr/bin/redis-server}"
postgres="${POSTGRES_BIN:-/usr/lib/postgresql/15/bin}"

missing=()
[ -x "$chromium" ] || missing+=(chromium)
[ -x "$redis" ] || missing+=(redis-server)
[ -x "$postgres/initdb" ] || missing+=(postgresql)

if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null; then
    echo "Missing: ${missing[*]}. Install them with your package manager (no apt-get here)," >&2
    echo "or point PLAYWRIGHT_CHROMIUM_PATH, REDIS_SERVER_PATH and POSTGRES_BIN at your own." >&2
    exit 1
  fi
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  echo "Installing ${missing[*]} with apt-get..."
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

failed=0
check() { # name, command...
  local name="$1"; shift
  if output="$("$@" 2>/dev/null | tail -n 1)"; then echo "ok   $name: $output"; else echo "FAIL $name: $output" >&2; failed=1; fi
}
check chromium "$chromium" --headless --no-sandbox --disable-gpu --version
check redis-server "$redis" --version
check "postgresql 15" "$postgres/postgres" --version
# PostgreSQL's apt package is 15 on Debian 12; another release installs another major version.
if [ ! -x "$postgres/initdb" ]; then
  echo "     PostgreSQL 15 binaries are not at $postgres; set POSTGRES_BIN to your version's bin folder ($(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | tr '\n' ' '))" >&2
fi
# Its exit code says whether the registry answered; `--loglevel=notice` keeps its PONG line visible
# when a user's .npmrc (or npm_config_loglevel) sets `error` or `silent`.
check "npm registry" bash -c 'out="$(npm ping --loglevel=notice 2>&1)" && { grep -m1 PONG <<<"$out" || echo "answered"; }'
exit $failed
