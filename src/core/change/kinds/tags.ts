/**
 * Tags, keyed: adding a known key with another value replaces it. That is sent as remove of the
 * old tag plus add of the new one (the API removes first), so it does not rely on add replacing.
 */
import {
  isTagKey,
  isTagValue,
  TAG_EDITS_MAX,
  TAG_KEY_MAX,
  TAG_VALUE_MAX,
  type OutgoingTag,
  type ServiceRecord,
} from '../../service/schema.js';
import type { ChangeIntent, ChangePlan } from '../types.js';
import { checkTagWord } from '../../command/arguments.js';
import type { ArgumentReader } from '../../command/reader.js';
import type { Token } from '../../command/tokenize.js';
import { ACTION, formNote, input, textValue } from '../../render/form-inputs.js';
import { LIMITS } from '../../render/mrkdwn.js';
import { z } from 'zod';
import type { KindForm } from './form-parts.js';
import { sameEntries, type ChangeKindModule, type Draft, type KindCommand, type PlannedReverse } from './kind.js';

function parseTagEdit(adding: boolean, args: Token[], read: ArgumentReader) {
  const [service, ...tagWords] = args;
  const what = adding ? 'the service and one or more tags (KEY or KEY=VALUE)' : 'the service and the tags to remove';
  const value = read.service(service, what);
  if (tagWords.length === 0) read.missing(what);
  const tags = tagWords.map((token) => read.must(checkTagWord(token.text.trim())));
  return read.change(value, adding ? { tagAdd: tags } : { tagRemove: tags });
}

const tagCommands: KindCommand[] = [
  {
    name: 'tag add',
    usage: 'tag add SERVICE KEY[=VALUE] ...',
    example: 'tag add orders-prod owner=payments tier.critical',
    summary: "Request tags for a service (a new value replaces the key's old one).",
    bounds: [
      `A key has 1 to ${TAG_KEY_MAX} letters, digits, dots, hyphens or underscores; a value up to ${TAG_VALUE_MAX} of them.`,
      `At most ${TAG_EDITS_MAX} tags in one request.`,
    ],
    fixedWords: 2,
    groupAsk: 'Say whether to add or remove tags',
    parse: (args, read) => parseTagEdit(true, args, read),
  },
  {
    name: 'tag remove',
    usage: 'tag remove SERVICE KEY[=VALUE] ...',
    example: 'tag remove legacy-reporting keep',
    summary: 'Request that tags be taken off a service.',
    bounds: [`At most ${TAG_EDITS_MAX} tags in one request.`],
    fixedWords: 2,
    parse: (args, read) => parseTagEdit(false, args, read),
  },
];

/** "env=prod", or just "keep" for a tag without a value. */
export const tagText = (tag: OutgoingTag): string => (tag.value === undefined ? tag.key : `${tag.key}=${tag.value}`);

const sameTagValue = (a: string | undefined, b: string | undefined) => (a ?? '') === (b ?? '');

const tagsOf = (service: ServiceRecord): OutgoingTag[] =>
  (service.tags ?? []).map((t) => (t.value === undefined ? { key: t.key } : { key: t.key, value: t.value }));

const touchedKeys = (plan: ChangePlan) =>
  [...(plan.update.tags?.add ?? []), ...(plan.update.tags?.remove ?? [])].map((tag) => tag.key);

/** A tag without a value and one with an empty value read the same, as tag filters treat them. */
function tagsKey(tags: OutgoingTag[] | null | undefined): string {
  return (tags ?? [])
    .map((t) => `${t.key}\u0000${t.value ?? ''}`)
    .sort()
    .join('\u0001');
}

/** Beyond this much tag text the modal would not fit its metadata; the tag commands remain. */
const TAGS_TEXT_MAX = 1500;

/** The tags as people type them: "env=prod team=data keep". */
const tagsText = (tags: readonly OutgoingTag[]): string => tags.map(tagText).join(' ');

const ShownTags = z.array(z.object({ key: z.string(), value: z.string().optional() }));

/** Words of the tags field, split on the first "="; the plan checks the alphabet. */
export function parseTagWords(text: string): OutgoingTag[] {
  return text
    .split(/[\s,]+/u)
    .filter(Boolean)
    .map((word) => {
      const eq = word.indexOf('=');
      return eq === -1 ? { key: word } : { key: word.slice(0, eq), value: word.slice(eq + 1) };
    });
}

