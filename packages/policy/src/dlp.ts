/**
 * DLP action per entity type per use case. The use case is the one named by the caller's
 * integration (`useCase`), else the first use case whose `match` covers the principal, else
 * none. An entity's action is looked up in the use case's `actions`, then its `*`, then
 * `dlp.default`, then the default's `*`, and finally `allow`.
 */
import type { DlpAction, Policy } from './policy-types.js';
import { compilePopulation, type Population, type Principal } from './principal.js';

export interface DlpInput {
  policy: Policy;
  principal: Principal;
  /** Entity types found in the request, e.g. `email`, `credit_card`. */
  entities: readonly string[];
  /** An explicit use case id; an unknown one fails closed (`dlp_unknown_use_case`). */
  useCase?: string;
}

export interface DlpDecision {
  /** The use case applied, or null for the defaults. */
  useCase: string | null;
  /** Entity type → action. */
  actions: Record<string, DlpAction>;
  /** Some entity's action is `block` (or the use case is unknown): the request is not sent. */
  blocked: boolean;
  /** `dlp_block:<entity>` per blocking entity, or `dlp_unknown_use_case`. */
  reasons: string[];
}

const RANK: Record<DlpAction, number> = { allow: 0, log: 1, pseudonymize: 2, redact: 3, block: 4 };

/** The strictest of two DLP actions. */
export function stricterDlpAction(a: DlpAction, b: DlpAction): DlpAction {
  return RANK[a] >= RANK[b] ? a : b;
}

interface CompiledDlp {
  dlpDefault: Readonly<Record<string, DlpAction>>;
  dlpUseCases: readonly { id: string; pop: Population; actions: Readonly<Record<string, DlpAction>> }[];
}

const cache = new WeakMap<Policy, CompiledDlp>();

function compileDlp(policy: Policy): CompiledDlp {
  let c = cache.get(policy);
  if (c === undefined) {
    c = {
      dlpDefault: policy.dlp?.default ?? {},
      dlpUseCases: (policy.dlp?.use_cases ?? []).map((u) => ({ id: u.id, pop: compilePopulation(u.match ?? {}), actions: u.actions })),
    };
    cache.set(policy, c);
  }
  return c;
}

/** Decide the DLP action for each entity type found. */
export function decideDlp(input: DlpInput): DlpDecision {
  const c = compileDlp(input.policy);
  const useCase = input.useCase === undefined ? c.dlpUseCases.find((u) => u.pop.matches(input.principal)) : c.dlpUseCases.find((u) => u.id === input.useCase);
  if (input.useCase !== undefined && useCase === undefined) {
    return { useCase: input.useCase, actions: {}, blocked: true, reasons: ['dlp_unknown_use_case'] };
  }
  const own = useCase?.actions;
  const def = c.dlpDefault;
  const d: DlpDecision = { useCase: useCase?.id ?? null, actions: {}, blocked: false, reasons: [] };
  for (const entity of input.entities) {
    const action = pick(own, entity) ?? pick(own, '*') ?? pick(def, entity) ?? pick(def, '*') ?? 'allow';
    d.actions[entity] = action;
    if (action === 'block') {
      d.blocked = true;
      d.reasons.push(`dlp_block:${entity}`);
    }
  }
  return d;
}

function pick(map: Readonly<Record<string, DlpAction>> | undefined, key: string): DlpAction | undefined {
  return map !== undefined && Object.hasOwn(map, key) ? map[key] : undefined;
}
