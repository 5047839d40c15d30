/**
 * The strict zod schema of a policy file: unknown keys are rejected, every violation is
 * reported. Cross-entry checks (duplicates, registry scopes, ordering) live in `checks.ts`.
 * Written with zod/mini (functional checks: `z.optional(x)`, `x.check(...)`), which keeps the
 * edge bundle small.
 */
import { isPolicyDate, isValidTimeZone } from './calendar.js';
import { parseUsdMicros } from './money.js';
import type { Policy } from './policy-types.js';
import * as z from 'zod/mini';
import { useEnglishErrors } from './zod-locale.js';

useEnglishErrors();

/** Lets a cross-field refinement run even when other keys failed, as long as the input is an object. */
const isObjectPayload = (payload: { value: unknown }): boolean => typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value);

const Id = z.string().check(z.minLength(1, 'must not be empty'));
const Ids = z.array(Id);

export const UsdSchema = z
  // Left out: the parse's error map says "missing"; anything else but a string gets this.
  .string({ error: (issue) => (issue.input === undefined ? undefined : 'write USD amounts as decimal strings, e.g. "90" or "12.5"') })
  .check(
    z.refine((s: string) => parseUsdMicros(s) !== undefined, 'a non-negative decimal USD amount with at most 6 decimals, e.g. "90" or "12.5"'),
    z.refine((s: string) => parseUsdMicros(s) !== 0, 'a threshold must be positive'),
  );

const PolicyDate = z.string().check(z.refine(isPolicyDate, 'a date (YYYY-MM-DD) or an ISO date-time with Z or an offset'));

const doc = (text: string) => z.describe(text);

/** Who a rule applies to: lists are OR-ed inside a key and AND-ed across keys; an absent key does not narrow. */
export const PopulationShape = {
  users: z.optional(Ids).check(doc('User ids (principals of kind user).')),
  tiers: z.optional(Ids).check(doc('Principal tiers, e.g. normal, power.')),
  teams: z.optional(Ids).check(doc("Teams (a principal's `team`).")),
  bus: z.optional(Ids).check(doc('Business units.')),
  leaders: z.optional(Ids).check(doc('Leaders: matches a caller whose reporting chain contains one, and the leader themself.')),
  applications: z.optional(Ids).check(doc('Applications: an application key, or a user acting through that application.')),
  exempt_users: z.optional(Ids).check(doc('Users taken out of the population whatever the other keys say.')),
};

const Population = z.strictObject(PopulationShape);
const ScopedPopulation = z.strictObject({ ...PopulationShape, scope: z.optional(Id) });
const Window = z
  .enum(['daily', 'weekly', 'monthly', 'quarterly', 'yearly', 'rolling_24h', 'rolling_7d'])
  .check(
    doc(
      'Calendar window in the policy time zone (weeks start on Monday, ISO weeks), or rolling_24h / rolling_7d: the last 24 hours or 7 days, never reset at midnight.',
    ),
  );
const Per = z
  .enum(['user', 'team', 'bu', 'application', 'workflow', 'platform', 'org'])
  .check(
    doc(
      "Whose counter: the caller's own (user), or the pool it belongs to: its team, bu, application, workflow, platform, or the whole org. A caller without that attribute is not covered.",
    ),
  );
const Enforcement = z.enum(['enforce', 'shadow']).check(doc('shadow: evaluate and record would_block, never refuse.'));
const Message = z.optional(z.string().check(z.minLength(1))).check(doc('Shown to the caller when this action refuses the request.'));

