/**
 * Lua scripts kept in .lua files (./lua/), each naming its KEYS and ARGV once, in order, in its
 * header (the `--!` lines of its leading comment):
 *
 *   --! include lease-prelude     lua/lease-prelude.lua, put before the script
 *   --! key request               KEYS[1], read by the script as the local `request`
 *   --! arg id                    ARGV[1], the local `id`
 *   --! rest statuses             every ARGV after the named ones, as the Lua table `statuses`
 *
 * The loader writes those locals before the body, so a body never counts positions, and the
 * caller passes objects (the same names in camelCase: `service_lock` is `serviceLock`) from which
 * the positional arrays are built in the header's order. Moving a line of a header moves both
 * sides with it; a name the caller and the header do not share fails when the script is loaded,
 * not when it writes the wrong field.
 */
import { readFileSync } from 'node:fs';
import type { RedisConnection } from './connection.js';

export type ScriptArg = string | number;

/** Where `luaScript` reads the files; each is copied beside the compiled JS by the build (scripts/copy-lua.js). */
export const LUA_DIR = new URL('./lua/', import.meta.url);

export interface LuaScriptSpec<K extends string, A extends string, L extends string> {
  /** Registered name (ioredis defineCommand); prefixed so it cannot clash with a Redis command. */
  command: string;
  /** The file under lua/, without `.lua`. */
  file: string;
  /** The header's key names in camelCase, in any order: the header alone decides the order. */
  keys: readonly K[];
  /** The header's argument names in camelCase, in any order. */
  args: readonly A[];
  /** The name of the header's `rest` list, if it has one. */
  rest?: L;
}

/** One call: every key and argument by name; the `rest` list, if any, among the arguments. */
export interface LuaCall<K extends string, A extends string, L extends string> {
  keys: Record<K, string>;
  args: Record<A, ScriptArg> & Record<L, readonly ScriptArg[]>;
}

export type LuaCommand<K extends string, A extends string, L extends string> = (
  call: LuaCall<K, A, L>,
) => Promise<unknown>;

/** The command `script.on(redis)` answers: `CommandOf<typeof CREATE_CHANGE>`. */
export type CommandOf<S extends { on(redis: RedisConnection): unknown }> = ReturnType<S['on']>;

/** A script's header: its includes, then its key and argument names (snake_case) in order. */
export interface LuaHeader {
  includes: string[];
  keys: string[];
  args: string[];
  rest: string | undefined;
}

const DIRECTIVE = /^--!\s*(include|key|arg|rest)\s+(\S+)/;
const LUA_NAME = /^[a-z][a-z0-9_]*$/;
/** Lua 5.1's reserved words: none of them can be a local's name. */
const LUA_KEYWORDS = new Set(
  'and break do else elseif end false for function if in local nil not or repeat return then true until while'.split(
    ' ',
  ),
);

/** Reads the `--!` lines of a script's leading comment; one anywhere else is refused. */
export function parseLuaHeader(text: string, file: string): LuaHeader {
  const header: LuaHeader = { includes: [], keys: [], args: [], rest: undefined };
  let inHeader = true;
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    const where = `${file}.lua line ${index + 1}`;
    if (inHeader && line !== '' && !line.startsWith('--')) inHeader = false;
    if (!line.startsWith('--!')) continue;
    const match = DIRECTIVE.exec(line);
    if (!match) throw new Error(`${where}: a header line is "--! include|key|arg|rest <name>", not "${line}"`);
    if (!inHeader) throw new Error(`${where}: header lines come before the script's first line of code`);
    const [, directive, name = ''] = match;
    if (directive === 'include') {
      header.includes.push(name);
      continue;
    }
    if (!LUA_NAME.test(name) || LUA_KEYWORDS.has(name))
      throw new Error(`${where}: "${name}" cannot be a Lua local (lower case, digits and _; no keyword)`);
    if (header.rest !== undefined) throw new Error(`${where}: nothing follows the rest list "${header.rest}"`);
    if (directive === 'key' && header.args.length > 0)
      throw new Error(`${where}: keys come before arguments (Redis takes KEYS, then ARGV)`);
    if ([...header.keys, ...header.args].includes(name)) throw new Error(`${where}: "${name}" is named twice`);
    if (directive === 'key') header.keys.push(name);
    else if (directive === 'arg') header.args.push(name);
    else header.rest = name;
  }
  return header;
}

