#!/usr/bin/env bash
# The main job on 2 local workers.
set -euo pipefail
cd "$(dirname "$0")/.."
exec node packages/launcher/dist/cli.js -np 2 node examples/allreduce-demo/index.mjs
