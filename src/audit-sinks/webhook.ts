/**
 * The webhook sink: one POST per event, the event as its JSON body, signed (signature.ts). Only a
 * 2xx answer counts as delivered; anything else (a redirect included: the bot never follows one
 * to a place nobody configured) is a failure, retried by the delivery worker.
 */
import type { AuditEvent } from '../core/audit/export.js';
import type { AuditSink } from '../ports/audit-export.js';
import { SIGNATURE_HEADER, signBody } from './signature.js';

export interface WebhookSinkOptions {
  url: string;
  /** kind and host, for logs and metrics. */
  label: string;
  secret: string;
  timeoutMs?: number;
  userAgent?: string;
}

const DEFAULT_TIMEOUT_MS = 10_000;

export function webhookSink(options: WebhookSinkOptions): AuditSink {
  return {
    label: options.label,
    async deliver(event: AuditEvent): Promise<void> {
      const body = JSON.stringify(event);
      let status: number;
      try {
        const response = await fetch(options.url, {
          method: 'POST',
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
          headers: {
            'content-type': 'application/json',
            'user-agent': options.userAgent ?? 'clickhouse-bot-audit',
            'x-audit-event-id': event.id,
            [SIGNATURE_HEADER]: signBody(body, options.secret),
          },
        });
        status = response.status;
        await response.body?.cancel().catch(() => undefined);
      } catch (error) {
        // Never the URL in the message: its path may carry a token (the delivery logs only the message).
        throw new Error(`no answer from ${options.label}: ${causeOf(error)}`, { cause: error });
      }
      if (status < 200 || status > 299) throw new Error(`${options.label} answered HTTP ${status}`);
    },
  };
}

function causeOf(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'timed out';
  const cause: unknown = error instanceof Error ? error.cause : undefined;
  const code: unknown = typeof cause === 'object' && cause !== null ? Reflect.get(cause, 'code') : undefined;
  return typeof code === 'string' ? code : 'connection failed';
}
