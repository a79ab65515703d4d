/**
 * The approval policy file (POLICY_FILE): read at start, where a bad file stops the bot with every
 * problem listed, and again on SIGHUP, where a bad file keeps the rules in force and says why.
 */
import { readFile, stat } from 'node:fs/promises';
import type { Logger } from '@slack/bolt';
import { MAX_POLICY_BYTES, parsePolicy } from '../core/policy/parse.js';
import type { Policy } from '../core/policy/types.js';

export class PolicyFileError extends Error {
  constructor(
    readonly path: string,
    readonly problems: readonly string[],
  ) {
    super(
      `POLICY_FILE ${path} has ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
    this.name = 'PolicyFileError';
  }
}

export type ReloadResult =
  { ok: true; policy: Policy | undefined; changed: boolean } | { ok: false; problems: readonly string[] };

/** Reads and checks the file; throws PolicyFileError naming every problem. */
export async function readPolicyFile(path: string): Promise<Policy> {
  let text: string;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new PolicyFileError(path, ['it is not a file']);
    if (info.size > MAX_POLICY_BYTES)
      throw new PolicyFileError(path, [`it has ${info.size} bytes; the limit is ${MAX_POLICY_BYTES}`]);
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof PolicyFileError) throw error;
    throw new PolicyFileError(path, [readProblem(error)]);
  }
  const parsed = parsePolicy(text);
  if (!parsed.ok) throw new PolicyFileError(path, parsed.problems);
  return parsed.policy;
}

function readProblem(error: unknown): string {
  const code: unknown = typeof error === 'object' && error !== null ? Reflect.get(error, 'code') : undefined;
  if (code === 'ENOENT') return 'it does not exist (check the path, relative to the directory the bot starts in)';
  if (code === 'EACCES') return 'the bot may not read it (check its permissions)';
  return `it could not be read (${error instanceof Error ? error.message : String(error)})`;
}

/** The rules in force, and how to reload them. Without a path there are none: the default applies. */
export class PolicyFile {
  private reloading: Promise<ReloadResult> | undefined;

  private constructor(
    readonly path: string | undefined,
    private policy: Policy | undefined,
    private readonly logger: Pick<Logger, 'info' | 'error'>,
  ) {}

  /** Throws PolicyFileError when the file is bad: the bot must not start on rules it cannot read. */
  static async open(path: string | undefined, logger: Pick<Logger, 'info' | 'error'>): Promise<PolicyFile> {
    const policy = path === undefined ? undefined : await readPolicyFile(path);
    if (path !== undefined && policy) logger.info(`approval policy ${path}: ${describe(policy)}`);
    return new PolicyFile(path, policy, logger);
  }

  current(): Policy | undefined {
    return this.policy;
  }

  /** Re-reads the file; a bad file keeps the rules in force. One reload at a time. */
  reload(): Promise<ReloadResult> {
    this.reloading ??= this.reloadNow().finally(() => {
      this.reloading = undefined;
    });
    return this.reloading;
  }

  private async reloadNow(): Promise<ReloadResult> {
    if (this.path === undefined) {
      this.logger.info(
        'policy reload asked, but POLICY_FILE is not set: every request still needs one approval from APPROVERS',
      );
      return { ok: true, policy: undefined, changed: false };
    }
    try {
      const policy = await readPolicyFile(this.path);
      const changed = policy.digest !== this.policy?.digest;
      this.policy = policy;
      this.logger.info(`approval policy ${this.path} ${changed ? 'reloaded' : 'unchanged'}: ${describe(policy)}`);
      return { ok: true, policy, changed };
    } catch (error) {
      const problems = error instanceof PolicyFileError ? error.problems : [String(error)];
      const kept = this.policy ? describe(this.policy) : 'no rules';
      this.logger.error(
        `approval policy ${this.path} NOT reloaded, the rules in force stay (${kept}):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
      );
      return { ok: false, problems };
    }
  }
}

function describe(policy: Policy): string {
  return `${policy.rules.length} rule${policy.rules.length === 1 ? '' : 's'}, sha256 ${policy.digest}`;
}
