import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE, ACTION_CANCEL, ACTION_REJECT } from '../../src/core/render/change.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import {
  answerText,
  CHANNEL,
  requestChange,
  startHarness,
  textOf,
  useHarnesses,
  USERS,
  type Harness,
} from './harness.js';

const harness = useHarnesses();

const patches = (h: Harness) => h.simulator.requests.filter((r) => r.method === 'PATCH');
const reply = answerText;

async function outcomeUpdate(h: Harness, id: string, word: string) {
  return h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes(word));
}

describe('change requests approved in the channel', () => {
  it('posts a request with before -> after, warnings and buttons, and applies it once on approval', async () => {
    const h = await harness();
    const { id, posted } = await requestChange(h, 'ip add orders-prod 0.0.0.0/0 partner test');
    const blocks = textOf(posted.args.blocks);
    expect(posted.args.channel).toBe(CHANNEL);
    // An entry added shows as + (issue 41), the service's name linked to its console page.
    expect(blocks).toContain('*IP access*: + `0.0.0.0/0 (partner test)`');
    expect(blocks).toContain(`*<https://console.clickhouse.cloud/services/${DEMO_IDS.ordersProd}|orders-prod>*`);
    expect(blocks).toContain('whole internet');
    expect(blocks).toMatch(/Approve[\s\S]*Reject[\s\S]*Cancel/);
    expect(patches(h)).toHaveLength(0);

    const click = await h.click(ACTION_APPROVE, id, USERS.approver);
    expect(click.status).toBe(200);
    const applied = await outcomeUpdate(h, id, 'Applied');
    expect(textOf(applied.args.blocks)).toContain(`<@${USERS.approver}>`);
    expect(textOf(applied.args.blocks)).toMatch(/request id `[0-9a-f-]{36}`/);
    const actionsLeft = (applied.args.blocks as Array<{ type: string }>).filter((b) => b.type === 'actions');
    expect(JSON.stringify(actionsLeft)).not.toMatch(/change_approve|change_reject|change_cancel/);
    expect(JSON.stringify(actionsLeft)).toContain('change_undo');
    const result = await h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes(`after change ${id}`));
    expect(textOf(result.args.blocks)).toContain('0.0.0.0/0');
    expect(patches(h)).toHaveLength(1);
    expect(patches(h)[0]?.body).toEqual({
      ipAccessList: { add: [{ source: '0.0.0.0/0', description: 'partner test' }] },
    });
    expect(h.simulator.service(DEMO_IDS.ordersProd)?.ipAccessList).toContainEqual({
      source: '0.0.0.0/0',
      description: 'partner test',
    });
  });

  it('refuses self-approval with a private explanation and changes nothing', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'rename orders-staging orders stage');
    const click = await h.click(ACTION_APPROVE, id, USERS.requester);
    expect(await reply(h, click)).toContain('someone else has to approve');
    expect(patches(h)).toHaveLength(0);
    expect((await h.bot.changeStore.get(id))?.status).toBe('pending');
  });

  it('allows self-approval when ALLOW_SELF_APPROVAL=true', async () => {
    const h = await harness({ env: { ALLOW_SELF_APPROVAL: 'true' } });
    const { id } = await requestChange(h, 'rename orders-staging orders stage');
    await h.click(ACTION_APPROVE, id, USERS.requester);
    await outcomeUpdate(h, id, 'Applied');
    expect(h.simulator.service(DEMO_IDS.ordersStaging)?.name).toBe('orders stage');
  });

  it('refuses people who are not APPROVERS, and accepts members of an approver user group', async () => {
    const h = await harness({ env: { APPROVERS: `${USERS.approver},S0DBAS` } });
    h.slack.userGroups.set('S0DBAS', [USERS.second]);
    const { id } = await requestChange(h, 'endpoint sandbox-dev mysql on');
    const outsider = await h.click(ACTION_APPROVE, id, USERS.outsider);
    expect(await reply(h, outsider)).toContain('not on this bot');
    expect(patches(h)).toHaveLength(0);
    await h.click(ACTION_APPROVE, id, USERS.second);
    await outcomeUpdate(h, id, 'Applied');
    expect(patches(h)).toHaveLength(1);
  });

  it('rejects and cancels without calling the API, and only the requester may cancel', async () => {
    const h = await harness();
    const first = await requestChange(h, 'release-channel orders-prod fast');
    const strangerCancel = await h.click(ACTION_CANCEL, first.id, USERS.approver);
    expect(await reply(h, strangerCancel)).toContain('Only the person who asked');
    await h.click(ACTION_REJECT, first.id, USERS.approver);
    await outcomeUpdate(h, first.id, 'Rejected');

    const second = await requestChange(h, 'release-channel orders-prod slow');
    await h.click(ACTION_CANCEL, second.id, USERS.requester);
    await outcomeUpdate(h, second.id, 'Cancelled');
    const late = await h.click(ACTION_APPROVE, second.id, USERS.approver);
    expect(await reply(h, late)).toContain('already settled');
    expect(patches(h)).toHaveLength(0);
  });

  it('applies exactly once when the approve button is clicked many times at once', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'rename sandbox-dev sandbox two');
    const clicks = await Promise.all(Array.from({ length: 10 }, () => h.click(ACTION_APPROVE, id, USERS.approver)));
    expect(clicks.every((c) => c.status === 200)).toBe(true);
    await outcomeUpdate(h, id, 'Applied');
    expect(patches(h)).toHaveLength(1);
  });

  it('applies exactly once when two replicas sharing Redis receive clicks at the same moment', async () => {
    const a = await harness();
    const b = await harness({ simulator: a.simulator, slack: a.slack, keyPrefix: a.keyPrefix });
    const { id } = await requestChange(a, 'ip remove orders-prod 198.51.100.7');
    await Promise.all([
      a.click(ACTION_APPROVE, id, USERS.approver),
      b.click(ACTION_APPROVE, id, USERS.second),
      a.click(ACTION_APPROVE, id, USERS.second),
    ]);
    await outcomeUpdate(a, id, 'Applied');
    expect(patches(a)).toHaveLength(1);
  });

  it('keeps pending requests across a restart of the bot', async () => {
    // Not from the pool: this bot stops mid-test, and its simulator and Slack live on.
    const first = await startHarness();
    const { id } = await requestChange(first, 'rename ml-dev ml development');
    const { simulator, slack, keyPrefix } = first;
    await first.bot.stop();
    const second = await harness({ simulator, slack, keyPrefix });
    await second.click(ACTION_APPROVE, id, USERS.approver);
    await outcomeUpdate(second, id, 'Applied');
    expect(simulator.service(DEMO_IDS.mlDev)?.name).toBe('ml development');
    await simulator.close();
    await slack.close();
  });

  it('refuses a stale request when the service changed since it was made', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'rename search-prod search');
    h.simulator.changeOutsideBot(DEMO_IDS.searchProd, { name: 'search-renamed-in-console' });
    await h.click(ACTION_APPROVE, id, USERS.approver);
    const update = await outcomeUpdate(h, id, 'Not applied');
    expect(textOf(update.args.blocks)).toContain('changed since this request was made');
    expect(patches(h)).toHaveLength(0);
    expect((await h.bot.changeStore.readAudit({ serviceId: DEMO_IDS.searchProd, limit: 5 }))[0]?.action).toBe('stale');
  });

  it('answers a click on an expired request clearly and marks it expired', async () => {
    let now = Date.now();
    const h = await harness({ clock: () => now });
    const { id } = await requestChange(h, 'rename metrics-prod metrics');
    now += 3601_000;
    const click = await h.click(ACTION_APPROVE, id, USERS.approver);
    expect(await reply(h, click)).toContain('expired');
    await outcomeUpdate(h, id, 'Expired');
    expect(patches(h)).toHaveLength(0);
  });

  it('shows an API error in the channel with status and requestId, and marks the request failed', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'rename billing-prod billing');
    h.simulator.faults.failNext(1, 403, { on: 'PATCH' });
    await h.click(ACTION_APPROVE, id, USERS.approver);
    const update = await outcomeUpdate(h, id, 'Not applied');
    expect(textOf(update.args.blocks)).toMatch(/not allowed[\s\S]*status 403[\s\S]*request id `[0-9a-f-]{36}`/);
    expect((await h.bot.changeStore.get(id))?.status).toBe('failed');
  });

  it('confirms an update whose answer was lost after it applied, by re-reading instead of replaying', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'endpoint billing-prod mysql off');
    h.simulator.faults.failNext(1, 500, { on: 'PATCH', afterApply: true });
    await h.click(ACTION_APPROVE, id, USERS.approver);
    const update = await outcomeUpdate(h, id, 'Applied');
    expect(textOf(update.args.blocks)).toContain('Confirmed by re-reading');
    expect(patches(h)).toHaveLength(1);
    expect(h.simulator.service(DEMO_IDS.billingProd)?.endpoints?.some((e) => e.protocol === 'mysql')).toBe(false);
  });

  it('reports a dropped update that did not apply as not applied, without replaying it', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'endpoint billing-prod mysql off');
    h.simulator.faults.dropNext(1, { on: 'PATCH' });
    await h.click(ACTION_APPROVE, id, USERS.approver);
    const update = await outcomeUpdate(h, id, 'Not applied');
    expect(textOf(update.args.blocks)).toContain('does not show it');
    expect(patches(h)).toHaveLength(1);
  });

  it('lists the pending requests of the channel and the audit history', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'rename legacy-reporting legacy');
    const pending = await h.command('pending');
    expect(await reply(h, pending)).toContain(id);
    await h.click(ACTION_REJECT, id, USERS.approver);
    await outcomeUpdate(h, id, 'Rejected');
    const history = await h.command('history legacy-reporting');
    const text = await reply(h, history);
    expect(text).toContain('rejected');
    expect(text).toContain('requested');
  });

  it('does not create a request the channel cannot see', async () => {
    const h = await harness();
    h.slack.failingChannels.set(CHANNEL, 'not_in_channel');
    const ack = await h.command('rename ml-dev ml');
    expect(await reply(h, ack)).toContain('/invite');
    expect(await h.bot.changeStore.listPending(CHANNEL, Date.now())).toHaveLength(0);
  });
});

