/**
 * The edit modal's read-back path under thousands of seeded random submissions: whatever Slack
 * sends back (hostile text in every input, options the modal never offered, missing blocks), read
 * into an intent, planned against each demo service, and turned into inline errors. Nothing may
 * throw; an accepted plan must be an update body the API accepts and must only touch what was
 * asked; a refusal must map onto the modal's own inputs within Slack's limits; and whatever the
 * plan shows in the channel must not ping or link anything.
 */
import { describe, expect, it } from 'vitest';
import { requestMessage } from '../../src/core/render/change.js';
import { ServiceRecordSchema, ServiceUpdateSchema, type ServiceRecord } from '../../src/core/service/schema.js';
import { planChange } from '../../src/core/change/plan.js';
import type { ChangeIntent } from '../../src/core/change/types.js';
import {
  editMetadata,
  intentFromSubmission,
  modalErrors,
  ViewStateSchema,
  type ViewState,
} from '../../src/core/render/modal.js';
import { BLOCK } from '../support/blocks.js';
import { demoServices } from '../../src/simulator/seed.js';
import { blockKitViolations } from '../core/render/block-kit.js';
import { hostileString, leaks, mrkdwnOf, prng, shown, type Rng } from './hostile.js';

const SERVICES: ServiceRecord[] = demoServices().map((record) => ServiceRecordSchema.parse(record));
const BLOCK_IDS = new Set<string>(Object.values(BLOCK));
const REQUESTER = 'U0REQUESTER';

const text = (rng: Rng) => hostileString(rng, rng.chance(0.05) ? 20_000 : 400);

/** One IP line as a person might type it: a real source or junk, then maybe a description. */
function ipLine(rng: Rng, service: ServiceRecord, wild: boolean): string {
  const sane = [
    '203.0.113.7',
    '0.0.0.0/0',
    '10.0.0.0/8',
    '2001:db8::/32',
    '192.0.2.0/24',
    ...(service.ipAccessList ?? []).map((e) => e.source),
  ];
  const source = wild ? rng.pick([...sane, '::1', '300.1.1.1', '10.0.0.0/33', text(rng)]) : rng.pick(sane);
  const description = rng.chance(0.5)
    ? ` ${wild && rng.chance(0.1) ? 'x'.repeat(300) : text(rng).slice(0, wild ? undefined : 200)}`
    : '';
  return `${rng.pick(['', ' ', '\t'])}${source}${description}`;
}

function selected(rng: Rng, offered: string[], wild: boolean): Array<{ value: string }> {
  const count = wild ? rng.int(4) : rng.int(2);
  return Array.from({ length: count }, () => ({
    value: (!wild || rng.chance(0.7)) && offered.length > 0 ? rng.pick(offered) : text(rng),
  }));
}

/**
 * What Slack sends back in view.state.values. Wild rounds put hostile text anywhere and sometimes
 * leave blocks out or add foreign ones; calm rounds look like a person's edits (with hostile
 * descriptions), so that plenty of submissions get all the way to a plan.
 */
