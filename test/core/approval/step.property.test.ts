/**
 * Random schedules of two replicas, clicks, takeovers, API answers and failures, duplicated and
 * out-of-order events, thrown at the decision function through a model of the store: no
 * operation lands twice, a final status never moves, "applied" is never recorded without every
 * operation having landed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OPERATIONS, SEND_DICE, World } from './world.js';

const action = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('click' as const),
      replica: fc.nat(1),
      user: fc.constantFrom('U1', 'U2'),
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('answer' as const),
      replica: fc.nat(1),
      send: fc.constantFrom(...SEND_DICE),
      read: fc.constantFrom('read' as const, 'read' as const, 'read-fails' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('take-over' as const), replica: fc.nat(1) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('replay' as const), replica: fc.nat(1), pick: fc.nat(50) }) },
  // A scheduled request's time coming (in time, or past the grace), and its requester cancelling.
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('due' as const), replica: fc.nat(1), late: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), replica: fc.nat(1) }) },
);

function play(world: World, actions: readonly Action[]): void {
  // Someone approves at the start; the schedule decides the rest (more clicks included).
  world.click(0, 'U1');
  for (const a of actions) {
    if (a.kind === 'click') world.click(a.replica, a.user);
    else if (a.kind === 'answer') world.answer(a.replica, a.send, a.read);
    else if (a.kind === 'take-over') world.takeOver(a.replica);
    else if (a.kind === 'due') world.due(a.replica, a.late);
    else if (a.kind === 'cancel') world.cancel(a.replica);
    else world.replay(a.replica, a.pick);
  }
  // Let everything that is waiting finish, as live replicas would.
  for (let round = 0; round < 40; round++) for (const index of [0, 1]) world.answer(index, 'answered', 'read');
}

type Action =
  | { kind: 'click'; replica: number; user: string }
  | { kind: 'answer'; replica: number; send: (typeof SEND_DICE)[number]; read: 'read' | 'read-fails' }
  | { kind: 'take-over'; replica: number }
  | { kind: 'due'; replica: number; late: boolean }
  | { kind: 'cancel'; replica: number }
  | { kind: 'replay'; replica: number; pick: number };

describe('the decision function under random schedules (fast-check)', () => {
  it.each([
    ['two operations', OPERATIONS],
    ['one operation', OPERATIONS.slice(0, 1)],
  ])('%s: 1,000 sequences keep every invariant', (_name, operations) => {
    const endings = new Map<string, number>();
    fc.assert(
      fc.property(fc.array(action, { minLength: 10, maxLength: 80, size: 'max' }), (actions) => {
        const world = new World(operations);
        play(world, actions);
        expect(world.verdict()).toEqual([]);
        endings.set(world.stored.status, (endings.get(world.stored.status) ?? 0) + 1);
      }),
      { numRuns: 1_000 },
    );
    // The schedules reach every ending that matters, or the invariants above were never tested.
    expect(endings.get('applied')).toBeGreaterThan(50);
    expect(endings.get('failed')).toBeGreaterThan(50);
  });

  it('a scheduled request: 1,000 sequences keep every invariant, and it never starts before its time', () => {
    const endings = new Map<string, number>();
    fc.assert(
      fc.property(fc.array(action, { minLength: 10, maxLength: 80, size: 'max' }), (actions) => {
        const world = new World(OPERATIONS, ['A', 'B'], { applyAt: 60_000 });
        play(world, actions);
        expect(world.verdict()).toEqual([]);
        endings.set(world.stored.status, (endings.get(world.stored.status) ?? 0) + 1);
      }),
      { numRuns: 1_000 },
    );
    for (const ending of ['applied', 'failed', 'cancelled', 'expired', 'scheduled'])
      expect(endings.get(ending), ending).toBeGreaterThan(20);
  });

  it('the world can fail: a store that lets a lost lease record is caught', () => {
    // A sanity check of the harness itself: an operation landed twice is reported.
    const world = new World(OPERATIONS);
    world.landed[0] = 2;
    expect(world.verdict()).toContain('operation 0 landed 2 times');
  });

  it('the world can fail: the channel told "applied" before the store records it is caught', () => {
    const world = new World(OPERATIONS.slice(0, 1));
    world.click(0, 'U1');
    const replica = world.replicas[0];
    for (let round = 0; round < 20; round++) {
      const asked = replica?.asked;
      if (asked?.type === 'transition' && asked.to === 'applied') break;
      world.answer(0, 'answered', 'read');
    }
    world.answerWithoutRecording(0);
    expect(world.verdict()).toContain('the channel was told applied while the store had applying');
  });
});
