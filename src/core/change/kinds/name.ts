/** The service's name (1-50 characters). */
import { SERVICE_NAME_MAX, ServiceNameSchema } from '../../service/schema.js';
import { checkServiceName } from '../../command/arguments.js';
import { textOf } from '../../command/reader.js';
import type { ArgumentReader } from '../../command/reader.js';
import type { Token } from '../../command/tokenize.js';
import { ACTION, input, textValue } from '../../render/form-inputs.js';
import { LIMITS, truncate } from '../../render/mrkdwn.js';
import { z } from 'zod';
import { kindDrift } from './drift-parts.js';
import type { KindForm } from './form-parts.js';
import type { ChangeKindModule, KindCommand } from './kind.js';
import { sameScalar } from './kind.js';

const rename: KindCommand = {
  name: 'rename',
  usage: 'rename SERVICE NEW NAME...',
  example: 'rename orders-staging orders-prod-2',
  summary: 'Request a new name for a service.',
  bounds: [`A name has 1 to ${SERVICE_NAME_MAX} letters, digits, spaces, hyphens or underscores.`],
  parse(args: Token[], read: ArgumentReader) {
    const [service, ...nameWords] = args;
    const value = read.service(service, 'the service and its new name');
    if (nameWords.length === 0) read.missing('the new name after the service');
    // Unquoted words are joined by single spaces; a quoted name is taken as written.
    const name = read.must(checkServiceName(textOf(nameWords).join(' '), read.spec.example));
    return read.change(value, { name });
  },
};

const nameForm: KindForm = {
  blockIds: { name: 'name' },
  shown: (service) => service.name,
  blocks: (service) => [
    input(
      'name',
      'Name',
      {
        type: 'plain_text_input',
        action_id: ACTION,
        initial_value: truncate(service.name, 150),
        max_length: Math.min(LIMITS.textInput, Math.max(50, [...service.name].length)),
      },
      { optional: true, hint: 'Letters, digits, spaces, hyphens and underscores; up to 50.' },
    ),
  ],
  read(values, shown) {
    const name = textValue(values, 'name');
    const was = typeof shown === 'string' ? shown.trim() : undefined;
    // The field comes back trimmed; a name with outer spaces left alone is not a rename.
    return { intent: name !== undefined && name !== was ? { name } : {} };
  },
};

export const nameKind: ChangeKindModule<'name'> = {
  field: 'name',
  policyName: 'name',
  intents: ['name'],
  commands: [rename],
  form: nameForm,
  drift: kindDrift({
    key: 'name',
    schema: z.string(),
    read: (service) => service.name,
    // An empty name is a record whose name could not be read, not a rename.
    diff: (before, now) =>
      !before || !now || before === now
        ? []
        : [{ kind: 'renamed', label: 'Name', text: `Renamed: ${before} → ${now}`, subject: now }],
    effects: (update) => (update.name === undefined ? [] : [{ kind: 'renamed', subject: update.name }]),
    activityTypes: { renamed: ['service_update_name'] },
  }),
  read: (service) => service.name,
  same: sameScalar,
  plan(draft, service, intent) {
    const wanted = intent.name;
    if (wanted === undefined) return;
    const parsed = ServiceNameSchema.safeParse(wanted);
    if (!parsed.success) {
      draft.problems.push({ field: 'name', message: nameProblem(wanted, parsed.error.issues[0]?.message) });
      return;
    }
    const current = service.name ?? '';
    if (parsed.data === current) return;
    draft.update.name = parsed.data;
    draft.touched.add('name');
    draft.changes.push({ field: 'name', label: 'Name', before: current, after: parsed.data });
  },
  visible: (update, service) => update.name === undefined || service.name === update.name,
  undo(plan, service, reverse) {
    const { update, before } = plan;
    if (update.name === undefined || before.name === undefined) return;
    if (service.name === update.name) reverse.intent.name = before.name;
    else reverse.leftAlone.push(`The name is no longer ${update.name}.`);
  },
  risks: () => [],
  possibleRisks: [],
};

function nameProblem(wanted: string, reason: string | undefined): string {
  const length = [...wanted.trim()].length;
  if (length > 50) return `The new name has ${length} characters; the limit is 50.`;
  return `The new name ${reason ?? 'is not valid'}.`;
}
