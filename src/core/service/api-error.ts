/** Every way a Cloud API call can fail, as one typed error the bot can explain to a person. */
export type CloudErrorKind =
  | 'http' // the API answered with an error status
  | 'rate-limited' // 429 and waiting longer would exceed the call's time budget
  | 'timeout' // no answer within the per-request timeout
  | 'network' // connection refused, reset or dropped
  | 'bad-response' // the API answered 2xx with a body we could not understand
  | 'invalid-request' // refused before sending: the filter or update body breaks the API's rules
  | 'busy'; // not sent: the bot's share of the API budget is taken and the wait would be too long

export class CloudApiError extends Error {
  override readonly name = 'CloudApiError';

  constructor(
    readonly kind: CloudErrorKind,
    message: string,
    readonly details: {
      status?: number;
      /** The API's own message, e.g. "BAD_REQUEST: request body.name: ..." */
      apiMessage?: string;
      requestId?: string;
      method?: string;
      /** Path without host; never carries credentials. */
      path?: string;
      /** What the status means here, for people, when it says more than the status alone (core/service/parts.ts `forbidden`). */
      sentence?: string;
      /** For 'busy': when the budget should have room again. */
      retryAfterMs?: number;
    } = {},
  ) {
    super(message);
  }

  get status(): number | undefined {
    return this.details.status;
  }

  get requestId(): string | undefined {
    return this.details.requestId;
  }

  /**
   * True when the request certainly did not reach the service's state: the API refused it before
   * acting (4xx) or we could not connect. A timeout or a 5xx on a PATCH leaves the outcome unknown.
   */
  get certainlyNotApplied(): boolean {
    const status = this.details.status;
    if (this.kind === 'rate-limited' || this.kind === 'invalid-request' || this.kind === 'busy') return true;
    if (this.kind === 'http' && status !== undefined) return status >= 400 && status < 500;
    return false;
  }
}
