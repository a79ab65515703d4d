import { describe, expect, it } from 'vitest';
import type { ServiceRecord } from '../../../src/core/service/schema.js';
import {
  attributeDrift,
  diffSnapshots,
  summaryFailureMessage,
  summaryMessages,
  takeSnapshot,
  type DriftItem,
  type SummaryMessage,
  type SummaryInput,
} from '../../../src/core/summary/index.js';
import { allTexts, mrkdwnTexts, unsafeMrkdwn } from '../render/block-kit.js';
import { auditEntry, NOW, service, servicesNamed } from '../fixtures.js';
import { assertMessagesWithinLimits } from './limits.js';

const input = (overrides: Partial<SummaryInput> = {}): SummaryInput => ({
  services: [service()],
  filters: [],
  drift: [],
  generatedAt: NOW,
  ...overrides,
});
const shown = (messages: readonly SummaryMessage[]) => messages.map((m) => allTexts(m.blocks)).join('\n');
const detailsText = (overrides: Partial<SummaryInput>) => shown(summaryMessages(input(overrides)).details);
const headlineText = (overrides: Partial<SummaryInput>) => shown([summaryMessages(input(overrides)).headline]);

describe('headline', () => {
  it('is one short message with the totals, and points to the thread', () => {
    const services = [
      service({ id: 'a', name: 'a', state: 'running', releaseChannel: 'fast' }),
      service({ id: 'b', name: 'b', state: 'stopped', ipAccessList: [{ source: '0.0.0.0/0' }] }),
    ];
    const { headline, details } = summaryMessages(input({ services, title: 'Weekly prod summary' }));
    const text = shown([headline]);
    expect(headline.blocks[0]).toMatchObject({ type: 'header', text: { text: 'Weekly prod summary' } });
    expect(text).toContain('*Services*\n2');
    expect(text).toContain('running 1');
    expect(text).toContain('stopped 1');
    expect(text).toContain('fast 1');
    expect(text).toContain('*Replicas*\n6');
    expect(text).toContain('*Memory*\n48–96 GB');
    expect(text).toContain('1 warning on 1 service');
    expect(text).toContain('open to the internet 1');
    expect(text).toContain('Details in the thread (1 message)');
    expect(headline.text).toContain(
      'Weekly prod summary: 2 services, 1 posture warning, 0 changes since the last summary.',
    );
    expect(details).toHaveLength(1);
    assertMessagesWithinLimits([headline]);
  });

  it('shows the tag filters the summary is scoped to', () => {
    expect(headlineText({ filters: ['tag:env=prod', 'tag:team'] })).toContain(
      '1 service matching `tag:env=prod` `tag:team`',
    );
  });

  it('says when there is no baseline yet, instead of reporting zero changes', () => {
    expect(headlineText({ drift: undefined })).toContain('First summary: changes are reported from the next one');
    expect(headlineText({ drift: [] })).toContain('No changes since the last summary');
  });

  it('counts changes made through the bot and elsewhere', () => {
    const drift = [driftItem({ via: { changeId: 'CR-1' } }), driftItem({}), driftItem({})];
    expect(headlineText({ drift })).toContain('3 changes since the last summary: 1 via this bot, 2 elsewhere');
  });

  it('says when no service matches, with no empty thread', () => {
    const { headline, details } = summaryMessages(input({ services: [], filters: ['tag:env=nowhere'] }));
    expect(shown([headline])).toContain('0 services matching `tag:env=nowhere`');
    expect(shown([headline])).not.toContain('Details in the thread');
    expect(details).toStrictEqual([]);
  });
});

function driftItem(overrides: Partial<DriftItem>): DriftItem {
  return {
    serviceId: 'a',
    serviceName: 'orders-prod',
    kind: 'renamed',
    label: 'Name',
    text: 'Renamed: a → orders-prod',
    subject: 'orders-prod',
    ...overrides,
  };
}