export const SpendActionSchema = z.discriminatedUnion('type', [
  z
    .strictObject({ type: z.literal('block'), message: Message })
    .check(doc('A hard cap: admit a request only if spent + held + its worst-case cost stays within the threshold.')),
  z
    .strictObject({
      type: z.literal('pause'),
      hours: z
        .number()
        .check(
          z.positive('hours must be positive'),
          z.lte(8784, 'a pause is at most a year'),
          doc('How long the pause lasts, at most to the end of the window.'),
        ),
      message: Message,
    })
    .check(doc('Once crossed, refuse for `hours` (once per window).')),
  z.strictObject({ type: z.literal('message'), text: z.string().check(z.minLength(1)) }).check(doc('A message for the caller once the threshold is crossed.')),
  z
    .strictObject({ type: z.literal('notify'), to: z.array(Id).check(z.minLength(1, 'notify needs at least one recipient')) })
    .check(doc('Notify the recipients once per window when the threshold is crossed.')),
  z.strictObject({ type: z.literal('no_promote') }).check(doc('Once crossed, never route to a dearer model than the one asked for.')),
  z
    .strictObject({ type: z.literal('substitute'), to: z.array(Id).check(z.minLength(1, 'substitute needs at least one model')) })
    .check(doc('Once crossed, serve the first of these models the caller may use instead (for the rest of the window).')),
]);

const Actions = z.array(SpendActionSchema).check(z.minLength(1, 'an entry needs at least one action'));

/** Pools that a `teams` population can narrow meaningfully: the team itself, or its members. */
const SEES_TEAMS: ReadonlySet<unknown> = new Set(['user', 'team', undefined]);
const WHOLE: Record<string, string> = { bu: 'business unit', application: 'application', workflow: 'workflow', platform: 'platform', org: 'organisation' };

/** `teams` on an entry pooled by BU, application, workflow, platform or org: the pool does not follow teams. */
function teamsVisible(
  match: unknown,
  per: unknown,
  path: PropertyKey[],
  ctx: { addIssue(issue: { code: 'custom'; path: PropertyKey[]; message: string }): void },
): void {
  const teams = typeof match === 'object' && match !== null ? (match as { teams?: unknown }).teams : undefined;
  if (teams === undefined || SEES_TEAMS.has(per) || typeof per !== 'string' || !(per in WHOLE)) return;
  ctx.addIssue({
    code: 'custom',
    path,
    message: `teams cannot narrow a per: ${per} pool: it counts the whole ${WHOLE[per]}, whatever the team; use per: team (a pool per team) or per: user`,
  });
}

/** Soft actions that happen once per window: they need a window that starts and ends. */
const CALENDAR_ACTIONS: Record<string, string> = {
  pause: 'it pauses once per window, until the window ends at the latest',
  notify: 'it notifies once per window',
  substitute: 'it substitutes until the window rolls over',
};

export const SpendEntrySchema = z
  .strictObject({
    match: z.strictObject({
      ...PopulationShape,
      scope: Id.check(doc('A registry tag or model id: the budget counts spend on every model in it.')),
      window: Window,
      per: z._default(Per, 'user'),
      at_or_above_usd: UsdSchema.check(doc('The threshold in USD, a decimal string such as "100" or "12.5".')),
    }),
    actions: Actions,
  })
  .check(
    z.superRefine(
      (e, ctx) => {
        // Runs even when other keys are invalid (`when`), so the input is only loosely typed here.
        const match = (e as { match?: unknown }).match;
        const m = typeof match === 'object' && match !== null ? (match as { window?: unknown; per?: unknown }) : {};
        teamsVisible(match, m.per, ['match', 'teams'], ctx);
        const actions = (e as { actions?: unknown }).actions;
        if ((m.window !== 'rolling_24h' && m.window !== 'rolling_7d') || !Array.isArray(actions)) return;
        actions.forEach((a: unknown, k) => {
          const type = typeof a === 'object' && a !== null ? (a as { type?: unknown }).type : undefined;
          if (typeof type !== 'string' || !Object.hasOwn(CALENDAR_ACTIONS, type)) return;
          ctx.addIssue({
            code: 'custom',
            path: ['actions', k, 'type'],
            message: `a ${type} action needs a calendar window (${CALENDAR_ACTIONS[type]}), not ${m.window as string}; use daily, weekly, monthly, quarterly or yearly`,
          });
        });
      },
      { when: isObjectPayload },
    ),
  );

