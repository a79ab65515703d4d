/**
 * The edit modal's Capacity section (issue 24): prefilled from the service, absent for what the
 * record does not show, read back so that fields left as shown ask for nothing, unreadable text
 * answered inline, and a submission that changes basic settings and capacity planned as one request.
 */
import { describe, expect, it } from 'vitest';
import { planChange } from '../../../src/core/change/plan.js';
import {
  formProblems,
  editMetadata,
  editView,
  EditMetadataSchema,
  type EditMetadata,
  intentFromSubmission,
  modalErrors,
  ViewStateSchema,
  type ViewState,
} from '../../../src/core/render/modal.js';
import { BLOCK } from '../../support/blocks.js';
import type { View } from '../../../src/core/render/mrkdwn.js';
import { ServiceRecordSchema, type ServiceRecord } from '../../../src/core/service/schema.js';
import { demoServices } from '../../../src/simulator/seed.js';
import { assertModalLimits } from './block-kit.js';

function demo(name: string, overrides: Record<string, unknown> = {}): ServiceRecord {
  const record = demoServices().find((service) => service.name === name);
  if (record === undefined) throw new Error(`no demo service ${name}`);
  const merged: Record<string, unknown> = { ...record, ...overrides };
  for (const [key, value] of Object.entries(overrides)) if (value === undefined) delete merged[key];
  return ServiceRecordSchema.parse(merged);
}

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What the Capacity section's kinds kept of what they showed. */
function capacityShown(shown: EditMetadata['shown']): Record<string, unknown> {
  return Object.fromEntries(
    ['replicas', 'replicaMemory', 'idleScaling'].flatMap((kind) =>
      shown[kind] === undefined ? [] : [[kind, shown[kind]]],
    ),
  );
}

function opened(service: ServiceRecord): { view: View; shown: ReturnType<typeof editMetadata>['shown'] } {
  const metadata = editMetadata(service, 'C0CAP');
  return { view: editView(service, metadata), shown: metadata.shown };
}

function blocksOf(view: View): Json[] {
  const blocks: readonly unknown[] = view.blocks;
  return blocks.filter(isRecord);
}

function blockIds(view: View): string[] {
  return blocksOf(view).flatMap((b) => (typeof b.block_id === 'string' ? [b.block_id] : []));
}

function elementOf(view: View, blockId: string): Json {
  const block = blocksOf(view).find((b) => b.block_id === blockId);
  if (!block || !isRecord(block.element)) throw new Error(`no input block ${blockId}`);
  return block.element;
}

const CAPACITY_BLOCKS: readonly string[] = [BLOCK.replicas, BLOCK.memory, BLOCK.idle, BLOCK.idleTimeout];
const capacityIds = (view: View) => blockIds(view).filter((id) => CAPACITY_BLOCKS.includes(id));
const hasCapacityHeader = (view: View) =>
  blocksOf(view).some((b) => b.type === 'header' && isRecord(b.text) && b.text.text === 'Capacity');

/** What Slack sends back for an untouched modal: every input with its initial value (numbers as text). */
function untouched(view: View): Json {
  const values: Json = {};
  for (const block of blocksOf(view)) {
    if (block.type !== 'input' || typeof block.block_id !== 'string' || !isRecord(block.element)) continue;
    const element = block.element;
    const state: Json = { type: element.type };
    if (element.type === 'plain_text_input' || element.type === 'number_input')
      state.value = typeof element.initial_value === 'string' ? element.initial_value : null;
    if (element.type === 'static_select' || element.type === 'radio_buttons')
      state.selected_option = element.initial_option ?? null;
    if (element.type === 'multi_static_select') state.selected_options = [];
    values[block.block_id] = { value: state };
  }
  return values;
}

const text = (value: string | null) => ({ type: 'plain_text_input', value });
const number = (value: string | null) => ({ type: 'number_input', value });
const radio = (value: 'on' | 'off') => ({ type: 'radio_buttons', selected_option: { value } });

function submit(view: View, changes: Record<string, Json>): ViewState {
  const values = untouched(view);
  for (const [blockId, state] of Object.entries(changes)) values[blockId] = { value: state };
  return ViewStateSchema.parse(values);
}