/** `service_lock` → `serviceLock`: the header's Lua name as the caller spells it. */
export function camelCase(luaName: string): string {
  return luaName.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/** The locals the loader writes before the body: `local request = KEYS[1]`, …, the rest list's loop. */
export function namedLocals(header: LuaHeader): string {
  const lines = [
    ...header.keys.map((name, index) => `local ${name} = KEYS[${index + 1}]`),
    ...header.args.map((name, index) => `local ${name} = ARGV[${index + 1}]`),
  ];
  if (header.rest !== undefined) {
    const skipped = header.args.length;
    lines.push(`local ${header.rest} = {}`);
    lines.push(`for i = ${skipped + 1}, #ARGV do ${header.rest}[i - ${skipped}] = ARGV[i] end`);
  }
  return lines.join('\n');
}

function sameNames(what: string, file: string, header: readonly string[], caller: readonly string[]): void {
  const declared = header.map(camelCase);
  const missing = declared.filter((name) => !caller.includes(name));
  const unknown = caller.filter((name) => !declared.includes(name));
  if (missing.length === 0 && unknown.length === 0 && declared.length === caller.length) return;
  throw new Error(
    `${file}.lua: its ${what} and the caller's differ` +
      (missing.length > 0 ? `; only in the script: ${missing.join(', ')}` : '') +
      (unknown.length > 0 ? `; only in the caller: ${unknown.join(', ')}` : ''),
  );
}

function isScriptFunction(value: unknown): value is (...args: ScriptArg[]) => Promise<unknown> {
  return typeof value === 'function';
}

export class LuaScript<K extends string, A extends string, L extends string = never> {
  readonly command: string;
  /** Its file under lua/, without `.lua`. */
  readonly file: string;
  /** What Redis runs: the includes, the named locals, then the file as written. */
  readonly source: string;
  readonly header: LuaHeader;
  private readonly keyNames: readonly string[];
  private readonly argNames: readonly string[];
  private readonly restName: string | undefined;

  /** `text` is the script file; `include` reads another file of lua/ by name. */
  constructor(spec: LuaScriptSpec<K, A, L>, text: string, include: (name: string) => string) {
    this.command = spec.command;
    this.file = spec.file;
    this.header = parseLuaHeader(text, spec.file);
    sameNames('keys', spec.file, this.header.keys, spec.keys);
    sameNames('arguments', spec.file, this.header.args, spec.args);
    sameNames(
      'rest list',
      spec.file,
      this.header.rest === undefined ? [] : [this.header.rest],
      spec.rest ? [spec.rest] : [],
    );
    const included = this.header.includes.map((name) => ({ name, code: include(name) }));
    // Positions are the loader's business alone: a body (or an include) that reads one would be
    // wrong again as soon as a header line moves.
    for (const { name, code } of [{ name: spec.file, code: text }, ...included]) {
      if (/\b(KEYS|ARGV)\b/.test(code))
        throw new Error(`${name}.lua reads KEYS or ARGV: name them in its header (--! key / --! arg) instead`);
    }
    const names = [
      ...this.header.keys,
      ...this.header.args,
      ...(this.header.rest === undefined ? [] : [this.header.rest]),
    ];
    for (const name of names) {
      if (included.some(({ code }) => new RegExp(`\\blocal\\s+function\\s+${name}\\b`).test(code)))
        throw new Error(`${spec.file}.lua: "${name}" is also a function of an include; name it otherwise`);
    }
    this.source = [...included.map(({ code }) => code), namedLocals(this.header), text].join('\n');
    this.keyNames = this.header.keys.map(camelCase);
    this.argNames = this.header.args.map(camelCase);
    this.restName = this.header.rest === undefined ? undefined : camelCase(this.header.rest);
  }

  /** KEYS then ARGV, in the header's order, from the call's objects. */
  positional(call: LuaCall<K, A, L>): ScriptArg[] {
    const keys: Record<string, unknown> = call.keys;
    const args: Record<string, unknown> = call.args;
    const argNames = this.restName === undefined ? this.argNames : [...this.argNames, this.restName];
    if (Object.keys(keys).length !== this.keyNames.length || Object.keys(args).length !== argNames.length)
      throw new Error(`${this.command}: ${misnamed(keys, this.keyNames, args, argNames)}`);
    const positional: ScriptArg[] = [];
    for (const name of this.keyNames) positional.push(scalar(this.command, name, keys[name]));
    for (const name of this.argNames) positional.push(scalar(this.command, name, args[name]));
    if (this.restName !== undefined) {
      const rest = args[this.restName];
      if (!Array.isArray(rest)) throw new Error(`${this.command}: ${this.restName} is not a list`);
      for (const value of rest) positional.push(scalar(this.command, this.restName, value));
    }
    return positional;
  }

  /** The script as a command of this connection: EVALSHA, falling back to EVAL when not cached. */
  on(redis: RedisConnection): LuaCommand<K, A, L> {
    redis.defineCommand(this.command, { numberOfKeys: this.header.keys.length, lua: this.source });
    const command: unknown = Reflect.get(redis, this.command);
    if (!isScriptFunction(command)) throw new Error(`ioredis did not define ${this.command}`);
    return (call) => command.apply(redis, this.positional(call));
  }
}

function scalar(command: string, name: string, value: unknown): ScriptArg {
  if (typeof value === 'string' || typeof value === 'number') return value;
  throw new Error(`${command}: ${name} is ${value === undefined ? 'missing' : `a ${typeof value}`}`);
}

/** Which names a call lacks and which it has too many, as an error's message. */
function misnamed(
  keys: Record<string, unknown>,
  keyNames: readonly string[],
  args: Record<string, unknown>,
  argNames: readonly string[],
): string {
  const missing = [...keyNames.filter((name) => !(name in keys)), ...argNames.filter((name) => !(name in args))];
  const unknown = [
    ...Object.keys(keys).filter((name) => !keyNames.includes(name)),
    ...Object.keys(args).filter((name) => !argNames.includes(name)),
  ];
  return [
    ...(missing.length > 0 ? [`missing ${missing.join(', ')}`] : []),
    ...(unknown.length > 0 ? [`no such key or argument: ${unknown.join(', ')}`] : []),
  ].join('; ');
}

/** Reads lua/<file>.lua and its includes (once each per process). */
export function luaScript<K extends string, A extends string, L extends string = never>(
  spec: LuaScriptSpec<K, A, L>,
): LuaScript<K, A, L> {
  return new LuaScript(spec, readLua(spec.file), readLua);
}

const filesRead = new Map<string, string>();

function readLua(name: string): string {
  let text = filesRead.get(name);
  if (text === undefined) {
    text = readFileSync(new URL(`${name}.lua`, LUA_DIR), 'utf8');
    filesRead.set(name, text);
  }
  return text;
}
