/**
 * A modal's private_metadata comes back in its view_submission, which the submitter's client
 * sends: whatever the bot put there (the channel a form was opened in, the request it decides, the
 * rules it asks for) would otherwise be taken on the submitter's word. Every view the bot opens
 * carries its metadata sealed with an HMAC keyed from the bot token (the same on every replica,
 * and across restarts); a submission whose metadata is not sealed by this bot is "not ours".
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { View } from '../core/render/mrkdwn.js';

/** The field the seal travels in, inside the metadata's own JSON object (which stays readable). */
const SEAL_FIELD = 'seal';

export interface MetadataSeal {
  /** The view with its private_metadata sealed (a view without any is returned as it is). */
  seal(view: View): View;
  /** The metadata as the bot wrote it, or undefined when the seal is missing or does not match. */
  open(privateMetadata: string): string | undefined;
}

export function metadataSeal(botToken: string): MetadataSeal {
  const key = createHmac('sha256', botToken).update('clickhouse-bot view private_metadata').digest();
  // 128 bits of HMAC-SHA256: the metadata stays well under Slack's 3,000 characters.
  const macOf = (text: string) => createHmac('sha256', key).update(text).digest().subarray(0, 16);
  return {
    seal(view) {
      const text = view.private_metadata;
      const object = text === undefined ? undefined : objectOf(text);
      if (!text || !object) return view;
      return {
        ...view,
        private_metadata: JSON.stringify({ ...object, [SEAL_FIELD]: macOf(text).toString('base64url') }),
      };
    },
    open(privateMetadata) {
      const object = objectOf(privateMetadata);
      const seal = object?.[SEAL_FIELD];
      if (!object || typeof seal !== 'string') return undefined;
      const { [SEAL_FIELD]: _seal, ...rest } = object;
      const text = JSON.stringify(rest);
      const given = Buffer.from(seal, 'base64url');
      const expected = macOf(text);
      return given.length === expected.length && timingSafeEqual(given, expected) ? text : undefined;
    },
  };
}

function objectOf(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
