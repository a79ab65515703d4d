/**
 * The vault over Redis: each secret sealed with AES-256-GCM (SECRETS_KEY) before it leaves the
 * process, so Redis, its backups and its replicas never hold it in clear. Two keys per secret, in
 * one hash slot (Cluster): the sealed value, which expires with the secret, and what is known of it
 * (owner, label, expiry, when it was revealed), kept a day longer so a late click is told why.
 * A reveal is one script: whoever runs it first gets the value, and it is gone.
 */
import type { RedisConnection } from './connection.js';
import { reportUnavailableAsStoreErrors } from './errors.js';
import type { CommandOf } from './lua-script.js';
import { REVEAL_SECRET } from './scripts.js';
import { DEFAULT_KEY_PREFIX } from './keys.js';
import { newSecretId } from '../memory/secret-vault.js';
import type { SecretCipher } from '../secret-cipher.js';
import {
  SECRET_REMEMBERED_MS,
  type RevealOutcome,
  type SecretToKeep,
  type SecretVault,
} from '../../ports/secret-vault.js';

export class RedisSecretVault implements SecretVault {
  private readonly prefix: string;
  private readonly revealScript: CommandOf<typeof REVEAL_SECRET>;

  constructor(
    private readonly redis: RedisConnection,
    private readonly cipher: SecretCipher,
    options: { keyPrefix?: string } = {},
  ) {
    this.prefix = options.keyPrefix ?? DEFAULT_KEY_PREFIX;
    this.revealScript = REVEAL_SECRET.on(redis);
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
    const reply = (await this.revealScript({
      keys: { meta, sealed },
      args: { userId, now: String(now), rememberedMs: SECRET_REMEMBERED_MS },
    })) as string[];
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
