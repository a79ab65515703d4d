/**
 * The rules' windows and freezes as they bear on one request: a request whose every kind ignores
 * freezes (kind.ts `ignoresFreezes`: the upgrade window) is judged on its rules without them.
 */
import { freezesHold } from '../change/kinds/index.js';
import type { ChangePlan } from '../change/types.js';
import type { Requirement } from '../policy/types.js';

export function judgedRequirements(
  plan: Pick<ChangePlan, 'changes'>,
  requirements: readonly Requirement[] = [],
): Requirement[] {
  if (freezesHold(plan)) return [...requirements];
  return requirements.map(({ freezes: _freezes, ...rest }) => rest);
}
