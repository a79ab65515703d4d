/** The service's name (1-50 characters). */
import { ServiceNameSchema } from '../../service/schema.js';
import type { ChangeKindModule } from './kind.js';
import { sameScalar } from './kind.js';

export const nameKind: ChangeKindModule<'name'> = {
  field: 'name',
  policyName: 'name',
  intents: ['name'],
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
