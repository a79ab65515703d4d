/**
 * The Redis scripts name their keys and arguments once, in each .lua file's header: the loader
 * (src/store/redis/lua-script.ts) derives the positions from it, so a header reordered still writes
 * every field where it belongs, and a name the caller and the script do not share stops the load.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { LUA_DIR, LuaScript, namedLocals, type LuaScriptSpec } from '../../src/store/redis/lua-script.js';
import * as scripts from '../../src/store/redis/scripts.js';
import { REDIS_URL, deleteKeysWithPrefix, randomKeyPrefix } from '../support/redis.js';

const luaFile = (name: string) => readFileSync(new URL(`${name}.lua`, LUA_DIR), 'utf8');
const all = Object.values(scripts);

function scriptOf<K extends string, A extends string, L extends string = never>(
  spec: LuaScriptSpec<K, A, L>,
  text: string,
): LuaScript<K, A, L> {
  return new LuaScript(spec, text, luaFile);
}

describe('the .lua files', () => {
  it('are each a script the stores run or a file one of them includes', () => {
    const used = new Set(all.flatMap((script) => [...script.header.includes, script.file]));
    const files = readdirSync(fileURLToPath(LUA_DIR)).map((file) => file.replace(/\.lua$/, ''));
    expect(files.filter((file) => !used.has(file))).toStrictEqual([]);
  });

  it('are registered under names of their own (one name defined twice would run only the last script)', () => {
    const commands = all.map((script) => script.command);
    expect(new Set(commands).size).toBe(commands.length);
  });

  it('never read KEYS or ARGV themselves: only the locals the loader writes from the header do', () => {
    for (const script of all) {
      const locals = namedLocals(script.header);
      expect(script.source.split(locals), script.command).toHaveLength(2);
      expect(script.source.replace(locals, ''), script.command).not.toMatch(/\b(KEYS|ARGV)\b/);
    }
  });
});

describe('a script called by name', () => {
  const spec = {
    command: 'chbotTestPosted',
    file: 'set-posted',
    keys: ['request', 'nudges'],
    args: ['id', 'messageTs', 'approvalTs'],
  } as const;
  const call = {
    keys: { nudges: 'n', request: 'r' },
    args: { approvalTs: 'A', id: 'CR-1', messageTs: 'M' },
  };

  it('is sent in the order of its header, whatever the order of the caller’s object', () => {
    expect(scriptOf(spec, luaFile('set-posted')).positional(call)).toStrictEqual(['r', 'n', 'CR-1', 'M', 'A']);
  });

  it('follows its header when two lines of it trade places', () => {
    const swapped = swapLines(luaFile('set-posted'), '--! arg message_ts', '--! arg approval_ts');
    expect(scriptOf(spec, swapped).positional(call)).toStrictEqual(['r', 'n', 'CR-1', 'A', 'M']);
  });

  it('refuses a call that leaves out a name or brings one the script does not have', () => {
    const script = scriptOf(spec, luaFile('set-posted'));
    const { approvalTs: _left, ...withoutApproval } = call.args;
    // @ts-expect-error -- approvalTs is missing
    expect(() => script.positional({ keys: call.keys, args: withoutApproval })).toThrow(/missing approvalTs/);
    const extra = { ...call.args, channel: 'C1' };
    expect(() => script.positional({ keys: call.keys, args: extra })).toThrow(/no such key or argument: channel/);
  });

  it('takes the rest of its arguments as one list, after the named ones', () => {
    const drop = scripts.DROP_STALE_RETRY_NOTES;
    expect(drop.positional({ keys: { retrying: 'notes', reverts: 'due' }, args: { ids: ['a', 'b'] } })).toStrictEqual([
      'due',
      'notes',
      'a',
      'b',
    ]);
  });
});

describe('loading a script', () => {
  const claim = {
    command: 'chbotTestClaim',
    file: 'claim-run',
    keys: ['lastRun'],
    args: ['scheduleId', 'fireTime'],
  } as const;

  it('fails when the caller and the header name different arguments, and says which', () => {
    const renamed = luaFile('claim-run')
      .replace('--! arg fire_time', '--! arg fired_at')
      .replace(/\bfire_time\b/g, 'fired_at');
    expect(() => scriptOf(claim, renamed)).toThrow(/only in the script: firedAt; only in the caller: fireTime/);
  });

  it('fails when a body reads a position instead of a name', () => {
    const positional = luaFile('claim-run').replace("HGET', last_run", "HGET', KEYS[1]");
    expect(() => scriptOf(claim, positional)).toThrow(/claim-run\.lua reads KEYS or ARGV/);
  });

  it('fails on a header line out of place: a key after an argument, or one below the first line of code', () => {
    const keyLast = swapLines(luaFile('claim-run'), '--! key last_run', '--! arg fire_time');
    expect(() => scriptOf(claim, keyLast)).toThrow(/keys come before arguments/);
    expect(() => scriptOf(claim, `${luaFile('claim-run')}\n--! arg late\n`)).toThrow(/before the script's first line/);
  });

  it('fails on a name that would hide a function of its include, or is a Lua keyword', () => {
    const clash = {
      command: 'chbotTestRecord',
      file: 'record-confirmed',
      keys: ['request'],
      args: ['owner', 'nowMs', 'confirmed'],
    } as const;
    const hidden = luaFile('record-confirmed').replace('--! arg fence', '--! arg now_ms');
    expect(() => scriptOf(clash, hidden)).toThrow(/"now_ms" is also a function of an include/);
    const keyword = luaFile('claim-run').replace('--! arg schedule_id', '--! arg end');
    expect(() => scriptOf(claim, keyword)).toThrow(/"end" cannot be a Lua local/);
  });
});

describe('a script reordered, on Redis', () => {
  const redis = new Redis(REDIS_URL);
  const prefix = randomKeyPrefix();
  afterAll(async () => {
    await deleteKeysWithPrefix(prefix);
    redis.disconnect();
  });

  it('writes every field where it belongs, whichever way its header is ordered', async () => {
    const text = luaFile('set-posted');
    const variants = [
      text,
      swapLines(swapLines(text, '--! arg message_ts', '--! arg approval_ts'), '--! key request', '--! key nudges'),
    ];
    for (const [index, variant] of variants.entries()) {
      const request = `${prefix}{t}:req:${index}`;
      const nudges = `${prefix}{t}:nudges`;
      await redis.hset(request, 'status', 'pending');
      const spec = {
        command: `chbotTestPosted${index}`,
        file: 'set-posted',
        keys: ['request', 'nudges'],
        args: ['id', 'messageTs', 'approvalTs'],
      } as const;
      const posted = scriptOf(spec, variant).on(redis);
      expect(
        await posted({
          keys: { request, nudges },
          args: { id: `CR-${index}`, messageTs: '111.1', approvalTs: '222.2' },
        }),
      ).toBe(1);
      expect(await redis.hgetall(request)).toStrictEqual({
        status: 'pending',
        messageTs: '111.1',
        approvalTs: '222.2',
      });
      expect(await redis.zscore(nudges, `CR-${index}`)).toBe('0');
    }
  });
});

function swapLines(text: string, a: string, b: string): string {
  const lines = text.split('\n');
  const i = lines.findIndex((line) => line.startsWith(a));
  const j = lines.findIndex((line) => line.startsWith(b));
  if (i < 0 || j < 0) throw new Error(`no line starts with ${i < 0 ? a : b}`);
  [lines[i], lines[j]] = [lines[j] ?? '', lines[i] ?? ''];
  return lines.join('\n');
}
