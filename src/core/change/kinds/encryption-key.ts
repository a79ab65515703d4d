/** The transparent data encryption key a service uses (rotate-key). */
import type { ArgumentReader } from '../../command/reader.js';
import type { Token } from '../../command/tokenize.js';
import { ACTION, input, textValue } from '../../render/form-inputs.js';
import { LIMITS, truncate } from '../../render/mrkdwn.js';
import { z } from 'zod';
import { kindDrift } from './drift-parts.js';
import type { KindForm } from './form-parts.js';
import type { ChangeKindModule, KindCommand } from './kind.js';
import { sameScalar } from './kind.js';

const rotateKey: KindCommand = {
  name: 'rotate-key',
  usage: 'rotate-key SERVICE KEY_ID',
  example: 'rotate-key orders-prod 7c9e6679-7425-40de-944b-e07fc1f90ae7',
  summary: 'Request a new transparent data encryption key.',
  parse(args: Token[], read: ArgumentReader) {
    const [service, key, ...extra] = args;
    const what = 'the service and the new encryption key id';
    const value = read.service(service, what);
    const tdeKeyId = read.id(key, what);
    read.rejectExtra(extra, 'a service and one key id');
    return read.change(value, { tdeKeyId });
  },
};

const TDE_KEY_ID_MAX = 256;

const encryptionKeyForm: KindForm = {
  blockIds: { tdeKey: 'tde_key' },
  blocks(service) {
    if (service.hasTransparentDataEncryption !== true) return [];
    const now = service.transparentDataEncryptionKeyId;
    return [
      input(
        'tde_key',
        'Rotate encryption key to',
        {
          type: 'plain_text_input',
          action_id: ACTION,
          max_length: LIMITS.textInput,
          ...(now ? { placeholder: { type: 'plain_text', text: truncate(`now ${now}`, 150) } } : {}),
        },
        { optional: true, hint: 'The id of the new key; leave empty to keep the current one.' },
      ),
    ];
  },
  read(values) {
    const key = textValue(values, 'tde_key');
    return { intent: key ? { tdeKeyId: key } : {} };
  },
};

export const encryptionKeyKind: ChangeKindModule<'tdeKeyId'> = {
  field: 'tdeKeyId',
  policyName: 'encryption-key',
  intents: ['tdeKeyId'],
  commands: [rotateKey],
  form: encryptionKeyForm,
  drift: kindDrift({
    key: 'tdeKeyId',
    schema: z.string(),
    read: (service) => service.transparentDataEncryptionKeyId,
    diff: (was, is) =>
      was === is
        ? []
        : [
            {
              kind: 'encryption-key-rotated',
              label: 'Encryption key',
              text: `Encryption key rotated: ${was} → ${is}`,
              subject: is,
            },
          ],
    effects: (update) =>
      update.transparentDataEncryptionKeyId === undefined
        ? []
        : [{ kind: 'encryption-key-rotated', subject: update.transparentDataEncryptionKeyId }],
    activityTypes: { 'encryption-key-rotated': ['service_encryption_key_rotated'] },
  }),
  read: (service) => service.transparentDataEncryptionKeyId ?? null,
  same: sameScalar,
  plan(draft, service, intent) {
    const keyId = intent.tdeKeyId?.trim();
    if (keyId === undefined || keyId === '' || keyId === service.transparentDataEncryptionKeyId) return;
    if (keyId.length > TDE_KEY_ID_MAX) {
      draft.problems.push({
        field: 'tdeKeyId',
        message: `The key id has ${keyId.length} characters; the limit is ${TDE_KEY_ID_MAX}.`,
      });
      return;
    }
    if (service.hasTransparentDataEncryption === false) {
      draft.problems.push({
        field: 'tdeKeyId',
        message: 'This service does not use transparent data encryption, so it has no key to rotate.',
      });
      return;
    }
    draft.update.transparentDataEncryptionKeyId = keyId;
    draft.touched.add('tdeKeyId');
    draft.changes.push({
      field: 'tdeKeyId',
      label: 'Encryption key',
      before: service.transparentDataEncryptionKeyId ?? 'unknown',
      after: keyId,
    });
  },
  visible: (update, service) =>
    update.transparentDataEncryptionKeyId === undefined ||
    (service.transparentDataEncryptionKeyId ?? null) === update.transparentDataEncryptionKeyId,
  undo(plan, service, reverse) {
    const { update, before } = plan;
    if (update.transparentDataEncryptionKeyId === undefined || typeof before.tdeKeyId !== 'string') return;
    if ((service.transparentDataEncryptionKeyId ?? null) === update.transparentDataEncryptionKeyId)
      reverse.intent.tdeKeyId = before.tdeKeyId;
    else reverse.leftAlone.push('The encryption key has changed again since.');
  },
  risks: () => [],
  possibleRisks: [],
};
