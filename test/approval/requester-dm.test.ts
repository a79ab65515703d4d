/**
 * The requester's DMs never hold up or fail a request: one that Slack refuses is logged, one that
 * never answers leaves the flow alone (in process: memory store, recording messenger).
 */
import { describe, expect, it } from 'vitest';
import type { Message, PostedMessage } from '../../src/ports/index.js';
import { ALICE, BOB, inProcess } from '../support/in-process.js';

describe("the requester's DMs", () => {
  it('tell approved then applied, to the requester only', async () => {
    const h = inProcess();
    const id = await h.requestChange('rename orders-prod orders-main');
    await h.flow.decide('approve', id, BOB);
    await h.flow.drain();
    expect(h.messenger.of('dm').map((d) => [d.userId, d.message.text.split(' was ')[1]?.slice(0, 12)])).toStrictEqual([
      [ALICE, 'approved by '],
      [ALICE, 'applied.'],
    ]);
  });

  it('a DM that Slack refuses is logged, and the request is applied all the same', async () => {
    const h = inProcess();
    h.messenger.unreachable.set(ALICE, 'user_disabled');
    const id = await h.requestChange('rename orders-prod orders-main');
    expect(await h.flow.decide('approve', id, BOB)).toBeUndefined();
    await h.flow.drain();
    expect((await h.changeStore.get(id))?.status).toBe('applied');
    expect(h.logger.lines.filter((l) => l.includes(`change ${id}: could not tell its requester`))).toHaveLength(2);
  });

  it('a DM that never answers does not hold up the approval, nor its answer', async () => {
    const h = inProcess();
    const sent: Message[] = [];
    h.messenger.dm = (_userId, message) => {
      sent.push(message);
      return new Promise<PostedMessage>(() => undefined);
    };
    const id = await h.requestChange('rename orders-prod orders-main');
    expect(await h.flow.decide('approve', id, BOB)).toBeUndefined();
    expect((await h.changeStore.get(id))?.status).toBe('applied');
    // The first DM is stuck, so the second waits behind it (order is kept), and nothing else does.
    expect(sent).toHaveLength(1);
  });
});
