/**
 * Vitest's global setup: one temporary directory for the whole run, removed when the run ends.
 * Workers are ended without an `exit` event of their own, so what they write in the system's
 * temporary directory goes here to be sure it is removed (the transpiled sources of child bots).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's temporary directory (see test/support/temp-root.ts). */
    runTempDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'chbot-test-run-'));
  project.provide('runTempDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
