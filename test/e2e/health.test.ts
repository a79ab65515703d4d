/**
 * `health SERVICE` (issue 38, live load): state, version, queries running now and memory in use
 * per replica against its size, from GET …/prometheus; a service that is not running is said to be
 * so and its metrics are never read (a read must not wake it).
 */
import { describe, expect, it } from 'vitest';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { answerText, useHarnesses } from './harness.js';

const harness = useHarnesses();
const GIB = 1024 ** 3;

describe('health SERVICE', () => {
  it('says how loaded a running service is right now, replica by replica', async () => {
    const h = await harness();
    h.simulator.setLoad(DEMO_IDS.ordersProd, { queries: 12, memoryBytesPerReplica: 20 * GIB });
    const text = await answerText(h, await h.command('health orders-prod'));
    expect(text).toContain('State: :large_green_circle: running · v');
    expect(text).toContain('*Right now:* 12 queries running, 20 of 32 GB in use on the busiest replica.');
    expect(text.match(/: 20 of 32 GB in use/g)).toHaveLength(3);
    const reads = h.simulator.requests.filter((r) => r.path.endsWith('/prometheus'));
    expect(reads.map((r) => r.query.get('filtered_metrics'))).toStrictEqual(['true']);
  });

  it('never reads the metrics of a stopped or idle service, and says why', async () => {
    const h = await harness();
    for (const name of ['orders-staging', 'sandbox-dev']) {
      const text = await answerText(h, await h.command(`health ${name}`));
      expect(text).toMatch(/its metrics are not read/);
    }
    expect(h.simulator.requests.filter((r) => r.path.endsWith('/prometheus'))).toStrictEqual([]);
  });
});
