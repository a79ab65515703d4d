import { describe, expect, it } from 'vitest';
import type { ServiceRecord } from '../../../src/core/service/schema.js';
import { planChange, type PlanProblem } from '../../../src/core/change/plan.js';
import {
  EDIT_CALLBACK,
  editMetadata,
  editView,
  EditMetadataSchema,
  intentFromSubmission,
  loadingView,
  messageView,
  modalErrors,
  ViewStateSchema,
  type ViewState,
} from '../../../src/core/render/modal.js';
import { parseIpLines } from '../../../src/core/change/kinds/ip-access.js';
import { BLOCK } from '../../support/blocks.js';
import type { View } from '../../../src/core/render/mrkdwn.js';
import { ipEntries, refused, service } from '../fixtures.js';
import { assertModalLimits, assertSafeMrkdwn } from './block-kit.js';

const metadata = editMetadata(service(), 'C0123');

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function blocksOf(view: View): Json[] {
  const blocks: readonly unknown[] = view.blocks;
  return blocks.filter(isRecord);
}

function blockIds(view: View): string[] {
  return blocksOf(view).flatMap((b) => (typeof b.block_id === 'string' ? [b.block_id] : []));
}

/** The input element of a block, as plain data. */
function elementOf(view: View, blockId: string): Json {
  const block = blocksOf(view).find((b) => b.block_id === blockId);
  if (!block || !isRecord(block.element)) throw new Error(`no input block ${blockId}`);
  return block.element;
}

interface Opt {
  text: { text: string };
  value: string;
}
const isOpt = (value: unknown): value is Opt =>
  isRecord(value) && typeof value.value === 'string' && isRecord(value.text);

/** Every option an element offers, flat or grouped. */
function offered(element: Json): Opt[] {
  const flat = Array.isArray(element.options) ? element.options.filter(isOpt) : [];
  const groups = Array.isArray(element.option_groups) ? element.option_groups.filter(isRecord) : [];
  return [...flat, ...groups.flatMap((g) => (Array.isArray(g.options) ? g.options.filter(isOpt) : []))];
}

/**
 * What Slack sends back in view.state.values when the person submits the modal without touching
 * anything: inputs carry their initial values, selects their initial options, the rest is empty.
 */
function untouchedSubmission(view: View): Json {
  const values: Json = {};
  for (const block of blocksOf(view)) {
    if (block.type !== 'input' || typeof block.block_id !== 'string' || !isRecord(block.element)) continue;
    const element = block.element;
    const type = element.type;
    const state: Json = { type };
    if (type === 'plain_text_input')
      state.value = typeof element.initial_value === 'string' ? element.initial_value : null;
    if (type === 'static_select' || type === 'radio_buttons') state.selected_option = element.initial_option ?? null;
    if (type === 'multi_static_select') state.selected_options = [];
    values[block.block_id] = { value: state };
  }
  return values;
}

/** A submission state as Slack shapes it, parsed through the same schema the listener uses. */
function submission(view: View, changes: Record<string, Json>): ViewState {
  const base = untouchedSubmission(view);
  for (const [blockId, state] of Object.entries(changes)) base[blockId] = { value: state };
  return ViewStateSchema.parse(base);
}

const option = (value: string) => ({ text: { type: 'plain_text', text: value }, value });