describe('details', () => {
  it('give each service one compact line: name, version, state, replicas, memory, idle scaling, endpoints', () => {
    expect(detailsText({})).toContain(
      '• *orders-prod* · v24.3.1.2672 · :large_green_circle: running · 3 × 8–16 GB · idles after 15 min · endpoints https, nativesecure',
    );
  });

  it('list posture warnings per service', () => {
    const services = [
      service({
        id: 'a',
        name: 'wide-open',
        ipAccessList: [{ source: '0.0.0.0/0' }],
        endpoints: [{ protocol: 'mysql' }],
      }),
      service({ id: 'b', name: 'locked-out', ipAccessList: [] }),
      service({ id: 'c', name: 'well-kept' }),
    ];
    const text = detailsText({ services });
    expect(text).toContain('*Posture warnings* (2 services)');
    expect(text).toContain(
      ':warning: *wide-open*: IP access list allows 0.0.0.0/0: anyone on the internet can try to connect. MySQL endpoint is enabled.',
    );
    expect(text).toContain(':warning: *locked-out*: IP access list is empty: no client can connect.');
    expect(text).not.toContain(':warning: *well-kept*');
  });

  it('mark each change as made through this bot (with its request) or elsewhere', () => {
    const before = [service()];
    const after = [service({ name: 'orders-main', releaseChannel: 'fast' })];
    const raw = diffSnapshots(takeSnapshot(before, NOW - 1000), takeSnapshot(after, NOW));
    const drift = attributeDrift(
      raw,
      [
        auditEntry({
          action: 'applied',
          at: NOW - 500,
          changeId: 'CR-12',
          summary: 'Name: orders-prod → orders-main',
          update: { name: 'orders-main' },
        }),
      ],
      { from: NOW - 1000, to: NOW },
    );
    const text = detailsText({ services: after, drift });
    expect(text).toContain('*Changes since the last summary* (2: 1 via this bot, 1 elsewhere)');
    expect(text).toContain('• *orders-main*: Renamed: orders-prod → orders-main — :robot_face: via this bot (`CR-12`)');
    expect(text).toContain('• *orders-main*: Release channel: default → fast — _elsewhere_');
  });

  it('warn that a service leaving the filters reads as removed, when there are filters', () => {
    const drift = [driftItem({ kind: 'service-removed', label: 'Service', text: 'Service removed' })];
    expect(detailsText({ drift, filters: ['tag:env=prod'] })).toContain(
      "stop matching this summary's filters shows as removed",
    );
    expect(detailsText({ drift })).not.toContain('filters');
  });

  it('number their messages so readers know how much follows', () => {
    const { details } = summaryMessages(input({ services: servicesNamed(1000) }));
    expect(details.length).toBeGreaterThan(1);
    details.forEach((message, i) => {
      expect(message.text).toBe(`ClickHouse Cloud summary · details ${i + 1} of ${details.length}`);
    });
  });
});

describe('large organizations', () => {
  /** Every service drifted and half of them warned: the largest summary a schedule can produce. */
  function largeSummary(count: number) {
    const services = servicesNamed(count);
    const drift: DriftItem[] = services.map((s, i) =>
      driftItem({
        serviceId: s.id,
        serviceName: s.name,
        text: `IP access entry added: 10.${i % 250}.0.0/16 (added for the nightly batch import)`,
        ...(i % 3 === 0 ? { via: { changeId: `cr-${i}` } } : {}),
      }),
    );
    return { services, summary: summaryMessages(input({ services, drift, filters: ['tag:env=prod'] })) };
  }

  it.each([1000, 5000])(
    '%i services fit Slack limits in every message, and every service is in the thread',
    (count) => {
      const { services, summary } = largeSummary(count);
      assertMessagesWithinLimits([summary.headline, ...summary.details]);
      const details = shown(summary.details);
      const missing = services.filter((s) => !details.includes(`• *${s.name}* ·`));
      expect(missing.map((s) => s.name)).toStrictEqual([]);
      expect(details.match(/— (:robot_face:|_elsewhere_)/g)).toHaveLength(count);
      expect(details.match(/^:warning: \*svc-/gm)).toHaveLength(Math.ceil(count / 7));
    },
  );

  it('keeps the headline short however large the organization', () => {
    const { summary } = largeSummary(5000);
    expect(allTexts(summary.headline.blocks).length).toBeLessThan(1500);
    expect(summary.headline.blocks.length).toBeLessThanOrEqual(6);
  });
});

describe('escaping', () => {
  const EVIL = '<!channel> <@U1> <http://evil|x>';

  function everyMrkdwn(messages: readonly SummaryMessage[]): string[] {
    return messages.flatMap((m) => [...mrkdwnTexts(m.blocks), m.text]);
  }

  it('never lets a service name, state, version, tag filter or drift text ping or link', () => {
    const evil: ServiceRecord = service({
      name: EVIL,
      state: '<!here>',
      clickhouseVersion: '<!everyone>',
      releaseChannel: '<@U2>',
      ipAccessList: [{ source: '0.0.0.0/0' }],
      endpoints: [{ protocol: '<!channel>' }],
    });
    const drift = [
      driftItem({ serviceName: EVIL, text: `Renamed: ${EVIL} → ${EVIL}`, via: { changeId: '<!channel>' } }),
    ];
    const { headline, details } = summaryMessages(
      input({ services: [evil], drift, filters: ['tag:<!channel>'], title: EVIL }),
    );
    const texts = everyMrkdwn([headline, ...details]);
    expect(texts.join('\n')).toContain('&lt;!channel&gt;');
    expect(texts.flatMap((text) => unsafeMrkdwn(text))).toStrictEqual([]);
  });

  it('escapes the reason of a failure report', () => {
    const message = summaryFailureMessage(`channel <#C1> not found; tell @here & <@U1>`);
    expect(everyMrkdwn([message]).flatMap((text) => unsafeMrkdwn(text))).toStrictEqual([]);
    expect(message.text).toContain('The ClickHouse Cloud summary failed');
    assertMessagesWithinLimits([message]);
  });
});
