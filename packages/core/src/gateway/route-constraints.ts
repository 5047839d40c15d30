/**
 * Stage 6 of the walk, what narrows routing beyond the registry's candidates: the model's
 * capabilities (`tools`, `reasoning`) against what the request asks for, whether the prompt
 * can fit its `context_window`, and the regions the policy and the caller allow deployments
 * in; and, once a spend rule's `no_promote` is active, the price ceiling of the model asked
 * for. Each check only narrows; a model that fails one is not a candidate (nor a budget-tier
 * substitute), and when the requested model fails, the caller gets a clear error in its own
 * format.
 */
import { GatewayError, type Request as IRRequest, type WireFormat } from '@tollgate/codecs/base';
import { decideRegions, type Policy, type Principal, type RegionLimit } from '@tollgate/policy';
import { builtInTools } from './built-in-tools.js';
import { priceUsage, type TokenBounds } from '../pricing/index.js';
import type { Deployment, Model, Registry } from '../registry/index.js';
import { floorTextLength, promptTokenFloor } from './token-floor.js';

/** Why a model cannot take the request: the caller's error and the record's reason. */
export interface Unroutable {
  error: GatewayError;
  reason: string;
}

/** Where each entry format carries reasoning parameters, for the error's `param`. */
const REASONING_PARAM: Record<WireFormat, string> = {
  openai_chat: 'reasoning_effort',
  openai_responses: 'reasoning',
  anthropic_messages: 'thinking',
  anthropic_vertex: 'thinking',
  gemini_generate_content: 'generationConfig.thinkingConfig',
  bedrock_converse: 'additionalModelRequestFields.thinking',
};

const PROMPT_PARAM: Record<WireFormat, string> = {
  openai_chat: 'messages',
  openai_responses: 'input',
  anthropic_messages: 'messages',
  anthropic_vertex: 'messages',
  gemini_generate_content: 'contents',
  bedrock_converse: 'messages',
};

/**
 * Function tools, or any other tool the request declares (`builtInTools`: built-in tools,
 * custom tools, Anthropic `mcp_servers`, OpenAI Chat `web_search_options`).
 */
export function declaresTools(ir: IRRequest): boolean {
  return ir.tools.length > 0 || builtInTools(ir).length > 0;
}

/** The request asks the model to reason: an effort, a budget, thinking on, or thought summaries. Explicitly off is not asking. */
export function asksForReasoning(ir: IRRequest): boolean {
  const r = ir.reasoning;
  // A level the codec does not know is kept as the vendor's own field.
  const vendorEffort = ir.vendor?.fields['reasoning_effort'];
  if (r === undefined) return typeof vendorEffort === 'string' && vendorEffort !== 'none';
  if (r.enabled === false || r.effort === 'none') return false;
  return r.enabled === true || r.effort !== undefined || (r.budgetTokens ?? 0) > 0 || r.summary !== undefined || r.includeThoughts === true;
}

/**
 * The capabilities the request needs and `model` says it lacks (`tools: false`,
 * `reasoning: false`); a capability the registry leaves out is not checked. Null when none.
 * `name` is the model as the caller named it.
 */
export function capabilityRefusal(model: Model, ir: IRRequest, format: WireFormat, name: string): Unroutable | null {
  const caps = model.capabilities;
  if (caps.tools === false && declaresTools(ir)) {
    const error = new GatewayError(
      'unsupported_feature',
      `The model '${name}' does not support tools. Remove the tools from the request, or use a model that supports them.`,
      { param: 'tools' },
    );
    return { error, reason: 'capability:tools' };
  }
  if (caps.reasoning === false && asksForReasoning(ir)) {
    const param = REASONING_PARAM[format];
    const error = new GatewayError(
      'unsupported_feature',
      `The model '${name}' does not support reasoning; remove '${param}' from the request, or use a reasoning model.`,
      { param },
    );
    return { error, reason: 'capability:reasoning' };
  }
  return null;
}

/** The context-length error as each vendor words it (clients and tools recognise these). */
function tooLongMessage(format: WireFormat, floor: number, window: number): string {
  switch (format) {
    case 'anthropic_messages':
    case 'anthropic_vertex':
      return `prompt is too long: at least ${floor} tokens > ${window} maximum`;
    case 'gemini_generate_content':
      return `The input token count (at least ${floor}) exceeds the maximum number of tokens allowed (${window}).`;
    default:
      return `This model's maximum context length is ${window} tokens. However, your messages resulted in at least ${floor} tokens. Please reduce the length of the messages.`;
  }
}

/** Counts a request's prompt floor once, for every model it is checked against. */
export class ContextFit {
  private counted: { system: IRRequest['system']; messages: IRRequest['messages']; floor: number } | null = null;

  /** The prompt's token floor (see `promptTokenFloor`), counted again only when the prompt changed. */
  floor(ir: IRRequest): number {
    const c = this.counted;
    if (c !== null && c.system === ir.system && c.messages === ir.messages) return c.floor;
    const floor = promptTokenFloor(ir);
    this.counted = { system: ir.system, messages: ir.messages, floor };
    return floor;
  }

  /**
   * Refuse a prompt that certainly cannot fit `model`'s `context_window`: its floor (one token
   * per word) is over the window. A prompt that may fit is sent; when it does not, the
   * upstream's own context error is relayed. A text no longer than the window has no more
   * words than it: nothing needs counting then.
   */
  refusal(model: Model, ir: IRRequest, format: WireFormat): Unroutable | null {
    const window = model.capabilities.context_window;
    if (window === undefined || floorTextLength(ir) <= window) return null;
    const floor = this.floor(ir);
    if (floor <= window) return null;
    const error = new GatewayError('context_length_exceeded', tooLongMessage(format, floor, window), { param: PROMPT_PARAM[format] });
    return { error, reason: 'context_length_exceeded' };
  }
}

