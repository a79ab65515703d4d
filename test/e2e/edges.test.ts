/**
 * Smaller wrongs found by trying the bot as a careless or hostile colleague would: approver
 * groups read at the moment of approval, Enterprise Grid user ids, a modal that renamed what
 * nobody renamed, a click that carries no response_url, and a notification text too long for Slack.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { BLOCK } from '../support/blocks.js';
import { DEMO_IDS, demoServices } from '../../src/simulator/seed.js';
import {
  answerText,
  CHANNEL,
  requestChange,
  signatureHeaders,
  textOf,
  useHarnesses,
  USERS,
  type Harness,
} from './harness.js';

const harness = useHarnesses();

const applied = (h: Harness, id: string) =>
  h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'));
const patches = (h: Harness) => h.simulator.requests.filter((r) => r.method === 'PATCH');

describe('approvers', () => {
  it('re-reads an approver group at the moment of approval: a member just removed cannot approve', async () => {
    const h = await harness({ env: { APPROVERS: 'S0DBAS' } });
    h.slack.userGroups.set('S0DBAS', [USERS.second]);
    const first = await requestChange(h, 'endpoint sandbox-dev mysql on');
    await h.click(ACTION_APPROVE, first.id, USERS.second);
    await applied(h, first.id);

    h.slack.userGroups.set('S0DBAS', []);
    const second = await requestChange(h, 'release-channel orders-prod fast');
    const refused = await answerText(h, await h.click(ACTION_APPROVE, second.id, USERS.second));
    expect(refused).toContain("You are not on this bot's list of approvers");
    expect(patches(h)).toHaveLength(1);
    expect((await h.bot.changeStore.get(second.id))?.status).toBe('pending');
  });

  it('lets members of a readable group approve when another approver group cannot be read', async () => {
    const h = await harness({ env: { APPROVERS: 'S0BROKEN,S0DBAS' } });
    h.slack.failingGroups.set('S0BROKEN', 'missing_scope');
    h.slack.userGroups.set('S0DBAS', [USERS.second]);
    const { id } = await requestChange(h, 'endpoint sandbox-dev mysql on');
    const outsider = await answerText(h, await h.click(ACTION_APPROVE, id, USERS.outsider));
    expect(outsider).toContain('could not check the approver group <!subteam^S0BROKEN> (Slack said: missing_scope)');
    await h.click(ACTION_APPROVE, id, USERS.second);
    await applied(h, id);
    expect(patches(h)).toHaveLength(1);
  });

  it('accepts Enterprise Grid user ids (W...) in APPROVERS', async () => {
    const h = await harness({ env: { APPROVERS: 'W0GRIDUSER' } });
    const { id } = await requestChange(h, 'endpoint sandbox-dev mysql on');
    await h.click(ACTION_APPROVE, id, 'W0GRIDUSER');
    await applied(h, id);
  });
});

describe('the edit modal', () => {
  it('sends no rename when the name has outer spaces and was left alone', async () => {
    const services = demoServices().map((s) => (s.id === DEMO_IDS.sandboxDev ? { ...s, name: ' sandbox dev ' } : s));
    const h = await harness({ services });
    await h.command(`edit ${DEMO_IDS.sandboxDev}`);
    const view = (await h.slack.waitFor('views.update')).args.view as Record<string, unknown>;
    // Slack sends the untouched field back as it was shown.
    await h.submitView(
      view,
      {
        [BLOCK.name]: { value: { type: 'plain_text_input', value: ' sandbox dev ' } },
        [BLOCK.mysql]: { value: { type: 'radio_buttons', selected_option: { value: 'on' } } },
      },
      USERS.requester,
    );
    const posted = await h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('Change request'));
    expect(textOf(posted.args.blocks)).toContain('MySQL endpoint');
    expect(textOf(posted.args.blocks)).not.toMatch(/Name/);
  });
});

describe('a click without response_url', () => {
  async function clickWithoutResponseUrl(h: Harness, value: string, user: string) {
    const payload = {
      type: 'block_actions',
      user: { id: user, username: user.toLowerCase(), team_id: 'T0TEAM' },
      api_app_id: 'A0APP',
      token: 'legacy-verification-token',
      container: { type: 'message', message_ts: '1700000000.000001', channel_id: CHANNEL, is_ephemeral: false },
      trigger_id: `${Date.now()}.${randomUUID()}`,
      team: { id: 'T0TEAM', domain: 'test' },
      channel: { id: CHANNEL, name: 'ops' },
      actions: [
        {
          action_id: ACTION_APPROVE,
          block_id: 'change_actions',
          value,
          type: 'button',
          action_ts: `${Date.now() / 1000}`,
        },
      ],
    };
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    return h.raw(body, {
      'content-type': 'application/x-www-form-urlencoded',
      ...signatureHeaders(body, Math.floor(Date.now() / 1000).toString()),
    });
  }

  it('answers the person privately in the channel, and still handles the click', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'endpoint sandbox-dev mysql on');
    const own = await clickWithoutResponseUrl(h, id, USERS.requester);
    expect(own.status).toBe(200);
    const told = await h.slack.waitFor('chat.postEphemeral', (a) => a.user === USERS.requester);
    expect(told.args.channel).toBe(CHANNEL);
    expect(String(told.args.text)).toContain('someone else has to approve');
    expect(h.logs.join('\n')).not.toContain('respond is not a function');

    await clickWithoutResponseUrl(h, id, USERS.approver);
    await applied(h, id);
  });
});

describe('message text', () => {
  it("keeps the notification text of a huge request below Slack's 40,000 characters, so it is posted", async () => {
    const entries = Array.from({ length: 1_000 }, (_, i) => ({
      source: `10.${i >> 8}.${i & 255}.0/24`,
      description: `network of team number ${i} in building`,
    }));
    const services = demoServices().map((s) => (s.id === DEMO_IDS.sandboxDev ? { ...s, ipAccessList: entries } : s));
    const h = await harness({ services });
    await h.command(`edit ${DEMO_IDS.sandboxDev}`);
    const view = (await h.slack.waitFor('views.update')).args.view as Record<string, unknown>;
    await h.submitView(
      view,
      {
        [BLOCK.ipRemove]: {
          value: { type: 'multi_static_select', selected_options: entries.map((e) => ({ value: e.source })) },
        },
      },
      USERS.requester,
    );
    const posted = await h.slack.waitFor('chat.postMessage', (a) => String(a.text).startsWith('Change request'));
    expect([...String(posted.args.text)].length).toBeLessThan(40_000);
    expect(String(posted.args.text)).toMatch(/…$/);
    expect(h.slack.callsOf('chat.postMessage', (a) => String(a.text).startsWith('Change request'))).toHaveLength(1);
    const id = /CR-[0-9A-F]{10}/.exec(String(posted.args.text))?.[0] ?? '';
    expect((await h.bot.changeStore.get(id))?.status).toBe('pending');
  });
});
