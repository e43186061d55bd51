#!/usr/bin/env bash
# Every test: lint, the C++ unit tests, then the vitest projects (unit, native, multi-process).
set -euo pipefail
cd "$(dirname "$0")/.."
npx eslint .
npx tsc -b
(cd packages/native && npm run --silent test:cpp)
npx vitest run
