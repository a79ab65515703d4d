/**
 * What one approval asks of Redis, step by step: a MONITOR connection on the bench's own server
 * records every command while one approval runs; a command a Lua script runs is counted with the
 * EVALSHA that ran it, so each row is one round trip and what the server did for it.
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import * as scripts from '../src/store/redis/scripts.js';

export interface TraceStep {
  /** The script's registered name, or the plain command with the kind of key it touched. */
  step: string;
  /** Server commands: the EVALSHA itself and everything its script ran. */
  commands: number;
  /** What a script ran, in order, repeats counted ("hmget, xadd ×3"). */
  inside: string;
}

const SCRIPT_NAMES = scriptNamesBySha();

/** Runs `work` with MONITOR on, then lists the round trips it made in order. */
export async function traceRedis(url: string, work: () => Promise<void>): Promise<TraceStep[]> {
  const connection = new Redis(url);
  const monitor = await connection.monitor();
  const seen: Array<{ args: string[]; fromLua: boolean }> = [];
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    const name = (args[0] ?? '').toLowerCase();
    if (name === 'info' || name === 'ping' || name === 'monitor') return;
    seen.push({ args, fromLua: source === 'lua' });
  });
  try {
    await work();
  } finally {
    monitor.disconnect();
    connection.disconnect();
  }
  return group(seen);
}

function group(seen: Array<{ args: string[]; fromLua: boolean }>): TraceStep[] {
  const steps: Array<{ step: string; inner: string[] }> = [];
  for (const { args, fromLua } of seen) {
    const name = (args[0] ?? '').toLowerCase();
    const last = steps.at(-1);
    if (fromLua && last) last.inner.push(name);
    else steps.push({ step: stepName(name, args), inner: [] });
  }
  return steps.map(({ step, inner }) => ({ step, commands: 1 + inner.length, inside: countRuns(inner) }));
}

function stepName(name: string, args: string[]): string {
  if (name === 'evalsha' || name === 'eval') {
    const sha = name === 'eval' ? sha1(args[1] ?? '') : (args[1] ?? '');
    return SCRIPT_NAMES.get(sha) ?? `${name} (unknown script)`;
  }
  return `${name} ${keyKind(args[1] ?? '')}`.trim();
}

/** `chbot:{changes}:req:CR-…` → `req`: the key's kind without its prefix and ids. */
function keyKind(key: string): string {
  const afterTag = key.slice(key.indexOf('}:') + 2);
  return afterTag
    .split(':')
    .filter((part) => /^[a-z-]+$/.test(part))
    .join(':');
}

function countRuns(names: string[]): string {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts].map(([name, n]) => (n > 1 ? `${name} ×${n}` : name)).join(', ');
}

function scriptNamesBySha(): Map<string, string> {
  const byName = new Map<string, string>();
  for (const script of Object.values(scripts)) byName.set(sha1(script.source), script.command);
  return byName;
}

function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}
