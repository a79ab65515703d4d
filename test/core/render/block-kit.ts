/**
 * Test helpers over rendered Block Kit: Slack's documented size limits, and every mrkdwn text a
 * reader would see. Blocks are walked as plain data so the checks do not trust the source's types.
 */
import { expect } from 'vitest';

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const chars = (text: string) => [...text].length;

function textOf(value: unknown): string | undefined {
  return isRecord(value) && typeof value.text === 'string' ? value.text : undefined;
}

export interface LimitOptions {
  /** 50 for messages, 100 for modals and Home tabs. */
  max: 50 | 100;
}

/** Every way the blocks break Slack's limits, as readable sentences; empty when they fit. */
export function blockKitViolations(blocks: readonly unknown[], { max }: LimitOptions): string[] {
  const problems: string[] = [];
  const check = (ok: boolean, what: string) => {
    if (!ok) problems.push(what);
  };
  check(blocks.length <= max, `${blocks.length} blocks > ${max}`);
  const blockIds = new Set<string>();

  const textObject = (value: unknown, where: string, limit: number) => {
    const text = textOf(value);
    check(text !== undefined, `${where}: missing text`);
    if (text === undefined) return;
    check(chars(text) >= 1, `${where}: empty text`);
    check(chars(text) <= limit, `${where}: text of ${chars(text)} > ${limit}`);
  };

  const options = (list: unknown, where: string) => {
    const items = asArray(list);
    check(items.length <= 100, `${where}: ${items.length} options > 100`);
    items.forEach((item, i) => {
      const option = isRecord(item) ? item : {};
      textObject(option.text, `${where} option ${i}`, 75);
      const value = option.value;
      check(
        typeof value === 'string' && chars(value) <= 75 && chars(value) >= 1,
        `${where} option ${i}: value ${JSON.stringify(value)} not 1-75 chars`,
      );
    });
  };

  const element = (value: unknown, where: string) => {
    if (!isRecord(value)) return;
    const type = value.type;
    if (typeof value.action_id === 'string') check(chars(value.action_id) <= 255, `${where}: action_id > 255`);
    if (value.placeholder !== undefined) textObject(value.placeholder, `${where} placeholder`, 150);
    if (type === 'button') {
      textObject(value.text, `${where} button text`, 75);
      if (value.value !== undefined)
        check(typeof value.value === 'string' && chars(value.value) <= 2000, `${where}: button value > 2000`);
    }
    if (type === 'static_select' || type === 'multi_static_select') {
      check(
        !(value.options !== undefined && value.option_groups !== undefined),
        `${where}: both options and option_groups`,
      );
      if (value.options !== undefined) options(value.options, where);
      if (value.option_groups !== undefined) {
        const groups = asArray(value.option_groups);
        check(groups.length <= 100, `${where}: ${groups.length} option groups > 100`);
        groups.forEach((group, g) => {
          const record = isRecord(group) ? group : {};
          textObject(record.label, `${where} group ${g} label`, 75);
          options(record.options, `${where} group ${g}`);
        });
      }
    }
    if (type === 'radio_buttons' || type === 'checkboxes') {
      const items = asArray(value.options);
      check(items.length <= 10, `${where}: ${items.length} ${type} options > 10`);
      options(items, where);
    }
    if (
      type === 'plain_text_input' &&
      typeof value.initial_value === 'string' &&
      typeof value.max_length === 'number'
    ) {
      check(chars(value.initial_value) <= value.max_length, `${where}: initial_value longer than max_length`);
    }
  };

  blocks.forEach((raw, index) => {
    const where = `block ${index}`;
    if (!isRecord(raw)) {
      problems.push(`${where}: not an object`);
      return;
    }
    if (raw.block_id !== undefined) {
      const id = typeof raw.block_id === 'string' ? raw.block_id : JSON.stringify(raw.block_id);
      check(typeof raw.block_id === 'string', `${where}: block_id ${id} is not a string`);
      check(chars(id) <= 255, `${where}: block_id > 255`);
      check(!blockIds.has(id), `${where}: duplicate block_id ${id}`);
      blockIds.add(id);
    }
    switch (raw.type) {
      case 'section': {
        check(raw.text !== undefined || raw.fields !== undefined, `${where}: section without text or fields`);
        if (raw.text !== undefined) textObject(raw.text, `${where} section`, 3000);
        if (raw.fields !== undefined) {
          const fields = asArray(raw.fields);
          check(fields.length <= 10, `${where}: ${fields.length} fields > 10`);
          fields.forEach((field, i) => textObject(field, `${where} field ${i}`, 2000));
        }
        element(raw.accessory, `${where} accessory`);
        break;
      }
      case 'header':
        check(isRecord(raw.text) && raw.text.type === 'plain_text', `${where}: header text must be plain_text`);
        textObject(raw.text, `${where} header`, 150);
        break;
      case 'context': {
        const elements = asArray(raw.elements);
        check(elements.length >= 1 && elements.length <= 10, `${where}: ${elements.length} context elements not 1-10`);
        elements.forEach((item, i) => {
          if (isRecord(item) && (item.type === 'mrkdwn' || item.type === 'plain_text'))
            textObject(item, `${where} context ${i}`, 3000);
        });
        break;
      }
      case 'actions': {
        const elements = asArray(raw.elements);
        check(elements.length >= 1 && elements.length <= 25, `${where}: ${elements.length} action elements not 1-25`);
        elements.forEach((item, i) => element(item, `${where} action ${i}`));
        break;
      }
      case 'input':
        textObject(raw.label, `${where} label`, 2000);
        if (raw.hint !== undefined) textObject(raw.hint, `${where} hint`, 2000);
        element(raw.element, `${where} input`);
        break;
      case 'divider':
        break;
      default:
        problems.push(`${where}: unexpected block type ${String(raw.type)}`);
    }
  });
  return problems;
}

