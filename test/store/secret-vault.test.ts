/**
 * The secret vault (issue 37's Reveal): the same contract in memory and over Redis, and what only
 * Redis must keep: the value sealed with AES-256-GCM, never in clear, gone once revealed or expired.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { SecretVault } from '../../src/ports/secret-vault.js';
import { SecretCipher, secretsKeyBytes } from '../../src/store/secret-cipher.js';
import { MemorySecretVault } from '../../src/store/memory/secret-vault.js';
import { RedisSecretVault } from '../../src/store/redis/secret-vault.js';
import { REDIS_URL, deleteKeysWithPrefix, keysWithPrefix, randomKeyPrefix } from '../support/redis.js';

const T0 = Date.parse('2026-11-28T12:00:00Z');
const MINUTES_15 = 15 * 60_000;
const PASSWORD = 'Xy7_secret-password~a1b2';
const ALICE = 'U0ALICE';
const keep = (vault: SecretVault, value = PASSWORD) =>
  vault.keep({ ownerId: ALICE, value, label: 'the default password of orders-restored' }, T0, T0 + MINUTES_15);

const redis = new Redis(REDIS_URL);
const prefixes: string[] = [];
afterAll(async () => {
  await Promise.all(prefixes.map((prefix) => deleteKeysWithPrefix(prefix)));
  redis.disconnect();
});

function redisVault(): { vault: RedisSecretVault; prefix: string } {
  const prefix = randomKeyPrefix();
  prefixes.push(prefix);
  return { vault: new RedisSecretVault(redis, new SecretCipher(randomBytes(32)), { keyPrefix: prefix }), prefix };
}

const vaults: Array<[string, () => SecretVault]> = [
  ['memory', () => new MemorySecretVault()],
  ['redis', () => redisVault().vault],
];

describe.each(vaults)('SecretVault contract (%s)', (_name, open) => {
  it('reveals the secret to its owner once; a second click is told it was revealed', async () => {
    const vault = open();
    const id = await keep(vault);
    expect(await vault.reveal(id, ALICE, T0 + 1_000)).toStrictEqual({
      kind: 'revealed',
      value: PASSWORD,
      label: 'the default password of orders-restored',
    });
    expect(await vault.reveal(id, ALICE, T0 + 2_000)).toMatchObject({ kind: 'already-revealed', at: T0 + 1_000 });
  });

  it('refuses anyone but the owner, and still reveals it to the owner after', async () => {
    const vault = open();
    const id = await keep(vault);
    expect(await vault.reveal(id, 'U0MALLORY', T0)).toMatchObject({ kind: 'not-yours', ownerId: ALICE });
    expect(await vault.reveal(id, ALICE, T0)).toMatchObject({ kind: 'revealed', value: PASSWORD });
  });

  it('says a secret past its time expired, and an id it never kept is unknown', async () => {
    const vault = open();
    const id = await keep(vault);
    expect(await vault.reveal(id, ALICE, T0 + MINUTES_15)).toMatchObject({
      kind: 'expired',
      expiredAt: T0 + MINUTES_15,
    });
    expect(await vault.reveal('sec-000000000000000000000000', ALICE, T0)).toStrictEqual({ kind: 'unknown' });
    expect(await vault.reveal("sec-x' or 1=1", ALICE, T0)).toStrictEqual({ kind: 'unknown' });
  });

  it('hands the value out once when the owner clicks twice at the same moment', async () => {
    const vault = open();
    const id = await keep(vault);
    const outcomes = await Promise.all(Array.from({ length: 8 }, () => vault.reveal(id, ALICE, T0)));
    expect(outcomes.filter((outcome) => outcome.kind === 'revealed')).toHaveLength(1);
  });
});

describe('RedisSecretVault only', () => {
  it('never holds the value in clear, expires the sealed value with the secret, and deletes it on reveal', async () => {
    const { vault, prefix } = redisVault();
    const id = await keep(vault);
    const keys = await keysWithPrefix(redis, prefix);
    expect(keys).toHaveLength(2);
    for (const key of keys) {
      const type = await redis.type(key);
      const value = type === 'hash' ? JSON.stringify(await redis.hgetall(key)) : ((await redis.get(key)) ?? '');
      expect(value).not.toContain(PASSWORD);
      expect(Buffer.from(value, 'base64').toString('latin1')).not.toContain(PASSWORD);
      expect(key).toContain(`{${id}}`);
    }
    const sealedKey = keys.find((key) => key.endsWith(':sealed')) ?? '';
    const ttl = await redis.pttl(sealedKey);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(MINUTES_15);
    await vault.reveal(id, ALICE, T0 + 1);
    expect(await redis.exists(sealedKey)).toBe(0);
  });

  it('does not open a value sealed under another key (a stolen Redis dump is useless)', async () => {
    const prefix = randomKeyPrefix();
    prefixes.push(prefix);
    const id = await new RedisSecretVault(redis, new SecretCipher(randomBytes(32)), { keyPrefix: prefix }).keep(
      { ownerId: ALICE, value: PASSWORD, label: 'x' },
      T0,
      T0 + MINUTES_15,
    );
    const other = new RedisSecretVault(redis, new SecretCipher(randomBytes(32)), { keyPrefix: prefix });
    await expect(other.reveal(id, ALICE, T0)).rejects.toThrow();
  });
});

describe('SecretCipher', () => {
  it('opens what it sealed only for the same binding, and refuses a tampered value', () => {
    const cipher = new SecretCipher(randomBytes(32));
    const sealed = cipher.seal(PASSWORD, 'sec-1:U0ALICE');
    expect(cipher.open(sealed, 'sec-1:U0ALICE')).toBe(PASSWORD);
    expect(() => cipher.open(sealed, 'sec-1:U0MALLORY')).toThrow();
    const bytes = Buffer.from(sealed, 'base64');
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
    expect(() => cipher.open(bytes.toString('base64'), 'sec-1:U0ALICE')).toThrow();
  });

  it('reads SECRETS_KEY as 64 hex characters or the base64 of 32 bytes, and nothing else', () => {
    const key = randomBytes(32);
    expect(secretsKeyBytes(key.toString('hex'))).toStrictEqual(key);
    expect(secretsKeyBytes(key.toString('base64'))).toStrictEqual(key);
    expect(secretsKeyBytes('too-short')).toBeUndefined();
    expect(secretsKeyBytes(randomBytes(16).toString('hex'))).toBeUndefined();
  });
});
