/**
 * A /0 split into pieces opens a service just like a /0: the change request warns, `show` and the
 * summary's posture say so, and very broad single entries are flagged too.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_IDS, demoServices } from '../../src/simulator/seed.js';
import { answerText, requestChange, textOf, useHarnesses } from './harness.js';

const harness = useHarnesses();

function withIpList(id: string, sources: string[]) {
  return demoServices().map((s) =>
    s.id === id ? { ...s, ipAccessList: sources.map((source) => ({ source, description: '' })) } : s,
  );
}

describe('warnings that cannot be sidestepped', () => {
  it('warns in the change request when the second half of 0.0.0.0/0 is added', async () => {
    const h = await harness({ services: withIpList(DEMO_IDS.ordersStaging, ['10.0.0.0/8', '0.0.0.0/1']) });
    const { posted } = await requestChange(h, 'ip add orders-staging 128.0.0.0/1 upper half');
    expect(textOf(posted.args.blocks)).toContain(
      'The IP access list will admit every IPv4 address (0.0.0.0/1 + 128.0.0.0/1): this opens the service to the whole internet.',
    );
  });

  it('warns in the change request about a single very broad entry', async () => {
    const h = await harness();
    const { posted } = await requestChange(h, 'ip add orders-staging 2000::/3');
    expect(textOf(posted.args.blocks)).toContain(
      '2000::/3 admits millions of addresses (IPv6 blocks shorter than /16 are very broad).',
    );
  });

  it.each([
    [['::/1', '8000::/1'], 'IPv6'],
    [['0.0.0.0/2', '64.0.0.0/2', '128.0.0.0/2', '192.0.0.0/2'], 'IPv4'],
  ])('`show` and the summary report %j as open to the internet', async (sources, family) => {
    const h = await harness({ services: withIpList(DEMO_IDS.ordersStaging, sources) });
    const shown = await answerText(h, await h.command('show orders-staging'));
    expect(shown).toContain(
      `allows ${sources.join(' + ')}, which together cover every ${family} address: anyone on the internet can try to connect.`,
    );

    await h.command('summary');
    const detail = await h.slack.waitFor('chat.postMessage', (a) =>
      textOf(a.blocks).includes('which together cover every'),
    );
    expect(textOf(detail.args.blocks)).toContain('orders-staging');
  });
});