describe('editView', () => {
  const view = editView(service(), metadata);

  it('is a modal with the edit callback and the channel and service in its metadata', () => {
    expect(view).toMatchObject({ type: 'modal', callback_id: EDIT_CALLBACK });
    const parsed = EditMetadataSchema.parse(JSON.parse(view.private_metadata ?? ''));
    expect(parsed).toStrictEqual(metadata);
    assertModalLimits(view);
  });

  it('offers every field of a production service with TDE', () => {
    expect(blockIds(view)).toStrictEqual([
      BLOCK.name,
      BLOCK.releaseChannel,
      BLOCK.mysql,
      BLOCK.ipAdd,
      BLOCK.ipRemove,
      BLOCK.attach,
      BLOCK.detach,
      BLOCK.tdeKey,
      BLOCK.tags,
      BLOCK.replicas,
      BLOCK.memory,
      BLOCK.idle,
      BLOCK.idleTimeout,
      BLOCK.duration,
      BLOCK.applyAt,
      BLOCK.reason,
      BLOCK.ticket,
    ]);
  });

  it('offers "for how long" up to TEMPORARY_MAX_SECONDS, permanent unless chosen', () => {
    expect(offered(elementOf(view, BLOCK.duration)).map((o) => o.value)).toStrictEqual([
      '30m',
      '1h',
      '2h',
      '4h',
      '8h',
      '1d',
      '3d',
      '7d',
    ]);
    expect(elementOf(view, BLOCK.duration)).not.toHaveProperty('initial_option');
    expect(
      offered(elementOf(editView(service(), metadata, 3 * 3600_000), BLOCK.duration)).map((o) => o.value),
    ).toStrictEqual(['30m', '1h', '2h']);
    expect(blockIds(editView(service(), metadata, 60_000))).not.toContain(BLOCK.duration);
  });

  it('starts from the service as it is', () => {
    expect(elementOf(view, BLOCK.name)).toMatchObject({
      type: 'plain_text_input',
      initial_value: 'orders-prod',
      max_length: 50,
    });
    expect(elementOf(view, BLOCK.releaseChannel)).toMatchObject({
      type: 'static_select',
      initial_option: { value: 'default' },
    });
    expect(offered(elementOf(view, BLOCK.releaseChannel)).map((o) => o.value)).toStrictEqual([
      'slow',
      'default',
      'fast',
    ]);
    expect(elementOf(view, BLOCK.mysql)).toMatchObject({ type: 'radio_buttons', initial_option: { value: 'off' } });
    expect(offered(elementOf(view, BLOCK.ipRemove)).map((o) => [o.text.text, o.value])).toStrictEqual([
      ['10.0.0.0/8 office', '10.0.0.0/8'],
      ['203.0.113.7/32 vpn', '203.0.113.7/32'],
    ]);
    expect(offered(elementOf(view, BLOCK.attach)).map((o) => o.value)).toStrictEqual(['pe-free']);
    expect(offered(elementOf(view, BLOCK.detach)).map((o) => o.value)).toStrictEqual(['pe-attached']);
  });

  it('shows MySQL as on when it is on', () => {
    const on = editView(service({ endpoints: [{ protocol: 'mysql' }] }), metadata);
    expect(elementOf(on, BLOCK.mysql)).toMatchObject({ initial_option: { value: 'on' } });
  });

  it('explains instead of offering the release channel on a development service', () => {
    const dev = editView(service({ tier: 'development' }), metadata);
    expect(blockIds(dev)).not.toContain(BLOCK.releaseChannel);
    expect(JSON.stringify(dev.blocks)).toContain(
      'Release channel: default (development services stay on the default channel).',
    );
  });

  it.each([['production'], ['dedicated_high_mem'], [null], [undefined]] as const)(
    'offers slow, default and fast on a service of tier %j',
    (tier) => {
      const view = editView(service({ tier }), metadata);
      const select = view.blocks.find((b) => b.block_id === BLOCK.releaseChannel);
      expect(JSON.stringify(select)).toMatch(/"value":"slow".*"value":"default".*"value":"fast"/);
    },
  );

  it('lets a development service that is somehow off the default channel go back to it, and only there', () => {
    const view = editView(service({ tier: 'development', releaseChannel: 'fast' }), metadata);
    const select = JSON.stringify(view.blocks.find((b) => b.block_id === BLOCK.releaseChannel));
    expect(select).toContain('"value":"default"');
    expect(select).not.toContain('"value":"slow"');
  });

  it('leaves out selects with nothing to choose and the key field without TDE', () => {
    const plain = editView(
      service({
        ipAccessList: [],
        privateEndpointIds: [],
        availablePrivateEndpointIds: [],
        hasTransparentDataEncryption: undefined,
      }),
      metadata,
    );
    expect(blockIds(plain)).toStrictEqual([
      BLOCK.name,
      BLOCK.releaseChannel,
      BLOCK.mysql,
      BLOCK.ipAdd,
      BLOCK.tags,
      BLOCK.replicas,
      BLOCK.memory,
      BLOCK.idle,
      BLOCK.idleTimeout,
      BLOCK.duration,
      BLOCK.applyAt,
      BLOCK.reason,
      BLOCK.ticket,
    ]);
  });

  it('keeps a service with 200 IP entries within modal limits and offers all 200 for removal', () => {
    const big = editView(service({ ipAccessList: ipEntries(200, 255) }), metadata);
    assertModalLimits(big);
    const remove = elementOf(big, BLOCK.ipRemove);
    expect(remove.options).toBeUndefined();
    expect(Array.isArray(remove.option_groups) && remove.option_groups.length).toBe(2);
    const values = offered(remove).map((o) => o.value);
    expect(values).toStrictEqual(ipEntries(200).map((e) => e.source));
  });

  it('uses a plain option list for exactly 100 entries', () => {
    const hundred = editView(service({ ipAccessList: ipEntries(100, 30) }), metadata);
    assertModalLimits(hundred);
    expect(offered(elementOf(hundred, BLOCK.ipRemove))).toHaveLength(100);
    expect(elementOf(hundred, BLOCK.ipRemove).option_groups).toBeUndefined();
  });

  it('stays within limits with 20,000 entries, offering as many as Slack allows', () => {
    const huge = editView(service({ ipAccessList: ipEntries(20_000, 10) }), metadata);
    assertModalLimits(huge);
    expect(offered(elementOf(huge, BLOCK.ipRemove))).toHaveLength(10_000);
  });

  it('stays within limits with 300 private endpoints and long key ids', () => {
    const ids = Array.from({ length: 300 }, (_, i) => `vpce-${String(i).padStart(17, '0')}`);
    const record = service({
      privateEndpointIds: ids.slice(0, 150),
      availablePrivateEndpointIds: ids,
      transparentDataEncryptionKeyId: 'k'.repeat(400),
    });
    const many = editView(record, metadata);
    assertModalLimits(many);
    expect(offered(elementOf(many, BLOCK.attach))).toHaveLength(150);
    expect(offered(elementOf(many, BLOCK.detach))).toHaveLength(150);
  });

  it('does not offer private endpoint ids too long to be option values', () => {
    const long = 'p'.repeat(80);
    const record = service({ privateEndpointIds: [long], availablePrivateEndpointIds: [long, `${long}2`, 'pe-ok'] });
    const v = editView(record, metadata);
    assertModalLimits(v);
    expect(offered(elementOf(v, BLOCK.attach)).map((o) => o.value)).toStrictEqual(['pe-ok']);
    expect(blockIds(v)).not.toContain(BLOCK.detach);
  });

  it('escapes data shown in mrkdwn', () => {
    const hostile = '<!channel> & <http://evil|click>';
    assertSafeMrkdwn(editView(service({ id: hostile, tier: hostile }), metadata).blocks);
  });
});

