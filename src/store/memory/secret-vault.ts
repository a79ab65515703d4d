/** The vault in this process's memory (no SECRETS_KEY, or no Redis): lost when the process stops. */
import { randomBytes } from 'node:crypto';
import {
  SECRET_REMEMBERED_MS,
  type RevealOutcome,
  type SecretToKeep,
  type SecretVault,
} from '../../ports/secret-vault.js';

interface Kept extends SecretToKeep {
  expiresAt: number;
  revealedAt?: number;
}

export const newSecretId = (): string => `sec-${randomBytes(12).toString('hex')}`;

export class MemorySecretVault implements SecretVault {
  private readonly kept = new Map<string, Kept>();

  keep(secret: SecretToKeep, now: number, expiresAt: number): Promise<string> {
    this.forgetOld(now);
    const id = newSecretId();
    this.kept.set(id, { ...secret, expiresAt });
    return Promise.resolve(id);
  }

  reveal(id: string, userId: string, now: number): Promise<RevealOutcome> {
    this.forgetOld(now);
    const kept = this.kept.get(id);
    if (kept === undefined) return Promise.resolve({ kind: 'unknown' });
    const { label } = kept;
    if (kept.revealedAt !== undefined) return Promise.resolve({ kind: 'already-revealed', at: kept.revealedAt, label });
    if (now >= kept.expiresAt) return Promise.resolve({ kind: 'expired', label, expiredAt: kept.expiresAt });
    if (kept.ownerId !== userId) return Promise.resolve({ kind: 'not-yours', ownerId: kept.ownerId, label });
    // Forgotten at once; only the fact that it was revealed is remembered.
    this.kept.set(id, { ownerId: kept.ownerId, label, value: '', expiresAt: kept.expiresAt, revealedAt: now });
    return Promise.resolve({ kind: 'revealed', value: kept.value, label });
  }

  close(): Promise<void> {
    this.kept.clear();
    return Promise.resolve();
  }

  /** Expired values are dropped; what became of a secret is remembered for a day. */
  private forgetOld(now: number): void {
    for (const [id, kept] of this.kept) {
      if (now >= kept.expiresAt && kept.value !== '') kept.value = '';
      if (now >= (kept.revealedAt ?? kept.expiresAt) + SECRET_REMEMBERED_MS) this.kept.delete(id);
    }
  }
}