export function assertBlockKitLimits(blocks: readonly unknown[], options: LimitOptions): void {
  expect(blockKitViolations(blocks, options)).toStrictEqual([]);
}

/** A modal's own limits (title, buttons, private_metadata) plus its blocks at 100. */
export function modalViolations(view: unknown): string[] {
  if (!isRecord(view)) return ['view: not an object'];
  const problems = blockKitViolations(asArray(view.blocks), { max: 100 });
  const short = (value: unknown, what: string) => {
    const text = textOf(value);
    if (value !== undefined && (text === undefined || chars(text) > 24 || chars(text) < 1))
      problems.push(`${what} not 1-24 chars`);
  };
  short(view.title, 'title');
  short(view.submit, 'submit');
  short(view.close, 'close');
  if (typeof view.private_metadata === 'string' && chars(view.private_metadata) > 3000)
    problems.push('private_metadata > 3000');
  if (typeof view.callback_id === 'string' && chars(view.callback_id) > 255) problems.push('callback_id > 255');
  return problems;
}

export function assertModalLimits(view: unknown): void {
  expect(modalViolations(view)).toStrictEqual([]);
}

/** Every mrkdwn text a reader sees: section text and fields, and mrkdwn context elements. */
export function mrkdwnTexts(blocks: readonly unknown[]): string[] {
  const texts: string[] = [];
  const take = (value: unknown) => {
    if (isRecord(value) && value.type === 'mrkdwn' && typeof value.text === 'string') texts.push(value.text);
  };
  for (const block of blocks) {
    if (!isRecord(block)) continue;
    take(block.text);
    asArray(block.fields).forEach(take);
    if (block.type === 'context') asArray(block.elements).forEach(take);
  }
  return texts;
}

/** All plain text the blocks show (headers, labels, options...), for counting what is shown. */
export function allTexts(blocks: readonly unknown[]): string {
  const out: string[] = [];
  const walk = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (isRecord(value)) {
      if (typeof value.text === 'string') out.push(value.text);
      Object.values(value).forEach(walk);
    }
  };
  walk(blocks);
  return out.join('\n');
}

const BOT_DATE = /<!date\^\d+\^[^|>]*\|[^<>]*>/g;
/** The bot's own link to a service's console page (CONSOLE_URL): an http(s) base, /services/ID, an escaped label. */
const CONSOLE_LINK = /<https?:\/\/[^\s<>|]+\/services\/[A-Za-z0-9-]+\|[^<>]*>/g;

/**
 * What is unsafe in one mrkdwn text: a raw control sequence (`<!…>`, `<@…>`, `<#…>`, `<http…>`)
 * other than the bot's own dates, its console links and mentions of `allowedUsers`; an `&` that does not start an
 * entity; or a bare @channel/@here/@everyone.
 */
export function unsafeMrkdwn(text: string, allowedUsers: readonly string[] = []): string[] {
  let rest = text.replace(BOT_DATE, '').replace(CONSOLE_LINK, '');
  for (const user of allowedUsers) rest = rest.split(`<@${user}>`).join('');
  const problems: string[] = [];
  if (rest.includes('<')) problems.push(`raw "<" in ${JSON.stringify(text)}`);
  if (rest.includes('>')) problems.push(`raw ">" in ${JSON.stringify(text)}`);
  if (/&(?!amp;|lt;|gt;)/.test(rest)) problems.push(`raw "&" in ${JSON.stringify(text)}`);
  if (/@(channel|here|everyone)\b/i.test(rest)) problems.push(`mass mention in ${JSON.stringify(text)}`);
  return problems;
}

export function assertSafeMrkdwn(blocks: readonly unknown[], allowedUsers: readonly string[] = []): void {
  expect(mrkdwnTexts(blocks).flatMap((text) => unsafeMrkdwn(text, allowedUsers))).toStrictEqual([]);
}
