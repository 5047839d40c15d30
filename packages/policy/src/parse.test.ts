import { describe, expect, it } from 'vitest';
import { registry } from './__tests__/fixtures.js';
import { parsePolicy } from './index.js';

/** Access, two entries of one spend rule and a rate limit: the shape docs/policy.md documents. */
const designExample = {
  enforcement: 'enforce',
  timezone: 'UTC',
  access: { models: { 'claude-opus': { deny_leaders: ['carol'], allow_leaders: ['alice'], exempt_users: ['dave'], allow_bus: ['payments'] } } },
  spend: {
    rules: [
      {
        id: 'frontier-monthly',
        weight: 60,
        matches: [
          { match: { scope: 'frontier', window: 'monthly', at_or_above_usd: '90', tiers: ['normal'] }, actions: [{ type: 'notify', to: ['user'] }] },
          { match: { scope: 'frontier', window: 'monthly', at_or_above_usd: '100', tiers: ['normal'] }, actions: [{ type: 'block' }] },
        ],
      },
    ],
  },
  rate_limits: [{ id: 'alice-rate', match: { users: ['alice'] }, rpm: 100, tpm: 200000 }],
};

const paths = (raw: unknown, withRegistry = true): string[] => {
  const r = parsePolicy(raw, withRegistry ? { registry } : {});
  return r.ok ? [] : r.errors.map((e) => e.path);
};

