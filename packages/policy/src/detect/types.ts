/**
 * What a detector finds and the interfaces a detector implements. A finding is a span of the
 * text (UTF-16 offsets, `end` exclusive) and the entity type it holds; never more than that
 * leaves the scanner, so records can carry counts without values.
 */

export interface Finding {
  entity: string;
  start: number;
  end: number;
}

/**
 * A synchronous, pure detector. `scan` appends the spans it finds to `out`, in order of
 * `start`, and must run in time linear in the text (no backtracking on adversarial input).
 * `maxLength` bounds a match (in UTF-16 code units): it is the window a stream holds back so
 * that a value split across chunks is still found.
 */
export interface Detector {
  readonly entity: string;
  readonly maxLength: number;
  scan(text: string, out: Finding[]): void;
}

/**
 * An asynchronous recognizer a team plugs in (a model-based PII recognizer, a lookup service).
 * It is given each text the client sends and returns what it found; it must honour `signal`,
 * which aborts when its time is up. A recognizer that throws, rejects or runs past its
 * `timeoutMs` fails the request closed: it is not sent.
 */
export interface Recognizer {
  /** A name for records and errors. */
  readonly id: string;
  /** The entity types it may report: policy actions may name them. */
  readonly entities: readonly string[];
  /** Per text. Default 2000 ms. */
  readonly timeoutMs?: number;
  recognize(text: string, options: { signal: AbortSignal }): Promise<readonly Finding[]> | readonly Finding[];
}
