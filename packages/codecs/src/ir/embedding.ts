import type { Usage } from './usage.js';

/** An embeddings request in canonical form. */
export interface EmbedRequest {
  /** The model as the client named it; absent when it travels in the URL (Gemini). */
  model?: string;
  /** What to embed, in order: texts, or token ids (OpenAI accepts pre-tokenized input). */
  inputs: Array<string | number[]>;
  /** The output dimensionality asked for (OpenAI `dimensions`, Gemini `outputDimensionality`). */
  dimensions?: number;
  /** Gemini's task type (`RETRIEVAL_QUERY`, `SEMANTIC_SIMILARITY`, …); OpenAI has none. */
  taskType?: string;
  /** Gemini's document title (for `RETRIEVAL_DOCUMENT`). */
  title?: string;
  /** How the client wants the vectors: float arrays, or base64 of little-endian float32 (OpenAI). */
  encoding?: 'float' | 'base64';
  /** An end-user identifier (OpenAI `user`). */
  user?: string;
  /** The client sent a batch (an array input, Gemini `batchEmbedContents`), not one input: its answer is a batch too. */
  batch: boolean;
}

/** An embeddings answer in canonical form: one vector per input, in order. */
export interface EmbedResponse {
  model: string;
  vectors: number[][];
  /** Input tokens as the upstream reported them; null when it reports none (Gemini). */
  usage: Usage | null;
}
