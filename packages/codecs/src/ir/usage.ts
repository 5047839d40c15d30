/**
 * Token usage with non-overlapping kinds: `input` excludes cache reads and writes; `output`
 * includes reasoning tokens and `reasoning` says how many of them were reasoning.
 */
export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  /** Cache writes at the default (5-minute) TTL. */
  cacheWrite: number;
  /** Cache writes at the 1-hour TTL. */
  cacheWrite1h: number;
  reasoning: number;
  /** False when the gateway estimated the figures because the upstream never reported them. */
  measured: boolean;
}

export function emptyUsage(measured = true): Usage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, reasoning: 0, measured };
}

/** Prompt tokens as a vendor that counts cached tokens inside the prompt would report them. */
export function promptTokens(u: Usage): number {
  return u.input + u.cacheRead + u.cacheWrite + u.cacheWrite1h;
}
