import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['packages/*/test/unit/**/*.test.ts'],
          pool: 'forks',
        },
      },
      {
        test: {
          name: 'native',
          include: ['packages/native/test/**/*.test.ts'],
          pool: 'forks',
        },
      },
      {
        test: {
          name: 'multi-process',
          include: ['packages/*/test/mp/**/*.test.ts', 'packages/launcher/test/**/*.test.ts'],
          pool: 'forks',
          // Every test starts several real processes on a small machine: one file at a time.
          fileParallelism: false,
          testTimeout: 180_000,
        },
      },
      {
        test: {
          name: 'packaging',
          include: ['test/packaging/**/*.test.ts'],
          pool: 'forks',
          // npm pack + install + two training jobs, and TypeDoc: a group of its own, after unit and
          // native (vitest runs the one-file-at-a-time multi-process project last, also alone).
          sequence: { groupOrder: 1 },
          fileParallelism: false,
          testTimeout: 600_000,
        },
      },
    ],
  },
});
