#!/usr/bin/env node
import { CommanderError } from 'commander';
import { launch } from './launch.js';
import { parseCommandLine } from './options.js';
import { UsageError } from './usage-error.js';

async function main(argv: readonly string[]): Promise<number> {
  try {
    return await launch(parseCommandLine(argv));
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    process.stderr.write(`kolorun: ${(error as Error).message}\n`);
    return error instanceof UsageError ? error.exitCode : 1;
  }
}

// Writes to pipes, files and terminals are synchronous on Linux, so exiting now loses no output;
// it also ends the launcher even if a worker's detached grandchild still holds an output pipe.
process.exit(await main(process.argv.slice(2)));
