/**
 * The strict zod schema of a policy file: unknown keys are rejected, every violation is
 * reported. Cross-entry checks (duplicates, registry scopes, ordering) live in `checks.ts`.
 */
import * as z from 'zod';
import { isPolicyDate, isValidTimeZone } from './calendar.js';
import { parseUsdMicros } from './money.js';
import type { Policy } from './policy-types.js';

/** Lets a cross-field refinement run even when other keys failed, as long as the input is an object. */
const isObjectPayload = (payload: { value: unknown }): boolean =>
  typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value);

const Id = z.string().min(1, 'must not be empty');
const Ids = z.array(Id);

export const UsdSchema = z
  .string({ error: 'write USD amounts as decimal strings, e.g. "90" or "12.5"' })
  .refine((s) => parseUsdMicros(s) !== undefined, 'a non-negative decimal USD amount with at most 6 decimals, e.g. "90" or "12.5"')
  .refine((s) => parseUsdMicros(s) !== 0, 'a threshold must be positive');

const PolicyDate = z
  .string()
  .refine(isPolicyDate, 'a date (YYYY-MM-DD) or an ISO date-time with Z or an offset');

export const PopulationShape = {
  users: Ids.optional(),
  tiers: Ids.optional(),
  bus: Ids.optional(),
  leaders: Ids.optional(),
  applications: Ids.optional(),
  exempt_users: Ids.optional(),
};

const Population = z.strictObject(PopulationShape);
const ScopedPopulation = z.strictObject({ ...PopulationShape, scope: Id.optional() });
const Window = z.enum(['daily', 'weekly', 'monthly', 'quarterly', 'yearly']);
const Enforcement = z.enum(['enforce', 'shadow']);

export const SpendActionSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('block'), message: z.string().min(1).optional() }),
  z.strictObject({
    type: z.literal('pause'),
    hours: z.number().positive('hours must be positive').max(8784, 'a pause is at most a year'),
    message: z.string().min(1).optional(),
  }),
  z.strictObject({ type: z.literal('message'), text: z.string().min(1) }),
  z.strictObject({ type: z.literal('notify'), to: z.array(Id).min(1, 'notify needs at least one recipient') }),
  z.strictObject({ type: z.literal('no_promote') }),
  z.strictObject({ type: z.literal('substitute'), to: z.array(Id).min(1, 'substitute needs at least one model') }),
]);

const Actions = z.array(SpendActionSchema).min(1, 'an entry needs at least one action');

export const SpendEntrySchema = z.strictObject({
  match: z.strictObject({ ...PopulationShape, scope: Id, window: Window, at_or_above_usd: UsdSchema }),
  actions: Actions,
});

export const SpendRuleSchema = z.strictObject({
  id: Id,
  weight: z.number().finite().default(0),
  enforcement: Enforcement.optional(),
  description: z.string().optional(),
  matches: z.array(SpendEntrySchema).min(1, 'a rule needs at least one entry'),
});

const PositiveInt = z.number().int('must be an integer').positive('must be positive');

export const RateLimitSchema = z
  .strictObject({
    id: Id,
    match: ScopedPopulation.default({}),
    rpm: PositiveInt.optional(),
    tpm: PositiveInt.optional(),
    unlimited: z.boolean().optional(),
    on_store_error: z.enum(['open', 'closed']).default('closed'),
    enforcement: Enforcement.optional(),
  })
  .superRefine((r, ctx) => {
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
  }, { when: isObjectPayload });

export const AccessRuleSchema = z
  .strictObject({
    deny_leaders: Ids.optional(),
    allow_leaders: Ids.optional(),
    exempt_users: Ids.optional(),
    allow_bus: Ids.optional(),
    block_bus: Ids.optional(),
  })
  .superRefine((a, ctx) => {
    if ((a as { allow_bus?: unknown }).allow_bus !== undefined && (a as { block_bus?: unknown }).block_bus !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['block_bus'], message: 'use allow_bus or block_bus, not both' });
    }
  }, { when: isObjectPayload });

const RosterMember = z.union([
  Id,
  z
    .strictObject({ user: Id.optional(), application: Id.optional(), expires: PolicyDate.optional() })
    .refine((m) => (m.user === undefined) !== (m.application === undefined), 'name exactly one of user or application'),
]);

export const LimitedAccessSchema = z.strictObject({ members: z.array(RosterMember) });

export const PilotSchema = z.strictObject({
  id: Id,
  models: z.array(Id).min(1, 'a pilot needs at least one model or tag'),
  cohort: z.strictObject({
    users: Ids.optional(), tiers: Ids.optional(), bus: Ids.optional(), leaders: Ids.optional(), applications: Ids.optional(),
  }),
  enforcement: z.enum(['off', 'shadow', 'authoritative']),
  starts: PolicyDate.optional(),
  ends: PolicyDate.optional(),
  description: z.string().optional(),
});

export const BusinessUnitSchema = z.strictObject({
  models: z.record(Id, z.enum(['on', 'off'])).optional(),
  spend_overrides: z
    .array(z.strictObject({ rule: Id, scope: Id, window: Window, at_or_above_usd: UsdSchema, actions: Actions.optional() }))
    .optional(),
});

export const ToolAllowListSchema = z.strictObject({
  id: Id,
  match: ScopedPopulation.default({}),
  allow: z.array(z.string().regex(/^(?:\*|[^*]+\*?)$/, 'a tool name, optionally ending in * (or * alone)')),
});

const DlpAction = z.enum(['allow', 'log', 'redact', 'block']);

export const DlpUseCaseSchema = z.strictObject({
  id: Id,
  match: Population.default({}),
  actions: z.record(Id, DlpAction),
});

export const PolicySchema = z.strictObject({
  enforcement: Enforcement.default('enforce'),
  timezone: z.string().refine(isValidTimeZone, 'an IANA time zone such as UTC or Europe/London').default('UTC'),
  default_max_tokens: PositiveInt.optional(),
  access: z.strictObject({ models: z.record(Id, AccessRuleSchema).default({}) }).default({ models: {} }),
  limited_access: z.record(Id, LimitedAccessSchema).default({}),
  pilots: z.array(PilotSchema).default([]),
  business_units: z.record(Id, BusinessUnitSchema).default({}),
  spend: z.strictObject({ rules: z.array(SpendRuleSchema).default([]) }).default({ rules: [] }),
  rate_limits: z.array(RateLimitSchema).default([]),
  tools: z.strictObject({ allow_lists: z.array(ToolAllowListSchema).default([]) }).default({ allow_lists: [] }),
  dlp: z
    .strictObject({ default: z.record(Id, DlpAction).default({}), use_cases: z.array(DlpUseCaseSchema).default([]) })
    .default({ default: {}, use_cases: [] }),
});

// Compile-time proof that the schema's output is a `Policy`.
const _conforms = (p: z.output<typeof PolicySchema>): Policy => p;
void _conforms;
