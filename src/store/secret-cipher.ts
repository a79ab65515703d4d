/**
 * AES-256-GCM for secrets kept in Redis (node:crypto): a fresh 12-byte IV per secret, the 16-byte
 * tag checked on opening, and the secret's id and owner bound in as additional data, so that a
 * sealed value moved to another id or owner does not open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretCipher {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new RangeError('an AES-256 key is 32 bytes');
  }

  /** base64 of IV, tag and ciphertext. */
  seal(plaintext: string, boundTo: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(boundTo, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  /** The plaintext; throws when the value was tampered with, bound to something else, or sealed with another key. */
  open(sealed: string, boundTo: string): string {
    const bytes = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(boundTo, 'utf8'));
    decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }
}

/** SECRETS_KEY as written: 64 hex characters or the base64 of 32 bytes; undefined when it is neither. */
export function secretsKeyBytes(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (/^[0-9a-f]{64}$/i.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/]{43}=$/.test(trimmed)) return Buffer.from(trimmed, 'base64');
  return undefined;
}
