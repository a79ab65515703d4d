/**
 * The read a request is filed on (issue 36 §6): the lookup's record when it is a moment old (no
 * second read of the API's budget), read again when it is older than FILING_READ_FRESH_MS or of
 * unknown age, and always read again when the change is applied.
 */
import { describe, expect, it, vi } from 'vitest';
import { FILING_READ_FRESH_MS } from '../../src/core/service/freshness.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import { ALICE, BOB, CHANNEL, inProcess } from '../support/in-process.js';

async function filedWith(serviceReadAt: number | undefined) {
  const h = inProcess();
  const service = await h.directory.getService(DEMO_IDS.ordersProd);
  if (!service) throw new Error('no orders-prod');
  const reads = vi.spyOn(h.directory, 'getService');
  const filed = await h.flow.request({
    channelId: CHANNEL,
    userId: ALICE,
    service,
    ...(serviceReadAt === undefined ? {} : { serviceReadAt }),
    intent: { name: 'orders-main' },
  });
  if (!filed.ok) throw new Error('not filed');
  return { h, id: filed.request.id, freshReadsAtFiling: reads.mock.calls.length, reads };
}

describe('the record a change is filed on', () => {
  it('is the lookup read of a moment ago, without reading the service again', async () => {
    const { freshReadsAtFiling } = await filedWith(Date.now() - 1_000);
    expect(freshReadsAtFiling).toBe(0);
  });

  it('is read again when the lookup read is older than the bound, or of unknown age', async () => {
    for (const readAt of [Date.now() - FILING_READ_FRESH_MS - 1_000, undefined, Date.now() + 60_000]) {
      const { reads, freshReadsAtFiling } = await filedWith(readAt);
      expect(freshReadsAtFiling).toBe(1);
      expect(reads).toHaveBeenCalledWith(DEMO_IDS.ordersProd, expect.objectContaining({ fresh: true }));
    }
  });

  it('is read again at apply, whatever the filing was judged on', async () => {
    const { h, id, reads } = await filedWith(Date.now());
    expect(await h.flow.decide('approve', id, BOB)).toBeUndefined();
    expect(reads).toHaveBeenCalledTimes(1);
    expect(reads).toHaveBeenCalledWith(DEMO_IDS.ordersProd, expect.objectContaining({ fresh: true }));
    expect((await h.changeStore.get(id))?.status).toBe('applied');
  });
});
