import { describe, expect, it } from 'vitest';
import type { ServiceRecord } from '../../../src/core/service/schema.js';
import { idleText, listBlocks, serviceBlocks, serviceLine, stateText } from '../../../src/core/render/service.js';
import { ipEntries, NOW, service, servicesNamed } from '../fixtures.js';
import { allTexts, assertBlockKitLimits, assertSafeMrkdwn, mrkdwnTexts } from './block-kit.js';

/** A record with only the fields given (plus an id), as the lenient API may send. */
const bare = (fields: Record<string, unknown>): ServiceRecord =>
  service({
    provider: undefined,
    region: undefined,
    state: undefined,
    tier: undefined,
    releaseChannel: undefined,
    clickhouseVersion: undefined,
    minTotalMemoryGb: undefined,
    maxTotalMemoryGb: undefined,
    numReplicas: undefined,
    idleScaling: undefined,
    idleTimeoutMinutes: undefined,
    minReplicaMemoryGb: undefined,
    maxReplicaMemoryGb: undefined,
    autoscalingMode: undefined,
    ...fields,
  });

describe('idle and state text', () => {
  it.each([
    [{ idleScaling: true, idleTimeoutMinutes: 15 }, 'idles after 15 min'],
    [{ idleScaling: true }, 'idle scaling on'],
    [{ idleScaling: false, idleTimeoutMinutes: 15 }, 'idle scaling off'],
    [{}, undefined],
  ] as const)('idle %j reads %j', (fields, expected) => {
    expect(idleText(bare(fields))).toBe(expected);
  });

  it('shows an unknown state plainly and a known one with its icon', () => {
    expect(stateText(undefined)).toBe('state unknown');
    expect(stateText('running')).toBe(':large_green_circle: running');
    expect(stateText('awaking')).toBe(':large_blue_circle: waking up');
    expect(stateText('hibernating')).toBe(':grey_question: hibernating');
    expect(stateText('<!channel>')).toBe(':grey_question: &lt;!channel&gt;');
  });
});

describe('serviceLine', () => {
  it('shows the name, a short id, state, version, replicas and memory', () => {
    expect(serviceLine(service())).toBe(
      '*orders-prod*  `a1b2c3d4`  :large_green_circle: running · v24.3.1.2672 · 3 × 8–16 GB',
    );
  });

  it('warns about a service open to the internet or with an empty IP list', () => {
    expect(serviceLine(service({ ipAccessList: [{ source: '0.0.0.0/0' }] }))).toContain(
      ':warning: open to the internet',
    );
    expect(serviceLine(service({ ipAccessList: [] }))).toContain(':warning: no IP allowed');
    expect(serviceLine(service({ ipAccessList: undefined }))).not.toContain(':warning:');
  });

  it('falls back to the id when the record has no readable name', () => {
    expect(serviceLine(bare({ name: 42 }))).toMatch(/^\*a1b2c3d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d\*/);
  });
});

/** Names shown in a list plus the number it says are hidden, which together must be every service. */
function shownAndHidden(blocks: ReturnType<typeof listBlocks>, names: string[]): { shown: number; hidden: number } {
  const text = mrkdwnTexts(blocks).join('\n');
  const shown = names.filter((name) => text.includes(`*${name}*`)).length;
  const hidden = Number(/…and (\d+) more/.exec(text)?.[1] ?? 0);
  return { shown, hidden };
}

describe('listBlocks', () => {
  it('says so when the organization has no services', () => {
    const blocks = listBlocks([], [], NOW);
    expect(mrkdwnTexts(blocks).join('\n')).toContain('This organization has no services yet.');
  });

  it('says so when no service has the tags, quoting the filters', () => {
    const text = mrkdwnTexts(listBlocks([], ['tag:env=prod'], NOW)).join('\n');
    expect(text).toContain('No service has these tags');
    expect(text).toContain('matching `tag:env=prod`');
  });

  it('counts the services and sorts them by name', () => {
    const blocks = listBlocks(
      [service({ name: 'zeta' }), service({ name: 'alpha' }), service({ name: 'Mid' })],
      [],
      NOW,
    );
    expect(allTexts(blocks)).toContain('ClickHouse Cloud services (3)');
    const text = mrkdwnTexts(blocks).join('\n');
    expect(text.indexOf('*alpha*')).toBeLessThan(text.indexOf('*Mid*'));
    expect(text.indexOf('*Mid*')).toBeLessThan(text.indexOf('*zeta*'));
  });

  it('says "1 service" in the singular', () => {
    expect(mrkdwnTexts(listBlocks([service()], [], NOW)).join('\n')).toContain('1 service ·');
  });

  it.each([500, 5000])('lists %i services within Slack limits and accounts for every one', (count) => {
    const services = servicesNamed(count);
    const blocks = listBlocks(services, [], NOW);
    assertBlockKitLimits(blocks, { max: 50 });
    const { shown, hidden } = shownAndHidden(
      blocks,
      services.map((s) => s.name),
    );
    expect(shown + hidden).toBe(count);
    expect(shown).toBeGreaterThan(0);
    if (count === 5000) {
      expect(hidden).toBeGreaterThan(0);
      expect(mrkdwnTexts(blocks).join('\n')).toContain(`…and ${hidden} more. Narrow the list with tag filters`);
    }
  });

  it('stays within limits when names are as long as the API allows', () => {
    const services = Array.from({ length: 2000 }, (_, i) =>
      service({ id: `${i}-long`, name: `${i} `.padEnd(50, 'n') }),
    );
    assertBlockKitLimits(listBlocks(services, ['tag:env=prod', 'tag:team=data'], NOW), { max: 50 });
  });
});

