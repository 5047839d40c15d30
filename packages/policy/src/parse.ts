/**
 * `parsePolicy(raw, { registry })`: the strict schema plus the cross-entry checks, every
 * violation listed at once. Startup refuses a policy that does not parse.
 */
import type * as z from 'zod/mini';
import { isValidTimeZone } from './calendar.js';
import { checkPolicy, type DlpValidation, type SalvagedPolicy, type SalvagedRule } from './checks.js';
import { schemaHints, type SchemaHints } from './hints.js';
import { IssueList, type PolicyIssue } from './issues.js';
import type { Policy } from './policy-types.js';
import type { RegistryView } from './registry-view.js';
import {
  AccessRuleSchema,
  BusinessUnitSchema,
  DlpCustomSchema,
  DlpUseCaseSchema,
  LimitedAccessSchema,
  PilotSchema,
  PolicySchema,
  PromptSchema,
  RateLimitSchema,
  RegionRuleSchema,
  SpendEntrySchema,
  ToolAllowListSchema,
} from './runtime-schema.js';

export interface ParsePolicyOptions {
  /** When given, scopes must be registry tags or model ids and model references must exist. */
  registry?: RegistryView;
  /**
   * Entity types plugged-in recognizers report, and the compiler of custom patterns (the
   * gateway passes both; without `compile`, custom patterns are checked for shape only).
   */
  dlp?: DlpValidation;
}

export type ParsePolicyResult = { ok: true; policy: Policy } | { ok: false; errors: PolicyIssue[] };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function salvageArray<T>(raw: unknown, schema: z.ZodMiniType<T>): (T | undefined)[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((item) => {
    const r = schema.safeParse(item);
    return r.success ? r.data : undefined;
  });
}

const get = (o: unknown, k: string): unknown => (isObject(o) ? o[k] : undefined);

const idsOf = (raw: unknown): (string | undefined)[] =>
  Array.isArray(raw) ? raw.map((x) => (isObject(x) && typeof x['id'] === 'string' ? x['id'] : undefined)) : [];

/** A spend rule keeps its valid entries even when another entry (or the rule itself) is invalid. */
function salvageRules(raw: unknown): (SalvagedRule | undefined)[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((rule) => {
    if (!isObject(rule)) return undefined;
    const id = typeof rule['id'] === 'string' ? rule['id'] : undefined;
    const raws: unknown[] = Array.isArray(rule['matches']) ? rule['matches'] : [];
    const scopes = raws.map((e) => {
      const s = get(get(e, 'match'), 'scope');
      return typeof s === 'string' && s !== '' ? s : undefined;
    });
    return { id, matches: salvageArray(raws, SpendEntrySchema), scopes };
  });
}

function salvageRecord<T>(raw: unknown, schema: z.ZodMiniType<T>): Record<string, T> {
  const out: Record<string, T> = {};
  if (!isObject(raw)) return out;
  for (const [k, v] of Object.entries(raw)) {
    const r = schema.safeParse(v);
    if (r.success && k !== '') out[k] = r.data;
  }
  return out;
}

/** The entries of a policy that failed the schema as a whole, so the checks still see them. */
function salvage(raw: Record<string, unknown>): SalvagedPolicy {
  const tz = raw['timezone'];
  const rules = get(raw['spend'], 'rules');
  return {
    timezone: typeof tz === 'string' && isValidTimeZone(tz) ? tz : 'UTC',
    ids: {
      spendRules: idsOf(rules),
      rateLimits: idsOf(raw['rate_limits']),
      pilots: idsOf(raw['pilots']),
      toolLists: idsOf(get(raw['tools'], 'allow_lists')),
      dlpUseCases: idsOf(get(raw['dlp'], 'use_cases')),
      dlpCustom: idsOf(get(raw['dlp'], 'custom')),
      regions: idsOf(raw['regions']),
    },
    access: salvageRecord(get(raw['access'], 'models'), AccessRuleSchema),
    limitedAccess: salvageRecord(raw['limited_access'], LimitedAccessSchema),
    pilots: salvageArray(raw['pilots'], PilotSchema),
    businessUnits: salvageRecord(raw['business_units'], BusinessUnitSchema),
    spendRules: salvageRules(rules),
    rateLimits: salvageArray(raw['rate_limits'], RateLimitSchema),
    toolLists: salvageArray(get(raw['tools'], 'allow_lists'), ToolAllowListSchema),
    dlpUseCases: salvageArray(get(raw['dlp'], 'use_cases'), DlpUseCaseSchema),
    dlpDefault: isObject(get(raw['dlp'], 'default')) ? (get(raw['dlp'], 'default') as Record<string, unknown>) : {},
    dlpCustom: salvageArray(get(raw['dlp'], 'custom'), DlpCustomSchema),
    prompts: salvageArray(raw['prompts'], PromptSchema),
    regions: salvageArray(raw['regions'], RegionRuleSchema),
  };
}

function fromParsed(p: z.output<typeof PolicySchema>): SalvagedPolicy {
  const ids = <T extends { id: string }>(xs: readonly T[]): string[] => xs.map((x) => x.id);
  return {
    timezone: p.timezone,
    ids: {
      spendRules: ids(p.spend.rules),
      rateLimits: ids(p.rate_limits),
      pilots: ids(p.pilots),
      toolLists: ids(p.tools.allow_lists),
      dlpUseCases: ids(p.dlp.use_cases),
      dlpCustom: ids(p.dlp.custom),
      regions: ids(p.regions),
    },
    access: p.access.models,
    limitedAccess: p.limited_access,
    pilots: p.pilots,
    businessUnits: p.business_units,
    spendRules: p.spend.rules.map((r) => ({ id: r.id, matches: r.matches, scopes: r.matches.map((e) => e.match.scope) })),
    rateLimits: p.rate_limits,
    toolLists: p.tools.allow_lists,
    dlpUseCases: p.dlp.use_cases,
    dlpDefault: p.dlp.default,
    dlpCustom: p.dlp.custom,
    prompts: p.prompts,
    regions: p.regions,
  };
}

function schemaIssues(error: z.core.$ZodError, issues: IssueList, hints: SchemaHints): void {
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) issues.add([...issue.path, key], hints.unknownKey(issue.path, key));
    } else {
      issues.add(issue.path, issue.message);
    }
  }
}

/**
 * Validate a policy document (the object a YAML or JSON policy file parses to). Returns the
 * typed policy with defaults filled in (`enforcement: enforce`, `timezone: UTC`, empty
 * sections), or every violation found, each with a readable path.
 */
export function parsePolicy(raw: unknown, opts: ParsePolicyOptions = {}): ParsePolicyResult {
  const issues = new IssueList();
  const hints = schemaHints();
  const parsed = PolicySchema.safeParse(raw, { error: hints.error });
  if (!parsed.success) schemaIssues(parsed.error, issues, hints);
  if (isObject(raw)) {
    checkPolicy(parsed.success ? fromParsed(parsed.data) : salvage(raw), opts.registry, issues, opts.dlp);
  }
  if (parsed.success && issues.items.length === 0) return { ok: true, policy: parsed.data };
  return { ok: false, errors: issues.items };
}