/**
 * The difference between the tags the modal showed and the ones submitted: a deleted tag is
 * removed, a new or changed one added. A key typed twice is passed on so the plan refuses it.
 */
function tagEdits(shown: readonly OutgoingTag[], submitted: OutgoingTag[]): Pick<ChangeIntent, 'tagAdd' | 'tagRemove'> {
  const before = new Map(shown.map((tag) => [tag.key, tag.value ?? '']));
  const keys = submitted.map((tag) => tag.key);
  const twice = new Set(keys.filter((key, i) => keys.indexOf(key) !== i));
  const tagAdd = submitted.filter((tag) => twice.has(tag.key) || before.get(tag.key) !== (tag.value ?? ''));
  const tagRemove = shown.filter((tag) => !keys.includes(tag.key));
  return { ...(tagAdd.length > 0 ? { tagAdd } : {}), ...(tagRemove.length > 0 ? { tagRemove } : {}) };
}

const tagsForm: KindForm = {
  blockIds: { tags: 'tags' },
  shown(service) {
    const tags = tagsOf(service);
    return tagsText(tags).length <= TAGS_TEXT_MAX ? tags : undefined;
  },
  blocks(_service, shown) {
    const tags = ShownTags.safeParse(shown);
    if (!tags.success) return [formNote('Tags: too many to edit here; use the tag add and tag remove commands.')];
    const initial = tagsText(tags.data);
    return [
      input(
        'tags',
        'Tags',
        {
          type: 'plain_text_input',
          action_id: ACTION,
          multiline: true,
          max_length: LIMITS.textInput,
          // TAGS_TEXT_MAX keeps the initial value well within max_length.
          ...(initial ? { initial_value: initial } : {}),
          placeholder: { type: 'plain_text', text: 'env=prod team=data' },
        },
        {
          optional: true,
          hint: 'KEY or KEY=VALUE, separated by spaces: letters, digits, dots, hyphens and underscores. Delete a tag to remove it.',
        },
      ),
    ];
  },
  read(values, shown) {
    const tags = ShownTags.safeParse(shown);
    if (!tags.success || values['tags'] === undefined) return { intent: {} };
    return { intent: tagEdits(tags.data, parseTagWords(textValue(values, 'tags') ?? '')) };
  },
};

export const tagsKind: ChangeKindModule<'tags'> = {
  field: 'tags',
  policyName: 'tags',
  intents: ['tagAdd', 'tagRemove'],
  commands: tagCommands,
  form: tagsForm,
  read: tagsOf,
  same: (a, b) => tagsKey(a) === tagsKey(b),
  entriesSame(plan, service) {
    const value = (tag: OutgoingTag) => tag.value ?? '';
    return sameEntries(plan.before.tags ?? [], tagsOf(service), (tag) => tag.key, value, touchedKeys(plan));
  },
  touchedEntries: touchedKeys,
  plan: planTags,
  visible(update, service) {
    const tags = new Map(tagsOf(service).map((t) => [t.key, t.value ?? '']));
    const added = update.tags?.add ?? [];
    return (
      (update.tags?.remove ?? []).every((t) => !tags.has(t.key) || added.some((a) => a.key === t.key)) &&
      added.every((t) => tags.get(t.key) === (t.value ?? ''))
    );
  },
  undo: undoTags,
  risks: () => [],
  possibleRisks: [],
};

