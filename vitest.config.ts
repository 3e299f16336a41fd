import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Suites spawn real servers and python3 workers; on a 2-core machine give them room.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    // A run that executes no test is a failure (CI must never pass on an empty run).
    passWithNoTests: false,
  },
});
