/**
 * Console links (issue 41): where a service is named in list, show, a change request, a summary
 * or a cost report, its name links to its page in the console (CONSOLE_URL). The link is built
 * from checked parts: a hostile name stays an escaped label, an id that is not one is not linked.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONSOLE_URL, servicePageUrl } from '../../../src/core/render/console.js';
import { serviceRef } from '../../../src/core/render/mrkdwn.js';
import { listBlocks, serviceBlocks } from '../../../src/core/render/service.js';
import { requestMessage } from '../../../src/core/render/change.js';
import { costBlocks } from '../../../src/core/render/cost.js';
import { summaryMessages } from '../../../src/core/summary/render.js';
import { noKinds } from '../../../src/core/cost/attribution.js';
import { changeRequest, mustPlan, NOW, service, SERVICE_ID } from '../fixtures.js';
import { assertSafeMrkdwn, mrkdwnTexts } from './block-kit.js';

const BASE = DEFAULT_CONSOLE_URL;
const PAGE = `${BASE}/services/${SERVICE_ID}`;
const texts = (blocks: readonly unknown[]) => mrkdwnTexts(blocks).join('\n');

describe('a service page in the console', () => {
  it('is the base and /services/ID, whatever slash the base ends with', () => {
    expect(servicePageUrl(BASE, SERVICE_ID)).toBe(PAGE);
    expect(servicePageUrl('https://console.example.com/ch/', 'abc')).toBe(
      'https://console.example.com/ch/services/abc',
    );
  });

  it('is none without a base, for an id that is not letters, digits and hyphens, or a base that could break the link', () => {
    expect(servicePageUrl(undefined, SERVICE_ID)).toBeUndefined();
    for (const id of ['a|b', 'a>b', '../../admin', 'a b', '', 'x'.repeat(65)])
      expect(servicePageUrl(BASE, id)).toBeUndefined();
    for (const base of ['https://x.example|y', 'https://x.example>', 'javascript:alert(1)'])
      expect(servicePageUrl(base, SERVICE_ID)).toBeUndefined();
  });

  it('links the bold name, the id beside it as code; a hostile name stays an escaped label', () => {
    expect(serviceRef('orders-prod', SERVICE_ID, BASE)).toBe(`*<${PAGE}|orders-prod>* \`${SERVICE_ID}\``);
    expect(serviceRef('orders-prod', SERVICE_ID)).toBe(`*orders-prod* \`${SERVICE_ID}\``);
    const hostile = serviceRef('x> <!channel> |*y*', SERVICE_ID, BASE);
    expect(hostile).toBe(`*<${PAGE}|x&gt; &lt;!channel&gt; |∗y∗>* \`${SERVICE_ID}\``);
    // Without a name there is nothing to link: the id alone, as code.
    expect(serviceRef('', SERVICE_ID, BASE)).toBe(`\`${SERVICE_ID}\``);
  });
});

describe('the messages that name a service link it', () => {
  const record = service();

  it('list: each name, with its short id', () => {
    const text = texts(listBlocks([record], [], NOW, BASE));
    expect(text).toContain(`*<${PAGE}|orders-prod>*  \`a1b2c3d4\``);
    expect(texts(listBlocks([record], [], NOW))).not.toContain('<https');
    assertSafeMrkdwn(listBlocks([service({ name: '<!here> *a*' })], [], NOW, BASE));
  });

  it('show: its name in the console beside the full id', () => {
    const text = texts(serviceBlocks(record, undefined, BASE));
    expect(text).toContain(`ID \`${SERVICE_ID}\` · *<${PAGE}|orders-prod>* in the console`);
    expect(texts(serviceBlocks(record))).not.toContain('in the console');
  });

  it('a change request, in the channel and as a DM copy', () => {
    const request = changeRequest(mustPlan(record, { releaseChannel: 'fast' }));
    expect(texts(requestMessage(request, false, BASE).blocks)).toContain(`*<${PAGE}|orders-prod>* \`${SERVICE_ID}\``);
    assertSafeMrkdwn(requestMessage(request, false, BASE).blocks, [request.requesterId]);
  });

  it('a summary: the services, their posture warnings', () => {
    const open = service({ ipAccessList: [{ source: '0.0.0.0/0' }] });
    const { details } = summaryMessages({
      services: [open],
      filters: [],
      drift: undefined,
      generatedAt: NOW,
      consoleUrl: BASE,
    });
    const text = details.map((message) => texts(message.blocks)).join('\n');
    expect(text).toContain(`• *<${PAGE}|orders-prod>*  \`a1b2c3d4\``);
    expect(text).toContain(`:warning: *<${PAGE}|orders-prod>*  \`a1b2c3d4\`: `);
  });

  it('a cost report: each service, with its short id as in list', () => {
    const spend = { id: SERVICE_ID, name: 'orders-prod', isService: true, total: 5, previous: 4, fromWarehouse: 0 };
    const report = {
      period: { from: '2026-01-08', to: '2026-01-14' },
      previousPeriod: { from: '2026-01-01', to: '2026-01-07' },
      total: 5,
      previousTotal: 4,
      kinds: noKinds(),
      services: [spend],
      movers: [spend],
      warehouseAttributed: 0,
      days: [],
    };
    const text = texts(costBlocks(report, { label: 'orders-prod', provisional: false, consoleUrl: BASE }));
    expect(text).toContain(`• *<${PAGE}|orders-prod>*  \`a1b2c3d4\`: 5.00 CHC`);
    expect(text).not.toContain(`\`${SERVICE_ID}\``);
  });
});
