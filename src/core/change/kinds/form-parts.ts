/**
 * A kind's part of the edit modal: its inputs, built from the service; what they showed, kept in
 * the modal's metadata; and how a submission becomes its part of the intent. A field left as it
 * was shown asks for nothing, so a submission never reverts a colleague's change made meanwhile.
 */
import type { z } from 'zod';
import type { Block } from '../../render/mrkdwn.js';
import type { ViewState } from '../../render/form-inputs.js';
import type { ServiceRecord } from '../../service/schema.js';
import type { ChangeIntent } from '../types.js';

/** What a kind's inputs showed as the modal opened (JSON, in the view's metadata). */
export type Shown = z.infer<ReturnType<typeof z.json>>;

export interface FormReading {
  intent: ChangeIntent;
  /** Inline errors of inputs that cannot be read at all, by block id (the plan checks the rest). */
  problems?: Record<string, string>;
}

export interface KindForm {
  /** Its input blocks by name; the first is where a plan problem of this kind is shown unless `problemBlock` says. */
  blockIds: Readonly<Record<string, string>>;
  /** Where a plan problem about one of its intent fields is shown, when not the first block. */
  problemBlock?: Partial<Record<keyof ChangeIntent, string>>;
  /** A heading over these inputs, shared with the kinds after it that name the same one ("Capacity"). */
  section?: string;
  /** What the inputs show, kept to tell a changed field from one left alone; undefined: nothing to keep. */
  shown?(service: ServiceRecord): Shown | undefined;
  /** The inputs, from the service and what `shown` kept (undefined when it kept nothing). */
  blocks(service: ServiceRecord, shown: unknown): Block[];
  read(values: ViewState, shown: unknown): FormReading;
}
