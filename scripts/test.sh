#!/usr/bin/env bash
# Every test: lint, type-check, the C++ unit tests, the NCCL compile check, then the vitest
# projects (unit, native, multi-process, packaging). Ends with one "N passed, N failed" line covering C++ and TS tests.
set -euo pipefail
cd "$(dirname "$0")/.."
npx eslint .
npx tsc -b
report=$(mktemp -d)
(cd packages/native && npm run --silent test:cpp -- --gtest_output="json:$report/cpp.json")
bash scripts/nccl-build-check.sh
npx vitest run --reporter=default --reporter=json --outputFile="$report/vitest.json"
node scripts/test-summary.mjs "$report/cpp.json" "$report/vitest.json"
