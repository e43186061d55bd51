#!/usr/bin/env bash
# NCCL check for a machine with NVIDIA GPUs (not part of `npm test`: CI has no GPU).
#
#   bash scripts/gpu-check.sh
#
# 1. Lists the GPUs (`nvidia-smi -L`); stops if there are none.
# 2. Gets NCCL and CUDA: KOLO_NCCL_HOME / KOLO_CUDA_HOME when set (a toolkit or a pip --target
#    root); otherwise installs the wheels into KOLO_NCCL_DIR (default /opt/kolo-nccl) with
#    `pip install --target`: nvidia-nccl-cu12 and nvidia-cuda-runtime-cu12 (library + headers),
#    nvidia-cuda-nvcc-cu12 and nvidia-cuda-cccl-cu12 (the crt/ and nv/ headers that nccl.h pulls
#    in). Offline, it falls back to what CMake finds (python3's nvidia wheels, /usr/local/cuda).
# 3. Rebuilds @kolo/native with NCCL (`cmake-js rebuild`, so detection reruns) and the TS
#    packages, and checks that capabilities().transports lists 'nccl'.
# 4. Runs packages/native/test/gpu/nccl-conformance.mjs on one rank: every op and dtype over
#    NCCL, exact values. With two GPUs or more it also runs it under kolorun with one worker per
#    GPU (device = local rank); one GPU cannot host two ranks ("Duplicate GPU detected").
#
# Leaves the NCCL build in packages/native/build; `npx cmake-js rebuild` there (without the
# variables above) goes back to a build without NCCL. Takes a few minutes, mostly the build.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
say() { echo "gpu-check: $*"; }

if ! gpus=$(nvidia-smi -L 2>/dev/null) || [[ -z $gpus ]]; then
  say "no NVIDIA GPU found (nvidia-smi -L); run this on a GPU machine" >&2
  exit 2
fi
ngpus=$(grep -c '^GPU ' <<<"$gpus")
say "$ngpus GPU(s):"
echo "$gpus"

source scripts/lib/nccl-wheels.sh
if [[ -z ${KOLO_NCCL_HOME:-} ]]; then
  dir=${KOLO_NCCL_DIR:-/opt/kolo-nccl}
  if nccl_wheels "$dir"; then
    say "using the NCCL and CUDA wheels in $dir"
  else
    say "could not install the wheels into $dir; relying on an existing NCCL/CUDA" >&2
  fi
fi
say "KOLO_NCCL_HOME=${KOLO_NCCL_HOME:-} KOLO_CUDA_HOME=${KOLO_CUDA_HOME:-}"

log=$(mktemp)
if ! (cd packages/native && npx cmake-js rebuild --out build -- -j "$(nproc)") >"$log" 2>&1; then
  tail -40 "$log" >&2
  say "the native build failed (full log: $log)" >&2
  exit 1
fi
grep 'kolo:' "$log" || true
npx tsc -b packages/native packages/core packages/launcher

transports=$(node --input-type=module -e \
  "import { loadNative } from '@kolo/native'; console.log(loadNative().capabilities().transports.join(','))")
say "capabilities().transports: $transports"
if [[ ,$transports, != *,nccl,* ]]; then
  say "this build has no NCCL transport; see the kolo: lines above for what CMake did not find" >&2
  exit 1
fi

worker=packages/native/test/gpu/nccl-conformance.mjs
# Runs a command, showing every line of its output but the PASS ones.
quiet_run() {
  local out status=0
  out=$(mktemp)
  timeout 300 "$@" >"$out" 2>&1 || status=$?
  grep -v 'PASS ' "$out" || true
  return "$status"
}
say "world size 1 on GPU 0"
quiet_run node "$worker" || { say "world size 1 failed" >&2; exit 1; }
if ((ngpus >= 2)); then
  np=$((ngpus > 8 ? 8 : ngpus))
  say "world size $np, one worker per GPU"
  quiet_run node packages/launcher/dist/cli.js -np "$np" node "$worker" ||
    { say "world size $np failed" >&2; exit 1; }
else
  say "one GPU: multi-rank NCCL runs need two GPUs or more (skipped)"
fi
say "passed in $((SECONDS - start)) s"