export const SpendRuleSchema = z.strictObject({
  id: Id.check(doc('Unique; records carry `spend_limit:<id>` when it refuses.')),
  weight: z._default(z.number(), 0).check(doc('Precedence: higher first; ties keep file order.')),
  enforcement: z.optional(Enforcement),
  description: z.optional(z.string()).check(doc('For people reading the file.')),
  matches: z.array(SpendEntrySchema).check(z.minLength(1, 'a rule needs at least one entry')),
});

const PositiveInt = z.number().check(z.int('must be an integer'), z.positive('must be positive'));

export const RateLimitSchema = z
  .strictObject({
    id: Id.check(doc('Unique; records carry `rate_limit:<id>` when it refuses.')),
    match: z._default(ScopedPopulation, {}).check(doc('Who and (with scope) which models; empty: everyone, every model.')),
    per: z._default(Per, 'user'),
    rpm: z.optional(PositiveInt).check(doc('Requests per minute, per principal (or per pool, with per).')),
    tpm: z.optional(PositiveInt).check(doc("Tokens per minute, per principal or pool (the request's prompt bound plus its output bound).")),
    concurrent: z.optional(PositiveInt).check(doc('At most this many requests of the principal (or pool) in flight at once; a stream counts until it ends.')),
    unlimited: z.optional(z.boolean()).check(doc('An explicit, audited no-cap.')),
    on_store_error: z._default(z.enum(['open', 'closed']), 'closed').check(doc('When the store cannot be reached: closed refuses (503), open admits.')),
    enforcement: z.optional(Enforcement),
  })
  .check(
    z.superRefine(
      (r, ctx) => {
        // Runs even when other keys are invalid (`when`), so the input is only loosely typed here.
        const rpm = (r as { rpm?: unknown }).rpm;
        const tpm = (r as { tpm?: unknown }).tpm;
        const concurrent = (r as { concurrent?: unknown }).concurrent;
        const unlimited = (r as { unlimited?: unknown }).unlimited === true;
        if (unlimited && (rpm !== undefined || tpm !== undefined || concurrent !== undefined)) {
          ctx.addIssue({ code: 'custom', path: ['unlimited'], message: 'unlimited: true cannot also set rpm, tpm or concurrent' });
        }
        if (!unlimited && rpm === undefined && tpm === undefined && concurrent === undefined) {
          ctx.addIssue({ code: 'custom', path: [], message: 'set rpm, tpm, concurrent, or unlimited: true' });
        }
        teamsVisible((r as { match?: unknown }).match, (r as { per?: unknown }).per, ['match', 'teams'], ctx);
      },
      { when: isObjectPayload },
    ),
  );

export const AccessRuleSchema = z
  .strictObject({
    deny_leaders: z.optional(Ids).check(doc('Nobody under these leaders (or one of them) may use it.')),
    allow_leaders: z.optional(Ids).check(doc('Only callers under these leaders may use it.')),
    exempt_users: z.optional(Ids).check(doc('Users the leader rules of this entry do not apply to.')),
    allow_bus: z.optional(Ids).check(doc('Only these business units may use it.')),
    block_bus: z.optional(Ids).check(doc('These business units may not use it.')),
  })
  .check(
    z.superRefine(
      (a, ctx) => {
        if ((a as { allow_bus?: unknown }).allow_bus !== undefined && (a as { block_bus?: unknown }).block_bus !== undefined) {
          ctx.addIssue({ code: 'custom', path: ['block_bus'], message: 'use allow_bus or block_bus, not both' });
        }
      },
      { when: isObjectPayload },
    ),
  );

const RosterMember = z.union([
  Id,
  z
    .strictObject({ user: z.optional(Id), application: z.optional(Id), expires: z.optional(PolicyDate) })
    .check(z.refine((m) => (m.user === undefined) !== (m.application === undefined), 'name exactly one of user or application')),
]);

