/**
 * The playground page: renders what the Slack stand-in holds (messages, threads, ephemeral
 * replies, modals) from their Block Kit, and turns clicks and typing into the playground's /ui
 * calls, which the server signs and sends to the bot as Slack would. Plain DOM, no framework.
 */

interface Person {
  id: string;
  name: string;
  role: string;
}
interface ChatMessage {
  ts: string;
  channel: string;
  userId?: string;
  text: string;
  blocks: Block[];
  threadTs?: string;
  visibleTo?: string;
  /** A DM from the app: shown only to that person, marked as such. */
  directTo?: string;
  /** Shared files (a spend chart): the stand-in serves each at its url. */
  files?: Array<{ id: string; title: string; altText: string; url: string }>;
}
interface OpenView {
  id: string;
  userId: string;
  view: { title?: TextObject; submit?: TextObject; close?: TextObject; blocks?: Block[] };
  errors: Record<string, string>;
}
interface Service {
  id: string;
  name: string;
  state?: string;
  releaseChannel?: string;
  ipAccessList?: unknown[];
  endpoints?: Array<{ protocol: string }>;
}
interface State {
  people: Person[];
  channel: { id: string; name: string };
  messages: ChatMessage[];
  views: OpenView[];
  /** Each person's Home tab as the bot last published it. */
  homes: Record<string, { blocks?: Block[] }>;
  services: Service[];
}

interface TextObject {
  type: string;
  text: string;
}
interface Option {
  text: TextObject;
  value: string;
}
interface Element {
  type: string;
  action_id?: string;
  text?: TextObject;
  value?: string;
  style?: string;
  multiline?: boolean;
  initial_value?: string;
  placeholder?: TextObject;
  options?: Option[];
  option_groups?: Array<{ label: TextObject; options: Option[] }>;
  initial_option?: Option;
}
interface Block {
  type: string;
  block_id?: string;
  text?: TextObject;
  fields?: TextObject[];
  elements?: Array<Element & TextObject>;
  label?: TextObject;
  element?: Element;
  hint?: TextObject;
  optional?: boolean;
}

/** The Home tab's blocks are rendered like a message's; its buttons are Home clicks. */
const HOME_CHANNEL = 'home';

let state: State | undefined;
let me = '';
const openThreads = new Set<string>();
let shownModal = '';