describe('the Capacity section is prefilled from the service', () => {
  it('orders-prod (vertical): replicas "3", memory "8-32", idle off, timeout 15', () => {
    const { view, shown } = opened(demo('orders-prod'));
    assertModalLimits(view);
    expect(capacityShown(shown)).toStrictEqual({
      replicas: '3',
      replicaMemory: '8-32',
      idleScaling: { idle: false, idleTimeout: 15 },
    });
    expect(hasCapacityHeader(view)).toBe(true);
    expect(capacityIds(view)).toStrictEqual([BLOCK.replicas, BLOCK.memory, BLOCK.idle, BLOCK.idleTimeout]);
    expect(elementOf(view, BLOCK.replicas)).toMatchObject({ type: 'plain_text_input', initial_value: '3' });
    expect(elementOf(view, BLOCK.memory)).toMatchObject({ type: 'plain_text_input', initial_value: '8-32' });
    expect(elementOf(view, BLOCK.idle)).toMatchObject({ type: 'radio_buttons', initial_option: { value: 'off' } });
    expect(elementOf(view, BLOCK.idleTimeout)).toStrictEqual({
      type: 'number_input',
      action_id: 'value',
      is_decimal_allowed: false,
      min_value: '5',
      initial_value: '15',
    });
    // What was shown travels in the metadata, so the submission is compared with it.
    const metadata = EditMetadataSchema.parse(JSON.parse(view.private_metadata ?? ''));
    expect(metadata.shown).toStrictEqual(shown);
  });

  it('search-prod (horizontal): replicas "2-6", memory "16"', () => {
    const { view } = opened(demo('search-prod'));
    assertModalLimits(view);
    expect(elementOf(view, BLOCK.replicas)).toMatchObject({ initial_value: '2-6' });
    expect(elementOf(view, BLOCK.memory)).toMatchObject({ initial_value: '16' });
  });

  it('sandbox-dev (development): no memory field, idle on', () => {
    const { view } = opened(demo('sandbox-dev'));
    assertModalLimits(view);
    expect(capacityIds(view)).toStrictEqual([BLOCK.replicas, BLOCK.idle, BLOCK.idleTimeout]);
    expect(elementOf(view, BLOCK.replicas)).toMatchObject({ initial_value: '1' });
    expect(elementOf(view, BLOCK.idle)).toMatchObject({ initial_option: { value: 'on' } });
  });

  it('leaves out each field the record does not show, and the whole section when it shows none', () => {
    const noIdle = opened(demo('orders-prod', { idleScaling: undefined }));
    expect(capacityIds(noIdle.view)).toStrictEqual([BLOCK.replicas, BLOCK.memory, BLOCK.idleTimeout]);
    const nothing = opened(
      demo('orders-prod', {
        autoscalingMode: undefined,
        numReplicas: undefined,
        minReplicaMemoryGb: undefined,
        maxReplicaMemoryGb: undefined,
        idleScaling: undefined,
        idleTimeoutMinutes: undefined,
        currentScaling: undefined,
      }),
    );
    expect(capacityShown(nothing.shown)).toStrictEqual({});
    expect(capacityIds(nothing.view)).toStrictEqual([]);
    expect(hasCapacityHeader(nothing.view)).toBe(false);
    assertModalLimits(nothing.view);
  });

  it('stays within Block Kit limits for every demo service', () => {
    for (const record of demoServices()) {
      const { view } = opened(ServiceRecordSchema.parse(record));
      assertModalLimits(view);
    }
  });
});

