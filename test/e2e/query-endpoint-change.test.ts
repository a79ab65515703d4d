/**
 * `query-endpoint SERVICE on read-only|admin keys KEY[,KEY…] [origins …] [for DURATION]` and
 * `query-endpoint SERVICE off` (issue 39): keys named as people know them and looked up at filing,
 * the exact POST or DELETE sent once approved, refused as stale when the console changed the
 * endpoint meanwhile, and a temporary one put back exactly as it was.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE } from '../../src/core/render/change.js';
import { ACTION_REVERT_NOW } from '../../src/core/render/temporary.js';
import { DEMO_IDS, DEMO_OTHER_KEY_IDS } from '../../src/simulator/seed.js';
import {
  answerText,
  appliedMessage,
  callSimulatorApi,
  requestChange,
  textOf,
  useHarnesses,
  USERS,
  type Harness,
} from './harness.js';
import { usePolicyFiles } from './policy-files.js';

const harness = useHarnesses({ temporaryTickMs: 50 });
const policyFile = usePolicyFiles();
const PATH = `/services/${DEMO_IDS.ordersProd}/serviceQueryEndpoint`;

const endpointWrites = (h: Harness) =>
  h.simulator.requests
    .filter((r) => r.path.endsWith(`/services/${DEMO_IDS.ordersProd}/serviceQueryEndpoint`) && r.method !== 'GET')
    .map((r) => ({ method: r.method, body: r.body }));

/** The endpoint as the console (or another tool) leaves it. */
const consoleSets = (h: Harness, body: Record<string, unknown>) => callSimulatorApi(h, 'POST', PATH, body);

const finalMessage = (h: Harness, id: string) =>
  h.slack.waitFor(
    'chat.update',
    (a) => textOf(a.blocks).includes(id) && /Failed|Applied|failed|applied/.test(textOf(a.blocks)),
  );

