import { describe, expect, it } from 'vitest';
import { BASE_COMMAND_NAMES, COMMAND_CATALOGUE, usageOf, usagesOfGroup } from '../../../src/core/command/catalogue.js';
import { KIND_COMMANDS } from '../../../src/core/change/kinds/index.js';
import { COMMAND_KINDS, MAX_COMMAND_LENGTH, parseCommand, type Command } from '../../../src/core/command/parse.js';
import { echo } from '../../../src/core/command/arguments.js';
import { prng } from '../../support/random.js';

type Invalid = Extract<Command, { kind: 'invalid' }>;

/** Parses text that must be refused, and returns the refusal for its message and usage. */
function refusal(text: string): Invalid {
  const command = parseCommand(text);
  if (command.kind !== 'invalid')
    throw new Error(`expected invalid for ${JSON.stringify(text)}, got ${JSON.stringify(command)}`);
  return command;
}

function change(service: string, verb: string, intent: object): Command {
  return { kind: 'change', service, verb, intent };
}

describe('help and unknown words', () => {
  it.each(['help', 'HELP'])('answers help for %j', (text) => {
    expect(parseCommand(text)).toStrictEqual({ kind: 'help' });
  });

  it.each(['', '   ', '\n\t'])('answers the short overview for nothing typed (%j)', (text) => {
    expect(parseCommand(text)).toStrictEqual({ kind: 'help', overview: true });
  });

  it('reads the words after help as its topic, lower case', () => {
    expect(parseCommand('Help me please')).toStrictEqual({ kind: 'help', topic: 'me please' });
    expect(parseCommand('help IP add')).toStrictEqual({ kind: 'help', topic: 'ip add' });
  });

  it('names an unknown subcommand as typed, so the reply can quote it', () => {
    expect(parseCommand('Frobnicate orders-prod')).toStrictEqual({ kind: 'unknown', word: 'Frobnicate' });
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('treats %s as an unknown word', (word) => {
    expect(parseCommand(word)).toStrictEqual({ kind: 'unknown', word });
  });

  it('answers help when called with something that is not a string at all', () => {
    expect(parseCommand(undefined as unknown as string)).toStrictEqual({ kind: 'help', overview: true });
  });
});

describe('list and summary', () => {
  it.each(['list', 'summary'] as const)('%s without filters covers every service', (kind) => {
    expect(parseCommand(kind)).toStrictEqual({ kind, filters: [] });
  });

  it.each(['list', 'summary'] as const)('%s keeps its tag filters in order', (kind) => {
    expect(parseCommand(`${kind} tag:env=prod tag:team tag:a.b_c-d=x.y`)).toStrictEqual({
      kind,
      filters: ['tag:env=prod', 'tag:team', 'tag:a.b_c-d=x.y'],
    });
  });

  it('reads the subcommand and the tag: prefix in any case, but keeps the key and value as written', () => {
    expect(parseCommand('LIST TAG:Env=Prod')).toStrictEqual({ kind: 'list', filters: ['tag:Env=Prod'] });
  });

  it('explains the filter form when a word is not a tag filter', () => {
    const { message, usage } = refusal('list prod');
    expect(message).toContain('"prod" is not a filter');
    expect(message).toContain('tag:KEY=VALUE');
    expect(message).toContain('tag:KEY ');
    expect(usage).toBe(usageOf('list'));
  });

  it.each([
    'tag:',
    'tag:env=pr/od',
    'tag:=prod',
    'tag:bad key',
    'tag:migration=phase=2',
    'tag:env=prod!',
    `tag:${'k'.repeat(129)}`,
    `tag:k=${'v'.repeat(257)}`,
  ])('refuses the tag filter %j, which could never match, with a sentence', (filter) => {
    const { message, usage } = refusal(`summary "${filter}"`);
    expect(message).toContain(`${echo(filter)} is not a tag filter I can use`);
    expect(message).toContain('letters, digits, dots, hyphens and underscores');
    expect(usage).toBe(usageOf('summary'));
  });

  it('says a time zone belongs to schedule add only', () => {
    expect(refusal('list tz:Europe/Berlin').message).toContain('only applies to schedule add');
  });
});

describe('show, edit, history and pending', () => {
  it.each(['show', 'edit'] as const)('%s takes one service, keeping its case', (kind) => {
    expect(parseCommand(`${kind.toUpperCase()} Orders-Prod`)).toStrictEqual({ kind, service: 'Orders-Prod' });
  });

  it('takes a quoted service name with spaces as one service', () => {
    expect(parseCommand('show "orders prod"')).toStrictEqual({ kind: 'show', service: 'orders prod' });
  });

  it('asks for the service when it is missing, with an example', () => {
    const { message, usage } = refusal('edit');
    expect(message).toBe('Tell me which service, like this: edit orders-prod');
    expect(usage).toBe('edit SERVICE');
  });

  it('suggests quotes when a service name seems to have spaces', () => {
    const { message } = refusal('show orders prod');
    expect(message).toContain('show takes one service');
    expect(message).toContain('"prod"');
    expect(message).toContain('in quotes');
  });

  it('refuses an empty quoted service', () => {
    expect(refusal('show ""').message).toContain('The service is empty');
  });

  it('reads history for all services or for one', () => {
    expect(parseCommand('history')).toStrictEqual({ kind: 'history' });
    expect(parseCommand('history orders-prod')).toStrictEqual({ kind: 'history', service: 'orders-prod' });
    expect(refusal('history orders prod').message).toContain('history takes at most one service');
  });

  it('reads policy for all rules or for one service', () => {
    expect(parseCommand('policy')).toStrictEqual({ kind: 'policy' });
    expect(parseCommand('POLICY "orders prod"')).toStrictEqual({ kind: 'policy', service: 'orders prod' });
    const { message, usage } = refusal('policy orders prod');
    expect(message).toContain('policy takes at most one service');
    expect(usage).toBe('policy [SERVICE]');
  });

  it('reads pending and refuses arguments to it', () => {
    expect(parseCommand('Pending')).toStrictEqual({ kind: 'pending' });
    const { message, usage } = refusal('pending orders-prod');
    expect(message).toBe('pending takes nothing, so I don\'t know what to do with "orders-prod".');
    expect(usage).toBe('pending');
  });
});

describe('rename', () => {
  it('joins the words of the new name with single spaces', () => {
    expect(parseCommand('rename orders-staging   orders  prod\t2')).toStrictEqual(
      change('orders-staging', 'rename', { name: 'orders prod 2' }),
    );
  });

  it('takes a quoted new name as written', () => {
    expect(parseCommand('rename "orders staging" "orders  prod"')).toStrictEqual(
      change('orders staging', 'rename', { name: 'orders  prod' }),
    );
  });

  it('accepts a name of exactly 50 characters and refuses 51, giving the count and the limit', () => {
    const fifty = 'a'.repeat(50);
    expect(parseCommand(`rename svc ${fifty}`)).toStrictEqual(change('svc', 'rename', { name: fifty }));
    const { message, usage } = refusal(`rename svc ${fifty}b`);
    expect(message).toBe('The new name is 51 characters long; names can be at most 50. Shorten it.');
    expect(usage).toBe('rename SERVICE NEW NAME...');
  });

  it('names the characters a service name may not contain', () => {
    const { message } = refusal('rename svc orders 🚀 prod.eu');
    expect(message).toContain('The new name "orders 🚀 prod.eu" contains "🚀", "."');
    expect(message).toContain('only letters A-Z, digits, spaces, hyphens and underscores');
  });

  it('complains about an emoji rather than the length when a name has both problems', () => {
    expect(refusal(`rename svc ${'🚀'.repeat(30)}`).message).toContain('contains "🚀"');
  });

  it('asks for the new name when there is none', () => {
    expect(refusal('rename orders-prod').message).toBe(
      'Tell me the new name after the service, like this: rename orders-staging orders-prod-2',
    );
    expect(refusal('rename orders-prod ""').message).toContain('The new name is missing');
    expect(refusal('rename').message).toContain('the service and its new name');
  });

  it('refuses a Slack mention as a name', () => {
    expect(refusal('rename svc <@U123>').message).toContain('contains "<", "@", ">"');
  });
});

describe('ip add and ip remove', () => {
  it('adds a source with a description made of the remaining words', () => {
    expect(parseCommand('ip add orders-prod 203.0.113.0/24 office  VPN')).toStrictEqual(
      change('orders-prod', 'ip add', { ipAdd: [{ source: '203.0.113.0/24', description: 'office VPN' }] }),
    );
  });

  it('adds a source without a description field when none is given', () => {
    expect(parseCommand('IP ADD orders-prod 2001:db8::/32')).toStrictEqual(
      change('orders-prod', 'ip add', { ipAdd: [{ source: '2001:db8::/32' }] }),
    );
  });

  it('refuses a source that is not an IP address or CIDR block, saying how to write one', () => {
    const { message, usage } = refusal('ip add orders-prod 10.0.0.300/8');
    expect(message).toBe('"10.0.0.300/8" is not an IP address or CIDR block. Write it like 203.0.113.7 or 10.0.0.0/8.');
    expect(usage).toBe('ip add SERVICE SOURCE [DESCRIPTION...] [for DURATION]');
  });

  it.each(['10.0.0.0/33', '::1/129', 'example.com', '1.2.3.4/8/8'])('refuses the source %j', (source) => {
    expect(refusal(`ip remove svc ${source}`).message).toContain('is not an IP address or CIDR block');
  });

  it('refuses a description longer than the API allows', () => {
    const { message } = refusal(`ip add svc 1.2.3.4 ${'d'.repeat(256)}`);
    expect(message).toBe('The description is 256 characters long; it can be at most 255. Shorten it.');
  });

  it('asks for the missing source', () => {
    expect(refusal('ip add orders-prod').message).toBe(
      'Tell me the service and the IP address or CIDR block, like this: ip add orders-prod 192.0.2.0/24 office VPN',
    );
  });

  it('removes one source', () => {
    expect(parseCommand('ip remove orders-prod 198.51.100.7')).toStrictEqual(
      change('orders-prod', 'ip remove', { ipRemove: ['198.51.100.7'] }),
    );
  });

  it('removes sources one at a time', () => {
    const { message, usage } = refusal('ip remove orders-prod 198.51.100.7 203.0.113.0/24');
    expect(message).toContain('remove entries one at a time');
    expect(usage).toBe('ip remove SERVICE SOURCE');
  });

  it('shows both ip usages when the action is missing or unknown', () => {
    const both = 'ip add SERVICE SOURCE [DESCRIPTION...] [for DURATION]\nip remove SERVICE SOURCE';
    expect(refusal('ip')).toStrictEqual({
      kind: 'invalid',
      message: 'Say whether to add or remove an IP access list entry: ip add or ip remove.',
      usage: both,
    });
    expect(refusal('ip delete svc 1.2.3.4').message).toBe(
      'ip can add or remove, not "delete". Write ip add or ip remove.',
    );
  });
});

describe('endpoint', () => {
  it.each([
    ['on', true],
    ['ON', true],
    ['enable', true],
    ['true', true],
    ['off', false],
    ['disable', false],
    ['False', false],
  ])('reads %s as %s', (word, enabled) => {
    expect(parseCommand(`endpoint orders-prod MySQL ${word}`)).toStrictEqual(
      change('orders-prod', 'endpoint', { mysqlEndpoint: enabled }),
    );
  });

  it('says only mysql can be switched, naming the protocol asked for', () => {
    const { message, usage } = refusal('endpoint orders-prod https off');
    expect(message).toContain('Only the mysql endpoint can be switched on or off');
    expect(message).toContain('"https"');
    expect(usage).toBe('endpoint SERVICE mysql on|off [for DURATION]');
  });

  it('asks for the endpoint when on/off comes straight after the service', () => {
    expect(refusal('endpoint orders-prod on').message).toBe(
      'Name the endpoint before "on", like this: endpoint orders-prod mysql on',
    );
  });

  it('refuses a word that is neither on nor off, and a missing one', () => {
    expect(refusal('endpoint orders-prod mysql maybe').message).toContain('"maybe" is neither on nor off');
    expect(refusal('endpoint orders-prod mysql').message).toContain('whether to switch it on or off');
  });
});

describe('release-channel, private-endpoint and rotate-key', () => {
  it.each(['slow', 'default', 'fast'] as const)('sets the %s channel', (channel) => {
    expect(parseCommand(`release-channel orders-prod ${channel.toUpperCase()}`)).toStrictEqual(
      change('orders-prod', 'release-channel', { releaseChannel: channel }),
    );
  });

  it('lists the channels when the one given does not exist', () => {
    const { message, usage } = refusal('release-channel orders-prod rapid');
    expect(message).toBe('"rapid" is not a release channel. Choose slow, default or fast.');
    expect(usage).toBe('release-channel SERVICE slow|default|fast');
  });

  it('attaches and detaches a private endpoint', () => {
    expect(parseCommand('private-endpoint attach orders-prod vpce-0a1b')).toStrictEqual(
      change('orders-prod', 'private-endpoint attach', { privateEndpointAttach: ['vpce-0a1b'] }),
    );
    expect(parseCommand('Private-Endpoint DETACH orders-prod vpce-0a1b')).toStrictEqual(
      change('orders-prod', 'private-endpoint detach', { privateEndpointDetach: ['vpce-0a1b'] }),
    );
  });

  it('wants attach or detach before the service', () => {
    const { message, usage } = refusal('private-endpoint orders-prod attach vpce-0a1b');
    expect(message).toContain('Say attach or detach first, not "orders-prod"');
    expect(usage).toBe('private-endpoint attach|detach SERVICE ENDPOINT_ID');
  });

  it('asks for the endpoint id', () => {
    expect(refusal('private-endpoint attach orders-prod').message).toContain('the private endpoint id');
  });

  it('rotates to a new key id', () => {
    expect(parseCommand('rotate-key orders-prod key-2')).toStrictEqual(
      change('orders-prod', 'rotate-key', { tdeKeyId: 'key-2' }),
    );
    expect(refusal('rotate-key orders-prod').message).toContain('the new encryption key id');
    expect(refusal('rotate-key orders-prod ""').message).toContain('The id is empty');
    expect(refusal('rotate-key orders-prod key-2 key-3').message).toContain(
      'rotate-key takes a service and one key id',
    );
  });
});

describe('schedules', () => {
  it('adds a schedule with a quoted cron expression, filters and a time zone', () => {
    expect(parseCommand('schedule add "0 9 * * 1-5" tag:env=prod tz:Europe/Berlin')).toStrictEqual({
      kind: 'schedule add',
      cron: '0 9 * * 1-5',
      filters: ['tag:env=prod'],
      timeZone: 'Europe/Berlin',
    });
  });

  it('accepts curly quotes around the cron expression and leaves out an absent time zone', () => {
    expect(parseCommand('Schedule Add “0 9 * * 1-5”')).toStrictEqual({
      kind: 'schedule add',
      cron: '0 9 * * 1-5',
      filters: [],
    });
    expect(parseCommand('schedule add ‘0 9 * * *’ TZ:UTC')).toStrictEqual({
      kind: 'schedule add',
      cron: '0 9 * * *',
      filters: [],
      timeZone: 'UTC',
    });
  });

  it('accepts a cron nickname without quotes', () => {
    expect(parseCommand('schedule add @daily')).toStrictEqual({ kind: 'schedule add', cron: '@daily', filters: [] });
  });

  it('asks for quotes around an unquoted cron expression', () => {
    const { message, usage } = refusal('schedule add 0 9 * * 1-5 tag:env=prod');
    expect(message).toContain('Put the cron expression in quotes');
    expect(usage).toBe('schedule add "CRON" [tag:KEY[=VALUE] ...] [tz:Area/City] [chart:on]');
  });

  it('refuses a missing or empty cron expression', () => {
    expect(refusal('schedule add').message).toContain('a cron expression in quotes');
    expect(refusal('schedule add "  "').message).toContain('The cron expression is empty');
  });

  it('explains filters and time zones when a word after the cron is neither', () => {
    const { message } = refusal('schedule add "0 9 * * *" prod');
    expect(message).toContain('"prod" is not a filter');
    expect(message).toContain('tz:Area/City');
  });

  it('refuses two time zones and an empty one', () => {
    expect(refusal('schedule add "0 9 * * *" tz:UTC tz:Europe/Paris').message).toBe(
      'Give one time zone, not two ("UTC" and "Europe/Paris").',
    );
    expect(refusal('schedule add "0 9 * * *" tz:').message).toContain('The time zone after tz: is missing');
  });

  it('lists and removes schedules', () => {
    expect(parseCommand('schedule list')).toStrictEqual({ kind: 'schedule list' });
    expect(parseCommand('schedule REMOVE Abc123')).toStrictEqual({ kind: 'schedule remove', id: 'Abc123' });
    expect(refusal('schedule list everything').message).toContain('schedule list takes nothing');
    expect(refusal('schedule remove').message).toContain('its id is in schedule list');
    expect(refusal('schedule remove a b').usage).toBe('schedule remove ID');
  });

  it('shows every schedule usage when the action is missing or unknown', () => {
    expect(refusal('schedule').usage).toBe(usagesOfGroup('schedule'));
    expect(refusal('schedule edit 3').message).toBe('schedule can add, list or remove, not "edit".');
    expect(usagesOfGroup('schedule').split('\n')).toHaveLength(3);
  });
});

describe('quoting', () => {
  it.each([
    ['straight double', '"orders prod"'],
    ['straight single', "'orders prod'"],
    ['curly double', '“orders prod”'],
    ['curly single', '‘orders prod’'],
    ['curly opened, straight closed', '“orders prod"'],
    ['straight opened, curly closed', '"orders prod”'],
    ['German style', '„orders prod“'],
  ])('keeps %s quotes whole', (_style, quoted) => {
    expect(parseCommand(`show ${quoted}`)).toStrictEqual({ kind: 'show', service: 'orders prod' });
  });

  it('keeps apostrophes inside words and inside the other kind of quotes', () => {
    const entry = (description: string) =>
      change('svc', 'ip add', { ipAdd: [{ source: '198.51.100.7', description }] });
    expect(parseCommand("ip add svc 198.51.100.7 Bob's laptop")).toStrictEqual(entry("Bob's laptop"));
    expect(parseCommand('ip add svc 198.51.100.7 Bob’s laptop')).toStrictEqual(entry('Bob’s laptop'));
    expect(parseCommand(`ip add svc 198.51.100.7 "Bob's laptop"`)).toStrictEqual(entry("Bob's laptop"));
    expect(parseCommand("ip add svc 198.51.100.7 'Bob's laptop'")).toStrictEqual(entry("Bob's laptop"));
  });

  it('refuses an unterminated quote, with the usage of the command it was in', () => {
    const { message, usage } = refusal('show "orders prod');
    expect(message).toBe(
      'The quote " before "orders prod" is never closed. ' +
        'Close it with a matching quote followed by a space (or at the very end), or remove it.',
    );
    expect(usage).toBe('show SERVICE');
  });

  it('refuses a curly quote that is never closed, and one glued to the next word', () => {
    expect(refusal('schedule add “0 9 * * *').usage).toBe(usageOf('schedule add'));
    expect(refusal('rename svc "new"name').message).toContain('never closed');
  });

  it('gives the help usage when an unclosed quote comes first', () => {
    expect(refusal('"list').usage).toBe(usageOf('help'));
    expect(refusal('show orders-prod ”').message).toContain('The quote ” at the end is never closed.');
  });

  it('answers an unknown word before an unclosed quote after it', () => {
    expect(parseCommand('frob "x')).toStrictEqual({ kind: 'unknown', word: 'frob' });
  });

  it.each([
    ['non-breaking space', '\u00a0'],
    ['narrow no-break space', '\u202f'],
    ['ideographic space', '\u3000'],
    ['tab', '\t'],
    ['newline', '\n'],
  ])('splits words on a %s', (_name, space) => {
    expect(parseCommand(`show${space}orders-prod${space}`)).toStrictEqual({ kind: 'show', service: 'orders-prod' });
  });
});

describe('Slack escaping and links', () => {
  it('unescapes &amp; &lt; &gt; in arguments', () => {
    expect(parseCommand('ip add svc 198.51.100.7 R&amp;D &lt;lab&gt;')).toStrictEqual(
      change('svc', 'ip add', { ipAdd: [{ source: '198.51.100.7', description: 'R&D <lab>' }] }),
    );
  });

  it('unescapes only once, so a typed "&lt;" stays as typed', () => {
    expect(parseCommand('show a&amp;lt;b')).toStrictEqual({ kind: 'show', service: 'a&lt;b' });
  });

  it('does not mistake typed angle brackets for a link', () => {
    expect(parseCommand('show &lt;http://x|y&gt;')).toStrictEqual({ kind: 'show', service: '<http://x|y>' });
  });

  it('reads a linked name as its label', () => {
    expect(parseCommand('show <http://orders.example.com|orders.example.com>')).toStrictEqual({
      kind: 'show',
      service: 'orders.example.com',
    });
    expect(parseCommand('show <mailto:a@b.c|a@b.c>')).toStrictEqual({ kind: 'show', service: 'a@b.c' });
    expect(parseCommand('show <http://x.io/?a=1&amp;b=2>')).toStrictEqual({
      kind: 'show',
      service: 'http://x.io/?a=1&b=2',
    });
  });

  it('unwraps a link inside a word', () => {
    expect(parseCommand('list tag:host=<http://db.example.com|db.example.com>')).toStrictEqual({
      kind: 'list',
      filters: ['tag:host=db.example.com'],
    });
  });

  it('keeps user mentions, channel mentions and special mentions as they are', () => {
    expect(parseCommand('show <@U123>')).toStrictEqual({ kind: 'show', service: '<@U123>' });
    expect(parseCommand('history <#C123|general>')).toStrictEqual({ kind: 'history', service: '<#C123|general>' });
    expect(refusal('list <!channel>').message).toContain('"<!channel>" is not a filter');
  });
});

describe('length limit', () => {
  it(`accepts a command of ${MAX_COMMAND_LENGTH} characters`, () => {
    const text = `list${' '.repeat(MAX_COMMAND_LENGTH - 'list tag:a'.length)} tag:a`;
    expect(text).toHaveLength(MAX_COMMAND_LENGTH);
    expect(parseCommand(text)).toStrictEqual({ kind: 'list', filters: ['tag:a'] });
  });

  it('refuses a longer command, giving its length and the limit', () => {
    const { message, usage } = refusal(`show ${'x'.repeat(MAX_COMMAND_LENGTH)}`);
    expect(message).toBe(`That command is ${MAX_COMMAND_LENGTH + 5} characters long; I read at most 4000. Shorten it.`);
    expect(usage).toBe('show SERVICE');
  });

  it('counts the text after Slack escaping, as the person typed it', () => {
    const text = `show ${'&amp;'.repeat(3000)}`;
    expect(parseCommand(text)).toStrictEqual({ kind: 'show', service: '&'.repeat(3000) });
  });

  it('refuses megabytes of input quickly', () => {
    const started = Date.now();
    expect(refusal('"'.repeat(5_000_000)).message).toContain('5000000 characters long');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('shortens a long word it quotes back', () => {
    const { message } = refusal(`list ${'p'.repeat(500)}`);
    expect(message).toContain(`"${'p'.repeat(59)}…"`);
    expect(message.length).toBeLessThan(250);
  });

  it('quotes control characters back as replacement characters', () => {
    expect(refusal('list pr\u0000od').message).toContain('"pr\uFFFDod" is not a filter');
  });
});

describe('catalogue', () => {
  it.each(COMMAND_CATALOGUE.map((spec) => [spec.name, spec.example] as const))(
    'the example of %s is a valid command',
    (_name, example) => {
      const kind = parseCommand(example).kind;
      expect(kind).not.toBe('invalid');
      expect(kind).not.toBe('unknown');
    },
  );

  it('has one entry per name (a read and a change may share one), each with a one-line summary', () => {
    const names = COMMAND_CATALOGUE.map((spec) => spec.name);
    const changes = KIND_COMMANDS.map((spec) => spec.name);
    expect(new Set(BASE_COMMAND_NAMES).size).toBe(BASE_COMMAND_NAMES.length);
    expect(new Set(changes).size).toBe(changes.length);
    expect(names).toHaveLength(BASE_COMMAND_NAMES.length + changes.length);
    for (const spec of COMMAND_CATALOGUE) expect(spec.summary).toMatch(/^[^\n]+\.$/);
  });
});

describe('any input', () => {
  const FRAGMENTS = [
    ...COMMAND_CATALOGUE.map((spec) => spec.name),
    ...['orders-prod', 'on', 'mysql', 'slow', '203.0.113.0/24', 'tag:env=prod', 'tz:UTC', '@daily', '0 9 * * *'],
    ...['"', "'", '“', '”', '‘', '’', '„', '<', '>', '|', '&amp;', '&lt;', '&gt;', '&', ' ', '\u00a0', '\n', '\t'],
    ...['<!channel>', '<@U1>', '<#C1|general>', '<http://x|y>', '<http://x>', '<mailto:a@b.c|a@b.c>', '<>'],
    ...['\u0000', '\u200b', '\ud800', '\udfff', '🚀', 'é', 'İ', '__proto__', 'constructor'],
  ];

  function randomText(next: () => number): string {
    const parts: string[] = [];
    const count = Math.floor(next() * 12);
    for (let index = 0; index < count; index++) {
      const roll = next();
      if (roll < 0.7) parts.push(FRAGMENTS[Math.floor(next() * FRAGMENTS.length)] ?? '');
      else parts.push(String.fromCodePoint(Math.floor(next() * 0x110000)).slice(0, 2));
      if (next() < 0.5) parts.push(' ');
    }
    return parts.join('');
  }

  it('never throws and always answers a known kind, with a message and usage when refusing', () => {
    const { next } = prng(20240611);
    const kinds = new Set<string>(COMMAND_KINDS);
    const usages = new Set<string>(COMMAND_CATALOGUE.map((spec) => spec.usage));
    for (let run = 0; run < 5000; run++) {
      const text = randomText(next);
      const command = parseCommand(text);
      expect(kinds.has(command.kind), JSON.stringify(text)).toBe(true);
      if (command.kind !== 'invalid') continue;
      expect(command.message.length, JSON.stringify(text)).toBeGreaterThan(10);
      for (const line of command.usage.split('\n')) expect(usages.has(line), JSON.stringify(text)).toBe(true);
      expect(command.message, JSON.stringify(text)).not.toContain('I could not read that command');
    }
  });
});

describe('tag add and tag remove', () => {
  it('reads several KEY[=VALUE] words after the service', () => {
    expect(parseCommand('tag add orders-prod owner=payments tier.critical env=')).toStrictEqual({
      kind: 'change',
      service: 'orders-prod',
      intent: { tagAdd: [{ key: 'owner', value: 'payments' }, { key: 'tier.critical' }, { key: 'env', value: '' }] },
      verb: 'tag add',
    });
    expect(parseCommand('TAG Remove "analytics staging" keep env=staging')).toStrictEqual({
      kind: 'change',
      service: 'analytics staging',
      intent: { tagRemove: [{ key: 'keep' }, { key: 'env', value: 'staging' }] },
      verb: 'tag remove',
    });
  });

  it.each([
    ['tag add orders-prod', 'Tell me the service and one or more tags'],
    ['tag add orders-prod env=pr/od', '"pr/od" is not a tag value'],
    ['tag add orders-prod a=b=c', '"b=c" is not a tag value'],
    ['tag remove orders-prod =prod', '"" is not a tag key'],
    ['tag add orders-prod "bad key"', '"bad key" is not a tag key'],
    ['tag rename orders-prod a', 'tag can add or remove, not "rename"'],
    ['tag', 'Say whether to add or remove tags'],
  ])('answers %j with a sentence', (text, expected) => {
    const command = parseCommand(text);
    if (command.kind !== 'invalid') throw new Error(`expected invalid, got ${JSON.stringify(command)}`);
    expect(command.message).toContain(expected);
  });
});
