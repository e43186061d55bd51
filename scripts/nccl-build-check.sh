#!/usr/bin/env bash
# Compiles the NCCL transport on machines without a GPU, so CI catches a broken NCCL path: fetches
# NCCL's and the CUDA runtime's headers and libraries from PyPI's wheels (scripts/lib/nccl-wheels.sh,
# into KOLO_NCCL_DIR, default /opt/kolo-nccl, or ~/.cache/kolo-nccl where /opt is not writable) and builds @kolo/native with them into
# packages/native/build-nccl, next to the default build. packages/native/test/nccl-build.test.ts then
# loads that addon in a child process: it must list 'nccl' and, without a GPU, refuse to start
# an NCCL engine with the "needs a CUDA GPU" error. Skipped (with a line saying so) where pip is
# missing; a failed install or build fails the check.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "nccl-build-check: $*"; }
if ! python3 -m pip --version >/dev/null 2>&1; then
  say "skipped: python3 -m pip is not available to fetch NCCL's headers"
  exit 0
fi
source scripts/lib/nccl-wheels.sh
default=/opt/kolo-nccl
[[ -w /opt || -d $default ]] || default=$HOME/.cache/kolo-nccl
dir=${KOLO_NCCL_DIR:-$default}
nccl_wheels "$dir" || nccl_wheels "$dir" || { say "could not install the NCCL/CUDA wheels into $dir" >&2; exit 1; }
log=$(mktemp)
if ! (cd packages/native && npx cmake-js compile --out build-nccl -- -j 2) >"$log" 2>&1; then
  tail -40 "$log" >&2
  say "the NCCL build failed (full log: $log)" >&2
  exit 1
fi
# An up-to-date build does not reconfigure, so it prints no 'kolo:' lines; that is not a failure.
{ grep 'kolo:' "$log" || true; } | sed 's/^/nccl-build-check: /'
