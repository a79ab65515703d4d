import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../../src/core/command/parse.js';
import { commandAllowance, inScope, intentKinds } from '../../../src/core/organization/rules.js';

const READ_ONLY = { allow: ['list', 'show', 'summary'] };
const DEV = { allow: ['list', 'show', 'ip-access'], services: { tags: { env: 'dev' } } };
const allowed = (rules: { allow?: string[] }, text: string) => commandAllowance(rules, parseCommand(text));

describe('a channel’s allow list', () => {
  it('lets every command through without one', () => {
    for (const text of ['list', 'rename a b', 'schedule list', 'stop a', 'edit a'])
      expect(allowed({}, text)).toEqual({ allowed: true });
  });

  it('lets a read-only channel read, and names the first word or kind it refuses', () => {
    expect(allowed(READ_ONLY, 'list tag:env=prod')).toEqual({ allowed: true });
    expect(allowed(READ_ONLY, 'summary')).toEqual({ allowed: true });
    expect(allowed(READ_ONLY, 'help')).toEqual({ allowed: true });
    expect(allowed(READ_ONLY, 'no-such-command')).toEqual({ allowed: true });
    expect(allowed(READ_ONLY, 'edit orders')).toEqual({ allowed: false, word: 'edit' });
    expect(allowed(READ_ONLY, 'schedule add "0 9 * * 1"')).toEqual({ allowed: false, word: 'schedule' });
    expect(allowed(READ_ONLY, 'history')).toEqual({ allowed: false, word: 'history' });
    expect(allowed(READ_ONLY, 'ip add orders 192.0.2.1')).toEqual({ allowed: false, word: 'ip-access' });
  });

  it('judges a change by every kind it touches', () => {
    expect(allowed(DEV, 'ip add sandbox 192.0.2.1')).toEqual({ allowed: true });
    expect(allowed(DEV, 'ip remove sandbox 192.0.2.1')).toEqual({ allowed: true });
    expect(allowed(DEV, 'scale sandbox replicas 3')).toEqual({ allowed: false, word: 'replicas' });
    expect(allowed(DEV, 'stop sandbox')).toEqual({ allowed: false, word: 'power' });
    // The form sends empty lists for the parts left alone: they change nothing.
    expect(intentKinds({ ipAdd: [{ source: '1.2.3.4' }], name: 'x', ipRemove: ['5.6.7.8'], tagAdd: [] })).toEqual([
      'ip-access',
      'name',
    ]);
  });
});

describe('a channel’s services', () => {
  const service = (name: string, tags: Array<{ key: string; value?: string }>) => ({ id: `id-${name}`, name, tags });
  it('sees the services with every listed tag, or the listed names or ids', () => {
    expect(inScope(DEV.services, service('sandbox', [{ key: 'env', value: 'dev' }]))).toBe(true);
    expect(inScope(DEV.services, service('orders', [{ key: 'env', value: 'prod' }]))).toBe(false);
    expect(inScope(DEV.services, service('untagged', []))).toBe(false);
    expect(inScope({ tags: { env: '*' } }, service('any', [{ key: 'env', value: 'x' }]))).toBe(true);
    expect(inScope({ names: ['orders'] }, service('orders', []))).toBe(true);
    expect(inScope({ names: ['id-orders'] }, service('orders', []))).toBe(true);
    expect(inScope({ names: ['orders'] }, service('orders-2', []))).toBe(false);
    expect(inScope(undefined, service('any', []))).toBe(true);
  });
});
