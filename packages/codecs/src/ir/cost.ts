/**
 * What a request's wire fields do to its cost beyond what the canonical request shows: the
 * gateway's worst case (what a hard cap reserves) must be a true upper bound of what the
 * upstream bills, so every codec reports the fields of its format that multiply, add to or
 * escape that bound (`Codec.costFields`).
 */

/** A field, by its wire path (`n`, `tools[2]`, `generationConfig.candidateCount`), and why it matters. */
export interface CostField {
  field: string;
  reason: string;
}

export interface CostFields {
  /** The upstream bills the output this many times: one per choice (OpenAI Chat `n`, Gemini `candidateCount`). */
  outputMultiplier: number;
  /** Output tokens the upstream may bill beyond the output bound (rejected predicted outputs), per choice. */
  extraOutputTokens: number;
  /** Prompt tokens the upstream adds that no byte of the body shows (the instructions of vendor-defined tools). */
  extraPromptTokens: number;
  /**
   * Fields that make the upstream read input the body does not hold: a stored conversation
   * (`previous_response_id`), cached content. The prompt is then bounded only by the model's
   * context window.
   */
  unsizedInput: CostField[];
  /**
   * Fields whose cost no bound covers: tools that run on the upstream and are billed per call,
   * audio or image output, premium tiers, work billed after the call returns. A hard-capped
   * caller's request with one of these is refused (400 naming the field), never sent.
   */
  unbounded: CostField[];
}

/** A request whose wire fields add nothing to its cost. */
export function plainCost(): CostFields {
  return { outputMultiplier: 1, extraOutputTokens: 0, extraPromptTokens: 0, unsizedInput: [], unbounded: [] };
}

/**
 * A count of choices as a client may send it: a whole number ≥ 1, or a numeric string (which
 * lenient upstream parsers accept too). Anything else is not a bound.
 */
export function choiceCount(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 1 ? n : undefined;
}
