/**
 * The file sink: one JSON object per line, appended. When the next line would take the file past
 * AUDIT_FILE_MAX_BYTES it is rotated first (audit.jsonl -> audit.jsonl.1 -> .2 ...), keeping
 * AUDIT_FILE_KEEP rotated files; a line is never split across two files.
 */
import { appendFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { AuditEvent } from '../core/audit/export.js';
import type { AuditSink } from '../ports/audit-export.js';

export interface FileSinkOptions {
  path: string;
  /** For logs and metrics: file:<name>. */
  label: string;
  maxBytes: number;
  /** Rotated files kept beside the current one (0: the full file is simply started over). */
  keep: number;
}

export function fileSink(options: FileSinkOptions): AuditSink {
  let size: number | undefined;
  const currentSize = async (): Promise<number> => {
    size ??= await stat(options.path).then(
      (info) => info.size,
      () => 0,
    );
    return size;
  };
  return {
    label: options.label,
    async deliver(event: AuditEvent): Promise<void> {
      const line = `${JSON.stringify(event)}\n`;
      const bytes = Buffer.byteLength(line);
      const now = await currentSize();
      if (now > 0 && now + bytes > options.maxBytes) {
        await rotate(options.path, options.keep);
        size = 0;
      }
      await mkdir(dirname(options.path), { recursive: true });
      try {
        await appendFile(options.path, line, { mode: 0o640 });
      } catch (error) {
        size = undefined; // whatever was written, read the size again next time
        throw error;
      }
      size = (size ?? 0) + bytes;
    },
  };
}

/** path.keep is dropped, each path.n becomes path.n+1, and path becomes path.1. */
async function rotate(path: string, keep: number): Promise<void> {
  if (keep === 0) {
    await rm(path, { force: true });
    return;
  }
  await rm(`${path}.${keep}`, { force: true });
  for (let n = keep - 1; n >= 1; n--) await rename(`${path}.${n}`, `${path}.${n + 1}`).catch(ignoreMissing);
  await rename(path, `${path}.1`).catch(ignoreMissing);
}

function ignoreMissing(error: unknown): void {
  const code: unknown = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined;
  if (code !== 'ENOENT') throw error;
}
