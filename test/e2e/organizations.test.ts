/**
 * Organizations and channels end to end: the real bot over HTTP with real Redis and two Cloud API
 * simulators (two organizations, each with its own key), driven by an ORGANIZATIONS_FILE.
 */
import { randomUUID } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { BLOCK } from '../support/blocks.js';
import { ACTION_REVERT_NOW } from '../../src/core/render/temporary.js';
import { DEMO_IDS, demoServices } from '../../src/simulator/seed.js';
import {
  answerText,
  CHANNEL,
  KEY_SECRET,
  textOf,
  useHarnesses,
  USERS,
  type Harness,
  type OrganizationSetup,
} from './harness.js';

const harness = useHarnesses();

const LEDGER_ID = randomUUID();
const ledger = demoServices()
  .filter((service) => service.id === DEMO_IDS.ordersProd)
  .map((service) => ({ ...service, id: LEDGER_ID, name: 'ledger-prod' }));

const ANALYTICS: OrganizationSetup = {
  name: 'analytics',
  channels: {
    [CHANNEL]: {},
    C0DATA: { allow: ['list', 'show', 'summary'] },
    C0DEV: { allow: ['list', 'show', 'ip-access'], services: { tags: { env: 'dev' } } },
  },
};
const BILLING: OrganizationSetup = { name: 'billing', channels: { C0BILL: {} }, services: ledger };

const start = (organizations = [ANALYTICS, BILLING]) => harness({ organizations });

async function say(h: Harness, text: string, channel: string): Promise<string> {
  return answerText(h, await h.command(text, USERS.requester, channel));
}

/** `cost` typed in the channel: the text of the spend report it posts there. */
async function spendReport(h: Harness, channel: string): Promise<string> {
  const after = h.slack.calls.length;
  await h.command('cost', USERS.requester, channel);
  const report = await h.slack.waitFor(
    'chat.postMessage',
    (a) => a.channel === channel && String(a.text).startsWith('Spend'),
    { after },
  );
  return textOf(report.args.blocks);
}

const patchesOf = (h: Harness, name: string) =>
  (h.simulators[name]?.requests ?? []).filter((request) => request.method === 'PATCH');

describe('each channel is served by its own organization', () => {
  it('lists the services of the channel’s organization only; elsewhere it says the channel is not bound, and nothing of others', async () => {
    const h = await start();
    const analytics = await say(h, 'list', CHANNEL);
    expect(analytics).toContain('orders-prod');
    expect(analytics).not.toContain('ledger-prod');
    const billing = await say(h, 'list', 'C0BILL');
    expect(billing).toContain('ledger-prod');
    expect(billing).not.toContain('orders-prod');
    expect(h.simulators.billing?.requests.length).toBeGreaterThan(0);

    const nowhere = await say(h, 'list', 'C0NOWHERE');
    expect(nowhere).toContain('This channel is not bound to a ClickHouse Cloud organization');
    // Who can bind it, and how; never which channels drive which organization (some are private).
    expect(nowhere).toContain('whoever runs the bot adds `C0NOWHERE`');
    expect(nowhere).toContain('ORGANIZATIONS_FILE');
    for (const leaked of ['C0BILL', 'C0DATA', 'C0DEV', CHANNEL, 'billing', 'analytics'])
      expect(nowhere).not.toContain(leaked);
    // Nothing was read for a channel bound to nothing, even for a change.
    const reads = h.simulator.requests.length + (h.simulators.billing?.requests.length ?? 0);
    expect(await say(h, 'rename orders-prod x', 'C0NOWHERE')).toContain('not bound');
    expect(h.simulator.requests.length + (h.simulators.billing?.requests.length ?? 0)).toBe(reads);
  });

  it('refuses in a read-only channel what it does not allow, and answers what it does', async () => {
    const h = await start();
    expect(await say(h, 'ip add orders-prod 192.0.2.1', 'C0DATA')).toContain(
      '`ip-access` is not allowed in this channel. Here you may use: `list`, `show`, `summary`.',
    );
    expect(await say(h, 'pending', 'C0DATA')).toContain('`pending` is not allowed in this channel');
    expect(await say(h, 'schedule list', 'C0DATA')).toContain('`schedule` is not allowed in this channel');
    expect(await say(h, 'show orders-prod', 'C0DATA')).toContain('orders-prod');
    expect(patchesOf(h, 'analytics')).toHaveLength(0);
    expect(await h.bot.changeStore.listPending('C0DATA', Date.now())).toHaveLength(0);
  });

  it('shows a channel scoped by tags only its services, and files only their allowed kinds', async () => {
    const h = await start();
    const listed = await say(h, 'list', 'C0DEV');
    expect(listed).toContain('sandbox-dev');
    expect(listed).not.toContain('orders-prod');
    expect(await say(h, 'show orders-prod', 'C0DEV')).not.toContain('k7q2m9x4ab');
    expect(await say(h, 'ip add orders-prod 192.0.2.1', 'C0DEV')).toMatch(/no service|not find|No service/i);
    expect(await say(h, 'rename sandbox-dev sandbox-2', 'C0DEV')).toContain('`name` is not allowed in this channel');
    expect(await say(h, 'ip add sandbox-dev 192.0.2.1', 'C0DEV')).toMatch(/CR-[0-9A-F]{10}/);
  });

  it('applies an approved request in its own organization, names it in the message and the audit', async () => {
    const h = await start();
    const after = h.slack.calls.length;
    const ack = await h.command('rename ledger-prod ledger-main', USERS.requester, 'C0BILL');
    const posted = await h.slack.waitFor(
      'chat.postMessage',
      (a) => a.channel === 'C0BILL' && textOf(a.blocks).includes('Change request'),
      { after },
    );
    expect(textOf(posted.args.blocks)).toContain('in the organization `billing`');
    const id = /CR-[0-9A-F]{10}/.exec(textOf(posted.args.blocks))?.[0] ?? '';
    await answerText(h, ack);
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'));
    expect(h.simulators.billing?.service(LEDGER_ID)?.name).toBe('ledger-main');
    expect(patchesOf(h, 'analytics')).toHaveLength(0);
    expect((await h.bot.changeStore.get(id))?.organization).toBe('billing');
    // Every entry of the request says which organization, not only the first.
    const entries = (await h.bot.changeStore.readAudit({ serviceId: LEDGER_ID, limit: 10 })).filter(
      (entry) => entry.changeId === id,
    );
    expect(entries.map((entry) => [entry.action, entry.organization])).toEqual([
      ['applied', 'billing'],
      ['approved', 'billing'],
      ['requested', 'billing'],
    ]);
    // Each organization's key stays out of the log.
    expect(h.logs.join('\n')).not.toContain('secret-of-billing');
    expect(h.logs.join('\n')).not.toContain(KEY_SECRET);
  });
});