describe('query-endpoint SERVICE on|off', () => {
  it('names the keys it allows, sends exactly the endpoint asked once approved, and reads back on', async () => {
    const h = await harness();
    const { id, posted } = await requestChange(
      h,
      'query-endpoint orders-prod on read-only keys ci-readonly origins dash.example.com',
    );
    const request = textOf(posted.args.blocks);
    expect(request).toMatch(/Query API endpoint\*: `off` → `on`/);
    expect(request).toContain('ci-readonly …q7Zk');
    expect(request).toContain('dash.example.com');
    expect(endpointWrites(h)).toStrictEqual([]);
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    expect(endpointWrites(h)).toStrictEqual([
      {
        method: 'POST',
        body: {
          roles: ['sql_console_read_only'],
          openApiKeys: [DEMO_OTHER_KEY_IDS.unused],
          allowedOrigins: 'dash.example.com',
        },
      },
    ]);
    const shown = await answerText(h, await h.command('query-endpoint orders-prod'));
    expect(shown).toContain('The Query API endpoint is *on*, role read-only.');
  });

  it('takes a key by … and its last four characters, and switches it off with DELETE', async () => {
    const h = await harness();
    const on = await requestChange(h, 'query-endpoint orders-prod on admin keys …T3rr origins *');
    expect(textOf(on.posted.args.blocks)).toContain('terraform …T3rr');
    expect(textOf(on.posted.args.blocks)).toContain('Admin: these keys will be able to write');
    expect(textOf(on.posted.args.blocks)).toContain('Any origin');
    await h.click(ACTION_APPROVE, on.id, USERS.approver);
    await appliedMessage(h, on.id);
    const off = await requestChange(h, 'query-endpoint orders-prod off');
    expect(textOf(off.posted.args.blocks)).toMatch(/Query API endpoint\*: `on` → `off`/);
    await h.click(ACTION_APPROVE, off.id, USERS.approver);
    await appliedMessage(h, off.id);
    expect(endpointWrites(h).map((w) => w.method)).toStrictEqual(['POST', 'DELETE']);
    expect(endpointWrites(h)[0]?.body).toStrictEqual({
      roles: ['sql_console_admin'],
      openApiKeys: [DEMO_OTHER_KEY_IDS.neverExpires],
      allowedOrigins: '',
    });
    expect(await answerText(h, await h.command('query-endpoint orders-prod'))).toContain('*off*');
  });

  it('refuses an unknown key and a disabled one, naming the keys it could be, and sends nothing', async () => {
    const h = await harness();
    const unknown = await answerText(h, await h.command('query-endpoint orders-prod on read-only keys dashboards'));
    expect(unknown).toContain('No API key is called "dashboards"');
    expect(unknown).toContain('ci-readonly …q7Zk');
    expect(unknown).toContain('terraform …T3rr');
    await callSimulatorApi(h, 'PATCH', `/keys/${DEMO_OTHER_KEY_IDS.unused}`, { state: 'disabled' });
    const disabled = await answerText(h, await h.command('query-endpoint orders-prod on read-only keys ci-readonly'));
    expect(disabled).toContain('is disabled');
    expect(disabled).toContain('terraform …T3rr');
    expect(disabled).not.toMatch(/Enabled keys:.*ci-readonly/);
    expect(await h.bot.changeStore.listOpen(Date.now(), 10)).toStrictEqual([]);
    expect(endpointWrites(h)).toStrictEqual([]);
  });

  it('refuses what it cannot read, off when already off, and a temporary off', async () => {
    const h = await harness();
    const say = async (text: string) => answerText(h, await h.command(text));
    expect(await say('query-endpoint orders-prod off')).toContain('already off');
    expect(await say('query-endpoint orders-prod off for 1h')).toContain('Only switching the endpoint on');
    expect(await say('query-endpoint orders-prod on writer keys ci-readonly')).toContain('read-only or admin');
    expect(await say('query-endpoint orders-prod on admin')).toContain('Name the API keys');
    expect(await say('query-endpoint orders-prod on admin keys ci-readonly origins not_a_domain')).toContain(
      'is not a domain',
    );
    expect(await say('query-endpoint orders-prod maybe')).toContain('on or off');
    expect(endpointWrites(h)).toStrictEqual([]);
  });

  it('is refused as stale when the endpoint changed in the console meanwhile', async () => {
    const h = await harness();
    await consoleSets(h, { roles: ['sql_console_read_only'], openApiKeys: [DEMO_OTHER_KEY_IDS.unused] });
    const { id } = await requestChange(h, 'query-endpoint orders-prod off');
    await consoleSets(h, { roles: ['sql_console_admin'] });
    const before = endpointWrites(h).length;
    await h.click(ACTION_APPROVE, id, USERS.approver);
    const settled = await finalMessage(h, id);
    expect(textOf(settled.args.blocks)).toMatch(/changed since/);
    expect(endpointWrites(h)).toHaveLength(before);
  });

  it('for a while: the revert puts back exactly the roles, keys and origins it replaced', async () => {
    const h = await harness();
    const previous = {
      roles: ['sql_console_read_only'],
      openApiKeys: [DEMO_OTHER_KEY_IDS.neverExpires],
      allowedOrigins: 'a.example.com,b.example.com',
    };
    await consoleSets(h, previous);
    const { id } = await requestChange(h, 'query-endpoint orders-prod on admin keys ci-readonly for 1h');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    await h.click(ACTION_REVERT_NOW, id, USERS.requester);
    await h.slack.waitFor(
      'chat.update',
      (a) => textOf(a.blocks).includes(`${id}-R`) && textOf(a.blocks).includes('Applied'),
    );
    const writes = endpointWrites(h);
    expect(writes.at(-1)).toStrictEqual({ method: 'POST', body: previous });
    const shown = await answerText(h, await h.command('query-endpoint orders-prod'));
    expect(shown).toContain('role read-only');
    expect(shown).toContain('Origins: `a.example.com`, `b.example.com`');
  });

  it('for a while from off: the revert switches it off again', async () => {
    const h = await harness();
    const { id } = await requestChange(h, 'query-endpoint orders-prod on read-only keys terraform for 30m');
    await h.click(ACTION_APPROVE, id, USERS.approver);
    await appliedMessage(h, id);
    await h.click(ACTION_REVERT_NOW, id, USERS.requester);
    await h.slack.waitFor(
      'chat.update',
      (a) => textOf(a.blocks).includes(`${id}-R`) && textOf(a.blocks).includes('Applied'),
    );
    expect(endpointWrites(h).map((w) => w.method)).toStrictEqual(['POST', 'DELETE']);
    expect(await answerText(h, await h.command('query-endpoint orders-prod'))).toContain('*off*');
  });

  it('carries query-admin and query-any-origin into policies', async () => {
    const path = policyFile(
      [
        'rules:',
        '  - name: admin over http',
        '    match: { risks: [query-admin] }',
        '    approvals: 2',
        '  - name: browsers anywhere',
        '    match: { risks: [query-any-origin] }',
        '    approvals: 1',
        '',
      ].join('\n'),
    );
    const h = await harness({ env: { POLICY_FILE: path } });
    const admin = await requestChange(h, 'query-endpoint orders-prod on admin keys terraform origins x.example.com');
    expect(textOf(admin.posted.args.blocks)).toContain('admin over http');
    expect(textOf(admin.posted.args.blocks)).not.toContain('browsers anywhere');
    const any = await requestChange(h, 'query-endpoint billing-prod on read-only keys terraform');
    expect(textOf(any.posted.args.blocks)).toContain('browsers anywhere');
    expect(textOf(any.posted.args.blocks)).not.toContain('admin over http');
    expect(await answerText(h, await h.command('policy orders-prod'))).toContain('query-endpoint');
  });
});
