/**
 * Webhook bodies are signed like GitHub's webhooks: `X-Signature-256: sha256=<hex HMAC-SHA256 of
 * the raw body>` with AUDIT_WEBHOOK_SECRET. docs/audit-export.md shows the receiver's side; the
 * verify function below is the same code, kept here so the tests prove the documented method.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Signature-256';

export function signBody(rawBody: string | Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/** True when the header is the body's signature with this secret; compared in constant time. */
export function verifySignature(rawBody: string | Buffer, header: string | undefined, secret: string): boolean {
  const expected = Buffer.from(signBody(rawBody, secret));
  const given = Buffer.from(header ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
