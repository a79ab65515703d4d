import { describe, expect, it } from 'vitest';
import { parseOrganizations } from '../../../src/core/organization/parse.js';

const set = (name: string) => name.startsWith('CH_');

const ISSUE_EXAMPLE = `organizations:
  - name: analytics
    id: 11111111-2222-4333-8444-555555555555
    key_id_env: CH_ANALYTICS_KEY_ID
    key_secret_env: CH_ANALYTICS_KEY_SECRET
    api_url: https://api.clickhouse.cloud           # optional
    channels:
      C0OPS: { }                                  # full use
      C0DATA: { allow: [list, show, summary] }    # read-only
      C0DEV: { allow: [list, show, ip-access], services: { tags: { env: dev } } }
      C0BARE:
`;

describe('ORGANIZATIONS_FILE', () => {
  it('reads the issue’s example', () => {
    const parsed = parseOrganizations(ISSUE_EXAMPLE, set);
    if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
    expect(parsed.spec.organizations).toEqual([
      {
        name: 'analytics',
        id: '11111111-2222-4333-8444-555555555555',
        keyIdEnv: 'CH_ANALYTICS_KEY_ID',
        keySecretEnv: 'CH_ANALYTICS_KEY_SECRET',
        apiUrl: 'https://api.clickhouse.cloud',
        channels: {
          C0OPS: {},
          C0DATA: { allow: ['list', 'show', 'summary'] },
          C0DEV: { allow: ['list', 'show', 'ip-access'], services: { tags: { env: 'dev' } } },
          C0BARE: {},
        },
      },
    ]);
    expect(parsed.spec.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('lists every problem of a file at once, each with its line', () => {
    const file = `organizations:
  - name: Analytics
    id: not-a-uuid
    key_id_env: CH_A_KEY_ID
    key_secret_env: MISSING_SECRET
    api_url: ftp://x
    colour: blue
    channels:
      C0OPS: { }
      bad-channel: { }
      C0DATA: { allow: [list, destroy] }
      C0DEV: { allow: [], services: { tags: {}, owner: me } }
      C0X: { services: { names: [] } }
  - name: billing
    id: 11111111-2222-4333-8444-555555555555
    key_id_env: 1BAD
    key_secret_env: CH_B
    channels:
      C0OPS: {}
  - name: billing
    id: 11111111-2222-4333-8444-555555555555
    key_id_env: CH_C
    key_secret_env: CH_D
    channels: [C0Y]
  - name: x
`;
    const parsed = parseOrganizations(file, set);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problems).toEqual([
      'line 2: organization 1 ("Analytics"): name must be a short name of lower-case letters, digits, - and _, like analytics',
      'line 3: organization 1 ("Analytics"): id must be the organization id (a UUID, from the console URL)',
      'line 5: organization 1 ("Analytics"): key_secret_env names MISSING_SECRET, which is not set in the environment',
      'line 6: organization 1 ("Analytics"): api_url must be an http(s) URL, like https://api.clickhouse.cloud',
      'line 7: organization 1 ("Analytics"): unknown key "colour" (allowed here: name, id, key_id_env, key_secret_env, api_url, channels)',
      'line 10: organization 1 ("Analytics"): channels.bad-channel is not a Slack channel id (C…), like C0OPS',
      expect.stringMatching(
        /^line 11: organization 1 \("Analytics"\): channels\.C0DATA\.allow\[1\] must be one of list, show, .*, power, core-dumps, backup-config, member-role, api-key, delete, password$/,
      ),
      'line 12: organization 1 ("Analytics"): channels.C0DEV.allow must not be empty (leave it out for full use)',
      'line 12: organization 1 ("Analytics"): channels.C0DEV.services.tags must name at least one tag (or leave it out)',
      'line 12: organization 1 ("Analytics"): channels.C0DEV.services: unknown key "owner" (allowed here: tags, names)',
      'line 13: organization 1 ("Analytics"): channels.C0X.services.names must not be empty (leave it out for every service)',
      'line 16: organization 2 ("billing"): key_id_env must name an environment variable (letters, digits, _), like CH_ANALYTICS_KEY_ID',
      'line 19: organization 2 ("billing"): channel C0OPS is already bound to organization 1; a channel drives one organization',
      'line 20: organization 3 ("billing"): name is already used by organization 2',
      'line 21: organization 3 ("billing"): id is already used by organization 2',
      'line 24: organization 3 ("billing"): channels must map Slack channel ids to their rules, like { C0OPS: { } }',
      'line 25: organization 4 ("x"): id is missing',
      'line 25: organization 4 ("x"): key_id_env is missing',
      'line 25: organization 4 ("x"): key_secret_env is missing',
      'line 25: organization 4 ("x"): channels is missing',
    ]);
  });

  it.each([
    ['organizations: [\n', /^line 2: /],
    ['', /^The organizations file is empty/],
    ['rules: []', /^line 1: organizations is missing: the file needs an organizations: list$/],
    ['organizations: []', /^line 1: organizations must list at least one organization$/],
    ['- a\n- b', /^line 1: The organizations file must be a map with an organizations: list$/],
    ['organizations: [1]', /^line 1: organization 1: the organization must be a map with name, id, key_id_env/],
  ])('refuses %j in a sentence', (text, problem) => {
    const parsed = parseOrganizations(text, set);
    expect(parsed.ok ? [] : parsed.problems[0]).toMatch(problem);
  });

  it('never echoes a key_*_env value that may be the key itself pasted by mistake', () => {
    const file = `organizations:
  - name: analytics
    id: 11111111-2222-4333-8444-555555555555
    key_id_env: CH_KEY_ID
    key_secret_env: s3cr3tK3yValue9
    channels: { C0OPS: {} }
`;
    const parsed = parseOrganizations(file, set);
    const problems = parsed.ok ? [] : parsed.problems;
    expect(problems.join('\n')).not.toContain('s3cr3tK3yValue9');
    expect(problems.join('\n')).toContain('key_secret_env names a variable (not shown');
  });

  it('refuses a file far larger than any organizations file', () => {
    const parsed = parseOrganizations(`# ${'x'.repeat(300_000)}`, set);
    expect(parsed.ok ? '' : parsed.problems[0]).toMatch(/bytes; the limit is/);
  });
});
