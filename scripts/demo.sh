#!/usr/bin/env bash
# The main job on 2 local workers: a small convnet trained on real MNIST digits
# (examples/tfjs-mnist; ~97% held-out accuracy in 6 epochs). Extra arguments go to the example,
# e.g. `bash scripts/demo.sh --epochs 3`; MNIST_EPOCHS works too.
set -euo pipefail
cd "$(dirname "$0")/.."
checkpoints=$(mktemp -d)
trap 'rm -rf "$checkpoints"' EXIT
node packages/launcher/dist/cli.js -np 2 node examples/tfjs-mnist/index.mjs --checkpoint-dir "$checkpoints" "$@"