describe('the edit form', () => {
  it('files only what its channel allows, on the channel’s organization', async () => {
    const h = await harness({
      organizations: [
        { ...ANALYTICS, channels: { C0FORM: { allow: ['edit', 'ip-access'], services: { tags: { env: 'dev' } } } } },
        BILLING,
      ],
    });
    await h.command('edit sandbox-dev', USERS.requester, 'C0FORM');
    const view = (await h.slack.waitFor('views.update')).args.view as Record<string, unknown>;
    const renamed = await h.submitView(
      view,
      { [BLOCK.name]: { value: { type: 'plain_text_input', value: 'sandbox-two' } } },
      USERS.requester,
    );
    expect(renamed.body).toBe('');
    const told = await h.slack.waitFor('chat.postEphemeral', (a) => a.channel === 'C0FORM');
    expect(textOf(told.args)).toContain('`name` is not allowed in this channel');

    await h.submitView(
      view,
      { [BLOCK.ipAdd]: { value: { type: 'plain_text_input', value: '192.0.2.7' } } },
      USERS.requester,
    );
    const posted = await h.slack.waitFor('chat.postMessage', (a) => a.channel === 'C0FORM');
    expect(textOf(posted.args.blocks)).toContain('192.0.2.7');
    expect(textOf(posted.args.blocks)).toContain('in the organization `analytics`');
  });
});

/** A temporary IP grant on ledger-prod asked in the billing channel, approved and applied: its id. */
async function grantInBilling(h: Harness): Promise<string> {
  const ack = await h.command('ip add ledger-prod 192.0.2.9 for 1h', USERS.requester, 'C0BILL');
  const id = /CR-[0-9A-F]{10}/.exec(await answerText(h, ack))?.[0] ?? '';
  await h.click(ACTION_APPROVE, id, USERS.approver);
  await h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes('Applied'));
  return id;
}

describe('temporary changes', () => {
  it('are taken back in their own organization', async () => {
    const h = await start();
    const billing = h.simulators.billing;
    const id = await grantInBilling(h);
    const sources = () => (billing?.service(LEDGER_ID)?.ipAccessList ?? []).map((entry) => entry.source);
    expect(sources()).toContain('192.0.2.9');

    const click = await h.click(ACTION_REVERT_NOW, id, USERS.requester);
    expect(await answerText(h, click)).toContain('Reverted');
    expect(sources()).not.toContain('192.0.2.9');
    expect((await h.bot.changeStore.get(`${id}-R`))?.organization).toBe('billing');
    expect(patchesOf(h, 'billing')).toHaveLength(2);
    expect(patchesOf(h, 'analytics')).toHaveLength(0);
  });
});