describe('reading the Capacity section back', () => {
  const orders = opened(demo('orders-prod'));
  const search = opened(demo('search-prod'));

  it('asks for nothing when the section is left as shown', () => {
    expect(intentFromSubmission(submit(orders.view, {}), orders.shown)).toStrictEqual({});
    expect(intentFromSubmission(submit(search.view, {}), search.shown)).toStrictEqual({});
    expect(formProblems(submit(orders.view, {}), orders.shown)).toStrictEqual({});
    // A field emptied is not a request either.
    expect(intentFromSubmission(submit(orders.view, { [BLOCK.replicas]: text(null) }), orders.shown)).toStrictEqual({});
    expect(
      intentFromSubmission(submit(orders.view, { [BLOCK.idleTimeout]: number(null) }), orders.shown),
    ).toStrictEqual({});
  });

  it.each<[string, Record<string, Json>, Json]>([
    ['replicas 6', { [BLOCK.replicas]: text('6') }, { replicas: { min: 6, max: 6 } }],
    ['replicas with spaces around', { [BLOCK.replicas]: text(' 4 ') }, { replicas: { min: 4, max: 4 } }],
    ['memory 16-64', { [BLOCK.memory]: text('16-64') }, { replicaMemoryGb: { min: 16, max: 64 } }],
    ['memory 16 GB - 64 GB', { [BLOCK.memory]: text('16 GB - 64 GB') }, { replicaMemoryGb: { min: 16, max: 64 } }],
    ['idle on', { [BLOCK.idle]: radio('on') }, { idleScaling: { enabled: true } }],
    ['timeout 30', { [BLOCK.idleTimeout]: number('30') }, { idleScaling: { enabled: false, timeoutMinutes: 30 } }],
    [
      'idle on after 30',
      { [BLOCK.idle]: radio('on'), [BLOCK.idleTimeout]: number('30') },
      { idleScaling: { enabled: true, timeoutMinutes: 30 } },
    ],
    [
      'replicas and memory',
      { [BLOCK.replicas]: text('6'), [BLOCK.memory]: text('16') },
      { replicas: { min: 6, max: 6 }, replicaMemoryGb: { min: 16, max: 16 } },
    ],
  ])('orders-prod: %s', (_, changes, intent) => {
    const values = submit(orders.view, changes);
    expect(intentFromSubmission(values, orders.shown)).toStrictEqual(intent);
    expect(formProblems(values, orders.shown)).toStrictEqual({});
  });

  it('search-prod: a replica range typed with an en dash or "to"', () => {
    expect(intentFromSubmission(submit(search.view, { [BLOCK.replicas]: text('2–8') }), search.shown)).toStrictEqual({
      replicas: { min: 2, max: 8 },
    });
    expect(intentFromSubmission(submit(search.view, { [BLOCK.replicas]: text('3 to 6') }), search.shown)).toStrictEqual(
      { replicas: { min: 3, max: 6 } },
    );
  });

  it('answers unreadable text inline, on its own field, and leaves it out of the intent', () => {
    const values = submit(orders.view, {
      [BLOCK.replicas]: text('lots'),
      [BLOCK.memory]: text('16TB'),
      [BLOCK.idleTimeout]: number('7.5'),
    });
    expect(formProblems(values, orders.shown)).toStrictEqual({
      [BLOCK.replicas]: 'Replicas are a whole number like 3, or a range like 2-6; "lots" is not.',
      [BLOCK.memory]: 'Memory per replica is a number of GB like 16, or a range like 16-64; "16TB" is not.',
      [BLOCK.idleTimeout]: 'The idle timeout is a whole number of minutes; "7.5" is not.',
    });
    expect(intentFromSubmission(values, orders.shown)).toStrictEqual({});
  });

  it('answers a value the service cannot take under the field it came from', () => {
    const intent = intentFromSubmission(submit(orders.view, { [BLOCK.replicas]: text('25') }), orders.shown);
    const result = planChange(demo('orders-prod'), intent);
    if (result.ok) throw new Error('expected a refusal');
    expect(modalErrors(result.problems)).toStrictEqual({
      [BLOCK.replicas]: 'Replicas must be a whole number from 1 to 20; 25 is not.',
    });
    const range = intentFromSubmission(submit(orders.view, { [BLOCK.memory]: text('64-16') }), orders.shown);
    const refused = planChange(demo('orders-prod'), range);
    if (refused.ok) throw new Error('expected a refusal');
    expect(modalErrors(refused.problems)[BLOCK.memory]).toContain('write 16-64, not 64-16');
  });
});

describe('a Capacity field retyped as the same value', () => {
  it('says "already" under the field that was retyped', () => {
    const { view, shown } = opened(demo('search-prod'));
    const intent = intentFromSubmission(submit(view, { [BLOCK.replicas]: text('2 - 6') }), shown);
    expect(intent).toStrictEqual({ replicas: { min: 2, max: 6 } });
    const result = planChange(demo('search-prod'), intent);
    if (result.ok) throw new Error('expected a refusal');
    expect(modalErrors(result.problems)).toStrictEqual({
      [BLOCK.replicas]: 'search-prod already runs between 2 and 6 replicas.',
    });
  });
});

describe('a submission that changes basic settings and capacity', () => {
  const { view, shown } = opened(demo('orders-prod'));

  it('name + replicas is ONE request with two operations: the update, then replicaScaling', () => {
    const intent = intentFromSubmission(
      submit(view, { [BLOCK.name]: text('orders-main'), [BLOCK.replicas]: text('6') }),
      shown,
    );
    expect(intent).toStrictEqual({ name: 'orders-main', replicas: { min: 6, max: 6 } });
    const result = planChange(demo('orders-prod'), intent);
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(result.plan.operations).toStrictEqual([
      { endpoint: 'update', body: { name: 'orders-main' } },
      { endpoint: 'replicaScaling', body: { numReplicas: 6 }, expect: { numReplicas: 6 } },
    ]);
    expect(result.plan.update).toStrictEqual({ name: 'orders-main' });
    expect(result.plan.changes.map((c) => c.label)).toStrictEqual(['Name', 'Replicas', 'Total memory']);
  });

  it('a name change with the Capacity section untouched stays a plain update', () => {
    const intent = intentFromSubmission(submit(view, { [BLOCK.name]: text('orders-main') }), shown);
    const result = planChange(demo('orders-prod'), intent);
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(result.plan.operations).toBeUndefined();
    expect(result.plan.update).toStrictEqual({ name: 'orders-main' });
  });
});
