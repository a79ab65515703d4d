/**
 * What a listener passes to `ack()` is Slack's answer, whatever the listener: an external
 * select's options, a submission's `response_action`, a slash command's message. Over HTTP it is
 * the body of the response to Slack's request (issue 36: an acknowledging thread once answered
 * everything but submissions itself, with an empty body, and an options list never reached Slack).
 * No feature has an external select yet: its listener here is the test's own, registered after the
 * bot's listeners through the same composition (BotOverrides.extraListeners), so it runs behind the
 * bot's middleware and answers from the bot's own service directory. A submission's
 * `response_action: errors` in the response: commands.test.ts ("shows invalid input inline").
 */
import { describe, expect, it } from 'vitest';
import type { App } from '@slack/bolt';
import type { BotServices } from '../../src/commands/context.js';
import { USERS, signatureHeaders, useHarnesses, type Harness } from './harness.js';

const PICKER = 'service_picker';

/** An external select of the bot's services: the ones whose name contains what was typed. */
function servicePicker(app: App, services: BotServices): void {
  app.options(PICKER, async ({ options, ack }) => {
    const typed = options.value.toLowerCase();
    const list = await services.cloud.listServices([], { person: options.user.id });
    await ack({
      options: list.services
        .filter((service) => service.name.toLowerCase().includes(typed))
        .map((service) => ({ text: { type: 'plain_text' as const, text: service.name }, value: service.id })),
    });
  });
}

const harness = useHarnesses({ extraListeners: servicePicker });

/** A `block_suggestion` as Slack sends it when someone types into an external select of a modal. */
function suggestion(value: string): string {
  const payload = {
    type: 'block_suggestion',
    user: { id: USERS.requester, team_id: 'T0TEAM' },
    team: { id: 'T0TEAM', domain: 'test' },
    api_app_id: 'A0APP',
    token: 'legacy-verification-token',
    container: { type: 'view', view_id: 'V0PICKER' },
    action_id: PICKER,
    block_id: 'service_block',
    value,
    view: { id: 'V0PICKER', type: 'modal', callback_id: 'picker_form', private_metadata: '', state: { values: {} } },
  };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

async function suggest(h: Harness, value: string) {
  const body = suggestion(value);
  const timestamp = Math.floor(Date.now() / 1000).toString();
  return h.raw(body, { 'content-type': 'application/x-www-form-urlencoded', ...signatureHeaders(body, timestamp) });
}

describe("a listener's acknowledgement content reaches Slack", () => {
  it("answers an external select's block_suggestion with its options in the HTTP response", async () => {
    const h = await harness();
    const answer = await suggest(h, 'PROD');
    expect(answer.status).toBe(200);
    const body = JSON.parse(answer.body) as { options: Array<{ text: { text: string }; value: string }> };
    const names = body.options.map((option) => option.text.text);
    expect(names).toContain('orders-prod');
    expect(names).toContain('events-prod');
    expect(names.every((name) => name.includes('prod'))).toBe(true);
    expect(body.options.every((option) => option.value.length > 0)).toBe(true);
  });

  it('answers a suggestion that matches nothing with an empty list, not with silence', async () => {
    const h = await harness();
    const answer = await suggest(h, 'no-such-service');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ options: [] });
  });
});