describe('serviceBlocks', () => {
  it('shows the overview, endpoints, IP list, private endpoints, encryption and tags', () => {
    const blocks = serviceBlocks(service());
    assertBlockKitLimits(blocks, { max: 50 });
    const text = mrkdwnTexts(blocks).join('\n');
    expect(allTexts(blocks)).toContain('orders-prod');
    for (const expected of [
      '*State*\n:large_green_circle: running',
      '*Release channel*\ndefault',
      '*Tier*\nproduction',
      '*Replicas*\n3 (vertical autoscaling)',
      '*Memory*\n8–16 GB per replica, 24–48 GB in total',
      '*Idle scaling*\nidles after 15 min',
      '*Cloud*\naws eu-west-1',
      '• https `abc.eu-west-1.aws.clickhouse.cloud:8443` as `default`',
      '*IP access list* (2)',
      '• `10.0.0.0/8` office',
      'attached: `pe-attached`',
      'available to attach: `pe-free`',
      'transparent data encryption on · key `key-1`',
      'tags `env=prod`',
      'created 2024-03-01',
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).not.toContain('*Posture*');
    expect(text).not.toContain('*Scaling now*');
  });

  it('lists posture findings when there are some', () => {
    const text = mrkdwnTexts(
      serviceBlocks(service({ ipAccessList: [{ source: '0.0.0.0/0' }], hasTransparentDataEncryption: false })),
    ).join('\n');
    expect(text).toContain(':warning: *Posture*');
    expect(text).toContain('anyone on the internet can try to connect');
    expect(text).not.toContain('Transparent data encryption is off.');
  });

  it('shows encryption off as information that nobody can act on, not as a posture warning', () => {
    const text = mrkdwnTexts(
      serviceBlocks(service({ hasTransparentDataEncryption: false, transparentDataEncryptionKeyId: undefined })),
    ).join('\n');
    expect(text).toContain(
      'transparent data encryption off _(it can only be turned on when a service is created, in Enterprise organizations)_',
    );
    expect(text).not.toContain('*Posture*');
  });

  it('tells an absent IP list from an empty one', () => {
    expect(mrkdwnTexts(serviceBlocks(service({ ipAccessList: undefined }))).join('\n')).toContain(
      '*IP access list*\n_not in the record_',
    );
    expect(mrkdwnTexts(serviceBlocks(service({ ipAccessList: [] }))).join('\n')).toContain(
      '*IP access list*\n:warning: empty: no client can connect',
    );
  });

  it('renders a record with almost nothing in it', () => {
    const blocks = serviceBlocks(ServiceRecordOnlyId());
    assertBlockKitLimits(blocks, { max: 50 });
    const text = mrkdwnTexts(blocks).join('\n');
    expect(text).toContain('the record carries no details');
    expect(text).toContain('_none listed_');
    expect(text).toContain('*Encryption*\n_not in the record_');
  });

  it('keeps a service with 200 long-described IP entries within Slack limits, counting the rest', () => {
    const record = service({ ipAccessList: ipEntries(200, 255) });
    const blocks = serviceBlocks(record);
    assertBlockKitLimits(blocks, { max: 50 });
    const text = mrkdwnTexts(blocks).join('\n');
    expect(text).toContain('*IP access list* (200)');
    const shown = (text.match(/^• `10\./gm) ?? []).length;
    const hidden = Number(/…and (\d+) more entries/.exec(text)?.[1] ?? 0);
    expect(shown + hidden).toBe(200);
  });

  it('keeps huge private endpoint lists, tags and overviews within limits', () => {
    const ids = Array.from({ length: 500 }, (_, i) => `vpce-${String(i).padStart(17, '0')}`);
    const record = service({
      name: 'n'.repeat(300),
      privateEndpointIds: ids.slice(0, 250),
      availablePrivateEndpointIds: ids,
      tags: Array.from({ length: 300 }, (_, i) => ({ key: `key-${i}`, value: 'v'.repeat(50) })),
      region: 'r'.repeat(3000),
      endpoints: Array.from({ length: 300 }, (_, i) => ({ protocol: `p${i}`, host: 'h'.repeat(60), port: 1 })),
    });
    assertBlockKitLimits(serviceBlocks(record), { max: 50 });
  });
});

function ServiceRecordOnlyId(): ServiceRecord {
  return bare({
    endpoints: undefined,
    ipAccessList: [{ source: '10.0.0.0/8' }],
    privateEndpointIds: undefined,
    availablePrivateEndpointIds: undefined,
    hasTransparentDataEncryption: undefined,
    transparentDataEncryptionKeyId: undefined,
    tags: undefined,
    createdAt: undefined,
  });
}

describe('escaping in service rendering', () => {
  const hostile = '<!channel> @here <@U123> <http://evil|click> & `tick` *star*';
  const record = service({
    name: hostile,
    state: hostile,
    clickhouseVersion: hostile,
    tier: hostile,
    region: hostile,
    ipAccessList: [{ source: hostile, description: hostile }],
    endpoints: [{ protocol: hostile, host: hostile, username: hostile }],
    privateEndpointIds: [hostile],
    availablePrivateEndpointIds: [hostile, `${hostile}2`],
    transparentDataEncryptionKeyId: hostile,
    tags: [{ key: hostile, value: hostile }],
    createdAt: hostile,
  });

  it('never lets data in a list ping or link', () => {
    assertSafeMrkdwn(listBlocks([record, service()], [hostile], NOW));
  });

  it('never lets data in the full record ping or link', () => {
    assertSafeMrkdwn(serviceBlocks(record));
  });

  it('keeps the name bold without stray asterisks', () => {
    expect(serviceLine(record)).toMatch(/^\*[^*]+\* {2}`/);
  });
});