describe('loadingView and messageView', () => {
  it('are small modals within limits', () => {
    assertModalLimits(loadingView());
    const message = messageView('x'.repeat(10_000));
    assertModalLimits(message);
    expect(message.callback_id).toBe(`${EDIT_CALLBACK}_message`);
  });
});

describe('intentFromSubmission', () => {
  const record: ServiceRecord = service();
  const view = editView(record, metadata);

  it('reads an untouched form as no change at all, which planning refuses', () => {
    const intent = intentFromSubmission(ViewStateSchema.parse(untouchedSubmission(view)), metadata.shown);
    expect(refused(record, intent)[0]?.message).toContain('changes nothing');
  });

  it('does not turn fields left as they were into changes that undo what someone else did meanwhile', () => {
    // The modal is opened, then a colleague renames the service, opens MySQL and switches the
    // channel; the submission (re-planned against the fresh record) only adds an IP entry.
    const values = submission(view, { [BLOCK.ipAdd]: { type: 'plain_text_input', value: '192.0.2.1 lab' } });
    const meanwhile = service({ name: 'orders-renamed', endpoints: [{ protocol: 'mysql' }], releaseChannel: 'fast' });
    const result = planChange(meanwhile, intentFromSubmission(values, metadata.shown));
    expect(result.ok && result.plan.changes.map((c) => c.field)).toStrictEqual(['ipAccessList']);
  });

  it('reads every field a person filled in', () => {
    const values = submission(view, {
      [BLOCK.name]: { type: 'plain_text_input', value: ' orders-main ' },
      [BLOCK.releaseChannel]: { type: 'static_select', selected_option: option('fast') },
      [BLOCK.mysql]: { type: 'radio_buttons', selected_option: option('on') },
      [BLOCK.ipAdd]: { type: 'plain_text_input', value: '192.0.2.1 lab bench\n\n  198.51.100.0/24  \n' },
      [BLOCK.ipRemove]: { type: 'multi_static_select', selected_options: [option('203.0.113.7/32')] },
      [BLOCK.attach]: { type: 'multi_static_select', selected_options: [option('pe-free')] },
      [BLOCK.detach]: { type: 'multi_static_select', selected_options: [option('pe-attached')] },
      [BLOCK.tdeKey]: { type: 'plain_text_input', value: 'key-2' },
    });
    const intent = intentFromSubmission(values, metadata.shown);
    expect(intent).toStrictEqual({
      name: 'orders-main',
      releaseChannel: 'fast',
      mysqlEndpoint: true,
      ipAdd: [{ source: '192.0.2.1', description: 'lab bench' }, { source: '198.51.100.0/24' }],
      ipRemove: ['203.0.113.7/32'],
      privateEndpointAttach: ['pe-free'],
      privateEndpointDetach: ['pe-attached'],
      tdeKeyId: 'key-2',
    });
    const result = planChange(record, intent);
    expect(result.ok).toBe(true);
  });

  it('keeps the name as it was when the field is cleared', () => {
    const intent = intentFromSubmission(
      submission(view, {
        [BLOCK.name]: { type: 'plain_text_input', value: null },
        [BLOCK.tdeKey]: { type: 'plain_text_input', value: '   ' },
      }),
      metadata.shown,
    );
    expect(intent.name).toBeUndefined();
    expect(intent.tdeKeyId).toBeUndefined();
  });

  it('ignores a release channel value Slack would never send', () => {
    expect(
      intentFromSubmission(
        submission(view, { [BLOCK.releaseChannel]: { type: 'static_select', selected_option: option('nightly') } }),
        metadata.shown,
      ).releaseChannel,
    ).toBeUndefined();
  });

  it('reads an empty state as an empty intent', () => {
    expect(intentFromSubmission({}, metadata.shown)).toStrictEqual({});
  });
});