const $ = <T extends HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing`);
  return element as T;
};

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  node.append(...children);
  return node;
}

async function post(path: string, body: unknown): Promise<void> {
  await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

// ---------------------------------------------------------------------------------------------
// mrkdwn: Slack's control sequences first, then entities, then emphasis; always as text nodes
// or escaped HTML, so nothing in the data becomes markup.

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const decodeEntities = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

function personName(id: string): string {
  return state?.people.find((p) => p.id === id)?.name ?? id;
}

function control(inner: string): string {
  const [target = '', label] = inner.split('|');
  if (target.startsWith('@')) return `<span class="mention">@${escapeHtml(personName(target.slice(1)))}</span>`;
  if (target.startsWith('!date^')) {
    const seconds = Number(target.split('^')[1]);
    return escapeHtml(
      Number.isFinite(seconds) ? new Date(seconds * 1000).toLocaleString() : decodeEntities(label ?? ''),
    );
  }
  if (target.startsWith('!subteam^')) return `<span class="mention">@${escapeHtml(label ?? 'group')}</span>`;
  if (target.startsWith('!')) return `<span class="mention">@${escapeHtml(target.slice(1))}</span>`;
  const href = decodeEntities(target);
  // A message's link (chat.getPermalink) opens that message on this page, as Slack jumps to it.
  if (messageOf(href))
    return `<a href="${escapeHtml(href)}" class="permalink" data-testid="permalink">${escapeHtml(decodeEntities(label ?? target))}</a>`;
  return `<a href="${escapeHtml(href)}" rel="noopener noreferrer" target="_blank">${escapeHtml(decodeEntities(label ?? target))}</a>`;
}

/** The message a permalink of the stand-in names (`/archives/C…/p1700000000000001?thread_ts=…`). */
function messageOf(href: string): { ts: string; threadTs?: string } | undefined {
  let url: URL;
  try {
    url = new URL(href, location.href);
  } catch {
    return undefined;
  }
  const match = /^\/archives\/[^/]+\/p(\d+)(\d{6})$/.exec(url.pathname);
  if (url.origin !== location.origin || !match) return undefined;
  const threadTs = url.searchParams.get('thread_ts') ?? undefined;
  return { ts: `${match[1]}.${match[2]}`, ...(threadTs ? { threadTs } : {}) };
}

/** Follows a permalink: opens the thread it is in, scrolls to the message and marks it for a moment. */
function jumpTo(target: { ts: string; threadTs?: string }): void {
  if (target.threadTs) openThreads.add(target.threadTs);
  render();
  const node = document.querySelector<HTMLElement>(`[data-testid="message"][data-ts="${CSS.escape(target.ts)}"]`);
  if (!node) return;
  node.scrollIntoView({ block: 'center' });
  node.classList.add('highlight');
  setTimeout(() => node.classList.remove('highlight'), 2_000);
}

document.addEventListener('click', (event) => {
  const link = event.target instanceof Element ? event.target.closest<HTMLAnchorElement>('a.permalink') : null;
  const target = link ? messageOf(link.getAttribute('href') ?? '') : undefined;
  if (!target) return;
  event.preventDefault();
  jumpTo(target);
});

const EMOJI: Record<string, string> = {
  warning: '⚠️',
  white_check_mark: '✅',
  x: '❌',
  no_entry: '⛔',
  no_entry_sign: '🚫',
  hourglass: '⏳',
  hourglass_flowing_sand: '⏳',
  heavy_multiplication_x: '✖️',
  memo: '📝',
  grey_question: '❔',
  large_green_circle: '🟢',
  white_circle: '⚪',
  black_circle: '⚫',
  large_orange_circle: '🟠',
  red_circle: '🔴',
  large_blue_circle: '🔵',
  robot_face: '🤖',
  calendar: '📅',
  wastebasket: '🗑️',
  construction: '🚧',
  thread: '🧵',
  arrows_counterclockwise: '🔄',
  thumbsup: '👍',
};

function mrkdwn(text: string): string {
  return text
    .split(/(<[^<>]+>)/)
    .map((part) =>
      part.startsWith('<') && part.endsWith('>')
        ? control(part.slice(1, -1))
        : emphasis(escapeHtml(decodeEntities(part))),
    )
    .join('')
    .replace(/\n/g, '<br>');
}

/**
 * Emphasis as Slack reads it: a marker opens only at the start or after a space or punctuation and
 * closes only before the end, a space or punctuation, with no space just inside. So a cron text
 * such as "*&#47;1 * * * *" stays as typed. Code spans are never formatted inside.
 */
const BEFORE = String.raw`(^|[\s(\[{"'.,;:!?-])`;
const AFTER = String.raw`(?=$|[\s)\]}"'.,;:!?-])`;
const markerRule = (marker: string) =>
  new RegExp(`${BEFORE}\\${marker}([^\\${marker}\\s](?:[^\\${marker}\\n]*[^\\${marker}\\s])?)\\${marker}${AFTER}`, 'g');
const BOLD = markerRule('*');
const ITALIC = markerRule('_');
const STRIKE = markerRule('~');

function emphasis(html: string): string {
  return html
    .split(/(`[^`]*`)/)
    .map((part) =>
      part.startsWith('`') && part.endsWith('`') && part.length > 1
        ? `<code>${part.slice(1, -1)}</code>`
        : part
            .replace(/:([a-z0-9_+-]+):/g, (whole, name: string) => EMOJI[name] ?? whole)
            .replace(BOLD, '$1<strong>$2</strong>')
            .replace(ITALIC, '$1<em>$2</em>')
            .replace(STRIKE, '$1<del>$2</del>'),
    )
    .join('');
}

function textNode(text: TextObject | undefined): HTMLElement {
  const span = el('span');
  if (!text) return span;
  if (text.type === 'mrkdwn') span.innerHTML = mrkdwn(text.text);
  else span.textContent = text.text.replace(/:([a-z0-9_+-]+):/g, (whole, name: string) => EMOJI[name] ?? whole);
  return span;
}

// ---------------------------------------------------------------------------------------------
// Blocks in messages

function renderBlocks(blocks: Block[], message: ChatMessage): HTMLElement {
  const box = el('div', { class: 'blocks' });
  for (const block of blocks) box.append(renderBlock(block, message));
  return box;
}

function renderBlock(block: Block, message: ChatMessage): HTMLElement {
  switch (block.type) {
    case 'header':
      return el('div', { class: 'block-header' }, textNode(block.text));
    case 'section': {
      const section = el('div', { class: 'block-section' });
      if (block.text) section.append(el('div', {}, textNode(block.text)));
      if (block.fields)
        section.append(el('div', { class: 'block-fields' }, ...block.fields.map((f) => el('div', {}, textNode(f)))));
      return section;
    }
    case 'context':
      return el('div', { class: 'block-context' }, ...(block.elements ?? []).map((e) => textNode(e)));
    case 'divider':
      return el('hr', { class: 'block-divider' });
    case 'actions':
      return el(
        'div',
        { class: 'block-actions' },
        ...(block.elements ?? []).map((e) => actionButton(e, block, message)),
      );
    default:
      return el('div', { class: 'block-unknown' }, `[${block.type} block]`);
  }
}

function actionButton(element: Element, block: Block, message: ChatMessage): HTMLElement {
  const button = el(
    'button',
    { type: 'button', ...(element.style ? { class: element.style } : {}) },
    element.text?.text ?? 'Button',
  );
  button.addEventListener('click', () => {
    const action = {
      userId: me,
      actionId: element.action_id ?? '',
      blockId: block.block_id ?? '',
      value: element.value ?? '',
    };
    if (message.channel === HOME_CHANNEL) void post('/ui/home-click', action);
    else void post('/ui/click', { ...action, messageTs: message.ts });
  });
  return button;
}

function renderMessage(message: ChatMessage, replies: ChatMessage[]): HTMLElement {
  const author = message.userId ? personName(message.userId) : 'ClickHouse';
  const node = el('div', {
    class: `message${message.visibleTo || message.directTo ? ' ephemeral' : ''}`,
    'data-ts': message.ts,
    'data-testid': 'message',
    ...(message.directTo ? { 'data-direct': 'true' } : {}),
  });
  const head = el(
    'div',
    {},
    el('span', { class: 'author' }, author),
    el('span', { class: 'badge' }, message.userId ? '' : 'APP'),
  );
  if (message.visibleTo) head.append(el('span', { class: 'badge' }, ' · Only visible to you'));
  if (message.directTo) head.append(el('span', { class: 'badge' }, ' · Direct message to you'));
  // What a person typed is shown as typed (a command is not formatted), the bot's text as mrkdwn.
  const body =
    message.blocks.length > 0
      ? renderBlocks(message.blocks, message)
      : el(
          'div',
          { class: message.userId ? 'typed' : '' },
          message.userId ? message.text : textNode({ type: 'mrkdwn', text: message.text }),
        );
  node.append(head, body);
  for (const file of message.files ?? []) node.append(renderFile(file));
  if (replies.length > 0) node.append(threadOf(message, replies));
  return node;
}

/** A shared image as Slack shows it: its title, then the picture; the alt text is the words it says. */
function renderFile(file: NonNullable<ChatMessage['files']>[number]): HTMLElement {
  return el(
    'figure',
    { class: 'file', 'data-testid': 'file' },
    el('figcaption', {}, file.title),
    el('img', { src: file.url, alt: file.altText, loading: 'lazy' }),
  );
}

function threadOf(parent: ChatMessage, replies: ChatMessage[]): HTMLElement {
  const open = openThreads.has(parent.ts);
  const toggle = el(
    'button',
    { type: 'button', class: 'thread-toggle', 'data-testid': 'thread-toggle' },
    open ? 'Hide replies' : `${replies.length} ${replies.length === 1 ? 'reply' : 'replies'}`,
  );
  toggle.addEventListener('click', () => {
    if (openThreads.has(parent.ts)) openThreads.delete(parent.ts);
    else openThreads.add(parent.ts);
    render();
  });
  const box = el('div', { class: 'thread-box' }, toggle);
  if (open)
    box.append(el('div', { class: 'thread', 'data-testid': 'thread' }, ...replies.map((r) => renderMessage(r, []))));
  return box;
}

// ---------------------------------------------------------------------------------------------
// Modals: input blocks, their values read back in the shape Slack sends (view.state.values)

function renderModal(open: OpenView | undefined): void {
  const root = $('modal-root');
  const viewKey = open ? `${open.id}:${JSON.stringify(open.view)}` : '';
  const key = open ? `${viewKey}:${JSON.stringify(open.errors)}` : '';
  if (key === shownModal) return;
  // Slack keeps what the person typed when it shows inline errors on the same view.
  const typed = shownModal.startsWith(`${viewKey}:`) && viewKey !== '' ? typedValues(root) : undefined;
  shownModal = key;
  root.replaceChildren();
  if (!open) return;
  const form = el('form', { class: 'modal', 'data-testid': 'modal', role: 'dialog' });
  form.append(el('h2', {}, open.view.title?.text ?? 'Modal'));
  for (const block of open.view.blocks ?? [])
    form.append(
      block.type === 'input'
        ? inputBlock(block, open.errors[block.block_id ?? ''])
        : renderBlock(block, { ts: '', channel: '', text: '', blocks: [] }),
    );
  const close = el('button', { type: 'button' }, open.view.close?.text ?? 'Close');
  close.addEventListener('click', () => void post('/ui/close', { viewId: open.id }));
  const footer = el('div', { class: 'footer' }, close);
  if (open.view.submit) footer.append(el('button', { type: 'submit', class: 'primary' }, open.view.submit.text));
  form.append(footer);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void post('/ui/submit', { userId: me, viewId: open.id, values: readValues(form, open.view.blocks ?? []) });
  });
  root.append(el('div', { class: 'modal-backdrop' }, form));
  if (typed) restoreValues(form, typed);
}

type Typed = Map<string, string | string[] | boolean>;

/** Every field's current value by element id (radio buttons by id and value). */
function typedValues(root: HTMLElement): Typed {
  const typed: Typed = new Map();
  for (const field of root.querySelectorAll<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>(
    'input, textarea, select',
  )) {
    if (field instanceof HTMLInputElement && field.type === 'radio')
      typed.set(`${field.name}=${field.value}`, field.checked);
    else if (field instanceof HTMLSelectElement && field.multiple)
      typed.set(
        field.id,
        [...field.selectedOptions].map((o) => o.value),
      );
    else typed.set(field.id, field.value);
  }
  return typed;
}

function restoreValues(root: HTMLElement, typed: Typed): void {
  for (const field of root.querySelectorAll<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>(
    'input, textarea, select',
  )) {
    if (field instanceof HTMLInputElement && field.type === 'radio') {
      const checked = typed.get(`${field.name}=${field.value}`);
      if (typeof checked === 'boolean') field.checked = checked;
      continue;
    }
    const value = typed.get(field.id);
    if (field instanceof HTMLSelectElement && field.multiple && Array.isArray(value)) {
      for (const option of field.options) option.selected = value.includes(option.value);
    } else if (typeof value === 'string') field.value = value;
  }
}

function inputBlock(block: Block, error: string | undefined): HTMLElement {
  const id = `input-${block.block_id ?? ''}`;
  const wrapper = el('div', { 'data-block': block.block_id ?? '' });
  wrapper.append(el('label', { for: id }, block.label?.text ?? ''));
  wrapper.append(inputElement(block.element ?? { type: 'plain_text_input' }, id));
  if (block.hint) wrapper.append(el('div', { class: 'field-hint' }, block.hint.text));
  if (error) wrapper.append(el('div', { class: 'field-error', 'data-testid': 'field-error' }, error));
  return wrapper;
}

function allOptions(element: Element): Option[] {
  return element.options ?? (element.option_groups ?? []).flatMap((g) => g.options);
}

function inputElement(element: Element, id: string): HTMLElement {
  switch (element.type) {
    case 'static_select':
    case 'multi_static_select': {
      const select = el('select', { id, ...(element.type === 'multi_static_select' ? { multiple: '' } : {}) });
      if (element.type === 'static_select') select.append(el('option', { value: '' }, '—'));
      for (const option of allOptions(element)) {
        const node = el('option', { value: option.value }, option.text.text);
        if (element.initial_option?.value === option.value) node.selected = true;
        select.append(node);
      }
      return select;
    }
    case 'radio_buttons':
      return el(
        'div',
        { id },
        ...allOptions(element).map((option) => {
          const radio = el('input', { type: 'radio', name: id, value: option.value });
          if (element.initial_option?.value === option.value) radio.checked = true;
          return el('label', {}, radio, ` ${option.text.text}`);
        }),
      );
    case 'datetimepicker':
      // Slack's picker shows the person's own zone; the browser's local time stands in for it.
      return el('input', { id, type: 'datetime-local' });
    default: {
      const field = element.multiline ? el('textarea', { id, rows: '3' }) : el('input', { id });
      field.value = element.initial_value ?? '';
      if (element.placeholder) field.placeholder = element.placeholder.text;
      return field;
    }
  }
}

function readValues(form: HTMLElement, blocks: Block[]): Record<string, Record<string, unknown>> {
  const values: Record<string, Record<string, unknown>> = {};
  for (const block of blocks) {
    if (block.type !== 'input' || !block.block_id || !block.element) continue;
    const id = `input-${block.block_id}`;
    const actionId = block.element.action_id ?? 'value';
    values[block.block_id] = { [actionId]: readElement(form, block.element, id) };
  }
  return values;
}

function readElement(form: HTMLElement, element: Element, id: string): Record<string, unknown> {
  const type = element.type;
  if (type === 'multi_static_select') {
    const select = form.querySelector<HTMLSelectElement>(`#${CSS.escape(id)}`);
    return { type, selected_options: [...(select?.selectedOptions ?? [])].map((o) => ({ value: o.value })) };
  }
  if (type === 'static_select') {
    const value = form.querySelector<HTMLSelectElement>(`#${CSS.escape(id)}`)?.value ?? '';
    return { type, selected_option: value ? { value } : null };
  }
  if (type === 'radio_buttons') {
    const checked = form.querySelector<HTMLInputElement>(`input[name="${CSS.escape(id)}"]:checked`);
    return { type, selected_option: checked ? { value: checked.value } : null };
  }
  if (type === 'datetimepicker') {
    // As Slack answers it: the instant in Unix seconds, null when nothing was picked.
    const picked = form.querySelector<HTMLInputElement>(`#${CSS.escape(id)}`)?.value ?? '';
    const ms = picked ? new Date(picked).getTime() : NaN;
    return { type, selected_date_time: Number.isNaN(ms) ? null : Math.floor(ms / 1000) };
  }
  const field = form.querySelector<HTMLInputElement | HTMLTextAreaElement>(`#${CSS.escape(id)}`);
  return { type, value: field?.value || null };
}

// ---------------------------------------------------------------------------------------------
// The page

function render(): void {
  if (!state) return;
  const visible = state.messages.filter(
    (m) => (!m.visibleTo || m.visibleTo === me) && (!m.directTo || m.directTo === me),
  );
  const replies = (ts: string) => visible.filter((m) => m.threadTs === ts);
  const list = $('messages');
  const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 40;
  list.replaceChildren(...visible.filter((m) => !m.threadTs).map((m) => renderMessage(m, replies(m.ts))));
  if (atBottom) list.scrollTop = list.scrollHeight;
  renderHome(state.homes[me]?.blocks);
  renderServices(state.services);
  renderModal(state.views.filter((v) => v.userId === me).at(-1));
}

function renderHome(blocks: Block[] | undefined): void {
  $('home-title').textContent = `Home (${personName(me)})`;
  const home = $('home');
  if (!blocks) return void home.replaceChildren(el('p', { class: 'hint' }, 'Not drawn yet.'));
  home.replaceChildren(renderBlocks(blocks, { ts: '', channel: HOME_CHANNEL, text: '', blocks }));
}

/** Opening the Home tab, as Slack tells the bot when someone looks at it. */
const openHome = () => void post('/ui/home-opened', { userId: me });

function renderServices(services: Service[]): void {
  $('services').replaceChildren(
    ...services.map((s) =>
      el(
        'tr',
        { 'data-service': s.id },
        el('td', {}, s.name),
        el('td', {}, s.state ?? ''),
        el('td', {}, s.releaseChannel ?? ''),
        el('td', {}, String(s.ipAccessList?.length ?? 0)),
        el('td', {}, s.endpoints?.some((e) => e.protocol === 'mysql') ? 'on' : 'off'),
      ),
    ),
  );
  const select = $<HTMLSelectElement>('outside-service');
  if (select.options.length !== services.length) {
    select.replaceChildren(...services.map((s) => el('option', { value: s.id }, s.name)));
  }
}

function setUp(initial: State): void {
  const person = $<HTMLSelectElement>('person');
  person.replaceChildren(...initial.people.map((p) => el('option', { value: p.id }, `${p.name} (${p.role})`)));
  me = initial.people[0]?.id ?? '';
  person.addEventListener('change', () => {
    me = person.value;
    shownModal = '-';
    render();
    openHome();
  });
  openHome();
  $('channel-name').textContent = `# ${initial.channel.name}`;
  $('composer').addEventListener('submit', (event) => {
    event.preventDefault();
    const input = $<HTMLInputElement>('command');
    void post('/ui/command', { userId: me, text: input.value });
    input.value = '/clickhouse ';
  });
  $('outside').addEventListener('submit', (event) => {
    event.preventDefault();
    const mysql = $<HTMLSelectElement>('outside-mysql').value;
    const status = $('outside-status');
    status.textContent = '';
    void fetch('/ui/outside', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        serviceId: $<HTMLSelectElement>('outside-service').value,
        ...($<HTMLInputElement>('outside-name').value ? { name: $<HTMLInputElement>('outside-name').value } : {}),
        ...($<HTMLInputElement>('outside-ip').value ? { ipAdd: $<HTMLInputElement>('outside-ip').value } : {}),
        ...(mysql ? { mysql: mysql === 'on' } : {}),
      }),
    })
      .then((response) => response.json() as Promise<{ ok?: boolean; error?: string }>)
      .then((answer) => {
        status.className = answer.ok ? 'outside-ok' : 'outside-error';
        status.textContent = answer.ok ? 'Changed.' : (answer.error ?? 'Not changed.');
      });
  });
}

const events = new EventSource('/ui/events');
events.onmessage = (event: MessageEvent<string>) => {
  const first = !state;
  state = JSON.parse(event.data) as State;
  if (first) setUp(state);
  render();
};