function submission(rng: Rng, service: ServiceRecord, wild: boolean): ViewState {
  const values: ViewState = {};
  const shownName = service.name;
  const mysqlNow = (service.endpoints ?? []).some((e) => e.protocol === 'mysql' && e.enabled !== false);
  const put = (block: string, state: ViewState[string][string]) => {
    if (!wild || rng.chance(0.85)) values[block] = { value: state };
  };
  const touch = () => rng.chance(wild ? 0.7 : 0.3);
  put(BLOCK.name, {
    type: 'plain_text_input',
    value: touch()
      ? rng.pick(
          wild
            ? [null, 'orders-prod-2', text(rng), ` ${shownName} `, 'x'.repeat(51)]
            : ['orders-prod-2', 'a b_c-d', `${shownName}-2`],
        )
      : shownName,
  });
  put(BLOCK.releaseChannel, {
    type: 'static_select',
    selected_option: touch()
      ? { value: rng.pick(wild ? ['slow', 'fast', text(rng)] : ['slow', 'default', 'fast']) }
      : service.releaseChannel
        ? { value: service.releaseChannel }
        : null,
  });
  put(BLOCK.mysql, {
    type: 'radio_buttons',
    selected_option: touch()
      ? { value: rng.pick(wild ? ['on', 'off', text(rng)] : ['on', 'off']) }
      : { value: mysqlNow ? 'on' : 'off' },
  });
  put(BLOCK.ipAdd, {
    type: 'plain_text_input',
    value: touch()
      ? Array.from({ length: 1 + rng.int(wild && rng.chance(0.05) ? 200 : 4) }, () => ipLine(rng, service, wild)).join(
          rng.pick(['\n', '\r\n', '\n\n']),
        )
      : null,
  });
  put(BLOCK.ipRemove, {
    type: 'multi_static_select',
    selected_options: touch()
      ? selected(
          rng,
          (service.ipAccessList ?? []).map((e) => e.source),
          wild,
        )
      : [],
  });
  put(BLOCK.attach, {
    type: 'multi_static_select',
    selected_options: touch() ? selected(rng, service.availablePrivateEndpointIds ?? [], wild) : [],
  });
  put(BLOCK.detach, {
    type: 'multi_static_select',
    selected_options: touch() ? selected(rng, service.privateEndpointIds ?? [], wild) : [],
  });
  put(BLOCK.tdeKey, {
    type: 'plain_text_input',
    value: touch()
      ? rng.pick(wild ? [text(rng), 'k'.repeat(257)] : ['key-2', 'arn:aws:kms:eu-west-1:111122223333:key/2'])
      : null,
  });
  const shownTags = (service.tags ?? []).map((t) => (t.value === undefined ? t.key : `${t.key}=${t.value}`)).join(' ');
  const tagWords = () =>
    Array.from({ length: rng.int(wild && rng.chance(0.05) ? 60 : 4) }, () =>
      rng.pick(
        wild
          ? [text(rng), 'env=prod', 'owner=ana', `k=${'v'.repeat(257)}`, 'a=b=c']
          : ['env=prod', 'owner=ana', 'keep', 'team=data'],
      ),
    ).join(' ');
  put(BLOCK.tags, {
    type: 'plain_text_input',
    value: touch() ? rng.pick([tagWords(), `${shownTags} ${tagWords()}`, '']) : shownTags,
  });
  if (wild && rng.chance(0.1)) values[text(rng)] = { [text(rng)]: { type: 'plain_text_input', value: text(rng) } };
  return values;
}

/** The fields of the update body each intent field may produce. */
const UPDATE_FIELD: Record<keyof ChangeIntent, string> = {
  name: 'name',
  releaseChannel: 'releaseChannel',
  mysqlEndpoint: 'endpoints',
  ipAdd: 'ipAccessList',
  ipRemove: 'ipAccessList',
  privateEndpointAttach: 'privateEndpointIds',
  privateEndpointDetach: 'privateEndpointIds',
  tdeKeyId: 'transparentDataEncryptionKeyId',
  tagAdd: 'tags',
  tagRemove: 'tags',
  // Capacity goes to its own endpoints, never into the update body.
  replicas: 'replicaScaling',
  replicaMemoryGb: 'replicaScaling',
  idleScaling: 'replicaScaling',
  power: 'state',
  coreDumps: 'enableCoreDumps',
  // A part of the service the API keeps apart: its own endpoint (the form has no input for it).
  backupConfig: 'backupConfiguration',
  // Targets that are not services: never from the edit form.
  memberRole: 'member',
  apiKey: 'apiKey',
  delete: 'delete',
  upgradeWindow: 'upgradeWindow',
  scalingSchedule: 'scalingSchedule',
  queryEndpoint: 'serviceQueryEndpoint',
  passwordReset: 'password',
};