describe('a temporary change of an organization taken out of the file', () => {
  it('is still reverted there, from the channel that asked', async () => {
    const h = await start();
    const billing = h.simulators.billing;
    const id = await grantInBilling(h);
    await h.organizationsFile?.write([ANALYTICS]);
    expect((await h.bot.reloadOrganizations()).ok).toBe(true);
    const click = await h.click(ACTION_REVERT_NOW, id, USERS.requester);
    expect(await answerText(h, click)).toContain('Reverted');
    const sources = (billing?.service(LEDGER_ID)?.ipAccessList ?? []).map((entry) => entry.source);
    expect(sources).not.toContain('192.0.2.9');
  });
});

describe('schedules', () => {
  it('post the summary of the organization of the channel they were made in', async () => {
    const h = await start();
    expect(await say(h, 'schedule add "* * * * * *"', 'C0BILL')).toContain('Scheduled a summary');
    await h.slack.waitFor(
      'chat.postMessage',
      (a) => a.channel === 'C0BILL' && String(a.text).startsWith('Scheduled ClickHouse Cloud summary:'),
      { timeoutMs: 5_000 },
    );
    // Its details, in the headline's thread, name the services.
    await h.slack.waitFor('chat.postMessage', (a) => a.channel === 'C0BILL' && a.thread_ts !== undefined);
    const posted = textOf(
      h.slack
        .callsOf('chat.postMessage')
        .filter((c) => c.args.channel === 'C0BILL')
        .map((c) => c.args),
    );
    expect(posted).toContain('ledger-prod');
    expect(posted).not.toContain('orders-prod');
  });
});

describe('one organization down', () => {
  it('leaves the other answering promptly while its API fails or hangs', async () => {
    // A hanging read gives up after a second here (15 s by default).
    const h = await harness({ organizations: [ANALYTICS, BILLING], cloudClient: { timeoutMs: 1_000 } });
    const billing = h.simulators.billing;
    if (!billing) throw new Error('no billing simulator');
    billing.faults.failNext(50, 500);
    const failing = await h.command('show ledger-prod', USERS.requester, 'C0BILL');
    const started = performance.now();
    expect(await say(h, 'show orders-prod', CHANNEL)).toContain('orders-prod');
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(await answerText(h, failing)).toContain('ClickHouse Cloud');

    billing.faults.reset();
    billing.faults.hangNext(1);
    const seen = billing.requests.length;
    const stuck = await h.command('list', USERS.requester, 'C0BILL');
    await billing.waitForRequests(seen + 1);
    expect(await say(h, 'list', CHANNEL)).toContain('orders-prod');
    // The other organization answered while this one's read still hangs.
    expect(h.slack.calls.some((c) => c.method === 'response_url' && c.args.responseUrlId === stuck.responseUrlId)).toBe(
      false,
    );
    expect(await answerText(h, stuck)).toContain('ledger-prod');
  });
});

describe('a request is checked against its channel’s rules as they are at approval', () => {
  it('refuses the approval once a reload no longer allows the kind, or the service, and keeps a bad file out', async () => {
    const h = await start();
    const file = h.organizationsFile;
    if (!file) throw new Error('no organizations file');
    const kind = await say(h, 'ip add sandbox-dev 192.0.2.1', 'C0DEV');
    const scoped = await say(h, 'ip add sandbox-dev 192.0.2.2', 'C0DEV');
    const idOf = (text: string) => /CR-[0-9A-F]{10}/.exec(text)?.[0] ?? '';
    const [kindId, scopedId] = [idOf(kind), idOf(scoped)];

    // A bad file is refused with every problem, and the rules in force stay.
    await h.organizationsFile?.write([{ ...ANALYTICS, channels: { C0DEV: { allow: ['delete'] } } }]);
    await appendFile(file.path, 'oops: [\n');
    const bad = await h.bot.reloadOrganizations();
    expect(bad.ok).toBe(false);
    expect(h.logs.join('\n')).toContain('NOT reloaded');

    await file.write([
      {
        ...ANALYTICS,
        channels: { [CHANNEL]: {}, C0DEV: { allow: ['list', 'show'], services: { tags: { env: 'dev' } } } },
      },
      BILLING,
    ]);
    expect((await h.bot.reloadOrganizations()).ok).toBe(true);
    const refused = await h.click(ACTION_APPROVE, kindId, USERS.approver);
    expect(await answerText(h, refused)).toContain(
      'This request can no longer be approved: `ip-access` changes are no longer allowed in this channel.',
    );

    await file.write([
      { ...ANALYTICS, channels: { [CHANNEL]: {}, C0DEV: { services: { tags: { env: 'staging' } } } } },
      BILLING,
    ]);
    expect((await h.bot.reloadOrganizations()).ok).toBe(true);
    const outOfScope = await h.click(ACTION_APPROVE, scopedId, USERS.approver);
    expect(await answerText(h, outOfScope)).toContain('is no longer among the services this channel may change');

    await file.write([
      { ...ANALYTICS, channels: { [CHANNEL]: {} } },
      { ...BILLING, channels: { C0BILL: {}, C0DEV: {} } },
    ]);
    expect((await h.bot.reloadOrganizations()).ok).toBe(true);
    const moved = await h.click(ACTION_APPROVE, kindId, USERS.approver);
    expect(await answerText(h, moved)).toContain('this channel is no longer bound to the organization analytics');
    expect(patchesOf(h, 'analytics')).toHaveLength(0);
    expect(patchesOf(h, 'billing')).toHaveLength(0);
  });
});