describe('parseIpLines', () => {
  it('splits each line into a source and an optional description', () => {
    expect(parseIpLines('10.0.0.0/8 head office\n203.0.113.7')).toStrictEqual([
      { source: '10.0.0.0/8', description: 'head office' },
      { source: '203.0.113.7' },
    ]);
  });

  it('ignores blank lines, tabs, runs of spaces and Windows line ends', () => {
    expect(parseIpLines('\r\n  10.0.0.0/8\t\tvpn   gateway \r\n\n   \n2001:db8::/32\r\n')).toStrictEqual([
      { source: '10.0.0.0/8', description: 'vpn gateway' },
      { source: '2001:db8::/32' },
    ]);
  });

  it('returns nothing for empty text', () => {
    expect(parseIpLines('')).toStrictEqual([]);
    expect(parseIpLines('  \n ')).toStrictEqual([]);
  });
});

describe('the tags field', () => {
  const tagged = service({ tags: [{ key: 'env', value: 'prod' }, { key: 'team', value: 'data' }, { key: 'keep' }] });
  const shown = editMetadata(tagged, 'C0123');
  const view = editView(tagged, shown);
  const submitTags = (value: string | null) =>
    intentFromSubmission(submission(view, { [BLOCK.tags]: { type: 'plain_text_input', value } }), shown.shown);

  it('starts from the tags as people type them', () => {
    expect(elementOf(view, BLOCK.tags)).toMatchObject({
      type: 'plain_text_input',
      initial_value: 'env=prod team=data keep',
    });
  });

  it('asks for nothing when the tags are left as shown', () => {
    expect(intentFromSubmission(ViewStateSchema.parse(untouchedSubmission(view)), shown.shown)).toStrictEqual({});
    expect(submitTags('  keep\nteam=data,env=prod ')).toStrictEqual({});
  });

  it('reads a deleted tag as a removal and a new or changed one as an addition', () => {
    expect(submitTags('env=staging keep owner=ana')).toStrictEqual({
      tagAdd: [
        { key: 'env', value: 'staging' },
        { key: 'owner', value: 'ana' },
      ],
      tagRemove: [{ key: 'team', value: 'data' }],
    });
    expect(submitTags(null)).toStrictEqual({
      tagRemove: [{ key: 'env', value: 'prod' }, { key: 'team', value: 'data' }, { key: 'keep' }],
    });
  });

  it('plans the edits as one tags body, remove first, with before -> after per tag', () => {
    const result = planChange(tagged, submitTags('env=staging keep owner=ana'));
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    expect(result.plan.update).toStrictEqual({
      tags: {
        remove: [
          { key: 'team', value: 'data' },
          { key: 'env', value: 'prod' },
        ],
        add: [
          { key: 'env', value: 'staging' },
          { key: 'owner', value: 'ana' },
        ],
      },
    });
    expect(result.plan.changes.map((c) => `${c.label}: ${c.before} -> ${c.after}`)).toStrictEqual([
      'Tag: team=data -> removed',
      'Tag: env=prod -> env=staging',
      'Tag: absent -> owner=ana',
    ]);
  });

  it('shows a bad tag or a key typed twice under the tags field', () => {
    for (const text of ['env=prod team=da/ta keep', 'env=prod env=dev team=data keep']) {
      const result = planChange(tagged, submitTags(text));
      if (result.ok) throw new Error(`expected a refusal for ${text}`);
      expect(Object.keys(modalErrors(result.problems))).toStrictEqual([BLOCK.tags]);
    }
  });

  it('gives way to the tag commands when the tags would not fit the modal', () => {
    const many = service({ tags: Array.from({ length: 12 }, (_, i) => ({ key: `k${i}`, value: 'v'.repeat(200) })) });
    const bigView = editView(many, editMetadata(many, 'C0123'));
    expect(blockIds(bigView)).not.toContain(BLOCK.tags);
    expect(JSON.stringify(bigView.blocks)).toContain('use the tag add and tag remove commands');
    expect((bigView.private_metadata ?? '').length).toBeLessThanOrEqual(3000);
    assertModalLimits(bigView);
  });
});

