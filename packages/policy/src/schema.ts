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
const isObjectPayload = (payload: { value: unknown }): boolean =>
  typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value);

const Id = z.string().check(z.minLength(1, 'must not be empty'));
const Ids = z.array(Id);

export const UsdSchema = z
  .string({ error: 'write USD amounts as decimal strings, e.g. "90" or "12.5"' })
  .check(
    z.refine((s: string) => parseUsdMicros(s) !== undefined, 'a non-negative decimal USD amount with at most 6 decimals, e.g. "90" or "12.5"'),
    z.refine((s: string) => parseUsdMicros(s) !== 0, 'a threshold must be positive'),
  );

const PolicyDate = z.string().check(z.refine(isPolicyDate, 'a date (YYYY-MM-DD) or an ISO date-time with Z or an offset'));

export const PopulationShape = {
  users: z.optional(Ids),
  tiers: z.optional(Ids),
  bus: z.optional(Ids),
  leaders: z.optional(Ids),
  applications: z.optional(Ids),
  exempt_users: z.optional(Ids),
};

const Population = z.strictObject(PopulationShape);
const ScopedPopulation = z.strictObject({ ...PopulationShape, scope: z.optional(Id) });
const Window = z.enum(['daily', 'weekly', 'monthly', 'quarterly', 'yearly']);
const Enforcement = z.enum(['enforce', 'shadow']);
const Message = z.optional(z.string().check(z.minLength(1)));

export const SpendActionSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('block'), message: Message }),
  z.strictObject({
    type: z.literal('pause'),
    hours: z.number().check(z.positive('hours must be positive'), z.lte(8784, 'a pause is at most a year')),
    message: Message,
  }),
  z.strictObject({ type: z.literal('message'), text: z.string().check(z.minLength(1)) }),
  z.strictObject({ type: z.literal('notify'), to: z.array(Id).check(z.minLength(1, 'notify needs at least one recipient')) }),
  z.strictObject({ type: z.literal('no_promote') }),
  z.strictObject({ type: z.literal('substitute'), to: z.array(Id).check(z.minLength(1, 'substitute needs at least one model')) }),
]);

const Actions = z.array(SpendActionSchema).check(z.minLength(1, 'an entry needs at least one action'));

export const SpendEntrySchema = z.strictObject({
  match: z.strictObject({ ...PopulationShape, scope: Id, window: Window, at_or_above_usd: UsdSchema }),
  actions: Actions,
});

export const SpendRuleSchema = z.strictObject({
  id: Id,
  weight: z._default(z.number(), 0),
  enforcement: z.optional(Enforcement),
  description: z.optional(z.string()),
  matches: z.array(SpendEntrySchema).check(z.minLength(1, 'a rule needs at least one entry')),
});

const PositiveInt = z.number().check(z.int('must be an integer'), z.positive('must be positive'));

export const RateLimitSchema = z
  .strictObject({
    id: Id,
    match: z._default(ScopedPopulation, {}),
    rpm: z.optional(PositiveInt),
    tpm: z.optional(PositiveInt),
    unlimited: z.optional(z.boolean()),
    on_store_error: z._default(z.enum(['open', 'closed']), 'closed'),
    enforcement: z.optional(Enforcement),
  })
  .check(
    z.superRefine(
      (r, ctx) => {
        // Runs even when other keys are invalid (`when`), so the input is only loosely typed here.
        const rpm = (r as { rpm?: unknown }).rpm;
        const tpm = (r as { tpm?: unknown }).tpm;
        const unlimited = (r as { unlimited?: unknown }).unlimited === true;
        if (unlimited && (rpm !== undefined || tpm !== undefined)) {
          ctx.addIssue({ code: 'custom', path: ['unlimited'], message: 'unlimited: true cannot also set rpm or tpm' });
        }
        if (!unlimited && rpm === undefined && tpm === undefined) {
          ctx.addIssue({ code: 'custom', path: [], message: 'set rpm, tpm, or unlimited: true' });
        }
      },
      { when: isObjectPayload },
    ),
  );