describe('spend under organizations', () => {
  it('a channel of another organization is told spend is read for the first only; a scoped channel sees its services only', async () => {
    const h = await start([
      { ...ANALYTICS, channels: { ...ANALYTICS.channels, C0DEV: { services: { tags: { env: 'dev' } } } } },
      BILLING,
    ]);
    expect(await say(h, 'cost', 'C0BILL')).toContain(
      'Spend reports cover one organization, `analytics` (the first the bot is set up with); this channel belongs to `billing`',
    );
    const text = await spendReport(h, 'C0DEV');
    expect(text).toContain('sandbox-dev');
    expect(text).not.toContain('orders-prod');
  });

  it('reads spend for the organization that is first after a reload, not the one first at start', async () => {
    const h = await start();
    await h.organizationsFile?.write([BILLING, ANALYTICS]);
    expect((await h.bot.reloadOrganizations()).ok).toBe(true);
    expect(await say(h, 'cost', CHANNEL)).toContain(
      'Spend reports cover one organization, `billing` (the first the bot is set up with)',
    );
    const text = await spendReport(h, 'C0BILL');
    expect(text).toContain('ledger-prod');
    expect(text).not.toContain('No spend recorded');
  });

  it('ends a summary with the spend of the services the channel sees, in the first organization only', async () => {
    const h = await start([
      { ...ANALYTICS, channels: { ...ANALYTICS.channels, C0DEV: { services: { tags: { env: 'dev' } } } } },
      BILLING,
    ]);
    const hasSpend = (blocks: unknown) => textOf(blocks).includes('*Spend* of');
    const spendIn = async (channel: string) => {
      const after = h.slack.calls.length;
      await h.command('summary', USERS.requester, channel);
      const spend = await h.slack.waitFor('chat.postMessage', (a) => a.channel === channel && hasSpend(a.blocks), {
        after,
      });
      return textOf(spend.args.blocks).slice(textOf(spend.args.blocks).indexOf('*Spend* of'));
    };
    expect(await spendIn(CHANNEL)).toContain('*Spend* of the organization');
    const scoped = await spendIn('C0DEV');
    expect(scoped).toContain('*Spend* of this channel’s services');
    expect(scoped).not.toMatch(/orders-prod|events-prod|billing-prod/);
    const after = h.slack.calls.length;
    await h.command('summary', USERS.requester, 'C0BILL');
    await h.slack.waitFor('chat.postMessage', (a) => a.channel === 'C0BILL' && a.thread_ts !== undefined, { after });
    expect(h.slack.callsOf('chat.postMessage', (a) => a.channel === 'C0BILL' && hasSpend(a.blocks))).toHaveLength(0);
  });

  it("posts COST_ALERTS only of the services its channel sees, and none in another organization's channel", async () => {
    const organizations = [
      { ...ANALYTICS, channels: { ...ANALYTICS.channels, C0DEV: { services: { tags: { env: 'dev' } } } } },
      BILLING,
    ];
    const alertsIn = async (channel: string) => {
      const h = await harness({ organizations, env: { COST_ALERTS: channel, COST_ALERT_ABOVE_CHC: '0.5' } });
      await h.bot.costAlertsLookedAtStart;
      return h.slack.callsOf('chat.postMessage', (a) => a.channel === channel).map((c) => String(c.args.text));
    };
    expect((await alertsIn(CHANNEL)).join('\n')).toContain('orders-prod');
    const scoped = await alertsIn('C0DEV');
    // The services tagged env=dev only: sandbox-dev and ml-dev.
    expect(scoped.length).toBeGreaterThan(0);
    expect(scoped.every((text) => /\*(sandbox|ml)-dev\*/.test(text))).toBe(true);
    expect(await alertsIn('C0BILL')).toStrictEqual([]);
  });
});