function planTags(draft: Draft, service: ServiceRecord, intent: ChangeIntent): void {
  const adds = validTags(draft, 'tagAdd', intent.tagAdd ?? []);
  const removes = validTags(draft, 'tagRemove', intent.tagRemove ?? []);
  if (adds === undefined || removes === undefined) return;
  const both = adds.find((tag) => removes.some((r) => r.key === tag.key));
  if (both) {
    draft.problems.push({ field: 'tagAdd', message: `Tag ${both.key} is both added and removed; choose one.` });
    return;
  }
  const byKey = new Map(tagsOf(service).map((tag) => [tag.key, tag]));
  const bodyRemove: OutgoingTag[] = [];
  const bodyAdd: OutgoingTag[] = [];
  for (const wanted of removes) {
    const existing = byKey.get(wanted.key);
    if (existing === undefined) {
      draft.problems.push({
        field: 'tagRemove',
        message: `The service has no tag ${wanted.key}, so there is nothing to remove.`,
      });
    } else if (wanted.value !== undefined && !sameTagValue(existing.value, wanted.value)) {
      draft.problems.push({
        field: 'tagRemove',
        message: `Tag ${wanted.key} is ${tagText(existing)}, not ${tagText(wanted)}; nothing was removed.`,
      });
    } else {
      bodyRemove.push(existing);
      draft.changes.push({ field: 'tags', label: 'Tag', before: tagText(existing), after: 'removed' });
    }
  }
  for (const wanted of adds) {
    const existing = byKey.get(wanted.key);
    if (existing !== undefined && sameTagValue(existing.value, wanted.value)) continue;
    if (existing !== undefined) bodyRemove.push(existing);
    bodyAdd.push(wanted);
    draft.changes.push({
      field: 'tags',
      label: 'Tag',
      before: existing === undefined ? 'absent' : tagText(existing),
      after: tagText(wanted),
    });
  }
  for (const [list, verb] of [
    [bodyRemove, 'removes'],
    [bodyAdd, 'adds'],
  ] as const) {
    if (list.length > TAG_EDITS_MAX) {
      draft.problems.push({
        field: verb === 'adds' ? 'tagAdd' : 'tagRemove',
        message: `This request ${verb} ${list.length} tags; the API takes at most ${TAG_EDITS_MAX} at once. Split it.`,
      });
    }
  }
  if (bodyRemove.length === 0 && bodyAdd.length === 0) return;
  draft.update.tags = {
    ...(bodyRemove.length > 0 ? { remove: bodyRemove } : {}),
    ...(bodyAdd.length > 0 ? { add: bodyAdd } : {}),
  };
  draft.touched.add('tags');
}

/** Checks the alphabet (parsed input may come from the modal) and refuses a key given twice. */
function validTags(draft: Draft, field: 'tagAdd' | 'tagRemove', wanted: OutgoingTag[]): OutgoingTag[] | undefined {
  const seen = new Set<string>();
  let valid = true;
  for (const tag of wanted) {
    if (!isTagKey(tag.key) || (tag.value !== undefined && !isTagValue(tag.value))) {
      draft.problems.push({
        field,
        message: `"${tagText(tag)}" is not a tag: keys (1-128) and values (up to 256) may contain only letters, digits, dots, hyphens and underscores.`,
      });
      valid = false;
    } else if (seen.has(tag.key)) {
      draft.problems.push({ field, message: `Tag ${tag.key} is given twice; give each key once.` });
      valid = false;
    }
    seen.add(tag.key);
  }
  return valid ? wanted : undefined;
}

/** Added tags come off (or get their old value back), removed ones go back on, while the service still shows the change. */
function undoTags(plan: ChangePlan, service: ServiceRecord, reverse: PlannedReverse): void {
  const edits = plan.update.tags;
  if (!edits) return;
  const valueNow = new Map(tagsOf(service).map((t) => [t.key, t.value ?? '']));
  const before = new Map((plan.before.tags ?? []).map((t) => [t.key, t]));
  const addedKeys = new Set((edits.add ?? []).map((t) => t.key));
  const tagAdd: OutgoingTag[] = [];
  const tagRemove: OutgoingTag[] = [];
  for (const tag of edits.add ?? []) {
    const previous = before.get(tag.key);
    if (valueNow.get(tag.key) !== (tag.value ?? ''))
      reverse.leftAlone.push(`Tag ${tagText(tag)} is no longer set as the change left it.`);
    else if (previous) tagAdd.push(previous);
    else tagRemove.push(tag);
  }
  for (const tag of edits.remove ?? []) {
    if (addedKeys.has(tag.key)) continue;
    if (valueNow.has(tag.key)) reverse.leftAlone.push(`Tag ${tag.key} is already set again.`);
    else tagAdd.push(tag);
  }
  if (tagAdd.length > 0) reverse.intent.tagAdd = tagAdd;
  if (tagRemove.length > 0) reverse.intent.tagRemove = tagRemove;
}
