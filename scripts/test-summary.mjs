#!/usr/bin/env node
// Prints one closing line, "N passed, N failed", over the gtest and vitest JSON reports.
import { readFileSync } from 'node:fs';

const [cppPath, vitestPath] = process.argv.slice(2);
const cpp = JSON.parse(readFileSync(cppPath, 'utf8'));
const vitest = JSON.parse(readFileSync(vitestPath, 'utf8'));
const passed = cpp.tests - cpp.failures - (cpp.disabled ?? 0) + vitest.numPassedTests;
const failed = cpp.failures + vitest.numFailedTests;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
