import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileSink } from '../../src/audit-sinks/file.js';
import type { AuditEvent } from '../../src/core/audit/export.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'audit-file-'));
  dirs.push(dir);
  return dir;
}

function event(n: number): AuditEvent {
  return {
    id: `1-${n}`,
    type: 'approved',
    at: new Date(0).toISOString(),
    organization: null,
    service: { id: 's', name: 'prod' },
    requestId: `r${n}`,
    actor: 'U1',
    channel: 'C1',
    summary: `event ${n}`.padEnd(40, '.'),
    details: {},
  };
}

const lines = async (path: string) =>
  (await readFile(path, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as AuditEvent).id);

describe('the file sink', () => {
  it('writes one JSON object per line, creating the directory', async () => {
    const path = join(await tempDir(), 'nested', 'audit.jsonl');
    const sink = fileSink({ path, label: 'file:audit.jsonl', maxBytes: 1_000_000, keep: 2 });
    await sink.deliver(event(1));
    await sink.deliver(event(2));
    expect(await lines(path)).toEqual(['1-1', '1-2']);
  });

  it('rotates before a line would pass the size, keeping N rotated files, never splitting a line', async () => {
    const dir = await tempDir();
    const path = join(dir, 'audit.jsonl');
    const lineBytes = Buffer.byteLength(`${JSON.stringify(event(1))}\n`);
    const sink = fileSink({ path, label: 'file:audit.jsonl', maxBytes: lineBytes * 2, keep: 2 });
    for (let n = 1; n <= 9; n++) await sink.deliver(event(n));
    expect((await readdir(dir)).sort()).toEqual(['audit.jsonl', 'audit.jsonl.1', 'audit.jsonl.2']);
    expect(await lines(path)).toEqual(['1-9']);
    expect(await lines(`${path}.1`)).toEqual(['1-7', '1-8']);
    expect(await lines(`${path}.2`)).toEqual(['1-5', '1-6']);
  });

  it('carries on a file left by an earlier run, counting its size', async () => {
    const path = join(await tempDir(), 'audit.jsonl');
    const lineBytes = Buffer.byteLength(`${JSON.stringify(event(1))}\n`);
    await fileSink({ path, label: 'file', maxBytes: lineBytes * 2, keep: 1 }).deliver(event(1));
    const restarted = fileSink({ path, label: 'file', maxBytes: lineBytes * 2, keep: 1 });
    await restarted.deliver(event(2));
    await restarted.deliver(event(3));
    expect(await lines(`${path}.1`)).toEqual(['1-1', '1-2']);
    expect(await lines(path)).toEqual(['1-3']);
  });

  it('with no rotated files kept, starts the file over', async () => {
    const dir = await tempDir();
    const path = join(dir, 'audit.jsonl');
    const lineBytes = Buffer.byteLength(`${JSON.stringify(event(1))}\n`);
    const sink = fileSink({ path, label: 'file', maxBytes: lineBytes, keep: 0 });
    for (let n = 1; n <= 3; n++) await sink.deliver(event(n));
    expect(await readdir(dir)).toEqual(['audit.jsonl']);
    expect(await lines(path)).toEqual(['1-3']);
  });
});