export const AccessRuleSchema = z
  .strictObject({
    deny_leaders: z.optional(Ids),
    allow_leaders: z.optional(Ids),
    exempt_users: z.optional(Ids),
    allow_bus: z.optional(Ids),
    block_bus: z.optional(Ids),
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

export const LimitedAccessSchema = z.strictObject({ members: z.array(RosterMember) });

export const PilotSchema = z.strictObject({
  id: Id,
  models: z.array(Id).check(z.minLength(1, 'a pilot needs at least one model or tag')),
  cohort: z.strictObject({
    users: z.optional(Ids), tiers: z.optional(Ids), bus: z.optional(Ids), leaders: z.optional(Ids), applications: z.optional(Ids),
  }),
  enforcement: z.enum(['off', 'shadow', 'authoritative']),
  starts: z.optional(PolicyDate),
  ends: z.optional(PolicyDate),
  description: z.optional(z.string()),
});

export const BusinessUnitSchema = z.strictObject({
  models: z.optional(z.record(Id, z.enum(['on', 'off']))),
  spend_overrides: z.optional(
    z.array(z.strictObject({ rule: Id, scope: Id, window: Window, at_or_above_usd: UsdSchema, actions: z.optional(Actions) })),
  ),
});

export const ToolAllowListSchema = z.strictObject({
  id: Id,
  match: z._default(ScopedPopulation, {}),
  allow: z.array(z.string().check(z.regex(/^(?:\*|[^*]+\*?)$/, 'a tool name, optionally ending in * (or * alone)'))),
});

const DlpAction = z.enum(['allow', 'log', 'pseudonymize', 'redact', 'block']);

export const DlpCustomSchema = z.strictObject({
  id: z.string().check(z.regex(/^[a-z][a-z0-9_]*$/, 'an entity id: lower case letters, digits and _, e.g. employee_id')),
  pattern: z.string().check(z.minLength(1, 'must not be empty')),
  flags: z.optional(z.string().check(z.regex(/^[ims]*$/, 'flags are any of i, m, s'))),
  max_length: z.optional(z.number().check(z.int('must be an integer'), z.positive('must be positive'), z.lte(65536, 'at most 65536'))),
});

/** The entry wire formats a prompt may name. */
export const PROMPT_FORMATS = ['openai_chat', 'openai_responses', 'anthropic_messages', 'anthropic_vertex', 'gemini_generate_content'] as const;

export const PromptSchema = z.strictObject({
  id: Id,
  version: z.union([Id, z.number().check(z.int('must be an integer'), z.nonnegative('must not be negative'))]),
  match: z._default(z.strictObject({ ...PopulationShape, scope: z.optional(Id), formats: z.optional(z.array(Id)) }), {}),
  text: z.string().check(z.refine((t: string) => t.trim().length > 0, 'a prompt needs text')),
});

export const DlpUseCaseSchema = z.strictObject({
  id: Id,
  match: z._default(Population, {}),
  actions: z.record(Id, DlpAction),
});

export const PolicySchema = z.strictObject({
  enforcement: z._default(Enforcement, 'enforce'),
  timezone: z._default(z.string().check(z.refine(isValidTimeZone, 'an IANA time zone such as UTC or Europe/London')), 'UTC'),
  default_max_tokens: z.optional(PositiveInt),
  access: z._default(z.strictObject({ models: z._default(z.record(Id, AccessRuleSchema), {}) }), { models: {} }),
  limited_access: z._default(z.record(Id, LimitedAccessSchema), {}),
  pilots: z._default(z.array(PilotSchema), []),
  business_units: z._default(z.record(Id, BusinessUnitSchema), {}),
  spend: z._default(z.strictObject({ rules: z._default(z.array(SpendRuleSchema), []) }), { rules: [] }),
  rate_limits: z._default(z.array(RateLimitSchema), []),
  tools: z._default(z.strictObject({ allow_lists: z._default(z.array(ToolAllowListSchema), []) }), { allow_lists: [] }),
  dlp: z._default(
    z.strictObject({
      default: z._default(z.record(Id, DlpAction), {}),
      use_cases: z._default(z.array(DlpUseCaseSchema), []),
      custom: z._default(z.array(DlpCustomSchema), []),
      scan_responses: z._default(z.boolean(), false),
    }),
    { default: {}, use_cases: [], custom: [], scan_responses: false },
  ),
  prompts: z._default(z.array(PromptSchema), []),
});

// Compile-time proof that the schema's output is a `Policy`.
const _conforms = (p: z.output<typeof PolicySchema>): Policy => p;
void _conforms;
