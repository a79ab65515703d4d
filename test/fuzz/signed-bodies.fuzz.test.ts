/**
 * Signed bodies of every JSON type, as JSON, as a form's `payload` and as form fields: whatever a
 * holder of the signing secret (or a Slack change) sends, the acknowledging thread answers it
 * (400 for what is not an object of fields) and keeps serving on the same thread, and the App
 * behind it never sees anything but an object.
 */
import fc from 'fast-check';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slackSignatureHeaders } from '../../src/playground/signing.js';
import { SECRET, startThread, type RunningThread } from '../support/ack-thread.js';

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

let thread: RunningThread;
const seen: unknown[] = [];
const handled: string[] = [];

beforeAll(async () => {
  thread = await startThread((app) => {
    app.use(async ({ body, next }) => {
      seen.push(body);
      await next();
    });
    app.command('/clickhouse', async ({ ack, command }) => {
      await ack();
      handled.push(command.text);
    });
  });
});
afterAll(async () => thread.receiver.stop());

async function signedPost(body: string, contentType: string): Promise<number> {
  const answer = await request(`http://127.0.0.1:${thread.port}/slack/events`, {
    method: 'POST',
    body,
    headers: { 'content-type': contentType, ...slackSignatureHeaders(body, SECRET) },
  });
  await answer.body.dump();
  return answer.statusCode;
}

const isFields = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every JSON type, and objects shaped almost like Slack's. */
const EVERY_TYPE: unknown[] = [
  null,
  0,
  -1.5,
  1e308,
  '',
  'text',
  'null',
  true,
  false,
  [],
  [null],
  [1, 'two', { three: 3 }],
  {},
  { type: null },
  { type: 'block_actions', actions: null, user: 5 },
  { type: 'block_actions', actions: [null, 1, 'x'], response_url: 42 },
  { type: 'url_verification', challenge: { nested: true } },
  { ssl_check: 1 },
  { command: 5, text: null },
  { __proto__: null, constructor: 'x' },
];

/** The three ways one value can reach the thread. */
function bodiesOf(value: unknown): Array<{ body: string; contentType: string; fields: boolean }> {
  const json = JSON.stringify(value) ?? 'null';
  const forms = [
    { body: json, contentType: JSON_TYPE, fields: isFields(value) },
    { body: new URLSearchParams({ payload: json }).toString(), contentType: FORM, fields: isFields(value) },
  ];
  if (isFields(value)) {
    const form = new URLSearchParams();
    for (const [name, field] of Object.entries(value as object)) form.append(name, JSON.stringify(field) ?? '');
    forms.push({ body: form.toString(), contentType: FORM, fields: true });
  }
  return forms;
}

describe('signed bodies of every JSON type', () => {
  it('answers each listed shape (400 for what is not an object) without losing the thread', async () => {
    const serving = thread.receiver.serving;
    for (const value of EVERY_TYPE)
      for (const { body, contentType, fields } of bodiesOf(value)) {
        const status = await signedPost(body, contentType);
        if (fields) expect(status, body).toBeLessThan(600);
        else expect(status, body).toBe(400);
      }
    expect(thread.receiver.serving).toBe(serving);
  });

  it('answers random JSON values of every type, and still serves a command afterwards', async () => {
    const serving = thread.receiver.serving;
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (value) => {
        for (const { body, contentType, fields } of bodiesOf(value)) {
          const status = await signedPost(body, contentType);
          if (!fields && status !== 400) return false;
        }
        return true;
      }),
      { numRuns: 300, seed: 23 },
    );
    expect(thread.receiver.serving).toBe(serving);
    expect(seen.every(isFields)).toBe(true);
    const body = new URLSearchParams({ command: '/clickhouse', text: 'after the fuzz', user_id: 'U1' }).toString();
    expect(await signedPost(body, FORM)).toBe(200);
    await expect.poll(() => handled).toContain('after the fuzz');
  });
});
