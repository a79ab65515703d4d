/**
 * `query-endpoint SERVICE` (issue 39, first bullet): whether the Query API endpoint is on, its
 * role, the keys allowed (by name and last four characters) and the origins, read from GET
 * …/serviceQueryEndpoint (404: off) and GET …/keys.
 */
import { describe, expect, it } from 'vitest';
import { DEMO_IDS, DEMO_OTHER_KEY_IDS } from '../../src/simulator/seed.js';
import { answerText, callSimulatorApi, useHarnesses, type Harness } from './harness.js';

const harness = useHarnesses();

/** Opens the endpoint as the console (or another tool) would, over the simulator's API. */
const openEndpoint = (h: Harness, body: Record<string, unknown>) =>
  callSimulatorApi(h, 'POST', `/services/${DEMO_IDS.ordersProd}/serviceQueryEndpoint`, body);

describe('query-endpoint SERVICE', () => {
  it('says it is off when the API has none, and reads no keys then', async () => {
    const h = await harness();
    const text = await answerText(h, await h.command('query-endpoint orders-prod'));
    expect(text).toContain('The Query API endpoint is *off*');
    expect(h.simulator.requests.filter((r) => r.path.endsWith('/keys'))).toStrictEqual([]);
  });

  it('names the role, the keys by name and last four characters, and warns of admin and any origin', async () => {
    const h = await harness();
    await openEndpoint(h, {
      roles: ['sql_console_admin'],
      openApiKeys: [DEMO_OTHER_KEY_IDS.unused],
      allowedOrigins: '',
    });
    const text = await answerText(h, await h.command('query-endpoint orders-prod'));
    expect(text).toContain('The Query API endpoint is *on*, role admin.');
    expect(text).toContain(':warning: Admin: the keys below can write');
    expect(text).toContain('Keys allowed: *ci-readonly* `…q7Zk`');
    expect(text).toContain(':warning: Origins: any');
  });

  it('lists the origins it is limited to', async () => {
    const h = await harness();
    await openEndpoint(h, {
      roles: ['sql_console_read_only'],
      openApiKeys: [DEMO_OTHER_KEY_IDS.unused],
      allowedOrigins: 'dash.example.com,partner.example.com',
    });
    const text = await answerText(h, await h.command('query-endpoint orders-prod'));
    expect(text).toContain('role read-only');
    expect(text).toContain('Origins: `dash.example.com`, `partner.example.com`');
    expect(text).not.toContain(':warning:');
  });
});