describe('parsePolicy', () => {
  it('accepts the reference example and fills defaults', () => {
    const r = parsePolicy(designExample, { registry });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.policy.spend?.rules?.[0]?.weight).toBe(60);
    expect(r.policy.rate_limits?.[0]?.on_store_error).toBe('closed');
    expect(parsePolicy({})).toEqual({
      ok: true,
      policy: {
        enforcement: 'enforce',
        timezone: 'UTC',
        access: { models: {} },
        limited_access: {},
        pilots: [],
        business_units: {},
        spend: { rules: [] },
        rate_limits: [],
        tools: { allow_lists: [] },
        dlp: { default: {}, use_cases: [], custom: [], scan_responses: false },
        prompts: [],
        regions: [],
      },
    });
  });

  it('accepts every issue-5 extension', () => {
    const r = parsePolicy(
      {
        timezone: 'America/New_York',
        default_max_tokens: 4096,
        limited_access: {
          'claude-opus': { members: ['alice', { user: 'bob', expires: '2026-12-31' }, { application: 'ci-bot', expires: '2027-01-01T00:00:00Z' }] },
        },
        pilots: [{ id: 'gpt5-pilot', models: ['gpt-5'], cohort: { bus: ['research'] }, enforcement: 'shadow', starts: '2026-11-01', ends: '2026-12-31' }],
        business_units: {
          payments: {
            models: { frontier: 'off', 'claude-sonnet': 'on' },
            spend_overrides: [{ rule: 'frontier-monthly', scope: 'frontier', window: 'monthly', at_or_above_usd: '150' }],
          },
        },
        spend: {
          rules: [
            {
              id: 'frontier-monthly',
              matches: [
                {
                  match: { scope: 'frontier', window: 'monthly', at_or_above_usd: '80' },
                  actions: [{ type: 'message', text: 'You are at 80% of your budget' }, { type: 'no_promote' }, { type: 'substitute', to: ['claude-haiku'] }],
                },
                { match: { scope: 'frontier', window: 'monthly', at_or_above_usd: '100' }, actions: [{ type: 'block', message: 'Budget exhausted' }] },
                { match: { scope: 'claude-opus', window: 'daily', at_or_above_usd: '10' }, actions: [{ type: 'pause', hours: 4 }] },
              ],
            },
          ],
        },
        rate_limits: [
          { id: 'vip', match: { users: ['alice'] }, unlimited: true },
          { id: 'tier', match: { tiers: ['normal'], scope: 'frontier' }, rpm: 10, on_store_error: 'open' },
        ],
        tools: { allow_lists: [{ id: 'payments', match: { bus: ['payments'] }, allow: ['get_weather', 'search_*'] }] },
        dlp: {
          default: { credit_card: 'block', email: 'redact' },
          use_cases: [{ id: 'support', match: { applications: ['helpdesk'] }, actions: { email: 'allow' } }],
        },
      },
      { registry },
    );
    expect(r).toMatchObject({ ok: true });
  });

  it('lists every violation at once, with readable paths', () => {
    const r = parsePolicy(
      {
        enforcement: 'strict',
        timezone: 'Mars/Olympus',
        colour: 'blue',
        access: { models: { 'claude-opus': { deny_leaders: 'carol', allow_bus: ['a'], block_bus: ['b'] }, 'gpt-9': {} } },
        spend: {
          rules: [
            { id: 'r1', matches: [{ match: { scope: 'frontier', window: 'fortnightly', at_or_above_usd: '90' }, actions: [{ type: 'block' }] }] },
            { id: 'r1', matches: [{ match: { scope: 'nope', window: 'monthly', at_or_above_usd: 100 }, actions: [] }] },
            { id: 'r3', matches: [{ match: { scope: 'frontier', window: 'daily', at_or_above_usd: '0' }, actions: [{ type: 'pause' }] }] },
            {
              id: 'r4',
              matches: [{ match: { scope: 'frontier', window: 'daily', at_or_above_usd: '1.0000001', users: ['x'] }, actions: [{ type: 'explode' }] }],
            },
          ],
        },
        rate_limits: [{ id: 'a', match: { users: ['alice'] }, rpm: 0 }, { id: 'a', match: {}, unlimited: true, tpm: 5 }, { id: 'c' }],
      },
      { registry },
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const got = r.errors.map((e) => e.path);
    expect(got).toEqual(
      expect.arrayContaining([
        'enforcement',
        'timezone',
        'colour',
        'access.models.claude-opus.deny_leaders',
        'access.models.claude-opus.block_bus',
        'access.models.gpt-9',
        'spend.rules[0].matches[0].match.window',
        'spend.rules[1].id',
        'spend.rules[1].matches[0].match.at_or_above_usd',
        'spend.rules[1].matches[0].actions',
        'spend.rules[1].matches[0].match.scope',
        'spend.rules[2].matches[0].match.at_or_above_usd',
        'spend.rules[2].matches[0].actions[0].hours',
        'spend.rules[3].matches[0].match.at_or_above_usd',
        'spend.rules[3].matches[0].actions[0].type',
        'rate_limits[0].rpm',
        'rate_limits[1].id',
        'rate_limits[1].unlimited',
        'rate_limits[2]',
      ]),
    );
    const msg = (p: string): string => r.errors.find((e) => e.path === p)?.message ?? '';
    expect(msg('colour')).toBe('unknown key "colour"');
    expect(msg('spend.rules[1].id')).toMatch(/duplicate spend rule id "r1"/);
    expect(msg('spend.rules[1].matches[0].match.scope')).toMatch(/unknown scope "nope"/);
    expect(msg('spend.rules[1].matches[0].match.at_or_above_usd')).toMatch(/strings/);
    expect(msg('spend.rules[2].matches[0].match.at_or_above_usd')).toMatch(/positive/);
    expect(msg('access.models.gpt-9')).toMatch(/unknown scope/);
  });

  it('quotes keys that are not identifiers', () => {
    expect(paths({ access: { models: { 'gpt-4.1': {} } } })).toEqual(['access.models["gpt-4.1"]']);
  });

  it('checks scopes and models only against a given registry', () => {
    const raw = {
      spend: {
        rules: [
          { id: 'x', matches: [{ match: { scope: 'mystery', window: 'daily', at_or_above_usd: '1' }, actions: [{ type: 'substitute', to: ['ghost'] }] }] },
        ],
      },
    };
    expect(paths(raw, false)).toEqual([]);
    expect(paths(raw)).toEqual(['spend.rules[0].matches[0].match.scope', 'spend.rules[0].matches[0].actions[0].to[0]']);
    expect(
      paths({
        rate_limits: [{ id: 'r', match: { scope: 'ghost' }, rpm: 1 }],
        pilots: [{ id: 'p', models: ['ghost'], cohort: {}, enforcement: 'off' }],
        limited_access: { ghost: { members: [] } },
      }),
    ).toEqual(['limited_access.ghost', 'pilots[0].models[0]', 'rate_limits[0].match.scope']);
  });

  it('says what was probably meant: misspelt keys, values, scopes, models and rules; a missing key is "missing"', () => {
    const withAliases: typeof registry = { models: { ...registry.models, 'claude-sonnet': { tags: ['claude'], aliases: ['claude-sonnet-latest'] } } };
    const r = parsePolicy(
      {
        enforcment: 'shadow',
        access: { models: { 'claude-sonet': { allow_bus: ['x'] }, 'claude-sonnet-latest': { block_bus: ['y'] } } },
        rate_limits: [
          { id: 'r', rpm: 5, on_store_eror: 'open' },
          { id: 's', tpm: 5, on_store_error: 'opne' },
        ],
        spend: {
          rules: [
            {
              id: 'cap',
              matches: [
                { match: { scope: 'frontier', window: 'montly', at_or_above_usd: '5' }, actions: [{ type: 'substitute', to: ['gpt-5-mni'] }] },
                { match: { scope: 'all', window: 'daily' }, actions: [{ type: 'block' }] },
              ],
            },
          ],
        },
        business_units: { payments: { spend_overrides: [{ rule: 'cpa', scope: 'all', window: 'daily', at_or_above_usd: '9' }] } },
      },
      { registry: withAliases },
    );
    const messages = r.ok ? {} : Object.fromEntries(r.errors.map((e) => [e.path, e.message]));
    expect(messages).toMatchObject({
      enforcment: 'unknown key "enforcment" (did you mean "enforcement"?)',
      'access.models.claude-sonet': 'unknown scope "claude-sonet": not a model id or a tag in the registry (did you mean "claude-sonnet"?)',
      'access.models.claude-sonnet-latest': 'unknown scope "claude-sonnet-latest": an alias of model "claude-sonnet"; a scope names a model id or a tag',
      'rate_limits[0].on_store_eror': 'unknown key "on_store_eror" (did you mean "on_store_error"?)',
      'rate_limits[1].on_store_error': '"opne" is not one of "open", "closed" (did you mean "open"?)',
      'spend.rules[0].matches[0].match.window':
        '"montly" is not one of "daily", "weekly", "monthly", "quarterly", "yearly", "rolling_24h", "rolling_7d" (did you mean "monthly"?)',
      'spend.rules[0].matches[1].match.at_or_above_usd': 'missing required key "at_or_above_usd"',
    });
    // Entries that fail the schema are still checked where they can be; these two passed it.
    const ok = parsePolicy(
      {
        spend: {
          rules: [
            {
              id: 'cap',
              matches: [{ match: { scope: 'frontier', window: 'monthly', at_or_above_usd: '5' }, actions: [{ type: 'substitute', to: ['gpt-5-mni'] }] }],
            },
          ],
        },
        business_units: { payments: { spend_overrides: [{ rule: 'cpa', scope: 'all', window: 'daily', at_or_above_usd: '9' }] } },
      },
      { registry },
    );
    expect(ok.ok ? [] : ok.errors.map((e) => e.message)).toEqual([
      'unknown model "gpt-5-mni" (did you mean "gpt-5-mini"?)',
      'unknown spend rule "cpa" (did you mean "cap"?)',
    ]);
  });

  it('knows `all` and every tag as scopes', () => {
    for (const scope of ['all', 'frontier', 'google', 'claude-haiku']) {
      expect(
        paths({ spend: { rules: [{ id: 'x', matches: [{ match: { scope, window: 'daily', at_or_above_usd: '1' }, actions: [{ type: 'block' }] }] }] } }),
      ).toEqual([]);
    }
  });

  it('refuses a substitute inside its own scope', () => {
    const r = parsePolicy(
      {
        spend: {
          rules: [
            {
              id: 'x',
              matches: [{ match: { scope: 'frontier', window: 'daily', at_or_above_usd: '1' }, actions: [{ type: 'substitute', to: ['claude-sonnet'] }] }],
            },
          ],
        },
      },
      { registry },
    );
    expect(r.ok ? [] : r.errors.map((e) => e.message)).toEqual(['substitute "claude-sonnet" is inside the entry\'s own scope "frontier"']);
  });

  it('requires caps of one scope and population to grow with the window', () => {
    const cap = (window: string, usd: string, tiers = ['normal']) => ({
      match: { scope: 'frontier', window, at_or_above_usd: usd, tiers },
      actions: [{ type: 'block' }],
    });
    expect(paths({ spend: { rules: [{ id: 'x', matches: [cap('daily', '10'), cap('weekly', '50'), cap('monthly', '100')] }] } })).toEqual([]);
    expect(
      paths({
        spend: {
          rules: [
            { id: 'x', matches: [cap('daily', '200'), cap('monthly', '100')] },
            { id: 'y', matches: [cap('weekly', '150')] },
            { id: 'z', matches: [cap('daily', '500', ['vip'])] }, // another population: not compared
          ],
        },
      }),
    ).toEqual([
      'spend.rules[0].matches[0].match.at_or_above_usd',
      'spend.rules[0].matches[0].match.at_or_above_usd',
      'spend.rules[1].matches[0].match.at_or_above_usd',
    ]);
  });

  it('checks BU overrides: known rule, one entry of the same scope and window, a higher threshold', () => {
    const spend = {
      rules: [
        {
          id: 'fm',
          matches: [
            { match: { scope: 'frontier', window: 'monthly', at_or_above_usd: '90' }, actions: [{ type: 'notify', to: ['user'] }] },
            { match: { scope: 'frontier', window: 'monthly', at_or_above_usd: '100' }, actions: [{ type: 'block' }] },
          ],
        },
      ],
    };
    const bu = (o: object) => ({ spend, business_units: { payments: { spend_overrides: [o] } } });
    expect(paths(bu({ rule: 'fm', scope: 'frontier', window: 'monthly', at_or_above_usd: '150', actions: [{ type: 'block' }] }))).toEqual([]);
    // Without actions, an override names the entry with the block action.
    expect(paths(bu({ rule: 'fm', scope: 'frontier', window: 'monthly', at_or_above_usd: '150' }))).toEqual([]);
    const twoNotices = {
      rules: [
        {
          id: 'fm',
          matches: [
            { match: { scope: 'frontier', window: 'monthly', at_or_above_usd: '90' }, actions: [{ type: 'notify', to: ['user'] }] },
            { match: { scope: 'frontier', window: 'monthly', at_or_above_usd: '95' }, actions: [{ type: 'message', text: 'careful' }] },
          ],
        },
      ],
    };
    const ambiguous = parsePolicy({
      spend: twoNotices,
      business_units: { payments: { spend_overrides: [{ rule: 'fm', scope: 'frontier', window: 'monthly', at_or_above_usd: '150' }] } },
    });
    expect(ambiguous.ok ? [] : ambiguous.errors).toEqual([
      { path: 'business_units.payments.spend_overrides[0]', message: 'rule "fm" has 2 monthly entries for scope "frontier"; give actions to choose one' },
    ]);
    expect(paths(bu({ rule: 'nope', scope: 'frontier', window: 'monthly', at_or_above_usd: '150' }))).toEqual([
      'business_units.payments.spend_overrides[0].rule',
    ]);
    expect(paths(bu({ rule: 'fm', scope: 'frontier', window: 'daily', at_or_above_usd: '150', actions: [{ type: 'block' }] }))).toEqual([
      'business_units.payments.spend_overrides[0]',
    ]);
    expect(paths(bu({ rule: 'fm', scope: 'frontier', window: 'monthly', at_or_above_usd: '100', actions: [{ type: 'block' }] }))).toEqual([
      'business_units.payments.spend_overrides[0].at_or_above_usd',
    ]);
    // An override's substitute is held to the entry's test: a known model, outside the scope.
    const tiering = {
      rules: [
        {
          id: 'tier',
          matches: [{ match: { scope: 'frontier', window: 'monthly', at_or_above_usd: '80' }, actions: [{ type: 'substitute', to: ['claude-haiku'] }] }],
        },
      ],
    };
    const sub = (to: string[]) =>
      parsePolicy(
        {
          spend: tiering,
          business_units: {
            payments: {
              spend_overrides: [{ rule: 'tier', scope: 'frontier', window: 'monthly', at_or_above_usd: '120', actions: [{ type: 'substitute', to }] }],
            },
          },
        },
        { registry },
      );
    expect(sub(['gpt-5-mini']).ok).toBe(true);
    const unknown = sub(['no-such-model']);
    expect(unknown.ok ? [] : unknown.errors).toEqual([
      { path: 'business_units.payments.spend_overrides[0].actions[0].to[0]', message: 'unknown model "no-such-model"' },
    ]);
    const inside = sub(['claude-opus']);
    expect(inside.ok ? [] : inside.errors).toEqual([
      { path: 'business_units.payments.spend_overrides[0].actions[0].to[0]', message: 'substitute "claude-opus" is inside the entry\'s own scope "frontier"' },
    ]);
  });

  it('checks pilot dates and roster members', () => {
    expect(paths({ pilots: [{ id: 'p', models: ['gpt-5'], cohort: {}, enforcement: 'authoritative', starts: '2026-12-01', ends: '2026-11-30' }] })).toEqual([
      'pilots[0].ends',
    ]);
    expect(paths({ pilots: [{ id: 'p', models: ['gpt-5'], cohort: {}, enforcement: 'authoritative', starts: '2026-02-30' }] })).toEqual(['pilots[0].starts']);
    expect(
      paths({
        limited_access: { 'gpt-5': { members: [{ user: 'a', application: 'b' }, { expires: '2026-01-01' }, { user: 'c', expires: '2026-01-01T00:00' }] } },
      }),
    ).toEqual(['limited_access.gpt-5.members[0]', 'limited_access.gpt-5.members[1]', 'limited_access.gpt-5.members[2].expires']);
  });

  it('rejects non-objects', () => {
    expect(parsePolicy(null)).toMatchObject({ ok: false });
    expect(parsePolicy([])).toMatchObject({ ok: false });
  });
});
