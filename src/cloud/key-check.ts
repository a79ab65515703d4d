/**
 * Whether ClickHouse Cloud accepts the bot's API key. A wrong key used to be invisible until the
 * first command failed: the key is now checked at start with one read of the organization, and
 * every later answer keeps the verdict current (a key revoked while the bot runs is noticed at the
 * next call). The verdict is logged in a sentence when it changes, and shown in /readyz and the
 * clickhouse_bot_cloud_key metric.
 */
import { CloudApiError } from '../core/service/api-error.js';
import type { Log } from '../ports/index.js';

export const KEY_STATES = ['unchecked', 'accepted', 'refused', 'unreachable'] as const;
export type KeyState = (typeof KEY_STATES)[number];

export interface KeyIdentity {
  keyId: string;
  orgId: string;
  /** The built-in simulator (demo mode): said so in the sentence. */
  demo: boolean;
  /**
   * The organization's name in ORGANIZATIONS_FILE, when the key is one of its: its variables are
   * the ones the file names, and a refusal stops only its channels (/readyz: all refused).
   */
  organization?: string;
}

export class CloudKeyStatus {
  private current: KeyState = 'unchecked';

  constructor(
    private readonly identity: KeyIdentity,
    private readonly logger: Pick<Log, 'info' | 'warn' | 'error'>,
    private readonly onChange: (state: KeyState) => void = () => undefined,
  ) {}

  get state(): KeyState {
    return this.current;
  }

  /** Any answer of the API: 2xx means the key works, 401 and 403 that it does not; others say nothing about it. */
  observe(status: number | undefined): void {
    if (status === undefined) return;
    if (status >= 200 && status < 300) this.set('accepted', this.acceptedSentence());
    else if (status === 401) this.set('refused', this.refusedSentence(401));
    else if (status === 403) this.set('refused', this.refusedSentence(403));
  }

  /** The start check: one read of the organization's services (`read`), its verdict logged. */
  async check(read: () => Promise<unknown>): Promise<KeyState> {
    try {
      await read();
      // The answer was observed on the wire; a client without an observer still gets a verdict.
      this.set('accepted', this.acceptedSentence());
    } catch (error) {
      const status = error instanceof CloudApiError ? error.status : undefined;
      if (status === 401 || status === 403) this.set('refused', this.refusedSentence(status));
      else if (status === 404)
        this.set(
          'refused',
          `ClickHouse Cloud knows no organization ${this.identity.orgId} for the API key ${this.identity.keyId} (404): ` +
            `check ${this.identity.organization === undefined ? 'CLICKHOUSE_ORG_ID' : `the id of organization ${this.identity.organization} in ORGANIZATIONS_FILE`} (the organization UUID in the console). ${this.consequence('right')}`,
        );
      else
        this.set(
          'unreachable',
          `Could not check the ClickHouse Cloud API key at start: ${error instanceof Error ? error.message : String(error)}. ` +
            'It is checked again with every call to the API.',
        );
    }
    return this.current;
  }

  private set(state: KeyState, sentence: string): void {
    if (state === this.current) return;
    this.current = state;
    this.onChange(state);
    if (state === 'accepted') this.logger.info(sentence);
    else if (state === 'refused') this.logger.error(sentence);
    else this.logger.warn(sentence);
  }

  private acceptedSentence(): string {
    const { keyId, orgId, demo } = this.identity;
    return demo
      ? `The built-in simulator accepts the demo API key (demo mode, organization ${orgId}).`
      : `ClickHouse Cloud accepts the API key ${keyId} for organization ${orgId}.`;
  }

  private refusedSentence(status: 401 | 403): string {
    const { keyId, orgId, organization } = this.identity;
    const variables =
      organization === undefined
        ? 'CLICKHOUSE_KEY_ID and CLICKHOUSE_KEY_SECRET do'
        : `the variables ORGANIZATIONS_FILE names for organization ${organization} (its key_id_env and key_secret_env) do`;
    const why =
      status === 401
        ? `ClickHouse Cloud refused the API key ${keyId} (401 Unauthorized): ${variables} not name a valid key (wrong secret, or the key was deleted or expired).`
        : `ClickHouse Cloud accepted the API key ${keyId} but does not let it read organization ${orgId} (403 Forbidden): give the key a role that can read and update services, or use a key of that organization.`;
    return `${why} ${this.consequence('fixed')}`;
  }

  /** What a refused key stops: every command, or (a key of ORGANIZATIONS_FILE) its organization's. */
  private consequence(until: 'fixed' | 'right'): string {
    const { organization } = this.identity;
    return organization === undefined
      ? `Every command will fail until it is ${until}; /readyz answers 503 meanwhile.`
      : `Every command in the channels of organization ${organization} will fail until it is ${until}; /readyz answers 503 only when every organization's key is refused.`;
  }
}
