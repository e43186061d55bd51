#!/usr/bin/env bash
# Brings a fresh Debian/Ubuntu machine to the point where everything builds:
# system packages (installed when root, otherwise printed), npm ci, then a full build.
set -euo pipefail
cd "$(dirname "$0")/.."

system_packages=(cmake g++ make pkg-config libgloo-dev libopenmpi-dev openmpi-bin libgtest-dev libssl-dev)
missing=()
for pkg in "${system_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ]; then
    echo "kolo setup: installing system packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    echo "kolo setup: missing system packages. Install them, then run this command again:" >&2
    echo "  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

# npm ci only when the lockfile changed since the last install.
stamp=node_modules/.kolo-lock-hash
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  npm ci --no-audit --no-fund
  echo "$want" > "$stamp"
fi

export TURBO_TELEMETRY_DISABLED=1
npx turbo run build --output-logs=errors-only --concurrency=2