describe('every direct change command, approved, sends exactly its PATCH body', () => {
  const harnessForCommands = useHarnesses();
  it.each([
    ['rename orders-staging "orders stage"', DEMO_IDS.ordersStaging, { name: 'orders stage' }],
    [
      'ip add sandbox-dev 192.0.2.0/24 lab network',
      DEMO_IDS.sandboxDev,
      { ipAccessList: { add: [{ source: '192.0.2.0/24', description: 'lab network' }] } },
    ],
    [
      'ip remove sandbox-dev 203.0.113.0/24',
      DEMO_IDS.sandboxDev,
      { ipAccessList: { remove: [{ source: '203.0.113.0/24' }] } },
    ],
    ['endpoint sandbox-dev mysql on', DEMO_IDS.sandboxDev, { endpoints: [{ protocol: 'mysql', enabled: true }] }],
    ['release-channel orders-prod fast', DEMO_IDS.ordersProd, { releaseChannel: 'fast' }],
    [
      'private-endpoint attach search-prod pe-azure-search-eastus2-a',
      DEMO_IDS.searchProd,
      { privateEndpointIds: { add: ['pe-azure-search-eastus2-a'] } },
    ],
    [
      'private-endpoint detach metrics-prod vpce-0a1b2c3d4e5f60001',
      DEMO_IDS.metricsProd,
      { privateEndpointIds: { remove: ['vpce-0a1b2c3d4e5f60001'] } },
    ],
    [
      'rotate-key orders-prod tde-key-2026-11',
      DEMO_IDS.ordersProd,
      { transparentDataEncryptionKeyId: 'tde-key-2026-11' },
    ],
    // A dedicated tier and a record without a tier may switch channels, as the Terraform provider allows.
    ['release-channel search-prod slow', DEMO_IDS.searchProd, { releaseChannel: 'slow' }],
    ['release-channel ml-dev fast', DEMO_IDS.mlDev, { releaseChannel: 'fast' }],
    [
      'tag add orders-prod owner=payments tier.critical',
      DEMO_IDS.ordersProd,
      { tags: { add: [{ key: 'owner', value: 'payments' }, { key: 'tier.critical' }] } },
    ],
    [
      'tag add orders-prod team=platform',
      DEMO_IDS.ordersProd,
      { tags: { remove: [{ key: 'team', value: 'data' }], add: [{ key: 'team', value: 'platform' }] } },
    ],
    [
      'tag remove legacy-reporting keep migration=phase.2',
      DEMO_IDS.legacyReporting,
      { tags: { remove: [{ key: 'keep' }, { key: 'migration', value: 'phase.2' }] } },
    ],
  ])('%s', async (text, serviceId, body) => {
    const h = await harnessForCommands();
    const { id } = await requestChange(h, text);
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await outcomeUpdate(h, id, 'Applied');
    expect(patches(h)).toHaveLength(1);
    expect(patches(h)[0]?.path).toContain(serviceId);
    expect(patches(h)[0]?.body).toEqual(body);
  });
});
