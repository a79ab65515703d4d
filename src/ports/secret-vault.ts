/**
 * Secrets the bot must hand to one person and nobody else (a restored service's password, a reset
 * password): kept until their owner reveals them once, or until they expire. The Redis vault keeps
 * them encrypted (AES-256-GCM, SECRETS_KEY); without a key they stay in this process's memory.
 */

export interface SecretToKeep {
  /** The only person who may reveal it (a Slack user id). */
  ownerId: string;
  value: string;
  /** What it is, for people ("the default password of orders-restored"); not secret. */
  label: string;
}

export type RevealOutcome =
  | { kind: 'revealed'; value: string; label: string }
  | { kind: 'not-yours'; ownerId: string; label: string }
  | { kind: 'already-revealed'; at: number; label: string }
  | { kind: 'expired'; label: string; expiredAt: number }
  /** Never kept here, or forgotten a day after it expired or was revealed. */
  | { kind: 'unknown' };

export interface SecretVault {
  /** Keeps a secret until `expiresAt` (epoch ms) or its reveal; returns its id. */
  keep(secret: SecretToKeep, now: number, expiresAt: number): Promise<string>;
  /** The secret, once, to its owner: the first reveal forgets it. */
  reveal(id: string, userId: string, now: number): Promise<RevealOutcome>;
  close(): Promise<void>;
}

/** How long the vault remembers that a secret was revealed or expired, to say so on a later click. */
export const SECRET_REMEMBERED_MS = 24 * 3_600_000;

/** What a Reveal click leads to: the secret's view, or a sentence saying why not. */
export type RevealAnswer = { kind: 'show'; label: string; value: string } | { kind: 'refuse'; text: string };

/** The middle layer's delivery of secrets to one person: a DM with Reveal, and the click's answer. */
export interface SecretDeliveryService {
  /** Keeps the secret for 15 minutes and DMs its owner the Reveal button; false when the DM failed. */
  deliver(secret: SecretToKeep): Promise<{ delivered: boolean; expiresAt: number }>;
  reveal(secretId: string, userId: string): Promise<RevealAnswer>;
  /**
   * Keeps a value the bot itself needs later (the hashes of a `reset-password … with-hash`, until
   * its request is applied) sealed like any secret, offered to nobody; `take` gets it back once.
   */
  seal(secret: SecretToKeep, holdMs: number): Promise<string>;
  /** The sealed value, once (it is forgotten), to its owner; undefined when expired, taken or unknown. */
  take(secretId: string, ownerId: string): Promise<string | undefined>;
}
