#!/usr/bin/env bash
# Prepares what the e2e suite needs: Debian's chromium, Node 24 and code-server.
# Idempotent: each step is skipped when its result is already in the cache, so only the
# first run on a machine pays the ~5 minutes code-server needs to compile its native modules.
# Needs only the npm registry and the Debian archive. Cache: $GDR_E2E_CACHE or <repo>/.cache/e2e.
# --quiet (npm test's first step): print nothing when everything is already there.
set -euo pipefail
QUIET=0
[ "${1:-}" = --quiet ] && QUIET=1

CODE_SERVER_VERSION=4.139.1
NODE_MAJOR=24
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${GDR_E2E_CACHE:-$REPO/.cache/e2e}"
mkdir -p "$CACHE"
CACHE="$(cd "$CACHE" && pwd)"

log() { printf '[e2e-setup] %s\n' "$*"; }
# What is already there: said unless --quiet.
note() { [ "$QUIET" = 1 ] || log "$@"; }
stop() { log "stopped: $*" >&2; exit 1; }

# paths.json is written last: when it names tools that exist, for this code-server version, setup is done
# (also for a cache that only borrows another cache's install through its paths.json).
already_set_up() {
  [ -f "$CACHE/paths.json" ] || return 1
  node -e '
    const t = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const ok = t.codeServerVersion === process.argv[2] && ["node", "codeServer", "chromium"].every((k) => t[k] && require("fs").existsSync(t[k]));
    process.exit(ok ? 0 : 1);' "$CACHE/paths.json" "$CODE_SERVER_VERSION" 2>/dev/null
}

install_debian_packages() {
  local missing=() pkg
  # g++, make and python3: node-gyp builds code-server's native modules with them. fonts-wqy-zenhei:
  # a CJK font, so the screenshots of the extension in Chinese (test/e2e/l10n.test.ts) show characters.
  for pkg in chromium libkrb5-dev g++ make python3 fonts-wqy-zenhei; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    note "Debian packages present: chromium libkrb5-dev g++ make python3 fonts-wqy-zenhei"
    return
  fi
  command -v apt-get >/dev/null 2>&1 || stop "needs Debian or Ubuntu (apt-get) to install ${missing[*]}; install them yourself"
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  log "installing Debian packages: ${missing[*]}"
  "${sudo[@]}" apt-get update -q || stop "apt-get update failed (no network or no package source?): could not install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" || stop "apt-get install failed for ${missing[*]}"
}

# The npm package `node` carries the official Linux binary (with headers for node-gyp).
node24_dir() {
  local d
  for d in "$CACHE"/node24/node_modules/node/node_modules/node-linux-*; do
    [ -x "$d/bin/node" ] && { echo "$d"; return; }
  done
}

install_node24() {
  local dir
  dir="$(node24_dir || true)"
  if [ -n "$dir" ] && [[ "$("$dir/bin/node" --version)" == v$NODE_MAJOR.* ]]; then
    note "Node $NODE_MAJOR present"
    return
  fi
  log "installing Node $NODE_MAJOR from the npm package 'node'"
  npm install --no-audit --no-fund --prefix "$CACHE/node24" "node@$NODE_MAJOR" || stop "npm install node@$NODE_MAJOR failed (no access to the npm registry?)"
}

install_code_server() {
  local stamp="$CACHE/code-server/.installed-$CODE_SERVER_VERSION"
  if [ -f "$stamp" ]; then
    note "code-server $CODE_SERVER_VERSION present"
    return
  fi
  local n24
  n24="$(node24_dir)"
  log "installing code-server@$CODE_SERVER_VERSION (compiles native modules; ~5 min on 2 cores)"
  # code-server's install scripts build native modules with node-gyp: they must see Node 24
  # first on PATH and compile against its headers, or the modules won't load at run time.
  # Under `npm run`, npm's own variables (npm_node_execpath, NODE, npm_config_*, …) would make the
  # nested install's scripts run on the outer Node 20, which code-server refuses. Drop exactly
  # those; keep the rest of the environment (CA certificates, proxies) so the registry stays reachable.
  local unset_npm=() name
  while IFS='=' read -r name _; do
    case "$name" in npm_* | NODE) unset_npm+=(-u "$name") ;; esac
  done < <(env)
  env "${unset_npm[@]}" PATH="$n24/bin:$PATH" npm_config_nodedir="$n24" \
    "$n24/bin/node" "$(readlink -f "$(command -v npm)")" \
    install --no-audit --no-fund --prefix "$CACHE/code-server" "code-server@$CODE_SERVER_VERSION" ||
    stop "npm install code-server@$CODE_SERVER_VERSION failed (no access to the npm registry, or a native module did not build)"
  # A code-server whose install scripts did not run (an npm that blocks them) starts, then fails
  # in the browser; catch it here instead.
  local native="$CACHE/code-server/node_modules/code-server/lib/vscode/node_modules/@vscode/spdlog/build/Release/spdlog.node"
  [ -f "$native" ] || { log "code-server's native modules were not built ($native missing): did npm skip install scripts?"; exit 1; }
  touch "$stamp"
}

write_paths() {
  local n24 cs
  n24="$(node24_dir)"
  cs="$CACHE/code-server/node_modules/code-server/out/node/entry.js"
  [ -f "$cs" ] || { log "code-server entry point missing: $cs"; exit 1; }
  # The test harness reads this file; its presence means setup finished.
  cat >"$CACHE/paths.json" <<EOF
{
  "node": "$n24/bin/node",
  "codeServer": "$cs",
  "codeServerVersion": "$CODE_SERVER_VERSION",
  "chromium": "$(command -v chromium)"
}
EOF
  log "cache:       $CACHE"
  log "node:        $n24/bin/node ($("$n24/bin/node" --version))"
  # --config and XDG_DATA_HOME keep code-server from writing under ~/.config and ~/.local/share.
  log "code-server: $cs ($(XDG_DATA_HOME="$CACHE/code-server/xdg-data" "$n24/bin/node" "$cs" --config "$CACHE/code-server/config.yaml" --version | tail -1))"
  log "chromium:    $(command -v chromium) ($(chromium --version 2>/dev/null || echo '?'))"
  log "paths:       $CACHE/paths.json"
}

# Debian packages first, also for a cache already set up: a package added to the list since (a font)
# is installed; checking them costs a few dpkg queries.
install_debian_packages
if already_set_up; then
  note "already set up: $CACHE/paths.json"
  exit 0
fi
install_node24
install_code_server
write_paths
