import { plainCost, type Codec, type CostField, type Request as IRRequest } from '@tollgate/codecs/base';
import type { Model } from '../registry/index.js';
import { promptTokenBound, type SizingOptions } from './sizing.js';

/**
 * No bound is taken past this many tokens: far beyond any model, and small enough that its
 * price at any rate stays an exact micro-USD integer. A request bounded here fails every cap.
 */
const MAX_BOUND_TOKENS = 1_000_000_000_000;

/** What a request may use at most, as the reservation prices it. */
export interface RequestBounds {
  promptTokens: number;
  /** All choices together. */
  outputTokens: number;
  /** Fields whose cost no bound covers: a hard-capped or token-limited caller is refused (400). */
  unbounded: CostField[];
}

/**
 * The worst case of a request, as the upstream will bill it: the prompt bound (text, media,
 * every byte of the body the upstream may read), plus what the entry format's cost-bearing
 * fields add (`Codec.costFields`): output once per choice, rejected predictions, the model's
 * whole context window for input the upstream reads from storage. `ir.maxTokens` is set.
 */
export function requestBounds(ir: IRRequest, codec: Codec, model: Model, rawBytes: number, sizing: SizingOptions): RequestBounds {
  const cost = codec.costFields?.(ir) ?? plainCost();
  let prompt = promptTokenBound(ir, sizing, rawBytes) + cost.extraPromptTokens;
  const unbounded = cost.unbounded.slice();
  if (cost.unsizedInput.length > 0) {
    const window = model.capabilities.context_window;
    if (window === undefined) {
      for (const f of cost.unsizedInput) unbounded.push({ field: f.field, reason: `${f.reason}, and the model names no context_window that would bound it` });
    } else prompt = Math.max(prompt, window);
  }
  const perChoice = (ir.maxTokens ?? 0) + (ir.reasoning?.budgetTokens ?? 0) + cost.extraOutputTokens;
  return {
    promptTokens: Math.min(prompt, MAX_BOUND_TOKENS),
    outputTokens: Math.min(perChoice * cost.outputMultiplier, MAX_BOUND_TOKENS),
    unbounded,
  };
}
