/** The pure parts of issue 39's kinds: keys named as people know them, the endpoint's plan and revert, the hashes' shape. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseApiKeys } from '../../../src/core/access/api-key.js';
import { resolveQueryKeys } from '../../../src/core/change/kinds/query-endpoint.js';
import { checkHashes, hashesOf, hashesText } from '../../../src/core/change/kinds/password.js';
import { planChange } from '../../../src/core/change/plan.js';
import { planRevert, planUndo } from '../../../src/core/change/temporary.js';
import type { ChangeIntent } from '../../../src/core/change/types.js';
import { ServiceRecordSchema } from '../../../src/core/service/schema.js';

const keys = parseApiKeys([
  { id: 'k-1111', name: 'dash', state: 'enabled', keySuffix: 'AAAA' },
  { id: 'k-2222', name: 'twin', state: 'enabled', keySuffix: 'BBBB' },
  { id: 'k-3333', name: 'twin', state: 'enabled', keySuffix: 'CCCC' },
  { id: 'k-4444', name: 'old', state: 'disabled', keySuffix: 'DDDD' },
]).keys;

const on = (...asked: string[]): ChangeIntent => ({
  queryEndpoint: { on: true, roles: ['sql_console_read_only'], keys: asked.map((a) => ({ asked: a })), origins: '' },
});

const service = (endpoint: unknown) => ({
  ...ServiceRecordSchema.parse({ id: 'svc-1', name: 'orders' }),
  parts: { serviceQueryEndpoint: endpoint as never },
});

describe('resolveQueryKeys', () => {
  it('finds a key by name, id or … and its last four, case-insensitively by name', () => {
    const resolved = resolveQueryKeys(on('DASH', 'k-2222', '…CCCC'), keys);
    expect(resolved.ok && resolved.intent.queryEndpoint?.on && resolved.intent.queryEndpoint.keys).toStrictEqual([
      { asked: 'DASH', id: 'k-1111', label: 'dash …AAAA' },
      { asked: 'k-2222', id: 'k-2222', label: 'twin …BBBB' },
      { asked: '…CCCC', id: 'k-3333', label: 'twin …CCCC' },
    ]);
  });

  it('refuses an unknown, a disabled and an ambiguous key, naming the candidates', () => {
    const text = (intent: ChangeIntent) => {
      const resolved = resolveQueryKeys(intent, keys);
      return resolved.ok ? '' : resolved.text;
    };
    expect(text(on('nope'))).toMatch(/No API key is called "nope".*dash …AAAA.*twin …BBBB/);
    expect(text(on('nope'))).not.toContain('old');
    expect(text(on('old'))).toContain('is disabled');
    expect(text(on('twin'))).toMatch(/names 2 API keys: twin …BBBB, twin …CCCC/);
  });
});

describe('the Query API endpoint plan', () => {
  const before = { id: 'qe', roles: ['sql_console_admin'], openApiKeys: ['k-2222'], allowedOrigins: 'a.example.com' };

  it('puts back exactly the roles, keys and origins it replaced, and off when it was off', () => {
    const resolved = resolveQueryKeys(on('dash'), keys);
    if (!resolved.ok) throw new Error(resolved.text);
    const planned = planChange(service(before), resolved.intent);
    if (!planned.ok) throw new Error(JSON.stringify(planned.problems));
    expect(planned.plan.operations).toStrictEqual([
      {
        endpoint: 'part',
        part: 'serviceQueryEndpoint',
        body: { roles: ['sql_console_read_only'], openApiKeys: ['k-1111'], allowedOrigins: '' },
      },
    ]);
    const asLeft = service({ id: 'qe', roles: ['sql_console_read_only'], openApiKeys: ['k-1111'], allowedOrigins: '' });
    expect(planRevert(planned.plan, asLeft).intent).toStrictEqual({
      queryEndpoint: {
        on: true,
        roles: ['sql_console_admin'],
        keys: [{ asked: 'k-2222', id: 'k-2222' }],
        origins: 'a.example.com',
      },
    });
    // Changed since: left alone, and said so.
    const moved = planUndo(planned.plan, service({ ...before, openApiKeys: ['k-3333'] }));
    expect(moved.intent).toStrictEqual({});
    expect(moved.leftAlone.join(' ')).toContain('changed since');
    const fromOff = planChange(service(null), resolved.intent);
    if (!fromOff.ok) throw new Error('planned');
    expect(planRevert(fromOff.plan, asLeft).intent).toStrictEqual({ queryEndpoint: { on: false } });
  });

  it('refuses to plan keys that were never looked up, and a change to nothing', () => {
    const unresolved = planChange(service(null), on('dash'));
    expect(unresolved.ok ? [] : unresolved.problems.map((p) => p.message)).toStrictEqual([
      'The API keys could not be looked up: ask again.',
    ]);
    const off = planChange(service(null), { queryEndpoint: { on: false } });
    expect(off.ok ? [] : off.problems.map((p) => p.message)).toStrictEqual(['The Query API endpoint is already off.']);
  });
});

describe('password hashes', () => {
  const sha256 = createHash('sha256').update('pw').digest('base64');
  const sha1 = createHash('sha1').update(createHash('sha1').update('pw').digest()).digest('hex');

  it('accepts what the documented commands yield, and round-trips through the vault text', () => {
    const checked = checkHashes(` ${sha256} `, sha1.toUpperCase());
    expect(checked).toStrictEqual({ ok: true, hashes: { passwordHash: sha256, doubleSha1Hash: sha1 } });
    if (checked.ok) expect(hashesOf(hashesText(checked.hashes))).toStrictEqual(checked.hashes);
    expect(checkHashes(sha256, '')).toStrictEqual({ ok: true, hashes: { passwordHash: sha256 } });
  });

  it('refuses other shapes, each under its field', () => {
    const hex = createHash('sha256').update('pw').digest('hex');
    const wrong = checkHashes(hex, 'abc');
    expect(wrong.ok ? {} : Object.keys(wrong.problems)).toStrictEqual(['password_hash', 'double_sha1']);
    expect(checkHashes(createHash('sha1').update('pw').digest('base64'), '').ok).toBe(false);
    expect(hashesOf('{"passwordHash":"x"}')).toBeUndefined();
    expect(hashesOf('not json')).toBeUndefined();
  });
});
