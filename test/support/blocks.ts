/**
 * The edit modal's block ids by name, for tests that fill the form as Slack would. The kinds
 * declare their own (core/change/kinds, `form.blockIds`); this lists the names tests use, and
 * fails at import when a kind no longer declares one.
 */
import { BLOCK as GENERAL, FORM_BLOCKS } from '../../src/core/render/modal.js';

const NAMES = [
  'name',
  'releaseChannel',
  'mysql',
  'ipAdd',
  'ipRemove',
  'attach',
  'detach',
  'tdeKey',
  'tags',
  'replicas',
  'memory',
  'idle',
  'idleTimeout',
  'coreDumps',
] as const;

function kindBlocks(): Record<(typeof NAMES)[number], string> {
  const entries = NAMES.map((name) => {
    const id = FORM_BLOCKS[name];
    if (id === undefined) throw new Error(`no kind declares the form block ${name}`);
    return [name, id] as const;
  });
  return Object.fromEntries(entries) as Record<(typeof NAMES)[number], string>;
}

export const BLOCK = { ...GENERAL, ...kindBlocks() } as const;