describe('modalErrors', () => {
  it.each([
    ['name', BLOCK.name],
    ['request', BLOCK.name],
    ['releaseChannel', BLOCK.releaseChannel],
    ['mysqlEndpoint', BLOCK.mysql],
    ['ipAdd', BLOCK.ipAdd],
    ['ipRemove', BLOCK.ipRemove],
    ['privateEndpointAttach', BLOCK.attach],
    ['privateEndpointDetach', BLOCK.detach],
    ['tdeKeyId', BLOCK.tdeKey],
  ] as const)('shows a %s problem under the %s block', (field, block) => {
    expect(modalErrors([{ field, message: 'Nope.' }])).toStrictEqual({ [block]: 'Nope.' });
  });

  it('joins several problems of one block and keeps them to 2000 characters', () => {
    const problems: PlanProblem[] = [
      { field: 'ipAdd', message: 'First.' },
      { field: 'ipAdd', message: 'Second.' },
    ];
    expect(modalErrors(problems)).toStrictEqual({ ip_add: 'First. Second.' });
    const many = Array.from({ length: 100 }, (): PlanProblem => ({ field: 'ipAdd', message: 'x'.repeat(50) }));
    expect([...(modalErrors(many).ip_add ?? '')].length).toBeLessThanOrEqual(2000);
  });

  it('maps real plan problems from a submission onto blocks that are in the modal', () => {
    const record = service();
    const view = editView(record, metadata);
    const problems = refused(record, {
      name: 'x'.repeat(51),
      ipAdd: [{ source: '10.0.0.300/8' }, { source: '10.0.0.0/33' }],
      privateEndpointAttach: ['pe-gone'],
    });
    const errors = modalErrors(problems);
    expect(Object.keys(errors).sort()).toStrictEqual([BLOCK.ipAdd, BLOCK.name, BLOCK.attach].sort());
    for (const block of Object.keys(errors)) expect(blockIds(view)).toContain(block);
    expect(errors[BLOCK.ipAdd]).toContain('10.0.0.300/8');
    expect(errors[BLOCK.ipAdd]).toContain('10.0.0.0/33');
    expect(errors[BLOCK.name]).toContain('51');
  });
});

describe('a record too large for the modal metadata', () => {
  it('leaves out the largest shown part and offers that field only through its command', () => {
    const huge = service({ name: 'n'.repeat(3_000) });
    const metadata = editMetadata(huge, 'C0CHANNEL');
    expect(JSON.stringify(metadata).length).toBeLessThanOrEqual(2_800);
    expect(metadata.shown['name']).toBeUndefined();
    expect(metadata.shown['mysqlEndpoint']).toBe(false);
    const view = editView(huge, metadata);
    assertModalLimits(view);
    const ids = view.blocks.map((block) => ('block_id' in block ? block.block_id : undefined));
    expect(ids).not.toContain(BLOCK.name);
    expect(JSON.stringify(view.blocks)).toContain('rename: too large to edit in this form; use the rename command.');
    // Nothing filled in asks for nothing.
    expect(intentFromSubmission({}, metadata.shown)).toStrictEqual({});
  });
});
