// @ts-check
/**
 * A Slack request's body, parsed, never assumed: Slack posts slash commands form-encoded, clicks
 * and submissions form-encoded with a JSON `payload`, events as JSON. Whatever the shape, the
 * answer is an object of fields or a sentence saying why not (the thread answers 400); a body
 * such as `payload=null`, `[1]` or `"text"` is not a request the App can take.
 */
import { URLSearchParams } from 'node:url';

/**
 * @typedef {{ ok: true, body: Record<string, unknown> } | { ok: false, problem: string }} ParsedBody
 */

/** @param {unknown} value @returns {value is Record<string, unknown>} */
const isFields = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** @param {unknown} value */
const describe = (value) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`);

/**
 * @param {string} text
 * @param {string} what
 * @returns {ParsedBody}
 */
function parseJsonFields(text, what) {
  /** @type {unknown} */
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: `${what} is not JSON` };
  }
  return isFields(value)
    ? { ok: true, body: value }
    : { ok: false, problem: `${what} is ${describe(value)}, not an object` };
}

/**
 * @param {string} text the raw body, decoded as UTF-8
 * @param {string | undefined} contentType
 * @returns {ParsedBody}
 */
export function parseSlackBody(text, contentType) {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return parseJsonFields(text, 'the JSON body');
  const form = new URLSearchParams(text);
  const payload = form.get('payload');
  if (payload !== null) return parseJsonFields(payload, 'the payload field');
  /** @type {Record<string, unknown>} No prototype: a field named `__proto__` is a field like any other. */
  const fields = Object.create(null);
  for (const [name, value] of form) if (!Object.hasOwn(fields, name)) fields[name] = value;
  return { ok: true, body: fields };
}