export const LimitedAccessSchema = z.strictObject({
  members: z.array(RosterMember).check(doc('User ids, or { user | application, expires }: only members may use the models in scope.')),
});

export const PilotSchema = z.strictObject({
  id: Id,
  models: z.array(Id).check(z.minLength(1, 'a pilot needs at least one model or tag'), doc('Model ids or tags the pilot covers.')),
  cohort: z
    .strictObject({
      users: z.optional(Ids),
      tiers: z.optional(Ids),
      teams: z.optional(Ids),
      bus: z.optional(Ids),
      leaders: z.optional(Ids),
      applications: z.optional(Ids),
    })
    .check(doc('While the pilot runs, only this population may use its models.')),
  enforcement: z.enum(['off', 'shadow', 'authoritative']).check(doc('off: ignored; shadow: report would_block; authoritative: refuse outsiders.')),
  starts: z.optional(PolicyDate).check(doc('YYYY-MM-DD (policy time zone) or an ISO date-time; inclusive.')),
  ends: z.optional(PolicyDate).check(doc('YYYY-MM-DD (inclusive, policy time zone) or an ISO date-time (exclusive).')),
  description: z.optional(z.string()),
});

export const BusinessUnitSchema = z.strictObject({
  models: z
    .optional(z.record(Id, z.enum(['on', 'off'])))
    .check(doc('Model id or tag → on/off for this business unit; off narrows, on never re-opens a platform restriction.')),
  spend_overrides: z
    .optional(z.array(z.strictObject({ rule: Id, scope: Id, window: Window, at_or_above_usd: UsdSchema, actions: z.optional(Actions) })))
    .check(doc('Raise the threshold of a platform spend entry (same rule, scope and window) for this business unit.')),
});

export const ToolAllowListSchema = z.strictObject({
  id: Id,
  match: z._default(ScopedPopulation, {}),
  allow: z
    .array(z.string().check(z.regex(/^(?:\*|[^*]+\*?)$/, 'a tool name, optionally ending in * (or * alone)')))
    .check(doc('Tool names; a trailing * matches a prefix, * alone every tool.')),
});

const DlpAction = z.enum(['allow', 'log', 'pseudonymize', 'redact', 'block']);

export const DlpCustomSchema = z.strictObject({
  id: z.string().check(z.regex(/^[a-z][a-z0-9_]*$/, 'an entity id: lower case letters, digits and _, e.g. employee_id')),
  pattern: z.string().check(z.minLength(1, 'must not be empty'), doc('An RE2 pattern (no backreferences or lookaround).')),
  flags: z.optional(z.string().check(z.regex(/^[ims]*$/, 'flags are any of i, m, s'))).check(doc('Any of i, m, s.')),
  max_length: z
    .optional(z.number().check(z.int('must be an integer'), z.positive('must be positive'), z.lte(65536, 'at most 65536')))
    .check(doc('The longest match, held back in a streamed answer to find it across chunks (default 128).')),
});

/** The entry wire formats a prompt may name. */
export const PROMPT_FORMATS = [
  'openai_chat',
  'openai_responses',
  'anthropic_messages',
  'anthropic_vertex',
  'gemini_generate_content',
  'bedrock_converse',
] as const;

export const PromptSchema = z.strictObject({
  id: Id,
  version: z
    .union([Id, z.number().check(z.int('must be an integer'), z.nonnegative('must not be negative'))])
    .check(doc('Recorded as <id>@<version> in policy_prompts.')),
  match: z
    ._default(z.strictObject({ ...PopulationShape, scope: z.optional(Id), formats: z.optional(z.array(Id)) }), {})
    .check(doc('Who gets it: a population, optionally a model scope and entry formats.')),
  text: z.string().check(
    z.refine((t: string) => t.trim().length > 0, 'a prompt needs text'),
    doc("Placed before the client's own system prompt."),
  ),
});

