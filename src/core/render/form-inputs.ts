/**
 * The pieces forms are built from (inputs, options, selects within Slack's limits) and the reading
 * of a submission's values. The edit modal and each kind's part of it (core/change/kinds) use them.
 */
import { z } from 'zod';
import { LIMITS, truncate, type Block, type InputElement } from './mrkdwn.js';

/** Every input of our forms has this one action id: the block id says which input it is. */
export const ACTION = 'value';

export type Option = { text: { type: 'plain_text'; text: string }; value: string };

export const option = (text: string, value: string): Option => ({
  text: { type: 'plain_text', text: truncate(text, LIMITS.plainOption) },
  value,
});

export function input(
  blockId: string,
  label: string,
  element: InputElement,
  extra: { optional?: boolean; hint?: string } = {},
): Block {
  return {
    type: 'input',
    block_id: blockId,
    label: { type: 'plain_text', text: label },
    element,
    ...(extra.optional ? { optional: true } : {}),
    ...(extra.hint ? { hint: { type: 'plain_text', text: extra.hint } } : {}),
  };
}

/** A line of context in a form, for a field that cannot be edited there. */
export function formNote(text: string): Block {
  return { type: 'context', elements: [{ type: 'mrkdwn', text }] };
}

/** A value Slack accepts as an option's value. */
export const fitsValue = (value: string) => value.length > 0 && value.length <= LIMITS.optionValue;

/** Up to 100 options a plain select; beyond that, groups of 100 (Slack's limits). */
export function multiSelect(blockId: string, label: string, options: Option[]): Block[] {
  if (options.length === 0) return [];
  const size = LIMITS.staticSelectOptions;
  const grouped =
    options.length <= size
      ? { options }
      : {
          option_groups: Array.from({ length: Math.min(100, Math.ceil(options.length / size)) }, (_, i) => ({
            label: { type: 'plain_text' as const, text: `${i * size + 1}–${Math.min(options.length, (i + 1) * size)}` },
            options: options.slice(i * size, (i + 1) * size),
          })),
        };
  return [
    input(
      blockId,
      label,
      {
        type: 'multi_static_select',
        action_id: ACTION,
        placeholder: { type: 'plain_text', text: 'Choose…' },
        ...grouped,
      },
      { optional: true },
    ),
  ];
}

const ElementState = z.looseObject({
  value: z.string().nullish(),
  selected_option: z.object({ value: z.string() }).nullish(),
  selected_options: z.array(z.object({ value: z.string() })).nullish(),
});
export const ViewStateSchema = z.record(z.string(), z.record(z.string(), ElementState));
export type ViewState = z.infer<typeof ViewStateSchema>;

/** A text input's value, trimmed; undefined when empty. */
export const textValue = (values: ViewState, block: string) => values[block]?.[ACTION]?.value?.trim() || undefined;
/** A select's or radio's chosen value. */
export const selectedValue = (values: ViewState, block: string) => values[block]?.[ACTION]?.selected_option?.value;
/** A multi-select's chosen values. */
export const selectedValues = (values: ViewState, block: string) =>
  (values[block]?.[ACTION]?.selected_options ?? []).map((o) => o.value);
