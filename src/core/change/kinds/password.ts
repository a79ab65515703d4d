/**
 * A service's password reset (`PATCH …/services/{id}/password`): empty, the API generates a password
 * that only the requester receives (by DM, Reveal, once: flow-lease.ts hands it over where the
 * answer arrives); `with-hash`, the requester's own hashes are set and no password exists here.
 * The password is never read, so the stale check has nothing to compare; it is never temporary
 * and cannot be undone (reset it again).
 */
import { echo } from '../../command/arguments.js';
import type { ArgumentReader } from '../../command/reader.js';
import type { Token } from '../../command/tokenize.js';
import type { PasswordUpdate } from '../../service/parts.js';
import type { ChangePlan, PasswordResetIntent } from '../types.js';
import type { ChangeKindModule, Draft, KindCommand } from './kind.js';

/** The word after the service that opens the form for the hashes. */
export const WITH_HASH = 'with-hash';

const resetPassword: KindCommand = {
  name: 'reset-password',
  usage: `reset-password SERVICE [${WITH_HASH}]`,
  example: 'reset-password orders-prod',
  more: [`reset-password orders-prod ${WITH_HASH}`],
  breaksGlassForGood: true,
  summary:
    'Request a new password for a service: generated and handed to you alone (DM, Reveal, once), or set from hashes you paste in a form (with-hash).',
  parse(words: Token[], read: ArgumentReader) {
    const [service, ...extra] = words;
    const value = read.service(service, 'the service');
    if (extra.some((word) => word.text.toLowerCase() === 'for'))
      read.fail('A password reset is never temporary: there is no old password to put back.');
    const withHash = extra[0]?.text.toLowerCase() === WITH_HASH;
    if (withHash) extra.shift();
    if (extra.length > 0)
      read.fail(
        `reset-password takes a service and optionally ${WITH_HASH}, not ${echo(extra.map((w) => w.text).join(' '))}.`,
      );
    // with-hash: the hashes come from the form it opens (commands/password-hashes.ts), never from the command line.
    const intent: PasswordResetIntent = withHash ? { withHash: true } : {};
    return read.change(value, { passwordReset: intent });
  },
};

/** Whether a command asks for the form of hashes before anything is filed. */
export const asksForHashes = (intent: { passwordReset?: PasswordResetIntent }): boolean =>
  intent.passwordReset?.withHash === true && intent.passwordReset.sealedHashes === undefined;

export interface PasswordHashes {
  passwordHash: string;
  doubleSha1Hash?: string;
}

/** The hashes as the vault keeps them, and back (a value the form checked, or nothing usable). */
export const hashesText = (hashes: PasswordHashes): string => JSON.stringify(hashes);
export function hashesOf(text: string): PasswordHashes | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    const { passwordHash, doubleSha1Hash } = value as Record<string, unknown>;
    if (typeof passwordHash !== 'string' || !SHA256_BASE64.test(passwordHash)) return undefined;
    if (doubleSha1Hash !== undefined && (typeof doubleSha1Hash !== 'string' || !SHA1_HEX.test(doubleSha1Hash)))
      return undefined;
    return { passwordHash, ...(doubleSha1Hash === undefined ? {} : { doubleSha1Hash }) };
  } catch {
    return undefined;
  }
}

/** base64 of a SHA-256 digest (32 bytes): 43 characters and one `=`. */
export const SHA256_BASE64 = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;
/** hex of a SHA-1 digest. */
export const SHA1_HEX = /^[0-9a-fA-F]{40}$/;

/** The hashes as pasted, checked for shape: the problems by field, or the hashes. */
export function checkHashes(
  passwordHash: string,
  doubleSha1Hash: string,
): { ok: true; hashes: PasswordHashes } | { ok: false; problems: Record<string, string> } {
  const problems: Record<string, string> = {};
  const sha256 = passwordHash.trim();
  const sha1 = doubleSha1Hash.trim();
  if (!SHA256_BASE64.test(sha256))
    problems['password_hash'] =
      'Paste the base64 of the SHA-256 of the password (44 characters ending in =): echo -n "PASSWORD" | sha256sum | tr -d "-" | xxd -r -p | base64';
  if (sha1 !== '' && !SHA1_HEX.test(sha1))
    problems['double_sha1'] = 'The MySQL double SHA-1 is 40 hexadecimal characters, or leave it empty.';
  if (Object.keys(problems).length > 0) return { ok: false, problems };
  return { ok: true, hashes: { passwordHash: sha256, ...(sha1 === '' ? {} : { doubleSha1Hash: sha1.toLowerCase() }) } };
}

function plan(draft: Draft, wanted: PasswordResetIntent): void {
  const hashes = wanted.sealedHashes !== undefined;
  if (wanted.withHash && !hashes) {
    draft.problems.push({
      field: 'passwordReset',
      message: `${WITH_HASH} takes the hashes in its form: run reset-password SERVICE ${WITH_HASH} as a command of its own.`,
    });
    return;
  }
  const body: PasswordUpdate = hashes ? { sealedHashes: wanted.sealedHashes } : {};
  draft.writes.push({ endpoint: 'part', part: 'password', body });
  draft.touched.add('password');
  draft.changes.push({
    field: 'password',
    label: 'Password',
    before: 'the current one (never read)',
    after: hashes
      ? 'the one whose hashes the requester gave (not shown)'
      : 'a new one, generated, for the requester alone',
  });
  draft.warnings.push(
    'The current password is never read, so there is nothing to compare at approval: it is replaced as it is then.',
    'Everything that connects with the current password stops working once this is applied.',
    hashes
      ? 'The bot never sees this password: only its hashes go to ClickHouse Cloud.'
      : 'The new password goes to the requester alone, by DM with a Reveal button (15 minutes, once).',
  );
}

/** The vault id of the hashes a with-hash reset keeps sealed until it is sent, if it has one. */
export function sealedHashesOf(plan: ChangePlan): string | undefined {
  for (const operation of plan.operations ?? [])
    if (operation.endpoint === 'part' && operation.part === 'password') return operation.body?.sealedHashes;
  return undefined;
}

const resets = (plan: ChangePlan) =>
  (plan.operations ?? []).some((operation) => operation.endpoint === 'part' && operation.part === 'password');

export const passwordKind: ChangeKindModule<'password'> = {
  field: 'password',
  policyName: 'password',
  intents: ['passwordReset'],
  commands: [resetPassword],
  noUndo: true,
  read: () => 'never-read',
  // Nothing to compare: the current password is never read.
  same: () => true,
  plan(draft, _service, intent) {
    if (intent.passwordReset) plan(draft, intent.passwordReset);
  },
  visible: () => true,
  undo(plan, _service, reverse) {
    if (resets(plan)) reverse.leftAlone.push('A password reset cannot be undone: reset it again instead.');
  },
  // A leak at 3 a.m.: break-glass may reset for good (the command's breaksGlassForGood).
  containment: resets,
  risks: (plan) => (resets(plan) ? ['credential'] : []),
  possibleRisks: ['credential'],
};
