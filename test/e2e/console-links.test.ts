/**
 * Console links end to end (issue 41): with the default CONSOLE_URL a service's name links to its
 * page in the ClickHouse Cloud console wherever a message names it; another console's address is
 * used as given; `off` leaves every name as plain bold text.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { answerText, requestChange, textOf, useHarnesses } from './harness.js';

const harness = useHarnesses();
const ORDERS = DEMO_IDS.ordersProd;

describe('console links', () => {
  it('link list, show and a change request to the ClickHouse Cloud console by default', async () => {
    const h = await harness();
    const page = `https://console.clickhouse.cloud/services/${ORDERS}`;
    expect(await answerText(h, await h.command('list'))).toContain(
      `*<${page}|orders-prod>*  \`${ORDERS.slice(0, 8)}\``,
    );
    const show = await answerText(h, await h.command('show orders-prod'));
    expect(show).toContain(`ID \`${ORDERS}\` · *<${page}|orders-prod>* in the console`);
    const { posted } = await requestChange(h, 'release-channel orders-prod fast');
    expect(textOf(posted.args.blocks)).toContain(`*<${page}|orders-prod>* \`${ORDERS}\``);
  });

  it('link to another console as configured, and to none when CONSOLE_URL is off', async () => {
    const other = await harness({ env: { CONSOLE_URL: 'https://console.example.com/cloud/' } });
    expect(await answerText(other, await other.command('list'))).toContain(
      `*<https://console.example.com/cloud/services/${ORDERS}|orders-prod>*`,
    );
    const off = await harness({ env: { CONSOLE_URL: 'off' } });
    const list = await answerText(off, await off.command('list'));
    expect(list).toContain(`*orders-prod*  \`${ORDERS.slice(0, 8)}\``);
    expect(list).not.toContain('<http');
    expect(await answerText(off, await off.command('show orders-prod'))).not.toContain('in the console');
  });
});
