/**
 * The vault over Redis: each secret sealed with AES-256-GCM (SECRETS_KEY) before it leaves the
 * process, so Redis, its backups and its replicas never hold it in clear. Two keys per secret, in
 * one hash slot (Cluster): the sealed value, which expires with the secret, and what is known of it
 * (owner, label, expiry, when it was revealed), kept a day longer so a late click is told why.
 * A reveal is one script: whoever runs it first gets the value, and it is gone.
 */
import type { RedisConnection } from './connection.js';
import { reportUnavailableAsStoreErrors } from './errors.js';
import { DEFAULT_KEY_PREFIX } from './keys.js';
import { newSecretId } from '../memory/secret-vault.js';
import type { SecretCipher } from '../secret-cipher.js';
import {
  SECRET_REMEMBERED_MS,
  type RevealOutcome,
  type SecretToKeep,
  type SecretVault,
} from '../../ports/secret-vault.js';

/**
 * KEYS: meta, sealed. ARGV: userId, now. Returns {outcome, ...}: 'unknown'; 'already', revealedAt;
 * 'expired'; 'not-yours', owner; 'revealed', sealed. Label and expiry come from meta in every case.
 */
const REVEAL = `
local metaKey, sealedKey = KEYS[1], KEYS[2]
local userId, now = ARGV[1], tonumber(ARGV[2])
local owner, label, expiresAt, revealedAt = unpack(redis.call('HMGET', metaKey, 'owner', 'label', 'expiresAt', 'revealedAt'))
if not owner then return {'unknown'} end
if revealedAt then return {'already', label, expiresAt, revealedAt} end
local sealed = redis.call('GET', sealedKey)
if not sealed or now >= tonumber(expiresAt) then
  redis.call('DEL', sealedKey)
  return {'expired', label, expiresAt}
end
if owner ~= userId then return {'not-yours', label, expiresAt, owner} end
redis.call('DEL', sealedKey)
redis.call('HSET', metaKey, 'revealedAt', ARGV[2])
redis.call('PEXPIRE', metaKey, ${SECRET_REMEMBERED_MS})
return {'revealed', label, expiresAt, sealed}
`;

export class RedisSecretVault implements SecretVault {
  private readonly prefix: string;

  constructor(
    private readonly redis: RedisConnection,
    private readonly cipher: SecretCipher,
    options: { keyPrefix?: string } = {},
  ) {
    this.prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    // biome-ignore lint/correctness/noConstructorReturn: every method's Redis failures become the store's own
    return reportUnavailableAsStoreErrors(this);
  }

  async keep(secret: SecretToKeep, now: number, expiresAt: number): Promise<string> {
    const id = newSecretId();
    const { meta, sealed } = this.keysOf(id);
    const ttl = Math.max(1, expiresAt - now);
    await this.redis
      .multi()
      .set(sealed, this.cipher.seal(secret.value, boundTo(id, secret.ownerId)), 'PX', ttl)
      .hset(meta, { owner: secret.ownerId, label: secret.label, expiresAt: String(expiresAt) })
      .pexpire(meta, ttl + SECRET_REMEMBERED_MS)
      .exec();
    return id;
  }

  async reveal(id: string, userId: string, now: number): Promise<RevealOutcome> {
    const { meta, sealed } = this.keysOf(id);
    const reply = (await this.redis.eval(REVEAL, 2, meta, sealed, userId, String(now))) as string[];
    const [outcome, label = '', expiresAt = '0', extra = ''] = reply;
    switch (outcome) {
      case 'already':
        return { kind: 'already-revealed', label, at: Number(extra) };
      case 'expired':
        return { kind: 'expired', label, expiredAt: Number(expiresAt) };
      case 'not-yours':
        return { kind: 'not-yours', label, ownerId: extra };
      case 'revealed':
        return { kind: 'revealed', label, value: this.cipher.open(extra, boundTo(id, userId)) };
      default:
        return { kind: 'unknown' };
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private keysOf(id: string): { meta: string; sealed: string } {
    // Anything but the id's own alphabet could reach another key: such an id is simply unknown.
    const safe = /^sec-[0-9a-f]{24}$/.test(id) ? id : 'sec-invalid';
    return { meta: `${this.prefix}{${safe}}:secret`, sealed: `${this.prefix}{${safe}}:sealed` };
  }
}

const boundTo = (id: string, ownerId: string): string => `${id}:${ownerId}`;
