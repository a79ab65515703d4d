/**
 * Requests that meet on one service (issue 35, items 5 and 13), end to end: the real bot over
 * signed HTTP, real Redis, the simulator and the Slack stand-in. What a request says it applies
 * is what it applies, or it is not applied and says why.
 */
import { describe, expect, it } from 'vitest';
import { ACTION_APPROVE, ACTION_ASK_AGAIN } from '../../src/core/render/change.js';
import { DEMO_IDS } from '../../src/simulator/seed.js';
import {
  answerText,
  appliedMessage,
  patchesTo,
  requestChange,
  textOf,
  useHarnesses,
  USERS,
  type Harness,
} from './harness.js';

const harness = useHarnesses({ simulatorTransitionMs: 0 });

const outcome = (h: Harness, id: string, word: string) =>
  h.slack.waitFor('chat.update', (a) => textOf(a.blocks).includes(id) && textOf(a.blocks).includes(word));

describe('a figure that rests on another field', () => {
  it('a memory request whose total memory moved (replicas changed by another request) is not applied, and says why', async () => {
    const h = await harness();
    const memory = await requestChange(h, 'scale orders-prod memory 16-64');
    expect(textOf(memory.posted.args.blocks)).toContain('*Total memory*: `24–96 GB` → `48–192 GB`');
    const replicas = await requestChange(h, 'scale orders-prod replicas 5');
    await h.click(ACTION_APPROVE, replicas.id, USERS.approver);
    await appliedMessage(h, replicas.id);

    await h.click(ACTION_APPROVE, memory.id, USERS.approver);
    const failed = textOf((await outcome(h, memory.id, 'Not applied')).args.blocks);
    expect(failed).toContain('total memory: 40–160 GB now, 24–96 GB when asked');
    expect((await h.bot.changeStore.get(memory.id))?.status).toBe('failed');
    expect(patchesTo(h, '/replicaScaling').map((r) => r.body)).toStrictEqual([{ numReplicas: 5 }]);
    expect(h.simulator.service(DEMO_IDS.ordersProd)?.maxReplicaMemoryGb).toBe(32);
  });
});

describe('requests that change one set (IP access entries)', () => {
  it('two people adding two different addresses while both wait: both land', async () => {
    const h = await harness();
    const alice = await requestChange(h, 'ip add orders-prod 192.0.2.10 alice laptop', USERS.requester);
    const bob = await requestChange(h, 'ip add orders-prod 192.0.2.20 bob laptop', USERS.second);
    await h.click(ACTION_APPROVE, alice.id, USERS.approver);
    await appliedMessage(h, alice.id);
    await h.click(ACTION_APPROVE, bob.id, USERS.approver);
    await appliedMessage(h, bob.id);
    const sources = (h.simulator.service(DEMO_IDS.ordersProd)?.ipAccessList ?? []).map((e) => e.source);
    expect(sources).toEqual(expect.arrayContaining(['192.0.2.10', '192.0.2.20', '203.0.113.0/24', '198.51.100.7']));
    expect(sources).toHaveLength(4);
  });

  it('removing an entry someone re-described meanwhile is not applied (stale), and says which', async () => {
    const h = await harness();
    const removal = await requestChange(h, 'ip remove orders-prod 198.51.100.7');
    const redescribe = await requestChange(h, 'ip add orders-prod 198.51.100.7 VPN egress renamed', USERS.second);
    await h.click(ACTION_APPROVE, redescribe.id, USERS.approver);
    await appliedMessage(h, redescribe.id);
    await h.click(ACTION_APPROVE, removal.id, USERS.approver);
    const failed = textOf((await outcome(h, removal.id, 'Not applied')).args.blocks);
    expect(failed).toContain('The service changed since this request was made (IP access)');
    const vpn = h.simulator.service(DEMO_IDS.ordersProd)?.ipAccessList?.find((e) => e.source === '198.51.100.7');
    expect(vpn?.description).toBe('VPN egress renamed');
  });
});

describe('two open requests changing the same field of one service', () => {
  it('the second says so when filed, naming the first; once stale, its requester may ask again as the service is now', async () => {
    const h = await harness();
    const first = await requestChange(h, 'scale orders-prod replicas 5');
    const second = await requestChange(h, 'scale orders-prod replicas 6', USERS.second);
    expect(textOf(second.posted.args.blocks)).toContain(
      `${first.id}, still open, also changes Replicas of this service: whichever of the two is applied second will not be`,
    );
    await h.click(ACTION_APPROVE, first.id, USERS.approver);
    await appliedMessage(h, first.id);
    await h.click(ACTION_APPROVE, second.id, USERS.approver);
    const failed = await outcome(h, second.id, 'Not applied');
    expect(textOf(failed.args.blocks)).toContain(
      'The service changed since this request was made (Replicas, Total memory)',
    );
    expect(JSON.stringify(failed.args.blocks)).toContain(ACTION_ASK_AGAIN);
    // The requester, told by DM, gets the same offer there.
    const told = await h.slack.waitFor(
      'chat.postMessage',
      (a) =>
        a.channel === USERS.second &&
        textOf(a.blocks).includes(`${second.id}\` to`) &&
        textOf(a.blocks).includes('was not applied'),
    );
    expect(JSON.stringify(told.args.blocks)).toContain(ACTION_ASK_AGAIN);

    const stranger = await answerText(h, await h.click(ACTION_ASK_AGAIN, second.id, USERS.outsider));
    expect(stranger).toContain(`Only <@${USERS.second}>, who asked for it, can ask for it again`);
    const after = h.slack.calls.length;
    const again = await answerText(h, await h.click(ACTION_ASK_AGAIN, second.id, USERS.second));
    const posted = await h.slack.waitFor('chat.postMessage', (a) => textOf(a.blocks).includes('Change request'), {
      after,
    });
    const newId = /CR-[0-9A-F]{10}/.exec(textOf(posted.args.blocks))?.[0] ?? '';
    expect(again).toContain(newId);
    expect(textOf(posted.args.blocks)).toContain('*Replicas*: `5` → `6`');
    expect((await h.bot.changeStore.get(newId))?.requesterId).toBe(USERS.second);
    const twice = await answerText(h, await h.click(ACTION_ASK_AGAIN, second.id, USERS.second));
    expect(twice).toContain('It was already asked again');
  });

  it('two additions of different addresses are filed without a word about each other', async () => {
    const h = await harness();
    await requestChange(h, 'ip add orders-prod 192.0.2.10 alice laptop');
    const bob = await requestChange(h, 'ip add orders-prod 192.0.2.20 bob laptop', USERS.second);
    expect(textOf(bob.posted.args.blocks)).not.toContain('still open');
    const same = await requestChange(h, 'ip add orders-prod 192.0.2.20 bob desktop');
    expect(textOf(same.posted.args.blocks)).toContain(`${bob.id}, still open, also changes IP access 192.0.2.20`);
  });
});
