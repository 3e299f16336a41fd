import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Suites spawn real servers and python3 workers; on a 2-core machine give them room.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for a real server or browser to catch up; its 1 s default gave up under load
    // (seen at load 15-22 in the portal suites). A condition that never comes still fails.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    maxWorkers: 2,
    // A run that executes no test is a failure (CI must never pass on an empty run).
    passWithNoTests: false,
  },
});
