/** Policy files for tests: each in a temp directory of its own, removed after the test file. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

export function usePolicyFiles(): (text: string) => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return (text) => {
    const dir = mkdtempSync(join(tmpdir(), 'chbot-policy-'));
    dirs.push(dir);
    const path = join(dir, 'policy.yaml');
    writeFileSync(path, text);
    return path;
  };
}

/** A policy that never lets production be opened to the whole internet. */
export const NEVER_OPEN_PROD =
  'rules:\n  - name: never open prod\n    match: { tags: { env: prod }, risks: [world-open] }\n    deny: Never open production.\n';

/** Break-glass for the requester; production needs the approver otherwise. */
export const BREAKGLASS_PROD = `breakglass: [U0REQUESTER]
rules:
  - name: production
    match: { tags: { env: prod } }
    approvals: 1
    approvers: [U0APPROVER]
`;