/** The request header a caller names the deployment regions it accepts with (comma-separated). */
export const REGION_HEADER = 'x-tollgate-region';

/** The regions the caller asks for in `x-tollgate-region`, or null when it names none. */
export function requestedRegions(headers: Pick<Headers, 'get'>): ReadonlySet<string> | null {
  const value = headers.get(REGION_HEADER);
  if (value === null) return null;
  const regions = value
    .split(',')
    .map((r) => r.trim())
    .filter((r) => r !== '');
  return regions.length === 0 ? null : new Set(regions);
}

const inRegions = (d: Pick<Deployment, 'region'>, allowed: { has(region: string): boolean } | readonly string[]): boolean =>
  d.region !== null && ('has' in allowed ? allowed.has(d.region) : allowed.includes(d.region));

export interface RegionRoutingInput {
  policy: Policy | null;
  registry: Registry;
  principal: Principal;
  /** From `x-tollgate-region`: narrows further, never widens what the policy allows. */
  requested: ReadonlySet<string> | null;
  /** The model the caller asked for, and the name it used: its shadow reports go to `wouldBlock` at once. */
  model: string;
  name: string;
  wouldBlock: string[];
}

/**
 * Routing by region: the policy's region rules, then the caller's `x-tollgate-region`, each
 * keeping only deployments whose `region` they allow (a deployment without one is in none).
 * What emptied a model's candidates is kept, for the refusal.
 */
export class RegionRouting {
  private readonly emptied = new Map<string, Unroutable>();
  private readonly shadow = new Map<string, string[]>();

  constructor(private readonly input: RegionRoutingInput) {}

  private rules(model: string): RegionLimit[] {
    const { policy } = this.input;
    return policy === null || (policy.regions ?? []).length === 0
      ? []
      : decideRegions({ policy, registry: this.input.registry, principal: this.input.principal, model }).rules;
  }

  /** The candidates of `model` its regions allow; [] (and a refusal) when none is left. */
  narrow<C extends { readonly deployment: Pick<Deployment, 'region'> }>(model: Model, found: C[]): C[] {
    const requested = this.input.requested;
    const rules = this.rules(model.id);
    if (rules.length === 0 && requested === null) return found;
    let out = found;
    const name = model.id === this.input.model ? this.input.name : model.id;
    const shadow: string[] = [];
    for (const r of rules) {
      const kept = out.filter((c) => inRegions(c.deployment, r.allow));
      if (!r.enforced) {
        if (kept.length === 0 && out.length > 0) shadow.push(r.reason);
        continue;
      }
      if (kept.length === 0 && out.length > 0) {
        const error = new GatewayError('permission_denied', `The model '${name}' is not served in a region this caller may use (${r.allow.join(', ')}).`);
        this.emptied.set(model.id, { error, reason: r.reason });
        return [];
      }
      out = kept;
    }
    this.shadow.set(model.id, shadow);
    if (model.id === this.input.model) this.report(model.id);
    if (requested === null) return out;
    const kept = out.filter((c) => inRegions(c.deployment, requested));
    if (kept.length === 0 && out.length > 0) {
      const list = [...requested].join(', ');
      const error = new GatewayError(
        'invalid_request',
        `The model '${name}' has no deployment in the region${requested.size > 1 ? 's' : ''} asked for in ${REGION_HEADER} (${list}).`,
      );
      this.emptied.set(model.id, { error, reason: 'region_unavailable' });
      return [];
    }
    return kept;
  }

  /** Why `model` has no candidate left for its regions, or null. */
  refusal(model: Model): Unroutable | null {
    return this.emptied.get(model.id) ?? null;
  }

  /** Record in `would_block` the shadow rules that would have left `model` no deployment (the model that serves). */
  report(model: string): void {
    const w = this.input.wouldBlock;
    for (const reason of this.shadow.get(model) ?? []) if (!w.includes(reason)) w.push(reason);
  }

  /** For discovery: whether some enabled deployment of `model` is in the regions allowed. */
  serves(model: Model): boolean {
    const enabled = model.deployments.filter((d) => d.enabled).map((deployment) => ({ deployment }));
    return enabled.length === 0 || this.narrow(model, enabled).length > 0;
  }
}

type Priced = { readonly deployment: Pick<Deployment, 'id' | 'pricing'> };

/**
 * What a request costs at a deployment's list prices, in integer micro-USD: every prompt token
 * at the input rate, the output bound at the output rate, the long-context rates once the
 * prompt bound passes their threshold — `priceUsage` of that usage, exact.
 */
export function listPrice(candidate: Priced, bounds: TokenBounds): number {
  const pricing = candidate.deployment.pricing;
  if (pricing === null) throw new TypeError(`deployment ${candidate.deployment.id} has no pricing`);
  const usage = { input: bounds.promptTokens, output: bounds.outputTokens, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0, measured: false };
  return priceUsage(pricing, usage).total;
}

/**
 * `no_promote`: the request may go only where it costs no more than at the first candidate of
 * the model asked for (the deployment it would be sent to), compared exactly at list prices for
 * this request's bounds. Failover to a dearer deployment, and a dearer substitute, are off.
 */
export class PriceCeiling {
  readonly micros: number;

  constructor(
    first: Priced,
    private readonly bounds: TokenBounds,
  ) {
    this.micros = listPrice(first, bounds);
  }

  /** The candidates not dearer than the ceiling, in order. */
  keep<C extends Priced>(list: readonly C[]): C[] {
    return list.filter((c) => listPrice(c, this.bounds) <= this.micros);
  }
}