export const RegionRuleSchema = z.strictObject({
  id: Id.check(doc('Unique; records carry `region:<id>` when it leaves the request no deployment.')),
  match: z._default(ScopedPopulation, {}).check(doc('Who and (with scope) which models; empty: everyone, every model.')),
  allow: z
    .array(Id)
    .check(z.minLength(1, 'name at least one region'), doc("Deployment regions (the registry's deployments[].region) these requests may be served in.")),
  enforcement: z.optional(Enforcement),
});

export const DlpUseCaseSchema = z.strictObject({
  id: Id,
  match: z._default(Population, {}),
  actions: z.record(Id, DlpAction).check(doc('Entity type → action; the key * is the fallback.')),
});

export const PolicySchema = z
  .strictObject({
    enforcement: z._default(Enforcement, 'enforce').check(doc('enforce, or shadow: evaluate every rule and record would_block, never refuse.')),
    timezone: z
      ._default(z.string().check(z.refine(isValidTimeZone, 'an IANA time zone such as UTC or Europe/London')), 'UTC')
      .check(doc('One IANA time zone for every daily, weekly, monthly, quarterly and yearly window.')),
    default_max_tokens: z.optional(PositiveInt).check(doc("The output bound set upstream when a client sends none (capped by the model's max_output_tokens).")),
    access: z
      ._default(z.strictObject({ models: z._default(z.record(Id, AccessRuleSchema), {}) }), { models: {} })
      .check(doc('models: model id or tag → who may use it (leaders, business units).')),
    limited_access: z._default(z.record(Id, LimitedAccessSchema), {}).check(doc('Model id or tag → the roster of the only callers who may use it.')),
    pilots: z._default(z.array(PilotSchema), []).check(doc('Time-boxed cohorts: while active, only the cohort may use the models.')),
    business_units: z._default(z.record(Id, BusinessUnitSchema), {}).check(doc('Business unit → model toggles and spend overrides.')),
    spend: z
      ._default(z.strictObject({ rules: z._default(z.array(SpendRuleSchema), []) }), { rules: [] })
      .check(doc('rules: budgets over spend counters, evaluated in precedence order.')),
    rate_limits: z._default(z.array(RateLimitSchema), []).check(doc('RPM, TPM and concurrency limits; the most restrictive matching rule wins.')),
    tools: z
      ._default(z.strictObject({ allow_lists: z._default(z.array(ToolAllowListSchema), []) }), { allow_lists: [] })
      .check(doc('allow_lists: which tools a population may declare.')),
    dlp: z
      ._default(
        z.strictObject({
          default: z._default(z.record(Id, DlpAction), {}).check(doc('Entity type → action for callers in no use case; * is the fallback.')),
          use_cases: z._default(z.array(DlpUseCaseSchema), []).check(doc('Per-population actions; the first whose match covers the caller wins.')),
          custom: z._default(z.array(DlpCustomSchema), []).check(doc("The organisation's own identifiers: RE2 patterns with an entity id.")),
          scan_responses: z._default(z.boolean(), false).check(doc("Also scan the model's answer (default false).")),
        }),
        { default: {}, use_cases: [], custom: [], scan_responses: false },
      )
      .check(doc('What data may leave: entity type → allow, log, pseudonymize, redact or block. Reference: docs/dlp-tools-prompts.md.')),
    prompts: z._default(z.array(PromptSchema), []).check(doc("Policy prompts placed before the client's system prompt for matching callers.")),
    regions: z
      ._default(z.array(RegionRuleSchema), [])
      .check(doc('Where requests may be served: every matching rule narrows routing to deployments in its regions.')),
  })
  .check(doc('A tollgate policy: who may use which model, what may be spent, how fast.'));

/** A policy file as written: the object a YAML or JSON policy file parses to (defaults not filled in). */
export type PolicyFileInput = z.input<typeof PolicySchema>;

// Compile-time proof that the schema's output is a `Policy`.
const _conforms = (p: z.output<typeof PolicySchema>): Policy => p;
void _conforms;
