/** The release channel (slow, default, fast); development services stay on default. */
import { ACTION, formNote, input, option, selectedValue } from '../../render/form-inputs.js';
import type { Block } from '../../render/mrkdwn.js';
import { RELEASE_CHANNELS, type ServiceRecord } from '../../service/schema.js';
import { z } from 'zod';
import { kindDrift } from './drift-parts.js';
import type { KindForm } from './form-parts.js';
import type { ChangeIntent } from '../types.js';
import { checkReleaseChannel } from '../../command/arguments.js';
import type { ArgumentReader } from '../../command/reader.js';
import type { Token } from '../../command/tokenize.js';
import type { ChangeKindModule, KindCommand } from './kind.js';
import { sameScalar } from './kind.js';

const releaseChannel: KindCommand = {
  name: 'release-channel',
  usage: 'release-channel SERVICE slow|default|fast',
  example: 'release-channel orders-prod slow',
  summary: 'Request a different upgrade release channel.',
  parse(args: Token[], read: ArgumentReader) {
    const [service, channel, ...extra] = args;
    const what = 'the service and the channel (slow, default or fast)';
    const value = read.service(service, what);
    if (channel === undefined) read.missing(what);
    const wanted = read.must(checkReleaseChannel(channel.text));
    read.rejectExtra(extra, 'a service and a channel');
    return read.change(value, { releaseChannel: wanted });
  },
};

/**
 * Only development services are held to the default release channel. Production and dedicated
 * tiers may switch, and so may a service whose (deprecated) tier is absent or null, which the
 * official Terraform provider treats like production.
 */
export function mayLeaveDefaultChannel(service: ServiceRecord): boolean {
  return service.tier !== 'development';
}

const BLOCK_ID = 'release_channel';

function releaseChannelBlocks(service: ServiceRecord): Block[] {
  // A development service already on the default channel has nothing to choose.
  if (!mayLeaveDefaultChannel(service) && (service.releaseChannel ?? 'default') === 'default')
    return [formNote('Release channel: default (development services stay on the default channel).')];
  const channels = mayLeaveDefaultChannel(service) ? RELEASE_CHANNELS : (['default'] as const);
  const options = channels.map((c) => option(c, c));
  const current = options.find((o) => o.value === service.releaseChannel);
  return [
    input(
      BLOCK_ID,
      'Release channel',
      { type: 'static_select', action_id: ACTION, options, ...(current ? { initial_option: current } : {}) },
      { optional: true },
    ),
  ];
}

const releaseChannelForm: KindForm = {
  blockIds: { releaseChannel: BLOCK_ID },
  shown: (service) => service.releaseChannel || undefined,
  blocks: releaseChannelBlocks,
  read(values, shown) {
    const channel = RELEASE_CHANNELS.find((c) => c === selectedValue(values, BLOCK_ID));
    return { intent: channel && channel !== shown ? { releaseChannel: channel } : {} };
  },
};

export const releaseChannelKind: ChangeKindModule<'releaseChannel'> = {
  field: 'releaseChannel',
  policyName: 'release-channel',
  intents: ['releaseChannel'],
  commands: [releaseChannel],
  form: releaseChannelForm,
  drift: kindDrift({
    key: 'releaseChannel',
    schema: z.string(),
    read: (service) => service.releaseChannel,
    diff: (was, is) =>
      was === is
        ? []
        : [
            {
              kind: 'release-channel-changed',
              label: 'Release channel',
              text: `Release channel: ${was} → ${is}`,
              subject: is,
            },
          ],
    effects: (update) =>
      update.releaseChannel === undefined ? [] : [{ kind: 'release-channel-changed', subject: update.releaseChannel }],
    activityTypes: { 'release-channel-changed': ['service_update_release_channel'] },
  }),
  read: (service) => service.releaseChannel ?? null,
  same: sameScalar,
  plan(draft, service, intent) {
    const wanted = intent.releaseChannel;
    if (wanted === undefined || wanted === service.releaseChannel) return;
    if (wanted !== 'default' && !mayLeaveDefaultChannel(service)) {
      draft.problems.push({
        field: 'releaseChannel',
        message: `Development services stay on the default release channel; only production and dedicated services can switch to ${wanted}.`,
      });
      return;
    }
    draft.update.releaseChannel = wanted;
    draft.touched.add('releaseChannel');
    draft.changes.push({
      field: 'releaseChannel',
      label: 'Release channel',
      before: service.releaseChannel ?? 'unknown',
      after: wanted,
    });
  },
  visible: (update, service) =>
    update.releaseChannel === undefined || (service.releaseChannel ?? null) === update.releaseChannel,
  undo(plan, service, reverse) {
    const { update, before } = plan;
    if (update.releaseChannel === undefined || typeof before.releaseChannel !== 'string') return;
    if ((service.releaseChannel ?? null) === update.releaseChannel)
      reverse.intent.releaseChannel = before.releaseChannel as ChangeIntent['releaseChannel'];
    else reverse.leftAlone.push(`The release channel is no longer ${update.releaseChannel}.`);
  },
  risks: () => [],
  possibleRisks: [],
};
