/**
 * `PATCH …/services/{serviceId}/password` (official OpenAPI document, `ServicePasswordPatchRequest`
 * and `ServicePasswordPatchResponse`), as a pure function. With `newPasswordHash` (base64 of the
 * password's SHA-256) that hash becomes the password and nothing comes back; without it a password
 * is generated and returned once. `newDoubleSha1Hash` (for the MySQL protocol) only counts next to
 * `newPasswordHash`.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { validate } from './capacity.js';
import { generatedPassword } from './create.js';
import type { Outcome } from './records.js';

const SHA256_BYTES = 32;

/** Not documented: how the API checks the hashes; these accept exactly what the documented algorithms yield. */
const PasswordBodySchema = z.strictObject({
  newPasswordHash: z
    .string({ error: 'must be string' })
    .refine((hash) => /^[A-Za-z0-9+/]+={0,2}$/.test(hash) && Buffer.from(hash, 'base64').length === SHA256_BYTES, {
      error: 'must be the base64 encoding of a SHA-256 digest (32 bytes)',
    })
    .optional(),
  newDoubleSha1Hash: z
    .string({ error: 'must be string' })
    .regex(/^[0-9a-fA-F]{40}$/, { error: 'must be a SHA-1 digest in hex (40 characters)' })
    .optional(),
});

export interface PasswordChange {
  /** What the service now checks passwords against (base64 SHA-256). */
  passwordHash: string;
  /** The MySQL protocol's double SHA-1, when one was sent with newPasswordHash. */
  doubleSha1Hash?: string;
  /** Only when the API generated the password: the response carries it, once. */
  generated?: string;
}

/** The documented algorithm: base64 of the raw SHA-256 digest of the password. */
export const passwordHashOf = (password: string): string => createHash('sha256').update(password).digest('base64');

/** The change a PATCH body asks for, or the API's 400 sentence. */
export function changePassword(body: unknown): Outcome<PasswordChange> {
  const parsed = validate(PasswordBodySchema, body ?? {});
  if (!parsed.ok) return parsed;
  const { newPasswordHash, newDoubleSha1Hash } = parsed.value;
  if (newPasswordHash === undefined) {
    // The document: newDoubleSha1Hash "will be ignored and the generated password will be used".
    const generated = generatedPassword();
    return { ok: true, value: { passwordHash: passwordHashOf(generated), generated } };
  }
  return {
    ok: true,
    value: {
      passwordHash: newPasswordHash,
      ...(newDoubleSha1Hash === undefined ? {} : { doubleSha1Hash: newDoubleSha1Hash.toLowerCase() }),
    },
  };
}
