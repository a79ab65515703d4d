/**
 * .env.example is where an operator learns the settings: it must list every one the config
 * schema reads, and its values must be the defaults the bot uses when a setting is left out.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig, SETTING_NAMES } from '../src/config.js';

const text = readFileSync(new URL('../.env.example', import.meta.url), 'utf8');
/** NAME=value lines, and "# NAME=value" lines left commented out on purpose (REDIS_URL). */
const lines = [...text.matchAll(/^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => ({
  commented: m[1] !== undefined,
  name: m[2] ?? '',
  value: m[3] ?? '',
}));
const REQUIRED = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 'secret' };

describe('.env.example', () => {
  it('lists every setting of the config schema', () => {
    const listed = new Set(lines.map((line) => line.name));
    expect(SETTING_NAMES.filter((name) => !listed.has(name))).toEqual([]);
  });

  it('lists nothing the bot does not read, and each setting once', () => {
    const names = lines.map((line) => line.name);
    expect(names.filter((name) => !(SETTING_NAMES as readonly string[]).includes(name))).toEqual([]);
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
  });

  it('shows the defaults: the example as written configures the bot as leaving everything out does', () => {
    const given = Object.fromEntries(lines.filter((line) => !line.commented).map((line) => [line.name, line.value]));
    expect(loadConfig({ ...given, ...REQUIRED })).toEqual(loadConfig(REQUIRED));
  });

  it('says what PORT serves as the README does: the events, the probes and /metrics', () => {
    const comment = /((?:^#.*\n)+)PORT=/m.exec(text)?.[1] ?? '';
    for (const path of ['/slack/events', '/livez', '/readyz', '/healthz', '/metrics']) expect(comment).toContain(path);
  });
});
