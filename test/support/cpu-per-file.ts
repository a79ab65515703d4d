/**
 * With TEST_CPU_LOG=<file>, vitest runs this before every test file (vitest.config.ts) and
 * appends one line per file: its path, the worker's CPU seconds (all its threads, children not
 * included) and wall seconds spent importing the file, then the same for the whole file. CPU time
 * stays comparable when other work shares the machine; wall time does not (docs/performance.md,
 * "Test suite time").
 */
import { appendFileSync } from 'node:fs';
import { afterAll, beforeAll, expect } from 'vitest';

const seconds = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1e6;
// The top level runs before the test file is imported: setup files run again for every file.
const cpuAtStart = process.cpuUsage();
const wallAtStart = performance.now();
let imported = { cpu: 0, wall: 0 };

beforeAll(() => {
  imported = { cpu: seconds(process.cpuUsage(cpuAtStart)), wall: (performance.now() - wallAtStart) / 1e3 };
});

afterAll(() => {
  const log = process.env['TEST_CPU_LOG'];
  if (!log) return;
  const total = { cpu: seconds(process.cpuUsage(cpuAtStart)), wall: (performance.now() - wallAtStart) / 1e3 };
  const figures = [imported.cpu, imported.wall, total.cpu, total.wall].map((n) => n.toFixed(2));
  appendFileSync(log, `${[expect.getState().testPath ?? '?', ...figures].join('\t')}\n`);
});
