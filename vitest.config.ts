import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/temp-root.ts'],
    // TEST_CPU_LOG=<file>: each file's CPU and wall seconds, to see where the suite's time goes.
    setupFiles: process.env['TEST_CPU_LOG'] ? ['test/support/cpu-per-file.ts'] : [],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Vitest's default is one worker fewer than the CPUs: one on a 2-core machine. Most files wait
    // on sockets, timers and child processes, so three at once beat two: 306 s -> 249 s for the
    // whole suite on the 2-core machine (2026-11-25, all green both ways).
    maxWorkers: 3,
    // Each file imports the whole bot; re-importing it per file cost 235 s of the 400 s the suite
    // took (2026-11-25, 3,099 tests). Without isolation a worker keeps its modules between files:
    // 236 s, all green. Tests keep no state in modules they share (each starts its own bot).
    isolate: false,
  },
});