describe('edit modal submissions under random input', () => {
  it.each([0x0d_a1_0001, 0x0d_a1_0002])(
    'never throw, plan only valid and asked-for updates, and answer inline (seed %i)',
    (seed) => {
      const rng = prng(seed);
      const problems: string[] = [];
      let accepted = 0;
      let refused = 0;
      for (let i = 0; i < 1_500 && problems.length < 20; i++) {
        const service = rng.pick(SERVICES);
        const wild = rng.chance(0.5);
        const values = submission(rng, service, wild);
        const where = `seed ${seed} round ${i} (${wild ? 'wild' : 'calm'}) on ${service.name}: ${shown(JSON.stringify(values), 300)}`;
        try {
          expect(ViewStateSchema.safeParse(values).success, where).toBe(true);
          // The modal may have been opened before a colleague changed the service: shown differs at times.
          const shown = rng.chance(0.8)
            ? editMetadata(service, 'C0CHANNEL').shown
            : editMetadata(rng.pick(SERVICES), 'C0CHANNEL').shown;
          const intent = intentFromSubmission(values, shown);
          const result = planChange(service, intent);
          if (result.ok) {
            accepted += 1;
            const body = ServiceUpdateSchema.safeParse(result.plan.update);
            if (!body.success)
              problems.push(`${where}: update the API would refuse: ${body.error.message.slice(0, 300)}`);
            const asked = new Set(Object.keys(intent).map((field) => UPDATE_FIELD[field as keyof ChangeIntent]));
            for (const field of Object.keys(result.plan.update))
              if (!asked.has(field)) problems.push(`${where}: updates ${field}, which was not asked for`);
            if (result.plan.changes.length === 0) problems.push(`${where}: an accepted plan that changes nothing`);
            if (result.plan.serviceId !== service.id) problems.push(`${where}: plan for another service`);
            const message = requestMessage({
              id: 'CR-00000000AB',
              channelId: 'C0CHANNEL',
              requesterId: REQUESTER,
              plan: result.plan,
              createdAt: 0,
              expiresAt: 3_600_000,
              status: 'pending',
            });
            for (const t of [message.text, ...mrkdwnOf(message.blocks)])
              for (const leak of leaks(t, [REQUESTER])) problems.push(`${where}: ${leak}`);
            for (const violation of blockKitViolations(message.blocks, { max: 50 }))
              problems.push(`${where}: ${violation.slice(0, 200)}`);
          } else {
            refused += 1;
            if (result.problems.length === 0) problems.push(`${where}: refused without a reason`);
            const errors = modalErrors(result.problems);
            for (const [block, message] of Object.entries(errors)) {
              if (!BLOCK_IDS.has(block)) problems.push(`${where}: error on unknown block ${block}`);
              if (message.trim() === '' || [...message].length > 2_000)
                problems.push(`${where}: error message of ${message.length} characters on ${block}`);
            }
          }
        } catch (error) {
          problems.push(`${where}: threw ${error instanceof Error ? error.stack : String(error)}`);
        }
      }
      expect(problems).toStrictEqual([]);
      expect(accepted).toBeGreaterThan(100);
      expect(refused).toBeGreaterThan(100);
    },
  );

  it('never plans anything from a submission that leaves every input as the modal showed it', () => {
    for (const service of SERVICES) {
      const metadata = editMetadata(service, 'C0CHANNEL');
      const untouched: ViewState = {
        [BLOCK.name]: { value: { type: 'plain_text_input', value: service.name } },
        [BLOCK.mysql]: {
          value: { type: 'radio_buttons', selected_option: { value: metadata.shown['mysqlEndpoint'] ? 'on' : 'off' } },
        },
        [BLOCK.ipAdd]: { value: { type: 'plain_text_input', value: null } },
        [BLOCK.ipRemove]: { value: { type: 'multi_static_select', selected_options: [] } },
        ...(service.releaseChannel
          ? {
              [BLOCK.releaseChannel]: {
                value: { type: 'static_select', selected_option: { value: service.releaseChannel } },
              },
            }
          : {}),
      };
      const intent = intentFromSubmission(untouched, metadata.shown);
      expect(intent, service.name).toStrictEqual({});
      expect(planChange(service, intent).ok, service.name).toBe(false);
    }
  });
});
