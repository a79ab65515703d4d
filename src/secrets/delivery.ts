/**
 * Hands a secret to one person (issue 37's Reveal, reused by password resets): kept in the vault
 * for 15 minutes, offered by DM with a Reveal button, shown once in a modal. Nothing here logs,
 * posts or stores the value anywhere else.
 */
import { revealOfferBlocks, revealRefusalText } from '../core/render/secrets.js';
import type { Log } from '../ports/log.js';
import type { Messenger } from '../ports/messenger.js';
import type { RevealAnswer, SecretDeliveryService, SecretToKeep, SecretVault } from '../ports/secret-vault.js';
import { sealedHashesOf } from '../core/change/kinds/password.js';
import { FINAL_STATUSES, type ChangeRequest } from '../core/change/types.js';

/**
 * A settled request (applied, failed, rejected, cancelled, expired) no longer needs what it kept
 * sealed (the hashes of a with-hash reset): taken out of the vault, so that it is dropped now
 * rather than when it would expire. Applying already took it; taking again is a no-op.
 */
export async function dropSealedOnceSettled(
  secrets: Pick<SecretDeliveryService, 'take'>,
  request: ChangeRequest,
): Promise<void> {
  const sealed = sealedHashesOf(request.plan);
  if (sealed === undefined || !FINAL_STATUSES.includes(request.status)) return;
  await secrets.take(sealed, request.requesterId).catch(() => undefined);
}

/** How long a secret waits to be revealed. */
export const SECRET_TTL_MS = 15 * 60_000;

export interface SecretDeliveryOptions {
  vault: SecretVault;
  messenger: Pick<Messenger, 'dm'>;
  logger: Pick<Log, 'warn'>;
  now: () => number;
}

export class SecretDelivery implements SecretDeliveryService {
  constructor(private readonly options: SecretDeliveryOptions) {}

  async deliver(secret: SecretToKeep): Promise<{ delivered: boolean; expiresAt: number }> {
    const now = this.options.now();
    const expiresAt = now + SECRET_TTL_MS;
    const id = await this.options.vault.keep(secret, now, expiresAt);
    try {
      await this.options.messenger.dm(secret.ownerId, {
        text: `${secret.label} is ready for you to reveal`,
        blocks: revealOfferBlocks(id, secret.label, expiresAt),
      });
      return { delivered: true, expiresAt };
    } catch (error) {
      // The value is not in the error: only what Slack said of the DM.
      this.options.logger.warn(`could not DM ${secret.ownerId} the Reveal button of ${secret.label}: ${String(error)}`);
      return { delivered: false, expiresAt };
    }
  }

  seal(secret: SecretToKeep, holdMs: number): Promise<string> {
    const now = this.options.now();
    return this.options.vault.keep(secret, now, now + holdMs);
  }

  async take(secretId: string, ownerId: string): Promise<string | undefined> {
    const outcome = await this.options.vault.reveal(secretId, ownerId, this.options.now());
    return outcome.kind === 'revealed' ? outcome.value : undefined;
  }

  async reveal(secretId: string, userId: string): Promise<RevealAnswer> {
    const outcome = await this.options.vault.reveal(secretId, userId, this.options.now());
    if (outcome.kind === 'revealed') return { kind: 'show', label: outcome.label, value: outcome.value };
    return { kind: 'refuse', text: revealRefusalText(outcome) };
  }
}
